"""Tensor comparison operators (`==`, `!=`, `<`) on tf tensors, both in the input pipeline (labels) and in
the loss (masks)."""
import numpy as np
import tensorflow as tf
import keras

USERS, ITEMS = 2000, 600
BATCH = 64
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


def build_model():
    keras.utils.set_random_seed(11)
    user = keras.Input((), dtype="int32", name="user")
    item = keras.Input((), dtype="int32", name="item")
    h = keras.layers.Concatenate()([keras.layers.Embedding(USERS, 8)(user), keras.layers.Embedding(ITEMS, 8)(item)])
    h = keras.layers.Dense(16, activation="relu")(h)
    return keras.Model([user, item], keras.layers.Dense(1)(h))


def loss_fn(model, batch):
    users, items, labels = batch
    logits = tf.squeeze(model([users, items], training=True), -1)
    per_example = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    # down-weight examples of user 0 (a "guest" account) and of cheap items
    weight = tf.where(users != 0, 1.0, 0.0) * tf.where(items < 50, 0.5, 1.0)
    weight += tf.cast(labels == 1.0, tf.float32)
    return tf.reduce_sum(per_example * weight) / tf.reduce_sum(weight)


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(0)
    users = tf.constant(rng.integers(0, USERS, 2048).astype("int32"))
    items = tf.constant(rng.integers(0, ITEMS, 2048).astype("int32"))
    labels = tf.cast((users + items) % 3 == 0, tf.float32)
    ds = tf.data.Dataset.from_tensor_slices((users, items, labels))
    return ds.shard(num_workers, worker_index).repeat().batch(BATCH, drop_remainder=True)
