"""A Keras `GRU` sequence classifier over embedded tokens: the recurrent layer's loop body reads its kernels on
every time step, and the embedding in front of it has a sparse gradient."""
import numpy as np
import tensorflow as tf
import keras

VOCAB, LENGTH = 64, 20
BATCH = 32
OPTIMIZER = {"name": "momentum", "learning_rate": 0.05, "momentum": 0.9}


def build_model():
    keras.utils.set_random_seed(32)
    return keras.Sequential([
        keras.Input((LENGTH,), dtype="int32"),
        keras.layers.Embedding(VOCAB, 8),
        keras.layers.GRU(16),
        keras.layers.Dense(3),
    ])


def loss_fn(model, batch):
    tokens, label = batch
    logits = model(tokens, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(32)
    tokens = rng.integers(0, VOCAB, (1536, LENGTH)).astype("int32")
    label = (tokens[:, -4:] % 3).sum(axis=1) % 3  # the last few tokens decide: the state must carry them
    ds = tf.data.Dataset.from_tensor_slices((tokens, label.astype("int32")))
    return ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True)
