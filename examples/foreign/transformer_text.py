"""A one-block transformer classifying movie reviews as positive or negative: token and position embeddings,
multi-head self-attention, a feed-forward layer, LayerNorm and Dropout, mean pooling, a small dense head.

Adapted from "Text classification with Transformer", keras.io,
https://keras.io/examples/nlp/text_classification_with_transformer/ (a 20,000-word vocabulary, reviews cut or
pre-padded to 200 tokens, 32-dimensional token and position embeddings, 2 heads with 32-dimensional keys, a
32-unit feed-forward layer, Dropout 0.1, global average pooling, Dense(20) and a 2-way softmax; Adam; batches
of 32).
What changed: synthetic reviews instead of the IMDB download: Zipf-distributed word ids of random length with a
sprinkling of "positive" and "negative" words that decide the label, pre-padded with 0 as `pad_sequences` does;
the softmax is folded into the loss (`sparse_softmax_cross_entropy_with_logits`).
"""
import numpy as np
import tensorflow as tf
import keras

VOCAB, MAXLEN = 20000, 200
EMBED, HEADS, FF = 32, 2, 32
BATCH = 32  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


class TransformerBlock(keras.layers.Layer):
    def __init__(self, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.attention = keras.layers.MultiHeadAttention(num_heads=HEADS, key_dim=EMBED, name="attention")
        self.ff1 = keras.layers.Dense(FF, activation="relu", name="ff1")
        self.ff2 = keras.layers.Dense(EMBED, name="ff2")
        self.norm1 = keras.layers.LayerNormalization(epsilon=1e-6, name="norm1")
        self.norm2 = keras.layers.LayerNormalization(epsilon=1e-6, name="norm2")
        self.drop1 = keras.layers.Dropout(rate)
        self.drop2 = keras.layers.Dropout(rate)

    def call(self, x, training=False):
        h = self.norm1(x + self.drop1(self.attention(x, x), training=training))
        return self.norm2(h + self.drop2(self.ff2(self.ff1(h)), training=training))


class TokenAndPosition(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.tokens = keras.layers.Embedding(VOCAB, EMBED, name="token_embedding")
        self.positions = keras.layers.Embedding(MAXLEN, EMBED, name="position_embedding")

    def call(self, ids):
        return self.tokens(ids) + self.positions(tf.range(tf.shape(ids)[-1]))


def build_model():
    keras.utils.set_random_seed(35)
    ids = keras.Input((MAXLEN,), dtype="int32")
    x = TransformerBlock(name="block")(TokenAndPosition(name="embedding")(ids))
    x = keras.layers.Dropout(0.1)(keras.layers.GlobalAveragePooling1D()(x))
    x = keras.layers.Dropout(0.1)(keras.layers.Dense(20, activation="relu", name="hidden")(x))
    return keras.Model(ids, keras.layers.Dense(2, name="sentiment")(x), name="transformer_text")


def loss_fn(model, batch):
    ids, label = batch
    logits = model(ids, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label, logits=logits))


def reviews(n: int, seed: int = 35) -> tuple[np.ndarray, np.ndarray]:
    """Pre-padded (n, MAXLEN) word ids (0 pads, 1 starts a review as in Keras' IMDB) and 0/1 labels."""
    rng = np.random.default_rng(seed)
    lengths = np.minimum(rng.lognormal(5.0, 0.6, n).astype(int) + 10, 600)
    ranks = rng.zipf(1.25, (n, MAXLEN))  # ordinary words from id 2, frequent ones first, the tail spread out
    words = np.where(ranks < VOCAB - 2, ranks + 1, rng.integers(1000, VOCAB, (n, MAXLEN)))
    positive, negative = np.arange(100, 140), np.arange(140, 180)  # the words that carry sentiment
    label = rng.integers(0, 2, n)
    mood = np.where(label[:, None] == 1, rng.choice(positive, (n, MAXLEN)), rng.choice(negative, (n, MAXLEN)))
    other = np.where(label[:, None] == 1, rng.choice(negative, (n, MAXLEN)), rng.choice(positive, (n, MAXLEN)))
    pick = rng.random((n, MAXLEN))
    words = np.where(pick < 0.04, mood, np.where(pick < 0.06, other, words))
    ids = np.zeros((n, MAXLEN), "int32")
    for i, length in enumerate(lengths):
        keep = min(length, MAXLEN)  # long reviews are cut to their last MAXLEN words, as pad_sequences does
        ids[i, MAXLEN - keep:] = words[i, :keep]
        if length <= MAXLEN:
            ids[i, MAXLEN - keep] = 1
    return ids, label.astype("int32")


def dataset_fn(worker_index, num_workers):
    ids, label = reviews(4096)
    ds = tf.data.Dataset.from_tensor_slices((ids, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True).prefetch(2)
