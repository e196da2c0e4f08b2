"""What one step of a built training graph sends between its nodes: bytes per (sending node, receiving node).

Read from the graph itself, as TensorFlow will run it: the ops one step runs (those the driver's fetches need),
each on its task (an op without a device runs where the resource it takes lives, as the placer colocates it), and

- every tensor an op of one task passes to ops of another: once per (tensor, receiving task), as the master's
  partition per worker sends it; its size from its static shape, or, where a dimension depends on the batch's
  ids (the rows an embedding gathers, a shard's share of them), from the rows per step the builder expected;
- every collective, by the algorithm TensorFlow runs for it (:mod:`space.wire`): a ring all-reduce, a
  ring all-gather, an all-to-all, among its group's devices in TensorFlow's rank order.

What the driver feeds and fetches goes through the master, for the driver, and is not counted: a fed pipeline's
batches, and the losses it reports (each tower's goes to tower 0's node for the mean the driver fetches).
"""
from __future__ import annotations

import numpy as np

from runners.transform._plan import node_address
from runners.transform._views import Towers
from space import wire
from space.errors import RunError

COLLECTIVE_KINDS = {"CollectiveReduceV2": "reduce", "CollectiveGatherV2": "gather",
                    "CollectiveAllToAllV2": "all_to_all"}


def step_traffic(tg, items: list | None = None) -> dict[tuple[str, str], float]:
    """Bytes per step from node a to node b (addresses) of the :class:`TrainGraph` ``tg``, one step of every tower;
    ``items`` (a list) gets each transfer as (a, b, tensor or collective name, bytes)."""
    import tensorflow as tf

    place = _Placement(tf, tg.task_addresses)
    out: dict[tuple[str, str], float] = {}
    # lockstep, one run of the step; tower by tower, one run of each tower's step (each sends what it needs)
    for fetch in [tg.train_op] if tg.mode == "lockstep" else tg.tower_train_ops:
        for (a, b), nbytes in _run_traffic(tf, ancestors([fetch]), tg, place, items).items():
            out[(a, b)] = out.get((a, b), 0.0) + nbytes
    return out


def _run_traffic(tf, ops: list, tg, place: "_Placement", items: list | None) -> dict[tuple[str, str], float]:
    """Bytes between nodes of one run of ``ops``."""
    out: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, nbytes: float, what: str) -> None:
        if a != b and nbytes:
            out[(a, b)] = out.get((a, b), 0.0) + nbytes
            if items is not None:
                items.append((a, b, what, nbytes))

    sent: set = set()
    groups: dict[tuple[int, int], list] = {}
    for op in ops:
        if op.type in COLLECTIVE_KINDS:
            groups.setdefault(_collective_key(op), []).append(op)
        dst = None
        for t in op.inputs:
            if t.dtype == tf.resource:
                continue
            dst = dst or place.node(op)
            src = place.node(t.op)
            if src != dst and (t.name, dst) not in sent:
                sent.add((t.name, dst))
                add(src, dst, _tensor_bytes(t, tg.expected_elements), t.name)
    for members in groups.values():
        for (a, b), nbytes in _collective_sends(members, place).items():
            add(a, b, nbytes, members[0].name)
    return out


def by_node(traffic: dict[tuple[str, str], float]) -> dict[str, float]:
    """Node address -> the bytes it sends and receives, of ``traffic`` (a -> b)."""
    out: dict[str, float] = {}
    for (a, b), nbytes in traffic.items():
        out[a] = out.get(a, 0.0) + nbytes
        out[b] = out.get(b, 0.0) + nbytes
    return out


def task_addresses(towers: Towers, plans: list) -> dict[str, str]:
    """TF task name -> node address of every device the strategy names: its replicas and its parameter servers."""
    import tensorflow as tf

    devices = list(towers.replicas) + [u.device for p in plans for u in p.units if u.kind == "ps"]
    out = {}
    for d in devices:
        spec = tf.DeviceSpec.from_string(towers.device_of(d))
        out[f"/job:{spec.job}/replica:{spec.replica or 0}/task:{spec.task}"] = node_address(d)
    return out


def ancestors(fetches: list) -> list:
    """The ops one run of ``fetches`` executes: their ancestors by data and control edges."""
    seen: dict[str, object] = {}
    stack = [getattr(x, "op", x) for x in fetches]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen[op.name] = op
        stack += [t.op for t in op.inputs] + list(op.control_inputs)
    return list(seen.values())


class _Placement:
    """The task (node address) each op runs on."""

    def __init__(self, tf, task_addresses: dict[str, str]) -> None:
        self.tf, self.addresses, self._memo = tf, task_addresses, {}

    def device(self, op) -> str:
        if op.name not in self._memo:
            dev = op.device
            if not dev:  # an op on a resource runs where the resource is (the placer colocates them)
                dev = next((self.device(t.op) for t in op.inputs if t.dtype == self.tf.resource), "")
            self._memo[op.name] = dev
        return self._memo[op.name]

    def task(self, device: str) -> str:
        spec = self.tf.DeviceSpec.from_string(device)
        return f"/job:{spec.job}/replica:{spec.replica or 0}/task:{spec.task}"

    def node(self, op) -> str:
        dev = self.device(op)
        if not dev:
            raise RunError(f"op {op.name} ({op.type}) has no device and no resource input to run beside")
        task = self.task(dev)
        if task not in self.addresses:
            raise RunError(f"op {op.name} runs on {dev}, a task of no node of the strategy")
        return self.addresses[task]


def _tensor_bytes(t, expected: dict[str, float]) -> float:
    """Bytes of tensor ``t`` per step: its static size, or the elements the builder expected where its size
    depends on the batch's ids."""
    if t.shape.is_fully_defined():
        return t.shape.num_elements() * t.dtype.size
    if t.name not in expected:
        raise RunError(f"tensor {t.name} crosses tasks with shape {t.shape}, whose size per step nobody expected")
    return expected[t.name] * t.dtype.size


def _const(t) -> int:
    from tensorflow.python.framework import tensor_util

    return int(tensor_util.MakeNdarray(t.op.get_attr("value")))


def _collective_key(op) -> tuple[int, int]:
    return _const(op.inputs[2]), _const(op.inputs[3])  # (group key, instance key)


def _collective_sends(members: list, place: _Placement) -> dict[tuple[str, str], float]:
    """Bytes between nodes of one collective instance (every member's op), by its algorithm."""
    kind = COLLECTIVE_KINDS[members[0].type]
    size = _const(members[0].inputs[1])
    if len(members) != size:
        raise RunError(f"collective {members[0].name} has {len(members)} of its {size} members in the step")
    ranked = sorted(members, key=lambda op: wire.rank_key(place.device(op)))
    nodes = [place.node(op) for op in ranked]
    x = members[0].inputs[0]
    elements = x.shape.num_elements()
    if elements is None:
        raise RunError(f"collective {members[0].name} has a dynamic shape {x.shape}")
    return wire.sends(kind, nodes, elements, x.dtype.size)


def partition_traffic(job) -> dict[tuple[str, str], float]:
    """Bytes of the tensors TensorFlow's partition graphs send between tasks in one step of the running
    :class:`TrainingJob` ``job`` (each tower's step in turn where the towers step on their own), sized by a full
    trace: the measurement :func:`step_traffic` counts ahead (its tensors, not its collectives)."""
    import tensorflow as tf

    g = job.graph
    options = tf.compat.v1.RunOptions(output_partition_graphs=True, trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    total: dict[tuple[str, str], float] = {}
    for fetch in [g.train_op] if g.mode == "lockstep" else g.tower_train_ops:
        meta = tf.compat.v1.RunMetadata()
        job.session.run(fetch, feed_dict=g.feed(), options=options, run_metadata=meta)
        outputs = {(ns.node_name, o.slot): o.tensor_description
                   for dev in meta.step_stats.dev_stats for ns in dev.node_stats for o in ns.output}
        for pg in meta.partition_graphs:
            for n in pg.node:
                if n.op != "_Send":
                    continue
                a, b = (g.task_addresses[n.attr[k].s.decode().split("/device")[0]]
                        for k in ("send_device", "recv_device"))
                src, _, slot = n.input[0].partition(":")
                desc = outputs.get((src, int(slot or 0)))
                if a == b or desc is None:  # within a task, or a control edge's empty message
                    continue
                nbytes = int(np.prod([d.size for d in desc.shape.dim])) * tf.as_dtype(desc.dtype).size
                total[(a, b)] = total.get((a, b), 0.0) + nbytes
    return total
