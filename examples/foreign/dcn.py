"""Deep & Cross Network (stacked, full-rank cross layer) predicting MovieLens-like ratings from six categorical
features.

Adapted from "Deep & Cross Network (DCN)", TensorFlow Recommenders tutorial,
https://www.tensorflow.org/recommenders/examples/dcn (its MovieLens part: six features embedded in 32 dimensions,
one cross layer, a deep network of 192 and 192 units, mean squared error on the rating, Adam at 0.01).
What changed: synthetic ratings from users and movies drawn here (MovieLens 100K's vocabulary sizes; the rating
depends on user-movie affinity and on feature crosses) instead of the `tensorflow_datasets` download; the lookups
(StringLookup, IntegerLookup) run in the input pipeline, not in the model, as the model contract requires; the
cross layer is written here instead of `tfrs.layers.dcn.Cross`; a per-replica batch of 1,024 instead of 8,192.
"""
import numpy as np
import tensorflow as tf
import keras

USERS, MOVIES, ZIPS, OCCUPATIONS = 943, 1682, 795, 21
AGES = [1, 18, 25, 35, 45, 50, 56]  # MovieLens' age buckets
DIM = 32
DEEP = [192, 192]
FEATURES = ["movie_id", "user_id", "user_zip_code", "user_occupation_text", "user_gender", "bucketized_user_age"]
BATCH = 1024  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.01}


class Cross(keras.layers.Layer):
    """x_{l+1} = x0 * (W x_l + b) + x_l: explicit, bounded-degree feature crosses."""

    def build(self, shapes):
        width = shapes[0][-1]
        self.kernel = self.add_weight(shape=(width, width), initializer="glorot_uniform", name="kernel")
        self.bias = self.add_weight(shape=(width,), initializer="zeros", name="bias")

    def call(self, inputs):
        x0, x = inputs
        return x0 * (tf.matmul(x, self.kernel) + self.bias) + x


class DCN(keras.Model):
    def __init__(self):
        super().__init__(name="dcn")
        rows = {"movie_id": MOVIES, "user_id": USERS, "user_zip_code": ZIPS, "user_occupation_text": OCCUPATIONS,
                "user_gender": 2, "bucketized_user_age": len(AGES)}
        # one out-of-vocabulary row per table, as the lookups add
        self.embeddings = {f: keras.layers.Embedding(rows[f] + 1, DIM, name=f"{f}_embedding") for f in FEATURES}
        self.cross = Cross(name="cross")
        self.deep = [keras.layers.Dense(n, activation="relu", name=f"deep{i}") for i, n in enumerate(DEEP)]
        self.logit = keras.layers.Dense(1, name="rating")

    def call(self, features, training=False):
        x0 = tf.concat([self.embeddings[f](features[f]) for f in FEATURES], axis=1)
        x = self.cross((x0, x0))
        for layer in self.deep:
            x = layer(x)
        return tf.squeeze(self.logit(x), -1)


def build_model():
    keras.utils.set_random_seed(31)
    model = DCN()
    model({f: tf.zeros([1], tf.int64) for f in FEATURES})
    return model


def loss_fn(model, batch):
    features, rating = batch
    return tf.reduce_mean(tf.square(model(features, training=True) - rating))


def _ratings(n: int, rng) -> tuple[dict, np.ndarray]:
    """Raw MovieLens-like rows: string ids, a zip code, an occupation, a gender flag, an age bucket, a rating."""
    gender = rng.integers(0, 2, USERS)
    age = rng.integers(0, len(AGES), USERS)
    occupation = rng.integers(0, OCCUPATIONS, USERS)
    zipcode = rng.integers(0, ZIPS, USERS)
    taste = rng.normal(size=(USERS, 4))
    genre = rng.normal(size=(MOVIES, 4))
    popular = rng.zipf(1.3, n) % MOVIES  # a few movies get most of the ratings
    user = rng.integers(0, USERS, n)
    movie = np.where(rng.random(n) < 0.6, popular, rng.integers(0, MOVIES, n))
    score = 3.5 + 0.6 * np.sum(taste[user] * genre[movie], axis=1) / 2.0
    score += 0.5 * (gender[user] - 0.5) * genre[movie, 0] * (age[user] - 3) / 3.0  # a third-order cross
    score += 0.3 * np.cos(occupation[user] * 0.7 + movie % 5)
    rating = np.clip(np.rint(score + rng.normal(0, 0.3, n)), 1, 5).astype("float32")
    raw = {"movie_id": np.char.add("m", movie.astype(str)), "user_id": np.char.add("u", user.astype(str)),
           "user_zip_code": np.char.add("z", zipcode[user].astype(str)),
           "user_occupation_text": np.char.add("job", occupation[user].astype(str)),
           "user_gender": gender[user].astype("int64"), "bucketized_user_age": np.array(AGES, "int64")[age[user]]}
    return raw, rating


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(31)
    raw, rating = _ratings(16384, rng)
    lookups = {
        "movie_id": keras.layers.StringLookup(vocabulary=[f"m{i}" for i in range(MOVIES)]),
        "user_id": keras.layers.StringLookup(vocabulary=[f"u{i}" for i in range(USERS)]),
        "user_zip_code": keras.layers.StringLookup(vocabulary=[f"z{i}" for i in range(ZIPS)]),
        "user_occupation_text": keras.layers.StringLookup(vocabulary=[f"job{i}" for i in range(OCCUPATIONS)]),
        "user_gender": keras.layers.IntegerLookup(vocabulary=np.array([0, 1], "int64")),
        "bucketized_user_age": keras.layers.IntegerLookup(vocabulary=np.array(AGES, "int64")),
    }

    def encode(features, label):
        return {f: lookups[f](features[f]) for f in FEATURES}, label

    ds = tf.data.Dataset.from_tensor_slices((raw, rating)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True).map(encode, num_parallel_calls=2).prefetch(2)
