"""Parameter-server synchronization: reduce the towers' gradients on the PS device, or apply each as it comes.

Averaging rule (sync): the update is the mean over replicas of each replica's gradient,
``g = (1/N) * sum_r grad L_r`` where ``L_r`` is the loss of replica r's batch. With mean-reduced losses and no
cross-example coupling this is the gradient of the global batch's loss (what single-device training computes).
Async: each tower's own gradient is applied, unscaled, without waiting for the others.
"""
from __future__ import annotations


def aggregate(grads: list, n: int):
    """Mean of the towers' gradients; sparse ones stay sparse (concatenated rows, values scaled by 1/n)."""
    import tensorflow as tf

    if all(isinstance(g, tf.IndexedSlices) for g in grads):
        values = tf.concat([g.values for g in grads], 0) if n > 1 else grads[0].values
        indices = tf.concat([g.indices for g in grads], 0) if n > 1 else grads[0].indices
        return tf.IndexedSlices(values / n if n > 1 else values, indices, grads[0].dense_shape)
    dense = [tf.convert_to_tensor(g) for g in grads]
    return tf.add_n(dense) / n if n > 1 else dense[0]


def wire_bytes(grad, itemsize: int = 4) -> float:
    """Bytes of one gradient pushed to a PS (static estimate: sparse = rows x (row + index))."""
    import tensorflow as tf

    if isinstance(grad, tf.IndexedSlices):
        rows = grad.values.shape[0] if grad.values.shape.rank and grad.values.shape[0] is not None else 0
        return grad.values.shape[1:].num_elements() * rows * itemsize + rows * grad.indices.dtype.size \
            if grad.values.shape[1:].is_fully_defined() else 0.0
    return (grad.shape.num_elements() or 0) * itemsize
