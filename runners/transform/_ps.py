"""Parameter-server synchronization: reduce the towers' gradients on the PS device, or apply each as it comes.

Averaging rule (sync): the update is the mean over replicas of each replica's gradient,
``g = (1/N) * sum_r grad L_r`` where ``L_r`` is the loss of replica r's batch. With mean-reduced losses and no
cross-example coupling this is the gradient of the global batch's loss (what single-device training computes).
Async: each tower's own gradient is applied, unscaled, without waiting for the others (``aggregate([g], 1, ...)``).
"""
from __future__ import annotations


def aggregate(grads: list, n: int, shape: tuple[int, ...]):
    """Mean of the towers' gradients (runs on the server); sparse ones stay sparse (concatenated rows, values scaled
    by 1/n), their dense shape the variable's ``shape``, made here rather than sent by a tower."""
    import tensorflow as tf

    if all(isinstance(g, tf.IndexedSlices) for g in grads):
        values = tf.concat([g.values for g in grads], 0) if len(grads) > 1 else grads[0].values
        indices = tf.concat([g.indices for g in grads], 0) if len(grads) > 1 else grads[0].indices
        return tf.IndexedSlices(values / n if n > 1 else values, indices, tf.constant(shape, tf.int64))
    dense = [tf.convert_to_tensor(g) for g in grads]
    return tf.add_n(dense) / n if n > 1 else dense[0]

