"""`keras.layers.IntegerLookup` and `keras.layers.Hashing` on raw int64 ids in the input pipeline, feeding
embedding tables."""
import numpy as np
import tensorflow as tf
import keras

KNOWN_SHOPS = [101, 205, 333, 404, 512, 777, 808, 999]
HASH_BINS = 64
BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.01}


def build_model():
    keras.utils.set_random_seed(18)
    shop = keras.Input((), dtype="int64", name="shop")
    product = keras.Input((), dtype="int64", name="product")
    s = keras.layers.Embedding(len(KNOWN_SHOPS) + 1, 4, name="shop_embedding")(shop)
    p = keras.layers.Embedding(HASH_BINS, 16, name="product_embedding")(product)
    h = keras.layers.Dense(64, activation="relu")(keras.layers.Concatenate()([s, p]))
    return keras.Model([shop, product], keras.layers.Dense(1)(h))


def loss_fn(model, batch):
    shop, product, label = batch
    logits = tf.squeeze(model([shop, product], training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    shop_lookup = keras.layers.IntegerLookup(vocabulary=np.array(KNOWN_SHOPS, dtype="int64"))
    product_hash = keras.layers.Hashing(num_bins=HASH_BINS)
    rng = np.random.default_rng(18)
    n = 2048
    shops = np.array(KNOWN_SHOPS + [1, 2, 3])[rng.integers(0, len(KNOWN_SHOPS) + 3, n)].astype("int64")
    products = rng.integers(10**9, 10**9 + 5000, n).astype("int64")
    label = ((shops % 2 == 1) ^ (products % 7 == 0)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((shops, products, label)).shard(num_workers, worker_index)

    def encode(shop, product, label):
        return shop_lookup(shop), product_hash(product), label

    ds = ds.map(encode)
    return ds.repeat().batch(BATCH, drop_remainder=True)
