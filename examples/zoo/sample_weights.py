"""A loss with per-example sample weights: the dataset yields `(x, y, w)` and the loss is a Keras loss object
called with `sample_weight=w`."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 48
OPTIMIZER = {"name": "adam", "learning_rate": 0.003}
bce = keras.losses.BinaryCrossentropy(from_logits=True)


def build_model():
    keras.utils.set_random_seed(24)
    return keras.Sequential([
        keras.Input((10,)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(1),
    ])


def loss_fn(model, batch):
    x, y, w = batch
    logits = model(x, training=True)
    return bce(y, logits, sample_weight=w)


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(24)
    n = 2400
    x = rng.standard_normal((n, 10)).astype("float32")
    y = (x[:, :1] + x[:, 1:2] ** 2 > 1.2).astype("float32")
    w = np.where(y[:, 0] == 1.0, 4.0, 1.0).astype("float32")   # up-weight the rare class
    ds = tf.data.Dataset.from_tensor_slices((x, y, w)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
