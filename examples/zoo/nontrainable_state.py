"""Non-trainable `tf.Variable`s besides BatchNorm statistics: a step counter and a running mean of the inputs
that the loss updates with `assign`, plus a constant per-feature scaling vector."""
import numpy as np
import tensorflow as tf
import keras

FEATURES = 16
BATCH = 32
OPTIMIZER = {"name": "sgd", "learning_rate": 0.05}
SCALE = np.linspace(0.5, 2.0, FEATURES).astype("float32")


class StreamingModel(keras.Model):
    def __init__(self):
        super().__init__(name="streaming")
        self.step = tf.Variable(0, trainable=False, dtype=tf.int64, name="step")
        self.running_mean = tf.Variable(tf.zeros([FEATURES]), trainable=False, name="running_mean")
        self.feature_scale = tf.Variable(SCALE, trainable=False, name="feature_scale")
        self.hidden = keras.Sequential([keras.layers.Dense(64, activation="relu"),
                                        keras.layers.Dense(32, activation="relu")])
        self.out = keras.layers.Dense(1)

    def call(self, x, training=False):
        x = (x - self.running_mean) * self.feature_scale
        return tf.squeeze(self.out(self.hidden(x)), -1)


def build_model():
    keras.utils.set_random_seed(23)
    model = StreamingModel()
    model(tf.zeros([1, FEATURES]))
    return model


def loss_fn(model, batch):
    x, y = batch
    model.step.assign_add(1)
    decay = tf.minimum(0.99, tf.cast(model.step, tf.float32) / (tf.cast(model.step, tf.float32) + 1.0))
    model.running_mean.assign(decay * model.running_mean + (1.0 - decay) * tf.reduce_mean(x, axis=0))
    pred = model(x, training=True)
    return tf.reduce_mean(tf.square(pred - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(23)
    x = (rng.standard_normal((2048, FEATURES)) + 3.0).astype("float32")
    y = (np.sin(x[:, 0]) + x[:, 1] - 3.0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
