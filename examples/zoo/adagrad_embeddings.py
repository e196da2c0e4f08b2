"""Adagrad on embedding tables, the recommender's usual optimizer: sparse gradients whose rows repeat within a
batch (popular items); Keras squares each lookup's row into the accumulator and scatters only the rows looked up."""
import numpy as np
import tensorflow as tf
import keras

USERS, ITEMS, BATCH = 300, 500, 32


def build_model():
    keras.utils.set_random_seed(44)
    user = keras.Input((), dtype="int64", name="user")
    item = keras.Input((), dtype="int64", name="item")
    u = keras.layers.Embedding(USERS, 8, name="user_embedding")(user)
    i = keras.layers.Embedding(ITEMS, 8, name="item_embedding")(item)
    h = keras.layers.Dense(16, activation="relu")(keras.layers.Concatenate()([u, i]))
    model = keras.Model({"user": user, "item": item}, keras.layers.Dense(1)(h))
    model.compile(optimizer=keras.optimizers.Adagrad(0.1, initial_accumulator_value=0.05), loss="mse")
    return model


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(44)
    n = 2048
    users = rng.integers(0, USERS, n)
    items = np.minimum(rng.zipf(1.6, n) - 1, ITEMS - 1)  # a few items in most batches, several times each
    rating = ((users % 5) + (items % 3) - 2.0).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices(({"user": users, "item": items}, rating))
    return ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True)
