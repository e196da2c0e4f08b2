"""Single-device training the backend is proven against (and the averaging rule, executable).

Step k: every replica r computes its gradient on batch k of ``dataset_fn(r, N)`` (repeated: a finite pipeline
starts over) from the same parameters, whatever its size (a smaller last batch counts like any other);
the update applies the mean of those gradients with the model's Keras optimizer. A sparse gradient's mean is
every replica's row pieces, each over N (what one device computes on the N batches put together, and what
``model.fit`` hands its optimizer: Keras squares a row's pieces one by one). Non-trainable state
(BatchNorm statistics) becomes the mean over replicas of each replica's updated value (floats; others take
replica 0's). With N=1 this is plain single-device Keras training.
"""
from __future__ import annotations

import numpy as np

from runners.transform._input import replica_dataset
from runners.transform._optimizer import Optimizer


def reference_train(traced, num_replicas: int, steps: int, only: int | None = None,
                    optimizer=None) -> tuple[dict, dict, list[float]]:
    """Train ``traced``'s model in this process; returns (variables, state, mean loss per step) and restores the
    model's variables to their values before the call (so the same trace can seed a distributed run).

    ``only=r``: replica r alone, on its own batches (``dataset_fn(r, num_replicas)``), averaged with nobody.
    ``optimizer``: the Keras optimizer to train with (its slots can be read afterwards), else a fresh one.
    """
    import tensorflow as tf

    trainable, state = traced.trainable, traced.state
    saved = [v.numpy() for v in trainable + state]
    model_vars = list(getattr(traced.model, "trainable_variables", trainable))
    opt = optimizer if optimizer is not None else Optimizer(traced.optimizer, traced.keras_optimizer).keras()
    replicas = range(num_replicas) if only is None else [only]
    iters = [iter(replica_dataset(traced.module, r, num_replicas, traced.path)) for r in replicas]
    losses = []
    try:
        for _ in range(steps):
            start = [v.numpy() for v in state]
            replica_grads, new_state, loss_sum = [], [], 0.0
            for r in range(len(iters)):
                for v, x in zip(state, start):
                    v.assign(x)
                loss, grads = traced.step_function(next(iters[r]))
                replica_grads.append(grads)
                new_state.append([v.numpy() for v in state])
                loss_sum += float(loss)
            for j, v in enumerate(state):
                vals = [s[j] for s in new_state]
                v.assign(np.mean(vals, axis=0).astype(vals[0].dtype) if vals[0].dtype.kind == "f" else vals[0])
            opt.apply_gradients(zip([_mean(tf, gs) for gs in zip(*replica_grads)], model_vars))
            losses.append(loss_sum / len(iters))
        result = ({n: v.numpy() for n, v in zip(traced.names, trainable)},
                  {n: v.numpy() for n, v in zip(traced.state_names, state)})
    finally:
        for v, x in zip(trainable + state, saved):
            v.assign(x)
    return result[0], result[1], losses


def _mean(tf, grads):
    """The mean of the replicas' gradients of one variable: sparse ones as their row pieces, each over N."""
    n = len(grads)
    if all(isinstance(g, tf.IndexedSlices) for g in grads):
        if n == 1:
            return grads[0]
        return tf.IndexedSlices(tf.concat([g.values for g in grads], 0) / n, tf.concat([g.indices for g in grads], 0),
                                grads[0].dense_shape)
    dense = [tf.convert_to_tensor(g) for g in grads]
    return tf.add_n(dense) / n if n > 1 else dense[0]
