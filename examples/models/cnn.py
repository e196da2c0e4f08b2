"""A small CNN with BatchNorm and Dropout on synthetic 28x28 images.

Set ``CNN_DETERMINISTIC=1`` in the environment to build it without Dropout (for exact-equality tests).
"""
import os

import numpy as np
import tensorflow as tf
import keras

BATCH = 32  # per replica
OPTIMIZER = {"name": "momentum", "learning_rate": 0.02, "momentum": 0.9}


def build_model():
    keras.utils.set_random_seed(2)
    dropout = 0.0 if os.environ.get("CNN_DETERMINISTIC") == "1" else 0.25
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(16, 3, padding="same", use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(32, 3, padding="same", use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.ReLU(),
        keras.layers.MaxPooling2D(),
        keras.layers.Dropout(dropout),
        keras.layers.Flatten(),
        keras.layers.Dense(10),
    ], name="cnn")


def loss_fn(model, batch):
    x, y = batch
    logits = model(x, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1024, 28, 28, 1)).astype("float32")
    y = (x.reshape(1024, -1)[:, :10].argmax(axis=1)).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
