"""An embedding-heavy recommender: user and item tables (sparse gradients) feeding a small MLP."""
import numpy as np
import tensorflow as tf
import keras

USERS, ITEMS, DIM = 20000, 12000, 32
BATCH = 64  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


class Recommender(keras.Model):
    def __init__(self):
        super().__init__(name="recommender")
        self.user = keras.layers.Embedding(USERS, DIM, name="user_embedding")
        self.item = keras.layers.Embedding(ITEMS, DIM, name="item_embedding")
        self.hidden = keras.layers.Dense(64, activation="relu", name="hidden")
        self.out = keras.layers.Dense(1, name="score")

    def call(self, inputs, training=False):
        users, items = inputs
        h = tf.concat([self.user(users), self.item(items)], axis=-1)
        return tf.squeeze(self.out(self.hidden(h)), -1)


def build_model():
    keras.utils.set_random_seed(3)
    model = Recommender()
    model((tf.zeros([1], tf.int32), tf.zeros([1], tf.int32)))
    return model


def loss_fn(model, batch):
    users, items, label = batch
    logits = model((users, items), training=True)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(2)
    n = 8192
    users = rng.integers(0, USERS, n).astype("int32")
    items = rng.integers(0, ITEMS, n).astype("int32")
    label = ((users + items) % 3 == 0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((users, items, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
