"""`StringLookup` inside the model, as Keras recommends for export (Deep & Cross style): the model takes raw
strings, its vocabulary tables live on every replica, and a cross layer mixes the embeddings."""
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
    c = keras.layers.Embedding(len(COUNTRIES) + 1, 6)(keras.layers.StringLookup(vocabulary=COUNTRIES)(country))
    g = keras.layers.Embedding(len(GENRES) + 1, 6)(keras.layers.StringLookup(vocabulary=GENRES)(genre))
    x = Cross()(keras.layers.Concatenate()([c, g]))
    h = keras.layers.Dense(16, activation="relu")(x)
    model = keras.Model({"country": country, "genre": genre}, keras.layers.Dense(1)(h))
    model.compile(optimizer=keras.optimizers.RMSprop(0.01), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)])
    return model


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(46)
    n = 2048
    countries = np.array(COUNTRIES + ["xx"])[rng.integers(0, len(COUNTRIES) + 1, n)]
    genres = np.array(GENRES)[rng.integers(0, len(GENRES), n)]
    label = ((countries == "us") | (genres == "sport")).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices(({"country": countries, "genre": genres}, label))
    return ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True)
