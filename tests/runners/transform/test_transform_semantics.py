"""Asynchronous PS (no update lost, no barrier), bounded staleness, compressors that converge, sparse transfers."""
from __future__ import annotations

import numpy as np
import pytest

from space.builders import build_strategy
from space.strategy import Strategy, ar_node, ps_node
from space.validate import validate

from testpaths import STEPS

pytestmark = pytest.mark.slow


def _async_strategy(inv, spec, staleness: int) -> Strategy:
    return build_strategy("ps_async", inv, spec, staleness=staleness)


@pytest.mark.parametrize("staleness", [0, 2], ids=["unbounded", "bound2"])
def test_async_applies_every_update(staleness, cluster, spec, traced):
    from runners.transform import TrainingJob
    t, inv = traced("constant_grad")
    C, OPTIMIZER = t.module.C, t.module.OPTIMIZER
    strategy = _async_strategy(inv, spec, staleness)
    validate(strategy, inv, spec)
    steps = 6
    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        assert job.graph.mode == "threads"
        job.run(steps)
        values, _ = job.values()
    # constant gradient C: each of the 2 towers applies it `steps` times, unscaled (async rule)
    expected = -OPTIMIZER["learning_rate"] * 2 * steps * C
    np.testing.assert_allclose(values[inv.names[0]], expected, rtol=1e-6)


@pytest.mark.parametrize("bound", [1, 2], ids=["k1", "k2"])
def test_staleness_bounds_the_lead(bound, cluster, spec, traced):
    from runners.transform import TrainingJob

    t, inv = traced("constant_grad")
    with TrainingJob(t, _async_strategy(inv, spec, bound), cluster, step_timeout_s=60) as job:
        job.run(8, delays={1: 0.05})  # tower 1 is slow; tower 0 must wait for it
        assert job.max_lead <= bound
        assert job.max_lead == bound  # the fast tower does get ahead, up to the bound
        assert job.steps_done == [8, 8]


def test_unbounded_async_runs_ahead(cluster, spec, traced):
    from runners.transform import TrainingJob

    t, inv = traced("constant_grad")
    with TrainingJob(t, _async_strategy(inv, spec, 0), cluster, step_timeout_s=60) as job:
        job.run(8, delays={1: 0.05})
        assert job.max_lead > 2  # no barrier: the fast tower is not held back


def _losses(t, strategy, cluster, steps: int) -> list[float]:
    from runners.transform import TrainingJob

    losses: list[float] = []
    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        job.run(steps, on_step=lambda _s, _dt, loss: losses.append(loss))
    return losses


@pytest.mark.parametrize("alias", ["all_reduce_fp16_ef", "all_reduce_powersgd"])
def test_compressor_converges(alias, cluster, spec, traced):
    t, inv = traced("least_squares")
    plain = _losses(t, build_strategy("all_reduce", inv, spec), cluster, 40)
    losses = _losses(t, build_strategy(alias, inv, spec), cluster, 40)
    assert losses[-1] < 0.02 * losses[0], f"loss {losses[0]:.4f} -> {losses[-1]:.4f}"
    assert losses[-1] < 2 * plain[-1] + 1e-3, f"compressed {losses[-1]:.5f} vs uncompressed {plain[-1]:.5f}"


def test_powersgd_is_low_rank_then_error_feedback_recovers(cluster, spec, traced):
    """Rank 1 on a rank-16 problem: one step is a poor gradient, yet error feedback still converges."""
    t, inv = traced("least_squares")
    nodes = [ar_node(n, compressor="PowerSGDCompressor", powersgd_rank=1) for n in inv.names]
    strategy = Strategy.build(nodes, spec.replicas)
    validate(strategy, inv, spec)
    losses = _losses(t, strategy, cluster, 60)
    assert losses[-1] < 0.25 * losses[0], f"loss {losses[0]:.4f} -> {losses[-1]:.4f}"
    assert losses[-1] < losses[30] < losses[0]


def test_embedding_moves_only_touched_rows(cluster, spec, traced):
    """Recommender tables on the PS: a step moves gathered rows, not the 2.5 MB tables."""
    from runners.transform import TrainingJob

    t, inv = traced("recommender")
    strategy = build_strategy("ps", inv, spec)
    tables = sum(v.bytes for v in inv.variables if v.sparse)
    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        job.run(1)
        assert job.graph.bytes_per_step < 0.1 * tables
        ops = {op.type for op in job.graph.graph.get_operations()}
    assert "ResourceGather" in ops


def test_mixed_strategy_per_shard(cluster, spec, traced, reference):
    """One variable, shards with different synchronizers (PS on each node and all-reduce), uneven sizes."""
    from runners.transform import TrainingJob
    from space.strategy import partitioned_node

    t, inv = traced("mlp")
    nodes = []
    for v in inv.variables:
        if len(v.shape) == 2 and v.shape[0] == 784:
            parts = [ps_node(v.name, spec.ps_devices[0]), ar_node(v.name, group=3), ps_node(v.name, spec.ps_devices[1])]
            nodes.append(partitioned_node(v.name, v.shape, 0, parts))  # 784 = 262 + 261 + 261
        else:
            nodes.append(ps_node(v.name, spec.ps_devices[1], local_replication=True))
    strategy = Strategy.build(nodes, spec.replicas)
    validate(strategy, inv, spec)
    from testpaths import STEPS

    ref_vars, _, _ = reference("mlp")
    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        job.run(STEPS)
        values, _ = job.values()
    for n in ref_vars:
        np.testing.assert_allclose(values[n], ref_vars[n], rtol=1e-5, atol=1e-6 * np.abs(ref_vars[n]).max())


def test_unsynchronized_towers_train_alone(cluster, spec, traced):
    """synchronize=False (what calibrate times as the replicas' compute): no collective in the graph, and tower
    0's copy (embedding tables included) equals replica 0 training alone on its own batches."""
    from runners.transform import TrainingJob
    from runners.transform._reference import reference_train

    t, inv = traced("recommender")
    alone, _, _ = reference_train(t, 2, STEPS, only=0)
    synced, _, _ = reference_train(t, 2, STEPS)
    with TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, step_timeout_s=60, synchronize=False) as job:
        ops = {op.type for op in job.graph.graph.get_operations()}
        job.run(STEPS)
        values, _ = job.values()
    assert not any(o.startswith("Collective") for o in ops)
    for n in alone:
        np.testing.assert_allclose(values[n], alone[n], rtol=1e-5, atol=1e-6 * np.abs(alone[n]).max())
    assert any(not np.allclose(values[n], synced[n], rtol=1e-4) for n in alone)  # not the averaged training


def test_towers_without_updates_compute_every_gradient_and_apply_none(cluster, spec, traced):
    """update=False (what calibrate times as the lockstep step less the optimizer's work): no variable moves, and
    each tower's gradients are computed in full. Grappler turns ops that only control edges wait on into no-ops,
    backward pass and all, so each tower keeps one element of every gradient: they match the tower's gradients
    on its first batch, the embedding tables' (sparse) included."""
    import tensorflow as tf

    from runners.transform import TrainingJob

    t, inv = traced("recommender")
    n = len(spec.replicas)
    with TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, step_timeout_s=60, synchronize=False,
                     update=False) as job:
        before, _ = job.values()
        job.run(1)
        after, _ = job.values()
        g = job.graph.graph
        sinks = sorted((op for op in g.get_operations() if op.type == "VarHandleOp" and "gradient_sink" in op.name),
                       key=lambda op: op.name)
        with g.as_default():
            reads = []
            for op in sinks:
                with tf.compat.v1.device(op.device):
                    reads.append(tf.raw_ops.ReadVariableOp(resource=op.outputs[0], dtype=tf.float32))
        kept = job.session.run(reads)
    assert len(sinks) == n
    for name in before:
        np.testing.assert_array_equal(after[name], before[name])
    for r in range(n):
        _, grads = t.concrete_function(next(iter(t.module.dataset_fn(r, n))))
        first = [float(np.ravel((gr.values if isinstance(gr, tf.IndexedSlices) else gr).numpy())[0]) for gr in grads]
        assert any(isinstance(gr, tf.IndexedSlices) for gr in grads)
        np.testing.assert_allclose(kept[r][0], sum(first), rtol=1e-5, atol=1e-7)
    with pytest.raises(ValueError, match="update=False needs synchronize=False"):
        TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, update=False)


def test_proxied_updates_wait_on_one_control_edge_per_node(spec, traced):
    """An update waits for every read of its unit in the step; for a proxied unit those reads are on other nodes, and
    each control edge between tasks is a message of its own. The step's graph has one such edge per proxied shard
    (from the no-op gathering the reads on the one other node), not one per read for every op of the update."""
    from runners.transform._graph import build_train_graph
    from space.strategy import partitioned_node

    t, inv = traced("mlp")
    servers = spec.ps_devices[:2]
    nodes, shards = [], 0
    for i, v in enumerate(inv.variables):
        if v.shape[0] >= 4:
            parts = [ps_node(v.name, servers[(i + k) % 2], local_replication=True) for k in range(4)]
            nodes.append(partitioned_node(v.name, v.shape, 0, parts))
            shards += 4
        else:
            nodes.append(ps_node(v.name, servers[i % 2], local_replication=True))
            shards += 1
    strategy = Strategy.build(nodes, spec.replicas)
    validate(strategy, inv, spec)
    tasks = {d: f"/job:worker/task:{k}/device:CPU:0" for k, d in enumerate(servers)}
    graph = build_train_graph(t, strategy, lambda d: tasks[d], key_base=1).graph

    def task(op):
        return op.device.split("/task:")[1].split("/")[0] if "/task:" in op.device else None

    crossing = [(c.name, op.name) for op in graph.get_operations() for c in op.control_inputs
                if task(c) is not None and task(op) is not None and task(c) != task(op)]
    assert shards <= len(crossing) <= shards + 2 * len(servers), crossing[:10]
