"""One tower of the training graph: the traced step imported with its inputs mapped to what the strategy places.

Variable handles become the tower's all-reduce copy, its node's proxy or the PS variable; a partitioned variable's
reads become a concat of its shards (or a tower-local copy assembled from them, for an op that takes the variable
itself); an embedding lookup becomes a gather of only the rows it needs, on each shard's device. Loops,
conditionals and nested calls run on the tower's device, and a variable they only read is a tower-local copy
filled by one read a step (docs/design.md, "Control flow runs on its tower"). ``b`` is the graph's builder
(``_graph._Builder``): its variables, plans and reads, and the sizes it expects of what crosses.
"""
from __future__ import annotations

from runners.transform import _partition
from runners.transform._analysis import TracedAnalysis
from runners.transform._plan import VarPlan


def import_tower(b, r: int, batch: list, an: TracedAnalysis):
    """Import the traced step once more as tower ``r``, fed ``batch``; returns its (loss, gradients, effects)."""
    tf = b.tf
    dev = b.tower_dev[r]
    input_map = dict(zip(an.batch_inputs, batch))
    copied, shared = _map_variables(b, r, an, input_map)
    for name, value in an.constants.items():
        with tf.compat.v1.device(dev):
            input_map[name + ":0"] = tf.constant(value)
    for j, name in an.tables.items():  # the tower's own copy of each lookup table
        input_map[name + ":0"] = b.tables[j][r]
    for j, locals_ in enumerate(b.state_local):
        ph = an.placeholders.get(("state", j))
        if ph is None:
            continue
        if locals_:
            with tf.compat.v1.device(dev), tf.control_dependencies([b.state_refresh[j][r]]):
                input_map[ph + ":0"] = tf.identity(locals_[r].handle)
        else:
            input_map[ph + ":0"] = b.state_canon[j].handle

    def device_fn(op):
        # ops on a variable handle go where the variable is (the placer colocates them), but not a loop,
        # conditional or call, which the placer does not colocate: its body runs where the op is placed
        return "" if op.type not in an.functional and any(t.dtype == tf.resource for t in op.inputs) else dev

    read_ops = [x for p in b.plans if not p.partitioned and not an.gathers.get(p.index)
                and p.index not in copied | shared for x in an.reads.get(p.index, [])]
    gathers = [x for i in an.gathers if i not in copied for x in an.gathers[i]]
    names = an.outputs + an.effects + read_ops + gathers
    with tf.compat.v1.device(device_fn):
        got = tf.graph_util.import_graph_def(an.graph_def, input_map=input_map, return_elements=names,
                                             name=f"tower{r}")
    k = len(an.outputs)
    outputs, effects = got[:k], got[k:k + len(an.effects)]
    by_name = dict(zip(names[k:], got[k:]))
    for p in b.plans:
        if p.index in copied:
            continue
        if not p.partitioned and not an.gathers.get(p.index) and p.index not in shared:
            b.reads.setdefault(p.units[0].name, []).extend(by_name[x] for x in an.reads.get(p.index, []))
        if an.gathers.get(p.index) and (not p.partitioned or p.axis == 0):
            for gname in an.gathers[p.index]:
                rewire_gather(b, by_name[gname], p, r, len(an.gathers[p.index]))
    loss, grads = tf.nest.pack_sequence_as(an.structured_outputs, outputs, expand_composites=True)
    return loss, list(grads), effects


def _map_variables(b, r: int, an: TracedAnalysis, input_map: dict) -> tuple[set[int], set[int]]:
    """Map the step's variable handles and reads into ``input_map`` for tower ``r``; returns the plans whose every
    use on the tower reads a tower-local copy (their reads and gathers are left as the step has them), and those
    read more than once, whose reads one read serves (so the value crosses once)."""
    tf = b.tf
    copied: set[int] = set()
    shared: set[int] = set()
    for p in b.plans:
        ph = an.placeholders.get(("var", p.index))
        if ph is None:
            continue
        if not p.partitioned:
            v = b.unit_var_for_tower(p.units[0], r)
            if an.copied(p.index) and not _on_tower(b, v, r):
                input_map[ph + ":0"] = assembled(b, p, r)
                copied.add(p.index)
                continue
            input_map[ph + ":0"] = v.handle
            if len(an.reads.get(p.index, [])) > 1 and not an.gathers.get(p.index):
                shared.add(p.index)
                value = b.read(v)
                b.reads.setdefault(p.units[0].name, []).append(value.op)
                input_map.update({name + ":0": value for name in an.reads[p.index]})
            continue
        if an.others[p.index]:
            input_map[ph + ":0"] = assembled(b, p, r)
            continue
        if an.gathers[p.index] and p.axis == 0:  # its gathers are rewired below; the read is left dead
            dummy = tf.compat.v1.placeholder(tf.as_dtype(b.values[p.index].dtype), p.shape,
                                             name=f"unused_read{r}")
            for name in an.reads[p.index]:
                input_map[name + ":0"] = dummy
            continue
        value = shards_read(b, p, r)
        for name in an.reads[p.index]:
            input_map[name + ":0"] = value
    return copied, shared


def _on_tower(b, v, r: int) -> bool:
    """Whether variable ``v`` lives on tower ``r``'s own device."""
    spec = b.tf.DeviceSpec.from_string
    return spec(v.device) == spec(b.tower_dev[r])


def shards_read(b, p: VarPlan, r: int):
    """Partitioned ``p``'s value on tower ``r``: each unit read where tower r reads it (its copy, its node's proxy
    or the PS), concatenated on the tower; the reads gate the units' updates."""
    reads = []
    for u in p.units:
        v = b.unit_var_for_tower(u, r)
        rd = b.read(v)
        b.reads.setdefault(u.name, []).append(rd.op)
        reads.append(rd)
    with b.tf.compat.v1.device(b.tower_dev[r]):
        return _partition.concat_read(reads, p)


def assembled(b, p: VarPlan, r: int):
    """The handle of a tower-local copy of ``p``, filled from its units before the step reads it: for an op that
    takes the variable itself rather than its value (a loop, a conditional, a nested ``tf.function`` call), which
    no rewrite of reads can reach. The step only reads the copy (one read of each unit crosses, however often a
    loop reads it); the gradient comes out of the step as usual."""
    tf = b.tf
    dev = b.tower_dev[r]
    local = b.var(f"assembled/t{r}/{p.name}", b.values[p.index], dev)
    value = shards_read(b, p, r)
    with tf.compat.v1.device(dev):
        fill = local.assign(value, read_value=False)
        with tf.control_dependencies([fill]):
            return tf.identity(local.handle)


def rewire_gather(b, gather_op, p: VarPlan, r: int, lookups: int = 1) -> None:
    """Replace ``GatherV2(read(var), ids)`` by a gather of only the rows ``ids`` where each unit lives, one of the
    ``lookups`` of ``p`` in the step (which share its traced rows, where the batch's shape decides them)."""
    tf = b.tf
    old = gather_op.outputs[0]
    vs = [b.unit_var_for_tower(u, r) for u in p.units]
    with tf.compat.v1.device(b.tower_dev[r]):
        rows = _partition.gather_rows([v.handle for v in vs], [v.device for v in vs], gather_op.inputs[1], p,
                                      old.dtype, list(p.shape[1:]), (b.traced.gather_rows[p.index] or 0) / lookups,
                                      b.expect,
                                      lambda u, ids: b.gather_ids.setdefault((u.name, r), []).append(ids))
        rows = tf.ensure_shape(rows, gather_op.inputs[1].shape.concatenate(p.shape[1:]))
    for u in p.units:
        b.reads.setdefault(u.name, []).append(rows.op)
    for consumer in list(old.consumers()):
        for i, t in enumerate(consumer.inputs):
            if t is old:
                consumer._update_input(i, rows)  # noqa: SLF001 - graph surgery after import
