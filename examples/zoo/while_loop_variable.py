"""An explicit `tf.while_loop` whose body reads the model's variables (and a `tf.cond` inside it that reads one of
two): a small recurrent refinement written by hand rather than with a Keras RNN layer."""
import numpy as np
import tensorflow as tf
import keras

FEATURES, HIDDEN, STEPS = 10, 16, 6
BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.01}


class Refiner(keras.Model):
    """h <- tanh(x U + h W + b) for STEPS steps, with W alternating between two matrices; then a linear readout."""

    def __init__(self):
        super().__init__(name="refiner")
        self.u = self.add_weight(shape=(FEATURES, HIDDEN), initializer="glorot_uniform", name="u")
        self.w_even = self.add_weight(shape=(HIDDEN, HIDDEN), initializer="orthogonal", name="w_even")
        self.w_odd = self.add_weight(shape=(HIDDEN, HIDDEN), initializer="orthogonal", name="w_odd")
        self.b = self.add_weight(shape=(HIDDEN,), initializer="zeros", name="b")
        self.readout = keras.layers.Dense(1, name="readout")

    def call(self, x, training=False):
        drive = tf.matmul(x, self.u) + self.b

        def body(i, h):
            mix = tf.cond(i % 2 == 0, lambda: tf.matmul(h, self.w_even), lambda: tf.matmul(h, self.w_odd))
            return i + 1, tf.tanh(drive + mix)

        _, h = tf.while_loop(lambda i, h: i < STEPS, body, (tf.constant(0), tf.zeros_like(drive)))
        return self.readout(h)


def build_model():
    keras.utils.set_random_seed(33)
    model = Refiner()
    model(tf.zeros([1, FEATURES]))
    return model


def loss_fn(model, batch):
    x, y = batch
    return tf.reduce_mean(tf.square(tf.squeeze(model(x, training=True), -1) - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(33)
    x = rng.standard_normal((2048, FEATURES)).astype("float32")
    y = np.tanh(x[:, :3].sum(axis=1) - x[:, 3] * x[:, 4]).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
