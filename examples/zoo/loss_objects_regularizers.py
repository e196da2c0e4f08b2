"""Keras loss objects plus layer weight regularizers: the loss is `keras.losses.SparseCategoricalCrossentropy`
plus `sum(model.losses)` (L2 kernel penalties and an activity regularizer)."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32
OPTIMIZER = {"name": "sgd", "learning_rate": 0.05}
cross_entropy = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def build_model():
    keras.utils.set_random_seed(29)
    return keras.Sequential([
        keras.Input((16,)),
        keras.layers.Dense(64, activation="relu", kernel_regularizer=keras.regularizers.L2(1e-3),
                           activity_regularizer=keras.regularizers.L1(1e-4)),
        keras.layers.Dense(32, activation="relu", kernel_regularizer=keras.regularizers.L2(1e-3)),
        keras.layers.Dense(6, kernel_regularizer=keras.regularizers.L2(1e-3)),
    ])


def loss_fn(model, batch):
    x, y = batch
    logits = model(x, training=True)
    return cross_entropy(y, logits) + tf.add_n(model.losses)


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(29)
    x = rng.standard_normal((2048, 16)).astype("float32")
    y = np.argmax(x[:, :6] - x[:, 6:12], axis=1).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
