"""Batches from a Python generator (``from_generator``): the pipeline calls back into the process that built it."""
import numpy as np
import tensorflow as tf
import keras

OPTIMIZER = {"name": "momentum", "learning_rate": 0.05, "momentum": 0.9}


def build_model():
    keras.utils.set_random_seed(12)
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])


def loss_fn(model, batch):
    x, y = batch
    return tf.reduce_mean(tf.square(model(x)[:, 0] - y))


def dataset_fn(worker_index, num_workers):
    def examples():
        rng = np.random.default_rng(100 + worker_index)
        while True:
            x = rng.standard_normal(6).astype("float32")
            yield x, np.float32(x[:3].sum())

    spec = (tf.TensorSpec([6], tf.float32), tf.TensorSpec([], tf.float32))
    return tf.data.Dataset.from_generator(examples, output_signature=spec).batch(8)
