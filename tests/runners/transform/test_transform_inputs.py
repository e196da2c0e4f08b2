"""The user's input pipeline runs under TF2 semantics on every tower: built eagerly, then served on the tower's
device from its serialized graph, or fed by the driver where it calls back into Python (``from_generator``).
Training through either equals single-device training, across a smaller last batch and the pipeline's end."""
from __future__ import annotations

import numpy as np
import pytest

from space.builders import build_strategy

pytestmark = pytest.mark.slow

STEPS = 7  # past the smaller fifth batch and into the repeated pipeline
CASES = [("tf2_input", "ps", False), ("tf2_input", "all_reduce", False), ("generator_input", "ps", True),
         ("generator_input", "all_reduce", True)]


def rel_err(a, b) -> float:
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12))


@pytest.mark.parametrize("model,alias,fed", CASES, ids=[f"{m}-{a}" for m, a, _ in CASES])
def test_pipeline_trains_like_single_device(model, alias, fed, cluster, spec, traced):
    from runners.transform import TrainingJob
    from runners.transform._reference import reference_train

    t, inv = traced(model)
    want, _, want_losses = reference_train(t, 2, STEPS)
    with TrainingJob(t, build_strategy(alias, inv, spec), cluster, step_timeout_s=60) as job:
        losses = []
        job.run(STEPS, on_step=lambda _s, _dt, loss: losses.append(loss))
        got, _ = job.values()
        assert any(job.graph.feeds) == fed
    worst = max(rel_err(got[n], want[n]) for n in want)
    assert worst <= 1e-5
    assert losses == pytest.approx(want_losses, rel=1e-5)


def test_a_pipeline_in_python_is_fed_and_one_in_tensorflow_is_served(traced):
    from runners.transform._input import tower_inputs

    assert [i.fed for i in tower_inputs(traced("generator_input")[0], 2)] == [True, True]
    assert [i.fed for i in tower_inputs(traced("tf2_input")[0], 2)] == [False, False]


def test_the_step_is_traced_for_the_smaller_last_batch(traced):
    t, inv = traced("tf2_input")
    assert inv.batch_size == 16
    assert t.step_function.structured_input_signature[0][0][0].shape.as_list() == [None, 4]


@pytest.mark.parametrize("model,gathered", [("recommender", True), ("uneven_shards", False)])
def test_an_all_gathered_sparse_gradient_trains_like_single_device(model, gathered, cluster, spec, traced):
    """Rows and indices all-gathered instead of the densified table; where the replicas' batches differ in size
    (the gather's collective keeps one shape) the gradient is densified instead. Exact either way."""
    from runners.transform import TrainingJob
    from runners.transform._reference import reference_train

    t, inv = traced(model)
    strategy = build_strategy("all_reduce", inv, spec)
    for node, var in zip(strategy.nodes, inv.variables):
        node.AllReduceSynchronizer.gather_sparse = var.sparse
    want, _, _ = reference_train(t, 2, STEPS)
    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        job.run(STEPS)
        got, _ = job.values()
        dense = sum(v.bytes for v in inv.variables if v.sparse)
        assert (job.graph.bytes_per_step < dense) == gathered
    assert max(rel_err(got[n], want[n]) for n in want) <= 1e-5
