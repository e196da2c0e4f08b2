"""`keras.layers.Embedding(mask_zero=True)` on zero-padded token sequences; the mask propagates to a masked
mean (`GlobalAveragePooling1D`) instead of an RNN."""
import numpy as np
import tensorflow as tf
import keras

VOCAB, MAXLEN = 500, 20
BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.003}


def build_model():
    keras.utils.set_random_seed(19)
    tokens = keras.Input((MAXLEN,), dtype="int32")
    x = keras.layers.Embedding(VOCAB, 16, mask_zero=True)(tokens)
    x = keras.layers.GlobalAveragePooling1D()(x)
    x = keras.layers.Dense(16, activation="relu")(x)
    return keras.Model(tokens, keras.layers.Dense(1)(x))


def loss_fn(model, batch):
    tokens, label = batch
    logits = tf.squeeze(model(tokens, training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(19)
    n = 2048
    lengths = rng.integers(2, MAXLEN + 1, n)
    tokens = rng.integers(1, VOCAB, (n, MAXLEN)).astype("int32")
    tokens[np.arange(MAXLEN)[None, :] >= lengths[:, None]] = 0   # post-padding
    label = ((tokens < 50) & (tokens > 0)).any(axis=1).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((tokens, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
