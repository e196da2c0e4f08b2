"""`LayerNormalization`, `BatchNormalization` and `Dropout` in one model, called with `training=True` in the
loss (BatchNorm batch statistics and moving averages, random dropout masks)."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32
OPTIMIZER = {"name": "momentum", "learning_rate": 0.02, "momentum": 0.9}


def build_model():
    keras.utils.set_random_seed(22)
    inputs = keras.Input((24,))
    x = keras.layers.Dense(48, use_bias=False)(inputs)   # BatchNorm supplies the shift
    x = keras.layers.BatchNormalization()(x)
    x = keras.layers.Activation("relu")(x)
    x = keras.layers.Dropout(0.2)(x)
    x = keras.layers.Dense(32)(x)
    x = keras.layers.LayerNormalization()(x)
    x = keras.layers.Activation("gelu")(x)
    x = keras.layers.Dropout(0.1)(x)
    return keras.Model(inputs, keras.layers.Dense(3)(x))


def loss_fn(model, batch):
    x, y = batch
    logits = model(x, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(22)
    x = (rng.standard_normal((2048, 24)) * rng.uniform(0.1, 5.0, 24)).astype("float32")
    y = np.digitize(x[:, 0] / 5.0 + x[:, 1], [-0.5, 0.5]).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
