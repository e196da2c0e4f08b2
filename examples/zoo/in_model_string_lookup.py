"""`StringLookup` and an adapted `Normalization` inside the model, as Keras recommends for export (Deep & Cross
style): the model takes raw strings and raw numbers; its vocabulary tables and the statistics live on every replica,
not synchronized, and a cross layer mixes the features."""
import numpy as np
import tensorflow as tf
import keras

COUNTRIES = ["us", "de", "fr", "jp", "br", "in"]
GENRES = ["news", "sport", "music", "film", "games"]
BATCH = 32


class Cross(keras.layers.Layer):
    """x0 * (x W + b) + x: one cross of a Deep & Cross network."""

    def build(self, shape):
        self.w = self.add_weight(shape=(shape[-1], shape[-1]), initializer="glorot_uniform", name="w")
        self.b = self.add_weight(shape=(shape[-1],), initializer="zeros", name="b")

    def call(self, x):
        return x * (keras.ops.matmul(x, self.w) + self.b) + x


def build_model():
    keras.utils.set_random_seed(46)
    country = keras.Input((), dtype="string", name="country")
    genre = keras.Input((), dtype="string", name="genre")
    numbers = keras.Input((2,), name="numbers")
    normalize = keras.layers.Normalization()
    normalize.adapt(_data(256)[0]["numbers"])
    c = keras.layers.Embedding(len(COUNTRIES) + 1, 6)(keras.layers.StringLookup(vocabulary=COUNTRIES)(country))
    g = keras.layers.Embedding(len(GENRES) + 1, 6)(keras.layers.StringLookup(vocabulary=GENRES)(genre))
    x = Cross()(keras.layers.Concatenate()([c, g, normalize(numbers)]))
    h = keras.layers.Dense(16, activation="relu")(x)
    model = keras.Model({"country": country, "genre": genre, "numbers": numbers}, keras.layers.Dense(1)(h))
    model.compile(optimizer=keras.optimizers.RMSprop(0.01), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)])
    return model


def _data(n):
    rng = np.random.default_rng(46)
    countries = np.array(COUNTRIES + ["xx"])[rng.integers(0, len(COUNTRIES) + 1, n)]
    genres = np.array(GENRES)[rng.integers(0, len(GENRES), n)]
    numbers = (rng.standard_normal((n, 2)) * [30.0, 0.2] + [100.0, 1.0]).astype("float32")  # age, watch share
    label = ((countries == "us") | (genres == "sport") | (numbers[:, 0] > 130)).astype("float32")
    return {"country": countries, "genre": genres, "numbers": numbers}, label


def dataset_fn(worker_index, num_workers):
    ds = tf.data.Dataset.from_tensor_slices(_data(2048)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
