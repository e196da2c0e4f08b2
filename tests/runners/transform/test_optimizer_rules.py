"""The update rules alone, in one local session: each Keras optimizer's update, with the options it offers, applied
for 10 steps to a dense gradient and to a sparse one whose rows repeat equals Keras' own ``apply_gradients``
(``runners.transform._optimizer``; no cluster)."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.slow

STEPS = 10
EXACT = 1e-6  # one process, one device: the same ops in the same order but for the sums of repeated rows


def _cases():
    import keras

    k, s = keras.optimizers, keras.optimizers.schedules
    return {
        "sgd": lambda: k.SGD(0.1),
        "sgd-nesterov-clipvalue-piecewise": lambda: k.SGD(s.PiecewiseConstantDecay([3, 6], [0.1, 0.05, 0.01]),
                                                          momentum=0.9, nesterov=True, clipvalue=0.5),
        "adam-amsgrad-global_clipnorm-ema": lambda: k.Adam(0.01, amsgrad=True, global_clipnorm=1.0, use_ema=True,
                                                           ema_overwrite_frequency=3),
        "adamw-cosine_warmup-global_clipnorm": lambda: k.AdamW(s.CosineDecay(0.0, 100, warmup_target=0.01,
                                                                             warmup_steps=5), global_clipnorm=1.0),
        "adagrad-clipnorm-exponential": lambda: k.Adagrad(s.ExponentialDecay(0.1, 3, 0.9), clipnorm=1.0),
        "rmsprop-centered-momentum-weight_decay": lambda: k.RMSprop(0.01, momentum=0.5, centered=True,
                                                                    weight_decay=0.01),
        "adadelta-clipvalue": lambda: k.Adadelta(1.0, clipvalue=0.5),
        "adamax-exponential": lambda: k.Adamax(s.ExponentialDecay(0.01, 3, 0.9)),
        "nadam-clipnorm": lambda: k.Nadam(0.01, clipnorm=1.0),
        "ftrl-l1-l2-shrinkage-beta": lambda: k.Ftrl(0.1, l1_regularization_strength=0.01,
                                                    l2_regularization_strength=0.01,
                                                    l2_shrinkage_regularization_strength=0.01, beta=0.1),
        "lion-weight_decay-ema": lambda: k.Lion(0.001, weight_decay=0.01, use_ema=True),
    }


NAMES = ["sgd", "sgd-nesterov-clipvalue-piecewise", "adam-amsgrad-global_clipnorm-ema",
         "adamw-cosine_warmup-global_clipnorm", "adagrad-clipnorm-exponential",
         "rmsprop-centered-momentum-weight_decay", "adadelta-clipvalue", "adamax-exponential", "nadam-clipnorm",
         "ftrl-l1-l2-shrinkage-beta", "lion-weight_decay-ema"]
ROWS = np.array([1, 4, 1, 2, 1], np.int64)  # row 1 three times in each step's sparse gradient


def _gradients():
    rng = np.random.default_rng(0)
    start = [rng.standard_normal((6, 3)).astype("float32"), rng.standard_normal((8, 3)).astype("float32")]
    steps = [(rng.standard_normal((6, 3)).astype("float32"), rng.standard_normal((5, 3)).astype("float32"))
             for _ in range(STEPS)]
    return start, steps


def _keras_run(make, start, steps):
    import keras
    import tensorflow as tf

    variables = [keras.Variable(w, name=f"w{i}") for i, w in enumerate(start)]
    opt = make()
    for dense, rows in steps:
        sparse = tf.IndexedSlices(tf.constant(rows), tf.constant(ROWS), tf.constant([8, 3], tf.int64))
        opt.apply_gradients([(tf.constant(dense), variables[0]), (sparse, variables[1])])
    return [v.numpy() for v in variables]


def _graph_run(make, start, steps):
    import tensorflow as tf

    from runners.transform._optimizer import Optimizer
    from space._keras import from_keras

    config, keras_opt = from_keras(make(), "test", "the test's optimizer")
    opt = Optimizer(config, keras_opt)
    with tf.Graph().as_default():
        variables = [tf.Variable(w) for w in start]
        slots = [opt.create_slots(v, lambda name, value: tf.Variable(value)) for v in variables]
        dense = tf.compat.v1.placeholder(tf.float32, [6, 3])
        rows = tf.compat.v1.placeholder(tf.float32, [5, 3])
        grads = [dense, tf.IndexedSlices(rows, tf.constant(ROWS), tf.constant([8, 3], tf.int64))]
        clips = [None, None]
        if opt.clip_kind == "norm":
            clips = [opt.norm_sq(g) for g in grads]
        elif opt.clip_kind == "global":
            clips = [opt.global_scale(tf.add_n([opt.norm_sq(g) for g in grads]))] * 2
        updates = [opt.apply(v, s, g, clip=c) for v, s, g, c in zip(variables, slots, grads, clips)]
        with tf.compat.v1.Session() as session:
            session.run(tf.compat.v1.global_variables_initializer())
            for d, r in steps:
                session.run(updates, {dense: d, rows: r})
            return session.run([v.read_value() for v in variables])


@pytest.mark.parametrize("name", NAMES)
def test_rule_equals_keras(name):
    start, steps = _gradients()
    want = _keras_run(_cases()[name], start, steps)
    got = _graph_run(_cases()[name], start, steps)
    for kind, a, b in zip(("dense", "sparse"), got, want):
        err = float(np.max(np.abs(a - b)) / np.max(np.abs(b)))
        assert err <= EXACT, f"{kind} gradient: relative error {err:.3g}"
