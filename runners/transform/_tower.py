"""One tower of the training graph: the traced step imported with its inputs mapped to what the strategy places.

Variable handles become the tower's all-reduce copy, its node's proxy or the PS variable; a partitioned variable's
reads become a concat of its shards (or a tower-local copy assembled from them, for an op that takes the variable
itself); an embedding lookup becomes a gather of only the rows it needs, on each shard's device. Loops,
conditionals and nested calls run on the tower's device, and a variable they only read is a tower-local copy
filled by one read a step (docs/design.md, "Control flow runs on its tower"). What a tower reads of the graph
being built, and where it records what crosses to it, is its :class:`TowerSide`.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np

from runners.transform import _partition
from runners.transform._analysis import TracedAnalysis
from runners.transform._plan import VarPlan
from runners.transform._units import Crossings, read


@dataclasses.dataclass
class TowerSide:
    """What importing the step as tower ``index`` reads of the graph being built, and where it records the reads and
    gathers that cross to the tower (``crossings``: the synchronizers and the bytes ledger read them)."""

    index: int
    device: str  # the tower's TF device
    unit_vars: dict[str, Any]  # unit name -> the variable the tower reads: its copy, its node's proxy or the PS's
    tables: list  # the tower's handle of each lookup table
    state: list[tuple[Any, Any]]  # per state variable: (the variable the step reads, the op refreshing it, or None)
    plans: list[VarPlan]
    values: list[np.ndarray]  # each trainable variable's start: what a tower-local copy starts from
    gather_rows: list  # per trainable variable, the rows its traced gathers take (``TracedStep.gather_rows``)
    make_var: Callable[[str, np.ndarray, str], Any]  # a variable initialized and destroyed with the trial
    crossings: Crossings


def import_tower(t: TowerSide, batch: list, an: TracedAnalysis):
    """Import the traced step once more as tower ``t``, fed ``batch``; returns its (loss, gradients, effects)."""
    import tensorflow as tf

    input_map = dict(zip(an.batch_inputs, batch))
    copied, shared = _map_variables(t, an, input_map)
    for name, value in an.constants.items():
        with tf.compat.v1.device(t.device):
            input_map[name + ":0"] = tf.constant(value)
    for j, name in an.tables.items():  # the tower's own copy of each lookup table
        input_map[name + ":0"] = t.tables[j]
    for j, (var, refresh) in enumerate(t.state):
        ph = an.placeholders.get(("state", j))
        if ph is None:
            continue
        if refresh is not None:
            with tf.compat.v1.device(t.device), tf.control_dependencies([refresh]):
                input_map[ph + ":0"] = tf.identity(var.handle)
        else:
            input_map[ph + ":0"] = var.handle

    def device_fn(op):
        # ops on a variable handle go where the variable is (the placer colocates them), but not a loop,
        # conditional or call, which the placer does not colocate: its body runs where the op is placed
        return "" if op.type not in an.functional and any(x.dtype == tf.resource for x in op.inputs) else t.device

    read_ops = [x for p in t.plans if not p.partitioned and not an.gathers.get(p.index)
                and p.index not in copied | shared for x in an.reads.get(p.index, [])]
    gathers = [x for i in an.gathers if i not in copied for x in an.gathers[i]]
    names = an.outputs + an.effects + read_ops + gathers
    with tf.compat.v1.device(device_fn):
        got = tf.graph_util.import_graph_def(an.graph_def, input_map=input_map, return_elements=names,
                                             name=f"tower{t.index}")
    k = len(an.outputs)
    outputs, effects = got[:k], got[k:k + len(an.effects)]
    by_name = dict(zip(names[k:], got[k:]))
    for p in t.plans:
        if p.index in copied:
            continue
        if not p.partitioned and not an.gathers.get(p.index) and p.index not in shared:
            for x in an.reads.get(p.index, []):
                t.crossings.read(p.units[0].name, by_name[x])
        if an.gathers.get(p.index) and (not p.partitioned or p.axis == 0):
            for gname in an.gathers[p.index]:
                rewire_gather(t, by_name[gname], p, len(an.gathers[p.index]))
    loss, grads = tf.nest.pack_sequence_as(an.structured_outputs, outputs, expand_composites=True)
    return loss, list(grads), effects


def _map_variables(t: TowerSide, an: TracedAnalysis, input_map: dict) -> tuple[set[int], set[int]]:
    """Map the step's variable handles and reads into ``input_map`` for tower ``t``; returns the plans whose every
    use on the tower reads a tower-local copy (their reads and gathers are left as the step has them), and those
    read more than once, whose reads one read serves (so the value crosses once)."""
    import tensorflow as tf

    copied: set[int] = set()
    shared: set[int] = set()
    for p in t.plans:
        ph = an.placeholders.get(("var", p.index))
        if ph is None:
            continue
        if not p.partitioned:
            v = t.unit_vars[p.units[0].name]
            if an.copied(p.index) and not _on_tower(t, v):
                input_map[ph + ":0"] = assembled(t, p)
                copied.add(p.index)
                continue
            input_map[ph + ":0"] = v.handle
            if len(an.reads.get(p.index, [])) > 1 and not an.gathers.get(p.index):
                shared.add(p.index)
                value = read(v)
                t.crossings.read(p.units[0].name, value.op)
                input_map.update({name + ":0": value for name in an.reads[p.index]})
            continue
        if an.others[p.index]:
            input_map[ph + ":0"] = assembled(t, p)
            continue
        if an.gathers[p.index] and p.axis == 0:  # its gathers are rewired below; the read is left dead
            dummy = tf.compat.v1.placeholder(tf.as_dtype(t.values[p.index].dtype), p.shape,
                                             name=f"unused_read{t.index}")
            for name in an.reads[p.index]:
                input_map[name + ":0"] = dummy
            continue
        value = shards_read(t, p)
        for name in an.reads[p.index]:
            input_map[name + ":0"] = value
    return copied, shared


def _on_tower(t: TowerSide, v) -> bool:
    """Whether variable ``v`` lives on the tower's own device."""
    import tensorflow as tf

    return tf.DeviceSpec.from_string(v.device) == tf.DeviceSpec.from_string(t.device)


def shards_read(t: TowerSide, p: VarPlan):
    """Partitioned ``p``'s value on tower ``t``: each unit read where the tower reads it (its copy, its node's proxy
    or the PS), concatenated on the tower; the reads gate the units' updates."""
    import tensorflow as tf

    reads = []
    for u in p.units:
        rd = read(t.unit_vars[u.name])
        t.crossings.read(u.name, rd.op)
        reads.append(rd)
    with tf.compat.v1.device(t.device):
        return _partition.concat_read(reads, p)


def assembled(t: TowerSide, p: VarPlan):
    """The handle of a tower-local copy of ``p``, filled from its units before the step reads it: for an op that
    takes the variable itself rather than its value (a loop, a conditional, a nested ``tf.function`` call), which
    no rewrite of reads can reach. The step only reads the copy (one read of each unit crosses, however often a
    loop reads it); the gradient comes out of the step as usual."""
    import tensorflow as tf

    local = t.make_var(f"assembled/t{t.index}/{p.name}", t.values[p.index], t.device)
    value = shards_read(t, p)
    with tf.compat.v1.device(t.device):
        fill = local.assign(value, read_value=False)
        with tf.control_dependencies([fill]):
            return tf.identity(local.handle)


def rewire_gather(t: TowerSide, gather_op, p: VarPlan, lookups: int = 1) -> None:
    """Replace ``GatherV2(read(var), ids)`` by a gather of only the rows ``ids`` where each unit lives, one of the
    ``lookups`` of ``p`` in the step (which share its traced rows, where the batch's shape decides them)."""
    import tensorflow as tf

    old = gather_op.outputs[0]
    vs = [t.unit_vars[u.name] for u in p.units]
    with tf.compat.v1.device(t.device):
        rows = _partition.gather_rows([v.handle for v in vs], [v.device for v in vs], gather_op.inputs[1], p,
                                      old.dtype, list(p.shape[1:]), (t.gather_rows[p.index] or 0) / lookups,
                                      t.crossings.expect, lambda u, ids: t.crossings.gathered(u.name, t.index, ids))
        rows = tf.ensure_shape(rows, gather_op.inputs[1].shape.concatenate(p.shape[1:]))
    for u in p.units:
        t.crossings.read(u.name, rows.op)
    for consumer in list(old.consumers()):
        for i, x in enumerate(consumer.inputs):
            if x is old:
                consumer._update_input(i, rows)  # noqa: SLF001 - graph surgery after import
