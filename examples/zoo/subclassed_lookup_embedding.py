"""A subclassed `keras.Model` that looks its string features up itself: a `StringLookup` with a fixed vocabulary and
a `Hashing` layer on raw strings, each feeding a 64-wide `Embedding`, concatenated with a 64-wide numeric input,
then `Dense` layers; compiled with plain SGD and a mean squared error."""
import numpy as np
import tensorflow as tf
import keras

CITIES = ["paris", "lyon", "nice", "lille", "nantes", "brest", "metz"]
WIDTH = 64  # the embeddings' width, and the numeric input's
BATCH = 24


class Ranker(keras.Model):
    def __init__(self):
        super().__init__()
        self.city_ids = keras.layers.StringLookup(vocabulary=CITIES, num_oov_indices=2)
        self.shop_ids = keras.layers.Hashing(num_bins=32)
        self.city = keras.layers.Embedding(len(CITIES) + 2, WIDTH)
        self.shop = keras.layers.Embedding(32, WIDTH)
        self.hidden = keras.layers.Dense(WIDTH, activation="relu")
        self.score = keras.layers.Dense(1)

    def call(self, features):
        x = keras.ops.concatenate([self.city(self.city_ids(features["city"])),
                                   self.shop(self.shop_ids(features["shop"])), features["signals"]], axis=-1)
        return self.score(self.hidden(x))


def build_model():
    keras.utils.set_random_seed(62)
    model = Ranker()
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    return model


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(62)
    n = 960
    city = np.array(CITIES + ["rome", "oslo"])[rng.integers(0, len(CITIES) + 2, n)]
    shop = np.array([f"shop-{i}" for i in rng.integers(0, 500, n)])
    signals = rng.standard_normal((n, WIDTH)).astype("float32")
    target = (signals[:, :4].sum(1) + np.isin(city, ["paris", "nice"])).astype("float32")[:, None]
    ds = tf.data.Dataset.from_tensor_slices(({"city": city, "shop": shop, "signals": signals}, target))
    return ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True)
