"""Keras non-trainable weights besides BatchNorm statistics: `add_weight(trainable=False)` for a step counter
and a running input mean that the loss updates with `assign`, plus a constant per-feature scaling vector."""
import numpy as np
import tensorflow as tf
import keras

FEATURES = 16
BATCH = 32
OPTIMIZER = {"name": "momentum", "learning_rate": 0.02, "momentum": 0.9}
SCALE = np.linspace(0.5, 2.0, FEATURES).astype("float32")


class RunningCenter(keras.layers.Layer):
    """Centers its input on a running mean that the training loop updates."""

    def build(self, input_shape):
        self.step = self.add_weight(shape=(), dtype="int64", initializer="zeros", trainable=False, name="step")
        self.mean = self.add_weight(shape=input_shape[-1:], initializer="zeros", trainable=False, name="mean")
        self.scale = self.add_weight(shape=input_shape[-1:], initializer=keras.initializers.Constant(SCALE),
                                     trainable=False, name="scale")

    def update(self, x):
        self.step.assign_add(1)
        step = tf.cast(self.step, tf.float32)
        decay = tf.minimum(0.99, step / (step + 1.0))
        self.mean.assign(decay * self.mean + (1.0 - decay) * tf.reduce_mean(x, axis=0))

    def call(self, x):
        return (x - self.mean) * self.scale


def build_model():
    keras.utils.set_random_seed(31)
    model = keras.Sequential([
        keras.Input((FEATURES,)),
        RunningCenter(name="center"),
        keras.layers.Dense(64, activation="relu"),
        keras.layers.Dense(32, activation="relu"),
        keras.layers.Dense(1),
    ], name="centered_regressor")
    return model


def loss_fn(model, batch):
    x, y = batch
    model.get_layer("center").update(x)
    pred = tf.squeeze(model(x, training=True), -1)
    return tf.reduce_mean(tf.square(pred - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(31)
    x = (rng.standard_normal((2048, FEATURES)) + 3.0).astype("float32")
    y = (np.sin(x[:, 0]) + x[:, 1] - 3.0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
