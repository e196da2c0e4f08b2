"""A DLRM-style click-through model: three embedding tables (sparse gradients) and dense features, joined and
fed to a wide top MLP (about 0.8 MB of dense weights) -- the shape of production recommenders, where the tables
want parameter servers and the dense tower wants all-reduce."""
import numpy as np
import tensorflow as tf
import keras

TABLES = {"ad": 40000, "user": 30000, "site": 4000}  # rows of each embedding table
DIM = 32
DENSE_FEATURES = 13
BATCH = 128  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


class DLRM(keras.Model):
    def __init__(self):
        super().__init__(name="dlrm")
        self.tables = [keras.layers.Embedding(rows, DIM, name=f"{name}_embedding") for name, rows in TABLES.items()]
        self.bottom = [keras.layers.Dense(64, activation="relu", name="bottom1"),
                       keras.layers.Dense(DIM, activation="relu", name="bottom2")]
        self.top = [keras.layers.Dense(512, activation="relu", name="top1"),
                    keras.layers.Dense(256, activation="relu", name="top2"),
                    keras.layers.Dense(1, name="click")]

    def call(self, inputs, training=False):
        ids, dense = inputs
        x = dense
        for layer in self.bottom:
            x = layer(x)
        h = tf.concat([table(ids[:, i]) for i, table in enumerate(self.tables)] + [x], axis=-1)
        for layer in self.top:
            h = layer(h)
        return tf.squeeze(h, -1)


def build_model():
    keras.utils.set_random_seed(5)
    model = DLRM()
    model((tf.zeros([1, len(TABLES)], tf.int32), tf.zeros([1, DENSE_FEATURES])))
    return model


def loss_fn(model, batch):
    ids, dense, label = batch
    logits = model((ids, dense), training=True)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(4)
    n = 16384
    ids = np.stack([rng.integers(0, rows, n) for rows in TABLES.values()], axis=1).astype("int32")
    dense = rng.normal(size=(n, DENSE_FEATURES)).astype("float32")
    label = (((ids[:, 0] + ids[:, 1]) % 5 == 0) ^ (dense[:, 0] > 1.0)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((ids, dense, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
