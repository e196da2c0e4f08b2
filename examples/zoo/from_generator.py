"""`tf.data.Dataset.from_generator` over a Python generator that produces one example at a time."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32
OPTIMIZER = {"name": "sgd", "learning_rate": 0.05}


def examples(seed, count):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        x = rng.normal(size=6).astype("float32")
        yield x, np.int32(x[0] + x[1] > 0)


def build_model():
    keras.utils.set_random_seed(27)
    return keras.Sequential([
        keras.Input((6,)),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(2),
    ])


def loss_fn(model, batch):
    x, y = batch
    logits = model(x, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def dataset_fn(worker_index, num_workers):
    ds = tf.data.Dataset.from_generator(
        examples, args=(27 + worker_index, 1024 // num_workers),
        output_signature=(tf.TensorSpec(shape=(6,), dtype=tf.float32), tf.TensorSpec(shape=(), dtype=tf.int32)))
    return ds.repeat().batch(BATCH, drop_remainder=True)
