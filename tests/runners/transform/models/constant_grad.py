"""A test model whose gradient is a constant: after T applied updates, w = w0 - lr * T * c exactly."""
import numpy as np
import tensorflow as tf

C = np.array([1.0, 2.0, -1.0, 0.5], np.float32)
OPTIMIZER = {"name": "sgd", "learning_rate": 0.125}


class Linear(tf.Module):
    def __init__(self):
        super().__init__(name="linear")
        self.w = tf.Variable(np.zeros(4, np.float32), name="w")


def build_model():
    return Linear()


def loss_fn(model, batch):
    return tf.reduce_sum(model.w * C) + 0.0 * tf.reduce_sum(batch)


def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensors(tf.zeros([2])).repeat()
