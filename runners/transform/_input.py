"""Each tower's input pipeline, built where the user's code means what it says: eagerly, under TF2 semantics.

The user's ``dataset_fn(r, N)`` is called in the driver's eager context (never inside the TF1 graph the step runs
in, where ``tensor == tensor`` is Python identity and a lookup table's initializer never runs). Its dataset is then
brought into the step graph as a serialized dataset graph (``DatasetToGraphV2``), rebuilt on the tower's device by
``DatasetFromGraph``: the pipeline runs on the node that trains on it, as it would under tf.distribute.

A pipeline that calls back into this process's Python (``from_generator``, ``tf.py_function``, ``tf.numpy_function``)
cannot run on another process. Such a tower is *fed*: the driver iterates the dataset eagerly and feeds each step's
batch through placeholders (one more copy per step, over the network to a remote node).

Every tower's dataset is repeated: a job of ``--steps N`` runs N steps, starting over where a finite pipeline ends
(the reference training in ``_reference`` does the same).
"""
from __future__ import annotations

import dataclasses
from typing import Any

from space.errors import ModelError
from space.model import call_user

# ops that call back into the Python interpreter that built the pipeline
PYTHON_OPS = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})


@dataclasses.dataclass
class TowerInput:
    """One tower's pipeline: its serialized graph, or (fed) an eager iterator over it."""

    element_spec: Any
    serialized: bytes | None  # the dataset's GraphDef, rebuilt on the tower's device
    iterator: Any = None  # fed towers: the eager iterator the driver pulls each step's batch from

    @property
    def fed(self) -> bool:
        return self.serialized is None


def replica_dataset(module, r: int, n: int, source: str):
    """``module.dataset_fn(r, n)``, repeated; a failure or a wrong return type is a :class:`ModelError`."""
    import tensorflow as tf

    ds = call_user(source, f"dataset_fn({r}, {n})", module.dataset_fn, r, n)
    if not isinstance(ds, tf.data.Dataset):
        raise ModelError(f"dataset_fn({r}, {n}) returned {type(ds).__name__}, not a tf.data.Dataset", source)
    return ds.repeat()


def calls_python(graph_def_bytes: bytes) -> bool:
    """Whether a serialized dataset graph holds an op that runs Python code of the process that built it."""
    from tensorflow.core.framework import graph_pb2

    g = graph_pb2.GraphDef.FromString(graph_def_bytes)
    ops = {n.op for n in g.node} | {n.op for f in g.library.function for n in f.node_def}
    return bool(ops & PYTHON_OPS)


def tower_inputs(traced, n: int, skip: int | list[int] = 0) -> list[TowerInput]:
    """The pipelines of ``n`` towers, built eagerly (call outside any graph context); tower r's first ``skip[r]``
    batches skipped (a job resumed where a checkpoint left its data)."""
    import tensorflow as tf

    skips = [skip] * n if isinstance(skip, int) else list(skip)
    if len(skips) != n:  # another strategy: its towers start where the checkpoint's slowest one was
        skips = [min(skips, default=0)] * n
    out = []
    for r in range(n):
        ds = replica_dataset(traced.module, r, n, traced.path)
        if skips[r]:
            ds = ds.skip(skips[r])
        # stateful ops (an unseeded shuffle, random augmentation) are rebuilt on the tower: their draws differ from
        # an eager run's, as they would from one run to the next
        graph = ds._as_serialized_graph(  # noqa: SLF001 - the serialization tf.distribute uses for remote inputs
            external_state_policy=tf.data.experimental.ExternalStatePolicy.IGNORE,
            strip_device_assignment=True).numpy()
        if calls_python(graph):
            out.append(TowerInput(ds.element_spec, None, iter(ds)))
        else:
            out.append(TowerInput(ds.element_spec, graph))
    return out


def build_tower_batch(tf, inp: TowerInput, device: str, name: str, shared_name: str, init_feed: dict,
                      init_ops: list, resources: list) -> tuple[list, list]:
    """Inside the step graph: the flat batch tensors of one tower, and the placeholders the driver feeds (fed
    towers) or none. A served pipeline's iterator is initialized by ``init_ops`` with its graph in ``init_feed``
    (a placeholder: a constant dataset graph would be folded into a variant constant, which cannot cross tasks)."""
    flat_spec = tf.nest.flatten(inp.element_spec, expand_composites=True)
    with tf.compat.v1.device(device), tf.name_scope(name):
        if inp.fed:
            phs = [tf.compat.v1.placeholder(s.dtype, s.shape, name=f"batch{i}") for i, s in enumerate(flat_spec)]
            return phs, phs
        graph_def = tf.compat.v1.placeholder(tf.string, [], name="dataset_graph")
        init_feed[graph_def] = inp.serialized
        variant = tf.raw_ops.DatasetFromGraph(graph_def=graph_def)
        ds = tf.data.experimental.from_variant(variant, inp.element_spec)
        it = tf.compat.v1.data.make_initializable_iterator(ds, shared_name=shared_name)
        init_ops.append(it.initializer)
        resources.append((it._iterator_resource, device))  # noqa: SLF001 - only way to free it
        return tf.nest.flatten(it.get_next(), expand_composites=True), []


def next_feed(tf, inp: TowerInput, placeholders: list) -> dict:
    """The feed of a fed tower's next batch."""
    batch = next(inp.iterator)
    return {ph: t.numpy() for ph, t in zip(placeholders, tf.nest.flatten(batch, expand_composites=True))}
