"""A small transformer encoder classifier (2 layers, 4 heads) on synthetic token sequences."""
import numpy as np
import tensorflow as tf
import keras

VOCAB, SEQ, DIM, HEADS, FF, LAYERS, CLASSES = 2000, 32, 64, 4, 128, 2, 4
BATCH = 16  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.0005}


class EncoderBlock(keras.layers.Layer):
    def __init__(self, index, **kwargs):
        super().__init__(name=f"block{index}", **kwargs)
        self.attn = keras.layers.MultiHeadAttention(HEADS, DIM // HEADS, name="attention")
        self.norm1 = keras.layers.LayerNormalization(name="norm1")
        self.ff1 = keras.layers.Dense(FF, activation="relu", name="ff1")
        self.ff2 = keras.layers.Dense(DIM, name="ff2")
        self.norm2 = keras.layers.LayerNormalization(name="norm2")

    def call(self, x):
        x = self.norm1(x + self.attn(x, x))
        return self.norm2(x + self.ff2(self.ff1(x)))


class Encoder(keras.Model):
    def __init__(self):
        super().__init__(name="transformer")
        self.tokens = keras.layers.Embedding(VOCAB, DIM, name="tokens")
        self.positions = self.add_weight(shape=(SEQ, DIM), initializer="random_normal", name="positions")
        self.blocks = [EncoderBlock(i) for i in range(LAYERS)]
        self.head = keras.layers.Dense(CLASSES, name="head")

    def call(self, tokens, training=False):
        x = self.tokens(tokens) + self.positions
        for block in self.blocks:
            x = block(x)
        return self.head(tf.reduce_mean(x, axis=1))


def build_model():
    keras.utils.set_random_seed(4)
    model = Encoder()
    model(tf.zeros([1, SEQ], tf.int32))
    return model


def loss_fn(model, batch):
    tokens, label = batch
    logits = model(tokens, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(3)
    tokens = rng.integers(0, VOCAB, (2048, SEQ)).astype("int32")
    label = (tokens[:, 0] % CLASSES).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((tokens, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
