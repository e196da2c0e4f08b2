"""A subclassed `keras.Model` using a custom `keras.layers.Layer` that creates its weights with `add_weight`
in `build()` (a factorization-machine interaction layer)."""
import numpy as np
import tensorflow as tf
import keras

FIELDS, FACTORS = 32, 8
BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.005}


class FactorizationMachine(keras.layers.Layer):
    def __init__(self, factors, **kwargs):
        super().__init__(**kwargs)
        self.factors = factors

    def build(self, input_shape):
        dim = input_shape[-1]
        self.w0 = self.add_weight(shape=(), initializer="zeros", name="w0")
        self.w = self.add_weight(shape=(dim,), initializer="zeros", name="w")
        self.v = self.add_weight(shape=(dim, self.factors), initializer=keras.initializers.RandomNormal(stddev=0.1),
                                 name="v")

    def call(self, x):
        linear = self.w0 + tf.linalg.matvec(x, self.w)
        xv = tf.matmul(x, self.v)
        pairwise = 0.5 * tf.reduce_sum(tf.square(xv) - tf.matmul(tf.square(x), tf.square(self.v)), axis=-1)
        return linear + pairwise


class FMRegressor(keras.Model):
    def __init__(self):
        super().__init__(name="fm_regressor")
        self.fm = FactorizationMachine(FACTORS, name="fm")
        self.deep = keras.layers.Dense(64, activation="relu")
        self.head = keras.layers.Dense(1)

    def call(self, x, training=False):
        return self.fm(x) + tf.squeeze(self.head(self.deep(x)), -1)


def build_model():
    keras.utils.set_random_seed(16)
    model = FMRegressor()
    model(tf.zeros([1, FIELDS]))
    return model


def loss_fn(model, batch):
    x, y = batch
    return tf.reduce_mean(tf.square(model(x, training=True) - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(16)
    x = rng.standard_normal((2048, FIELDS)).astype("float32")
    y = (x[:, 0] * x[:, 1] - x[:, 2] + 0.1 * rng.standard_normal(2048)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
