"""One tower of the training graph: the traced step imported with its inputs mapped to what the strategy places.

Variable handles become the tower's all-reduce copy, its node's proxy or the PS variable; a partitioned variable's
reads become a concat of its shards (or a tower-local copy assembled from them, for an op that takes the variable
itself); an embedding lookup becomes a gather of only the rows it needs, on each shard's device. ``b`` is the
graph's builder (``_graph._Builder``): its variables, plans and byte counts.
"""
from __future__ import annotations

import numpy as np

from runners.transform import _partition
from runners.transform._analysis import TracedAnalysis
from runners.transform._plan import VarPlan, node_address


def import_tower(b, r: int, batch: list, an: TracedAnalysis):
    """Import the traced step once more as tower ``r``, fed ``batch``; returns its (loss, gradients, effects)."""
    tf = b.tf
    dev = b.tower_dev[r]
    input_map = dict(zip(an.batch_inputs, batch))
    for p in b.plans:
        ph = an.placeholders.get(("var", p.index))
        if ph is None:
            continue
        if not p.partitioned:
            v = b.unit_var_for_tower(p.units[0], r)
            input_map[ph + ":0"] = v.handle
            if not an.gathers[p.index] and b.remote(v, r):
                b.moved(node_address(p.units[0].device), b.tower_addr[r], p.units[0].num_elements * 4)
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

    def device_fn(op):  # ops on a variable handle go where the variable is (the placer colocates them)
        return "" if any(t.dtype == tf.resource for t in op.inputs) else dev

    read_ops = [x for p in b.plans if not p.partitioned and not an.gathers.get(p.index)
                for x in an.reads.get(p.index, [])]
    gathers = [x for i in an.gathers for x in an.gathers[i]]
    names = an.outputs + an.effects + read_ops + gathers
    with tf.compat.v1.device(device_fn):
        got = tf.graph_util.import_graph_def(an.graph_def, input_map=input_map, return_elements=names,
                                             name=f"tower{r}")
    k = len(an.outputs)
    outputs, effects = got[:k], got[k:k + len(an.effects)]
    by_name = dict(zip(names[k:], got[k:]))
    for p in b.plans:
        if not p.partitioned and not an.gathers.get(p.index):
            b.reads.setdefault(p.units[0].name, []).extend(by_name[x] for x in an.reads.get(p.index, []))
        if an.gathers.get(p.index) and (not p.partitioned or p.axis == 0):
            for gname in an.gathers[p.index]:
                rewire_gather(b, by_name[gname], p, r)
    loss, grads = tf.nest.pack_sequence_as(an.structured_outputs, outputs, expand_composites=True)
    return loss, list(grads), effects


def shards_read(b, p: VarPlan, r: int):
    """Partitioned ``p``'s value on tower ``r``: each unit read where tower r reads it (its copy, its node's proxy
    or the PS), concatenated on the tower; the reads gate the units' updates and count as moved bytes."""
    reads = []
    for u in p.units:
        v = b.unit_var_for_tower(u, r)
        rd = b.read(v)
        b.reads.setdefault(u.name, []).append(rd.op)
        reads.append(rd)
        if b.remote(v, r):
            b.moved(node_address(u.device), b.tower_addr[r], u.num_elements * 4)
    with b.tf.compat.v1.device(b.tower_dev[r]):
        return _partition.concat_read(reads, p)


def assembled(b, p: VarPlan, r: int):
    """The handle of a tower-local copy of partitioned ``p``, assembled from its shards before the step reads
    it: for an op that takes the variable itself rather than its value (a nested ``tf.function`` call), which
    no rewrite of reads can reach. It only reads the copy; the gradient comes out of the step as usual."""
    tf = b.tf
    dev = b.tower_dev[r]
    local = b.var(f"assembled/t{r}/{p.name}", b.values[p.index], dev)
    value = shards_read(b, p, r)
    with tf.compat.v1.device(dev):
        fill = local.assign(value, read_value=False)
        with tf.control_dependencies([fill]):
            return tf.identity(local.handle)


def rewire_gather(b, gather_op, p: VarPlan, r: int) -> None:
    """Replace ``GatherV2(read(var), ids)`` by a gather of only the rows ``ids`` where each unit lives."""
    tf = b.tf
    old = gather_op.outputs[0]
    vs = [b.unit_var_for_tower(u, r) for u in p.units]
    with tf.compat.v1.device(b.tower_dev[r]):
        rows = _partition.gather_rows([v.handle for v in vs], [v.device for v in vs], gather_op.inputs[1], p,
                                      old.dtype, list(p.shape[1:]))
        rows = tf.ensure_shape(rows, gather_op.inputs[1].shape.concatenate(p.shape[1:]))
    for u, v in zip(p.units, vs):
        b.reads.setdefault(u.name, []).append(rows.op)
        if b.remote(v, r):
            n_rows = b.traced.gather_rows[p.index] or 0
            b.moved(node_address(u.device), b.tower_addr[r],
                        n_rows * (int(np.prod(p.shape[1:])) * 4 + 4) * u.size / p.shape[0])
    for consumer in list(old.consumers()):
        for i, t in enumerate(consumer.inputs):
            if t is old:
                consumer._update_input(i, rows)  # noqa: SLF001 - graph surgery after import
