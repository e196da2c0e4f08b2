"""A `tf.cond` whose branches read different variables: the batch's sign picks one of two heads, so the
conditional takes both heads' variable handles."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32
OPTIMIZER = {"name": "momentum", "learning_rate": 0.05, "momentum": 0.9}


class TwoHeads(keras.Model):
    def __init__(self):
        super().__init__(name="two_heads")
        self.body = keras.layers.Dense(16, activation="tanh", name="body")
        self.up = self.add_weight(shape=(16, 1), initializer="glorot_uniform", name="up")
        self.down = self.add_weight(shape=(16, 1), initializer="glorot_uniform", name="down")

    def call(self, x, training=False):
        h = self.body(x)
        return tf.cond(tf.reduce_mean(x[:, 0]) > 0, lambda: tf.matmul(h, self.up), lambda: tf.matmul(h, self.down))


def build_model():
    keras.utils.set_random_seed(41)
    model = TwoHeads()
    model(tf.zeros([1, 8]))
    return model


def loss_fn(model, batch):
    x, y = batch
    return tf.reduce_mean(tf.square(tf.squeeze(model(x, training=True), -1) - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(41)
    x = rng.standard_normal((2048, 8)).astype("float32")
    y = (x[:, 1] - x[:, 2] * np.sign(x[:, 0])).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
