"""A compiled Keras model is the whole model file: `model.compile(optimizer, loss, metrics)` gives the loss, the
optimizer and the metrics (no `loss_fn`, no `OPTIMIZER`); `val_dataset_fn` is evaluated with `--eval-every`."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32


def build_model():
    keras.utils.set_random_seed(41)
    model = keras.Sequential([
        keras.Input((12,)),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(3),
    ])
    model.compile(optimizer=keras.optimizers.Adam(0.005),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", keras.metrics.SparseTopKCategoricalAccuracy(k=2, name="top2")])
    return model


def _data(seed, n):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 12)).astype("float32")
    y = np.argmax(x[:, :3] + 0.5 * x[:, 3:6], axis=1).astype("int32")
    return x, y


def dataset_fn(worker_index, num_workers):
    ds = tf.data.Dataset.from_tensor_slices(_data(41, 1024)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)


def val_dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(_data(42, 256)).shard(num_workers, worker_index).batch(64)
