"""Tied weights: the output projection of a small next-token model reuses the input embedding matrix,
transposed, so one variable is used by two layers."""
import numpy as np
import tensorflow as tf
import keras

VOCAB, DIM, CONTEXT = 400, 32, 4
BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.002}


class TiedLM(keras.Model):
    def __init__(self):
        super().__init__(name="tied_lm")
        self.embedding = keras.layers.Embedding(VOCAB, DIM, name="tokens")
        self.hidden = keras.layers.Dense(DIM, activation="tanh", name="hidden")
        self.out_bias = self.add_weight(shape=(VOCAB,), initializer="zeros", name="out_bias")

    def call(self, context, training=False):
        h = tf.reduce_mean(self.embedding(context), axis=1)
        h = self.hidden(h)
        return tf.matmul(h, self.embedding.embeddings, transpose_b=True) + self.out_bias


def build_model():
    keras.utils.set_random_seed(21)
    model = TiedLM()
    model(tf.zeros([1, CONTEXT], tf.int32))
    return model


def loss_fn(model, batch):
    context, target = batch
    logits = model(context, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(21)
    stream = rng.integers(0, VOCAB, 4096 + CONTEXT).astype("int32")
    stream[1::2] = (stream[0:-1:2] * 7 + 3) % VOCAB   # a learnable bigram pattern
    idx = np.arange(4096)[:, None] + np.arange(CONTEXT)[None, :]
    context, target = stream[idx], stream[np.arange(4096) + CONTEXT]
    ds = tf.data.Dataset.from_tensor_slices((context, target)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
