"""Every classic builder, 2 workers on real servers: after STEPS synchronous steps the variables (and BatchNorm
state) equal single-device training with the averaging rule of ``runners.transform._reference``."""
from __future__ import annotations

import numpy as np
import pytest

from space.builders import aliases, build_strategy
from space.validate import validate

from testpaths import STEPS

pytestmark = pytest.mark.slow

EXACT = 1e-5  # max |a - b| / max |b|, per variable
FP16 = 1e-2  # fp16 on the wire: rounding of 2^-11 per step, amplified by momentum
TOLERANCE = {"all_reduce_fp16": FP16, "all_reduce_fp16_ef": FP16}
SEMANTICS_ONLY = {"ps_async", "all_reduce_powersgd"}  # tested in test_transform_semantics.py
# one replica a node and no groups here: it builds all_reduce's strategy (test_transform_hierarchical.py runs it)
FLAT_HERE = {"all_reduce_hierarchical"}
CASES = [(m, a) for m in ("mlp", "cnn", "recommender") for a in aliases() if a not in SEMANTICS_ONLY | FLAT_HERE]


def rel_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12))


@pytest.mark.parametrize("model,alias", CASES, ids=[f"{m}-{a}" for m, a in CASES])
def test_equals_single_device(model, alias, cluster, spec, traced, reference):
    from runners.transform import TrainingJob

    t, inv = traced(model)
    strategy = build_strategy(alias, inv, spec)
    validate(strategy, inv, spec)
    ref_vars, ref_state, ref_losses = reference(model)
    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        losses = []
        job.run(STEPS, on_step=lambda _s, _dt, loss: losses.append(loss))
        got_vars, got_state = job.values()
    tol = TOLERANCE.get(alias, EXACT)
    errors = {n: rel_err(got_vars[n], ref_vars[n]) for n in ref_vars}
    errors.update({n: rel_err(got_state[n], ref_state[n]) for n in ref_state})
    worst = max(errors, key=errors.get)
    assert errors[worst] <= tol, f"{worst}: relative error {errors[worst]:.3g} > {tol}"
    assert losses[0] == pytest.approx(ref_losses[0], rel=1e-5)  # same batches, same start


ONE_REPLICA = [(m, a) for m in ("mlp", "cnn", "recommender") for a in ("all_reduce", "parallax")]


@pytest.mark.parametrize("model,alias", ONE_REPLICA, ids=[f"{m}-{a}" for m, a in ONE_REPLICA])
def test_one_replica_equals_single_device(model, alias, cluster, spec, traced):
    """A strategy reduced to one replica (what the backend's overhead is measured on) leaves out the all-reduce's
    fusion and the sparse rows' all-gather: it still trains as the single device does."""
    from runners.transform import TrainingJob, reference_train
    from space.strategy import Strategy

    t, inv = traced(model)
    one = Strategy.build(build_strategy(alias, inv, spec).nodes, spec.replicas[:1])
    ref_vars, _, ref_losses = reference_train(t, 1, STEPS)
    with TrainingJob(t, one, cluster, step_timeout_s=60) as job:
        losses = []
        job.run(STEPS, on_step=lambda _s, _dt, loss: losses.append(loss))
        got_vars, _ = job.values()
    errors = {n: rel_err(got_vars[n], ref_vars[n]) for n in ref_vars}
    worst = max(errors, key=errors.get)
    assert errors[worst] <= EXACT, f"{worst}: relative error {errors[worst]:.3g} > {EXACT}"
    assert losses == pytest.approx(ref_losses, rel=1e-5)
