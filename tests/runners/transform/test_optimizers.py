"""Every Keras optimizer the backend runs, with the options users set (schedules, clipping, weight decay, moving
averages), under the PS, all-reduce and mixed builders, on a model with dense and sparse gradients: after 10 steps
on two replicas every variable (dense and sparse alike) and every optimizer slot equals single-device Keras
training (``_reference``), and the slots load into the Keras optimizer. The 30 jobs share one loopback cluster."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from space.builders import build_strategy

pytestmark = pytest.mark.slow

STEPS = 10
EXACT = 1e-5


def _optimizers():
    import keras

    k, s = keras.optimizers, keras.optimizers.schedules
    return {
        "sgd": lambda: k.SGD(s.PiecewiseConstantDecay([3, 6], [0.1, 0.05, 0.02]), momentum=0.9, nesterov=True,
                             clipvalue=0.05),
        "adam": lambda: k.Adam(0.01, amsgrad=True, global_clipnorm=0.3, use_ema=True, ema_overwrite_frequency=4),
        "adamw": lambda: k.AdamW(s.CosineDecay(0.0, 100, warmup_target=0.02, warmup_steps=4), weight_decay=0.05,
                                 global_clipnorm=0.3),
        "adagrad": lambda: k.Adagrad(s.ExponentialDecay(0.2, 3, 0.8), initial_accumulator_value=0.05, clipnorm=0.2),
        "rmsprop": lambda: k.RMSprop(0.005, momentum=0.5, weight_decay=0.02),
        "adadelta": lambda: k.Adadelta(5.0, rho=0.9, clipvalue=0.05),
        "adamax": lambda: k.Adamax(s.InverseTimeDecay(0.02, 4, 0.5)),
        "nadam": lambda: k.Nadam(0.01, clipnorm=0.2, use_ema=True),
        "ftrl": lambda: k.Ftrl(0.2, l1_regularization_strength=1e-3, l2_regularization_strength=1e-2,
                               l2_shrinkage_regularization_strength=1e-3, beta=0.1, global_clipnorm=0.5),
        "lion": lambda: k.Lion(s.PolynomialDecay(3e-3, 20, 1e-4), weight_decay=0.1),
    }


NAMES = ["sgd", "adam", "adamw", "adagrad", "rmsprop", "adadelta", "adamax", "nadam", "ftrl", "lion"]
CASES = [(o, b) for o in NAMES for b in ("ps", "all_reduce", "parallax")]
MODEL = "optimizer_net"
SPARSE = ("big_table/embeddings:0", "small_table/embeddings:0")


def rel_err(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12)) if b.size else 0.0


def _with_optimizer(traced, name: str):
    from space._keras import from_keras

    config, opt = from_keras(_optimizers()[name](), traced.path, "the test's optimizer")
    return dataclasses.replace(traced, optimizer=config, keras_optimizer=opt)


@pytest.mark.parametrize("opt,alias", CASES, ids=[f"{o}-{b}" for o, b in CASES])
def test_optimizer_equals_keras(opt, alias, cluster, spec, traced):
    from runners.train import Checkpoint, keras_optimizer
    from runners.transform import TrainingJob
    from runners.transform._optimizer import Optimizer
    from runners.transform._reference import reference_train

    t0, inv = traced(MODEL)
    assert [n for n, s in zip(inv.names, t0.sparse) if s] == list(SPARSE)
    t = _with_optimizer(t0, opt)
    reference = Optimizer(t.optimizer, t.keras_optimizer).keras()
    want, _, want_losses = reference_train(t, 2, STEPS, optimizer=reference)
    with TrainingJob(t, build_strategy(alias, inv, spec), cluster, step_timeout_s=60) as job:
        losses = []
        job.run(STEPS, on_step=lambda _s, _dt, loss: losses.append(loss))
        values, state, slots = job.snapshot()
    errors = {f"{'sparse' if n in SPARSE else 'dense'} {n}": rel_err(values[n], want[n]) for n in want}
    restored = keras_optimizer(Checkpoint(None, STEPS, values, state, slots, [STEPS], {}), t)
    assert len(restored.variables) == len(reference.variables)  # built alike: the same variables in one order
    errors.update({f"slot {v.name}": rel_err(v.numpy(), w.numpy())
                   for v, w in zip(restored.variables, reference.variables)})
    worst = max(errors, key=errors.get)
    assert errors[worst] <= EXACT, f"{worst}: relative error {errors[worst]:.3g}"
    assert losses == pytest.approx(want_losses, rel=1e-5)


def test_the_sparse_model_reaches_both_all_reduce_paths(spec, traced):
    """Under the all-reduce builder one of its tables is all-gathered and the other densified: both ways a sparse
    gradient is reduced are in the matrix above."""
    t, inv = traced(MODEL)
    nodes = {n.var_name: n for n in build_strategy("all_reduce", inv, spec).proto.node_config}
    gathered = {name: nodes[name].AllReduceSynchronizer.gather_sparse for name in SPARSE}
    assert sorted(gathered.values()) == [False, True], gathered
