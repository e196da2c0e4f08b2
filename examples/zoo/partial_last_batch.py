"""A finite pipeline batched without `drop_remainder` and without `.repeat()`: the last batch of each epoch is
smaller than the others."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 64
OPTIMIZER = {"name": "adam", "learning_rate": 0.005}


def build_model():
    keras.utils.set_random_seed(28)
    return keras.Sequential([
        keras.Input((5,)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(1),
    ])


def loss_fn(model, batch):
    x, y = batch
    return tf.reduce_mean(tf.square(tf.squeeze(model(x, training=True), -1) - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(28)
    x = rng.standard_normal((1000, 5)).astype("float32")
    y = (x @ np.array([1.0, -2.0, 0.5, 0.0, 3.0])).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.batch(BATCH)
