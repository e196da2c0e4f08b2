"""Dense and sparse gradients in one model, for the optimizer tests (each replaces its optimizer): a dense branch,
and two embedding tables whose rows repeat within a batch, a large one (an all-reduce strategy all-gathers its rows)
and a small one (it is densified and all-reduced)."""
import numpy as np
import tensorflow as tf
import keras


def build_model():
    keras.utils.set_random_seed(62)
    x = keras.Input((6,), name="x")
    big = keras.Input((2,), dtype="int64", name="big")
    small = keras.Input((2,), dtype="int64", name="small")
    h = keras.layers.Dense(12, activation="tanh", name="hidden")(x)
    b = keras.layers.Flatten()(keras.layers.Embedding(4000, 6, name="big_table")(big))
    s = keras.layers.Flatten()(keras.layers.Embedding(12, 6, name="small_table")(small))
    out = keras.layers.Dense(1, name="out")(keras.layers.Concatenate()([h, b, s]))
    return keras.Model({"x": x, "big": big, "small": small}, out, name="optimizer_net")


def loss_fn(model, batch):
    features, y = batch
    return tf.reduce_mean(tf.square(tf.squeeze(model(features, training=True), -1) - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(62)
    n = 512
    x = rng.standard_normal((n, 6)).astype("float32")
    big = np.minimum(rng.zipf(1.5, (n, 2)) - 1, 3999)  # popular rows, several times in a batch
    small = rng.integers(0, 12, (n, 2))
    y = (x[:, 0] * x[:, 1] + np.cos(big[:, 0] / 7.0) + small[:, 1] / 6.0 - 1.0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices(({"x": x, "big": big, "small": small}, y))
    return ds.shard(num_workers, worker_index).repeat().batch(8, drop_remainder=True)
