"""Python `if` on static shapes, `tf.where`, `tf.math.unsorted_segment_sum` and `tf.gather(..., batch_dims=1)`
in a candidate-ranking loss."""
import numpy as np
import tensorflow as tf
import keras

CANDIDATES, FEATURES, SESSIONS = 8, 16, 16
BATCH = 32
OPTIMIZER = {"name": "momentum", "learning_rate": 0.02, "momentum": 0.9}


class Scorer(keras.Model):
    def __init__(self):
        super().__init__()
        self.proj = keras.layers.Dense(64, activation="relu")
        self.extra = keras.layers.Dense(64, activation="relu")
        self.score = keras.layers.Dense(1, use_bias=False)  # a shared bias cancels in the softmax

    def call(self, x, training=False):
        h = self.proj(x)
        if x.shape[-1] > 4:  # wide inputs get an extra layer (decided at trace time)
            h = h + self.extra(x)
        return tf.squeeze(self.score(h), -1)  # [batch, candidates]


def build_model():
    keras.utils.set_random_seed(13)
    model = Scorer()
    model(tf.zeros([1, CANDIDATES, FEATURES]))
    return model


def loss_fn(model, batch):
    x, positive, session = batch
    scores = model(x, training=True)
    valid = tf.reduce_any(x != 0.0, axis=-1)
    scores = tf.where(valid, scores, -1e4 * tf.ones_like(scores))
    pos_score = tf.gather(scores, positive[:, None], batch_dims=1)[:, 0]
    per_example = tf.reduce_logsumexp(scores, axis=-1) - pos_score
    per_session = tf.math.unsorted_segment_sum(per_example, session, SESSIONS)
    counts = tf.math.unsorted_segment_sum(tf.ones_like(per_example), session, SESSIONS)
    return tf.reduce_sum(per_session / tf.maximum(counts, 1.0)) / tf.reduce_sum(tf.cast(counts > 0, tf.float32))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(13)
    n = 2048
    x = rng.standard_normal((n, CANDIDATES, FEATURES)).astype("float32")
    x[:, -2:][rng.random((n, 2)) < 0.5] = 0.0  # some padded candidates
    positive = np.argmax(x[:, :CANDIDATES - 2, 0], axis=1).astype("int32")
    session = rng.integers(0, SESSIONS, n).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, positive, session)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
