"""A click model whose embedding table is too big for one node: 150 MB of item vectors on nodes that give a plan
100 MB, the chief 200 MB (``examples/clusters/big_table.yml``, less TensorFlow's own 500 MB). Sharded across both
nodes' parameter servers it fits; a copy on every replica (all-reduce), or the whole table on one server, does
not, and autotune says so before anything starts. The table is scaled down from the case it stands for (a 1.5 GB
table on 1 GB nodes) so that a search on this machine takes seconds; the check is on the spec's declared memory.
"""
import numpy as np
import tensorflow as tf
import keras

ITEMS, DIM = 300_000, 128  # 300k x 128 float32: 154 MB
BATCH = 64  # per replica
OPTIMIZER = {"name": "sgd", "learning_rate": 0.05}


class ClickModel(keras.Model):
    def __init__(self):
        super().__init__(name="big_table")
        self.items = keras.layers.Embedding(ITEMS, DIM, name="item_embedding")
        self.score = keras.layers.Dense(1, name="score")

    def call(self, items, training=False):
        return tf.squeeze(self.score(self.items(items)), -1)


def build_model():
    keras.utils.set_random_seed(5)
    model = ClickModel()
    model(tf.zeros([1], tf.int32))
    return model


def loss_fn(model, batch):
    items, label = batch
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=model(items, training=True)))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(4)
    items = rng.integers(0, ITEMS, 4096).astype("int32")
    label = (items % 5 == 0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((items, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
