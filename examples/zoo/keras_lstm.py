"""A Keras `LSTM` forecaster: the layer runs its time steps in a `tf.while_loop` whose body reads the kernels, so
the step holds a loop (and its gradient loop) that captures the model's variables."""
import numpy as np
import tensorflow as tf
import keras

WINDOW, FEATURES = 24, 2
BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.005}


def build_model():
    keras.utils.set_random_seed(31)
    return keras.Sequential([
        keras.Input((WINDOW, FEATURES)),
        keras.layers.LSTM(24),
        keras.layers.Dense(1),
    ])


def loss_fn(model, batch):
    window, target = batch
    pred = tf.squeeze(model(window, training=True), -1)
    return tf.reduce_mean(tf.square(pred - target))


def series(n: int, seed: int) -> np.ndarray:
    """Two noisy periodic signals, the second lagging the first."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype="float32")
    a = np.sin(t * 0.21) + 0.3 * np.sin(t * 0.047) + 0.05 * rng.standard_normal(n)
    return np.stack([a, np.roll(a, 5)], axis=1).astype("float32")


def dataset_fn(worker_index, num_workers):
    s = series(2048 + WINDOW, 31)
    idx = np.arange(2048)[:, None] + np.arange(WINDOW)[None, :]
    ds = tf.data.Dataset.from_tensor_slices((s[idx], s[np.arange(2048) + WINDOW, 0]))
    return ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True)
