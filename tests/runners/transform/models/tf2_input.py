"""An input pipeline that means one thing under TF2 and another inside a TF1 graph: ``==`` on tensors, a lookup
table, a finite dataset whose last batch is smaller. ``dataset_fn`` refuses to run outside TF2 semantics."""
import numpy as np
import tensorflow as tf
import keras

OPTIMIZER = {"name": "adam", "learning_rate": 0.01}
WORDS = ["red", "green", "blue"]


def build_model():
    keras.utils.set_random_seed(11)
    x = keras.Input((4,))
    c = keras.Input((), dtype="int64")
    h = keras.layers.Concatenate()([x, keras.layers.Embedding(len(WORDS) + 1, 3)(c)])
    return keras.Model([x, c], keras.layers.Dense(1)(keras.layers.Dense(8, activation="tanh")(h)))


def loss_fn(model, batch):
    x, colour, y = batch
    return tf.reduce_mean(tf.square(model([x, colour])[:, 0] - y))


def dataset_fn(worker_index, num_workers):
    if not tf.compat.v1.executing_eagerly_outside_functions():
        raise RuntimeError("dataset_fn called inside a TF1 graph")
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((150, 4)).astype("float32"))
    words = tf.constant(np.array(WORDS)[rng.integers(0, 3, 150)])
    y = tf.cast(tf.reduce_sum(x, axis=1) > 0.0, tf.float32) + tf.cast(words == "blue", tf.float32)
    lookup = keras.layers.StringLookup(vocabulary=WORDS)
    ds = tf.data.Dataset.from_tensor_slices((x, words, y)).shard(num_workers, worker_index)
    return ds.map(lambda a, w, b: (a, lookup(w), b)).batch(16)  # 75 examples a worker: 4 batches of 16, one of 11
