"""Variable-length sequences batched with `padded_batch` to the longest sequence of each batch, so the time
dimension of a batch changes from step to step."""
import numpy as np
import tensorflow as tf
import keras

VOCAB = 300
BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.003}


def build_model():
    keras.utils.set_random_seed(30)
    tokens = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 12)(tokens)
    x = keras.layers.Conv1D(16, 3, padding="same", activation="relu")(x)
    x = keras.layers.GlobalMaxPooling1D()(x)
    return keras.Model(tokens, keras.layers.Dense(1)(x))


def loss_fn(model, batch):
    tokens, label = batch
    logits = tf.squeeze(model(tokens, training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(30)
    lengths = rng.integers(3, 40, 2048)
    flat = rng.integers(1, VOCAB, lengths.sum()).astype("int32")
    flat[np.repeat(lengths > 20, lengths) & (flat % 10 == 0)] = 7   # long sequences repeat token 7
    starts = tf.constant(np.concatenate([[0], np.cumsum(lengths)]))
    flat, labels = tf.constant(flat), tf.constant((lengths > 20).astype("float32"))

    def example(i):
        return flat[starts[i]:starts[i + 1]], labels[i]

    ds = tf.data.Dataset.range(len(lengths)).shard(num_workers, worker_index).map(example)
    return ds.repeat().padded_batch(BATCH, padded_shapes=([None], []), drop_remainder=True)
