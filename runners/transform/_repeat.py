"""Several training steps in one ``Session.run``: copies of the step's ops in the same graph, each after the last.

A ``Session.run`` over gRPC costs the driver a round trip to the master and the master a step set-up on every
task, whatever the step computes (0.5-1 ms on loopback, more over a network): on a 1-2 ms step that is as much as
the step itself. Copy ``c`` of the step is the step's own ops imported again (the same kernels in the same order,
so k steps in one call train exactly as k calls of one step), with every stateful op that nothing else of the
copy orders made to wait, through one no-op per device, for copy ``c - 1``'s whole train op. Variables, iterators
and other resources are not copied: the copies look them up by the same names. Each copy's collectives get
instance keys of their own (a key names one collective per step).

Fetching copy ``m - 1``'s train op runs copies ``0 .. m - 1`` only: any number of steps up to the copies built.
"""
from __future__ import annotations

import dataclasses

from runners.transform._calls import FUNCTIONAL
from space.errors import RunError

COLLECTIVES = frozenset({"CollectiveReduceV2", "CollectiveGatherV2", "CollectiveAllToAllV2",
                         "CollectiveBcastSendV2", "CollectiveBcastRecvV2"})
INSTANCE_KEY_INPUT = 3  # (input, group_size, group_key, instance_key, ...) of every V2 collective


@dataclasses.dataclass
class StepOps:
    """What one step of the graph is: its ops (in creation order), and the ops and tensors the driver runs."""

    names: list  # op names of the step, setup (variables, iterators, their initializers) excluded
    train_ops: list  # copy c -> the op that runs steps 0..c
    losses: list  # copy c -> its loss tensor (or one per tower, threads mode)
    feeds: list  # copy c -> per tower, the batch placeholders of fed towers
    key_base: int
    key_limit: int  # first collective instance key this trial may not use


def step_ops(graph, init_ops: list, first_op_index: int) -> list:
    """The names of the step's ops: those created from ``first_op_index`` on that no initializer needs."""
    setup: set = set()
    stack = [getattr(x, "op", x) for x in init_ops]
    while stack:
        op = stack.pop()
        if op.name in setup:
            continue
        setup.add(op.name)
        stack += [t.op for t in op.inputs] + list(op.control_inputs)
    return [op.name for op in graph.get_operations()[first_op_index:] if op.name not in setup]


def _instance_keys(nodes: dict) -> dict:
    """Name of each Const that feeds a collective's instance key -> its key."""
    from tensorflow.python.framework import tensor_util

    keys = {}
    for node in nodes.values():
        if node.op in COLLECTIVES:
            src = node.input[INSTANCE_KEY_INPUT].split(":")[0]
            const = nodes.get(src)
            if const is None or const.op != "Const":
                raise RunError(f"collective {node.name} takes its instance key from {src}, not a constant of the step")
            keys[src] = int(tensor_util.MakeNdarray(const.attr["value"].tensor))
    return keys


def add_copies(graph, steps: StepOps, copies: int) -> None:
    """Extend ``steps`` to ``copies`` chained copies of the step in ``graph`` (a no-op when it has as many)."""
    if len(steps.train_ops) >= copies:
        return
    import tensorflow as tf
    from tensorflow.python.framework import tensor_util

    gdef = graph.as_graph_def()
    region = set(steps.names)
    nodes = {n.name: n for n in gdef.node if n.name in region}
    keys = _instance_keys(nodes)
    stride = max(keys.values()) - steps.key_base if keys else 0
    if keys and steps.key_base + stride * copies >= steps.key_limit:
        raise RunError(f"{copies} steps per call need {stride * copies} collective instance keys, more than the "
                       f"{steps.key_limit - steps.key_base} of a trial", hint="run fewer steps per call")
    train_name, loss_names = steps.train_ops[0].name, [t.name for t in tf.nest.flatten(steps.losses[0])]
    feed_names = [[ph.name for ph in phs] for phs in steps.feeds[0]]
    with graph.as_default():
        for c in range(len(steps.train_ops), copies):
            sub, inputs, controls = _copy_def(gdef, nodes, region, keys, c * stride, tensor_util)
            input_map = {x: graph.get_tensor_by_name(x) for x in inputs}
            ops = tf.graph_util.import_graph_def(sub, input_map=input_map, return_elements=[n.name for n in sub.node],
                                                 name=f"step{c}")
            new = dict(zip([n.name for n in sub.node], ops))
            for name, external in controls:
                new[name]._add_control_inputs([graph.get_operation_by_name(external)])  # noqa: SLF001
            _chain(tf, new, steps.train_ops[-1])
            prefix = new[train_name].name[:-len(train_name)]
            steps.train_ops.append(new[train_name])
            flat = [graph.get_tensor_by_name(prefix + n) for n in loss_names]
            steps.losses.append(tf.nest.pack_sequence_as(steps.losses[0], flat))
            steps.feeds.append([[graph.get_tensor_by_name(prefix + n) for n in phs] for phs in feed_names])


def _copy_def(gdef, nodes: dict, region: set, keys: dict, key_offset: int, tensor_util):
    """The step's nodes as a GraphDef to import once more: inputs from outside the step mapped to the graph's own
    tensors (the names returned), control inputs from outside returned to be added after the import, instance keys
    moved on."""
    from tensorflow.core.framework import graph_pb2

    sub = graph_pb2.GraphDef()
    sub.versions.CopyFrom(gdef.versions)
    sub.library.CopyFrom(gdef.library)
    inputs: set = set()
    controls: list = []
    for node in nodes.values():
        n = sub.node.add()
        n.CopyFrom(node)
        if "_class" in n.attr:
            del n.attr["_class"]  # devices are set; a colocation name may point outside the step
        kept = []
        for x in n.input:
            if x.startswith("^"):
                if x[1:] in region:
                    kept.append(x)
                else:
                    controls.append((n.name, x[1:]))
                continue
            name, _, index = x.partition(":")
            x = f"{name}:{index or 0}"
            if name not in region:
                inputs.add(x)
            kept.append(x)
        del n.input[:]
        n.input.extend(kept)
        if n.name in keys and key_offset:
            n.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(keys[n.name] + key_offset,
                                                                          dtype=n.attr["dtype"].type))
    return sub, inputs, controls


def _chain(tf, new: dict, previous) -> None:
    """Make every stateful op of a copy that no other op of the copy orders wait for ``previous`` (the last copy's
    train op), through one no-op per device: a variable read, an update, an iterator's next batch, a collective."""
    members = set(id(op) for op in new.values())
    gated: dict = {}
    gates: dict = {}

    def device_of(op) -> str:
        if op.device:
            return op.device
        for t in op.inputs:  # an op on a variable's handle runs where the variable is
            if t.dtype == tf.resource and t.op.device:
                return t.op.device
        return ""

    def gate(device: str):
        if device not in gates:
            with tf.compat.v1.device(device):
                gates[device] = tf.no_op(name="after_previous_step")
            # not tf.control_dependencies: that marks ``previous`` with an attribute, and ``previous`` has already
            # run in a session, which TensorFlow warns about on every new copy
            gates[device]._add_control_inputs([previous])  # noqa: SLF001
        return gates[device]

    def visit(root) -> None:
        stack = [(root, False)]
        while stack:
            op, expanded = stack.pop()
            if id(op) in gated:
                continue
            preds = [p for p in [t.op for t in op.inputs] + list(op.control_inputs) if id(p) in members]
            if not expanded:
                stack.append((op, True))
                stack += [(p, False) for p in preds if id(p) not in gated]
                continue
            handles = any(t.dtype == tf.resource for t in op.inputs)
            # a loop or conditional is lowered into ops that each start when their own inputs are ready: its
            # reads of a handle would not wait for what orders the op through other inputs, only for its own edge
            done = any(gated.get(id(p)) for p in preds) and not (handles and op.type in FUNCTIONAL)
            if not done and (op._is_stateful or handles):  # noqa: SLF001
                op._add_control_inputs([gate(device_of(op))])  # noqa: SLF001 - ordering after import
                done = True
            gated[id(op)] = done

    for op in new.values():
        visit(op)
