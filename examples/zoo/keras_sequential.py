"""A plain `keras.Sequential` classifier trained with a softmax cross-entropy."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 64
OPTIMIZER = {"name": "momentum", "learning_rate": 0.05, "momentum": 0.9, "nesterov": True}


def build_model():
    keras.utils.set_random_seed(14)
    model = keras.Sequential([
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(4),
    ])
    model.build((None, 20))
    return model


def loss_fn(model, batch):
    x, y = batch
    logits = model(x, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(14)
    x = rng.standard_normal((4096, 20)).astype("float32")
    y = np.argmax(x[:, :4] + 0.1 * x[:, 4:8], axis=1).astype("int64")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
