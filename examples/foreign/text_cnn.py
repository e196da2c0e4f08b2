"""A 1D convnet classifying raw review text: TextVectorization (a custom standardization that strips HTML breaks
and punctuation, a vocabulary adapted on the corpus) in the input pipeline, then a word embedding with Dropout,
two strided Conv1D layers, global max pooling, a dense layer and one sigmoid output.

Adapted from "Text classification from scratch", keras.io,
https://keras.io/examples/nlp/text_classification_from_scratch/ (a 20,000-word vocabulary adapted on the training
text and applied in `dataset.map` (its "option 2"), 128-dimensional embeddings, Dropout(0.5), two Conv1D(128, 7,
strides=3), GlobalMaxPooling1D, Dense(128), Dropout(0.5), binary cross-entropy, Adam, batches of 32).
What changed: synthetic reviews (sentences of Zipf-distributed words, HTML breaks and punctuation, a few words
that carry the sentiment) generated here instead of the IMDB download; sequences of 250 tokens instead of 500 and
a per-replica batch of 16, so that a step fits a small CPU; the sigmoid is folded into the loss.
"""
import re
import string

import numpy as np
import tensorflow as tf
import keras

MAX_TOKENS, SEQUENCE, EMBED = 20000, 250, 128
BATCH = 16  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


def build_model():
    keras.utils.set_random_seed(38)
    layers = keras.layers
    ids = keras.Input((None,), dtype="int64")
    x = layers.Dropout(0.5)(layers.Embedding(MAX_TOKENS, EMBED, name="words")(ids))
    x = layers.Conv1D(128, 7, padding="valid", activation="relu", strides=3)(x)
    x = layers.Conv1D(128, 7, padding="valid", activation="relu", strides=3)(x)
    x = layers.Dense(128, activation="relu")(layers.GlobalMaxPooling1D()(x))
    return keras.Model(ids, layers.Dense(1, name="predictions")(layers.Dropout(0.5)(x)), name="text_cnn")


def loss_fn(model, batch):
    ids, label = batch
    logits = tf.squeeze(model(ids, training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def standardize(text):
    text = tf.strings.regex_replace(tf.strings.lower(text), "<br />", " ")
    return tf.strings.regex_replace(text, f"[{re.escape(string.punctuation)}]", "")


def reviews(n: int, seed: int = 38) -> tuple[np.ndarray, np.ndarray]:
    """Raw review strings and 0/1 labels."""
    rng = np.random.default_rng(seed)
    words = np.array([f"w{i}" for i in range(30000)])
    good, bad = np.array(["great", "superb", "moving", "loved", "wonderful"]), np.array(
        ["awful", "boring", "dull", "hated", "terrible"])
    label = rng.integers(0, 2, n)
    texts = []
    for i in range(n):
        length = int(min(rng.lognormal(5.2, 0.5), 900))
        ranks = rng.zipf(1.2, length)  # frequent words first; the long tail spread over the rare ones
        tokens = words[np.where(ranks < len(words), ranks, rng.integers(1000, len(words), length)) - 1]
        mood = good if label[i] else bad
        spots = rng.random(length) < 0.03
        tokens[spots] = rng.choice(mood, spots.sum())
        sentences = [" ".join(tokens[j:j + 12]).capitalize() + rng.choice([".", "!", "?", ","])
                     for j in range(0, length, 12)]
        texts.append(" <br /><br />".join(" ".join(sentences[k:k + 5]) for k in range(0, len(sentences), 5)))
    return np.array(texts), label.astype("float32")


def dataset_fn(worker_index, num_workers):
    text, label = reviews(1024)
    vectorize = keras.layers.TextVectorization(standardize=standardize, max_tokens=MAX_TOKENS, output_mode="int",
                                               output_sequence_length=SEQUENCE)
    vectorize.adapt(tf.data.Dataset.from_tensor_slices(text).batch(256))
    ds = tf.data.Dataset.from_tensor_slices((text, label)).shard(num_workers, worker_index)
    ds = ds.repeat().batch(BATCH, drop_remainder=True)
    return ds.map(lambda t, y: (vectorize(t), y), num_parallel_calls=2).prefetch(2)
