"""A two-tower retrieval model: a query tower (user id, watch time) and a candidate tower (movie title, title
words), each ending in a 64-dimensional embedding, trained with an in-batch softmax over the batch's movies.

Adapted from "Building deep retrieval models", TensorFlow Recommenders tutorial,
https://www.tensorflow.org/recommenders/examples/deep_recommenders (its query model: a user-id embedding, a
bucketized-timestamp embedding and the normalized timestamp, then dense layers down to 64; its candidate model:
a title hashed into 20,000 bins and the mean of the title's word embeddings, 32 dimensions each; the
`tfrs.tasks.Retrieval` loss, a softmax of every query against every candidate of the batch), with the basic
retrieval tutorial's data (https://www.tensorflow.org/recommenders/examples/basic_retrieval).
What changed: synthetic MovieLens-like watches (943 users, 1,682 movies with titles made of words from a
10,000-word vocabulary, timestamps over seven months) instead of the `tensorflow_datasets` download; StringLookup,
Discretization, Hashing, TextVectorization and the timestamp's normalization run in the input pipeline with fixed
vocabularies, boundaries and moments (the model contract keeps lookup tables out of the model) instead of layers
adapted inside the towers; the query tower has one hidden layer of 128 ReLU units; the retrieval loss is written
out with `softmax_cross_entropy_with_logits` and averaged over the batch (TFRS sums it); no top-K metrics; Adam
instead of Adagrad (which the model contract does not offer); a per-replica batch of 512 instead of 8,192.
"""
import numpy as np
import tensorflow as tf
import keras

USERS, MOVIES, WORDS, TITLE_BINS = 943, 1682, 10000, 20000
TIME_BUCKETS = 1000
TITLE_WORDS = 8  # words per title, padded
DIM, OUT = 32, 64
START, END = 874724710, 893286638  # MovieLens 100K's first and last timestamps (seconds)
BATCH = 512  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.002}


class QueryTower(keras.Model):
    def __init__(self):
        super().__init__(name="query")
        self.user = keras.layers.Embedding(USERS + 1, DIM, name="user_embedding")
        self.time = keras.layers.Embedding(TIME_BUCKETS + 1, DIM, name="timestamp_embedding")
        self.hidden = keras.layers.Dense(128, activation="relu", name="hidden")
        self.out = keras.layers.Dense(OUT, name="projection")

    def call(self, user, bucket, seconds):
        x = tf.concat([self.user(user), self.time(bucket), seconds[:, None]], axis=1)
        return self.out(self.hidden(x))


class CandidateTower(keras.Model):
    def __init__(self):
        super().__init__(name="candidate")
        self.title = keras.layers.Embedding(TITLE_BINS, DIM, name="title_embedding")
        self.words = keras.layers.Embedding(WORDS, DIM, name="title_text_embedding")
        self.out = keras.layers.Dense(OUT, name="projection")

    def call(self, title, words):
        mask = tf.cast(words > 0, tf.float32)[..., None]  # 0 pads a short title
        text = tf.reduce_sum(self.words(words) * mask, 1) / tf.maximum(tf.reduce_sum(mask, 1), 1.0)
        return self.out(tf.concat([self.title(title), text], axis=1))


class Retrieval(keras.Model):
    def __init__(self):
        super().__init__(name="retrieval")
        self.query = QueryTower()
        self.candidate = CandidateTower()

    def call(self, features, training=False):
        q = self.query(features["user_id"], features["timestamp_bucket"], features["timestamp"])
        c = self.candidate(features["movie_title"], features["title_words"])
        return tf.matmul(q, c, transpose_b=True)  # every query against every candidate of the batch


def build_model():
    keras.utils.set_random_seed(36)
    model = Retrieval()
    model({"user_id": tf.zeros([2], tf.int64), "timestamp_bucket": tf.zeros([2], tf.int64),
           "timestamp": tf.zeros([2]), "movie_title": tf.zeros([2], tf.int64),
           "title_words": tf.zeros([2, TITLE_WORDS], tf.int64)})
    return model


def loss_fn(model, batch):
    scores = model(batch, training=True)
    # the i-th movie is the positive of the i-th query; the batch's other movies are its negatives
    labels = tf.eye(tf.shape(scores)[0])
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=scores))


def catalogue(seed: int = 36) -> tuple[list, list]:
    """Movie titles ("w17 w3 w980 (1995)") and the vocabulary of their words, most frequent first."""
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(WORDS - 2)]  # TextVectorization keeps two ids: padding and unknown
    titles = []
    for m in range(MOVIES):
        ranks = rng.zipf(1.4, rng.integers(1, 6))  # frequent words first, the tail spread over the rare ones
        words = np.where(ranks < WORDS - 2, ranks, rng.integers(100, WORDS - 2, len(ranks))) - 1
        titles.append(" ".join(vocab[w] for w in words) + f" ({1930 + m % 68})")
    return titles, vocab


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(36)
    titles, vocab = catalogue()
    n = 32768
    taste = rng.integers(0, 12, USERS)  # each user prefers one of 12 genres; movie m is in genre m % 12
    user = rng.integers(0, USERS, n)
    movie = np.where(rng.random(n) < 0.7, (rng.integers(0, MOVIES // 12, n) * 12 + taste[user]) % MOVIES,
                     rng.integers(0, MOVIES, n))
    seconds = np.sort(rng.integers(START, END, n))
    raw = {"user_id": np.char.add("u", user.astype(str)), "timestamp": seconds.astype("int64"),
           "movie_title": np.array(titles)[movie]}
    users = keras.layers.StringLookup(vocabulary=[f"u{i}" for i in range(USERS)])
    buckets = keras.layers.Discretization(bin_boundaries=np.linspace(START, END, TIME_BUCKETS).tolist())
    mean, std = (START + END) / 2, (END - START) / np.sqrt(12)
    hashing = keras.layers.Hashing(num_bins=TITLE_BINS)
    text = keras.layers.TextVectorization(vocabulary=vocab, output_sequence_length=TITLE_WORDS)

    def encode(f):
        return {"user_id": users(f["user_id"]), "timestamp_bucket": tf.cast(buckets(f["timestamp"]), tf.int64),
                "timestamp": tf.cast((tf.cast(f["timestamp"], tf.float64) - mean) / std, tf.float32),
                "movie_title": hashing(f["movie_title"]), "title_words": text(f["movie_title"])}

    ds = tf.data.Dataset.from_tensor_slices(raw).shuffle(n, seed=36, reshuffle_each_iteration=False)
    ds = ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True)
    return ds.map(encode, num_parallel_calls=2).prefetch(2)
