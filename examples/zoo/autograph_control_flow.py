"""Python `and` / `or` / `if` on tensors inside a `dataset.map` function and inside the loss; AutoGraph turns
them into tf ops (tf.cond, logical_and/or) when the function is traced."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32
OPTIMIZER = {"name": "sgd", "learning_rate": 0.05}


def build_model():
    keras.utils.set_random_seed(12)
    return keras.Sequential([
        keras.Input((12,)),
        keras.layers.Dense(64, activation="tanh"),
        keras.layers.Dense(32, activation="tanh"),
        keras.layers.Dense(1),
    ])


def preprocess(x, y):
    # clip outliers and flip the label of "suspicious" rows
    if tf.reduce_max(tf.abs(x)) > 2.5:
        x = tf.clip_by_value(x, -2.5, 2.5)
    if x[0] > 1.0 and x[1] < -1.0 or y > 1.5:
        y = 1.0
    else:
        y = tf.minimum(y, 1.0)
    return x, y


def loss_fn(model, batch):
    x, y = batch
    pred = tf.squeeze(model(x, training=True), -1)
    err = pred - y
    mse = tf.reduce_mean(tf.square(err))
    # Huber-like switch on the batch error, written as plain Python control flow
    if mse > 1.0 or tf.reduce_max(tf.abs(err)) > 3.0:
        loss = tf.reduce_mean(tf.abs(err))
    else:
        loss = mse
    if tf.size(y) > 0 and tf.reduce_sum(y) > 0:
        loss = loss + 0.01 * tf.reduce_mean(tf.square(pred))
    return loss


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2048, 12)).astype("float32")
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype("float32") * 2.0
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.map(preprocess).repeat().batch(BATCH, drop_remainder=True)
