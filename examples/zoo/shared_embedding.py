"""One embedding table read by two inputs: the same item table embeds both the query item and the candidate
item of a two-tower similarity model."""
import numpy as np
import tensorflow as tf
import keras

ITEMS, DIM = 3000, 16
BATCH = 64
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


def build_model():
    keras.utils.set_random_seed(20)
    query = keras.Input((), dtype="int32", name="query_item")
    candidate = keras.Input((), dtype="int32", name="candidate_item")
    items = keras.layers.Embedding(ITEMS, DIM, name="item_embedding")
    tower = keras.layers.Dense(DIM, name="tower")
    q = tower(items(query))
    c = tower(items(candidate))
    score = keras.layers.Dot(axes=-1)([q, c])
    return keras.Model([query, candidate], score, name="item_to_item")


def loss_fn(model, batch):
    query, candidate, label = batch
    logits = tf.squeeze(model([query, candidate], training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(20)
    n = 4096
    query = rng.integers(0, ITEMS, n).astype("int32")
    candidate = rng.integers(0, ITEMS, n).astype("int32")
    label = (query // 100 == candidate // 100).astype("float32")
    candidate = np.where(rng.random(n) < 0.3, query + 1, candidate).clip(0, ITEMS - 1).astype("int32")
    label = np.maximum(label, (np.abs(candidate - query) <= 1).astype("float32"))
    ds = tf.data.Dataset.from_tensor_slices((query, candidate, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
