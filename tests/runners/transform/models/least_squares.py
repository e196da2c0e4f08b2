"""Linear least squares y = x W* (a 32x16 matrix): every compressor must drive the loss near zero."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 64
OPTIMIZER = {"name": "sgd", "learning_rate": 1.0}


def build_model():
    keras.utils.set_random_seed(5)
    return keras.Sequential([keras.Input((32,)), keras.layers.Dense(16)], name="lsq")


def loss_fn(model, batch):
    x, y = batch
    return tf.reduce_mean(tf.square(model(x) - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((32, 16)).astype("float32") / 4
    x = rng.standard_normal((4096, 32)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, x @ w)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
