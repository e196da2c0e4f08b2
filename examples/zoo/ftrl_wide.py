"""A wide linear model trained with FTRL (L1 and L2): hashed feature crosses (`keras.layers.Hashing` inside the
model) index a one-column weight table, a sparse gradient per step; a compiled logistic regression."""
import numpy as np
import tensorflow as tf
import keras

BINS, BATCH = 1024, 32


def build_model():
    keras.utils.set_random_seed(45)
    crosses = keras.Input((3,), dtype="string")
    ids = keras.layers.Hashing(num_bins=BINS)(crosses)
    weights = keras.layers.Embedding(BINS, 1, name="wide_weights")(ids)
    logit = keras.layers.Dense(1)(keras.layers.Flatten()(weights))
    model = keras.Model(crosses, logit)
    model.compile(optimizer=keras.optimizers.Ftrl(0.2, l1_regularization_strength=1e-3,
                                                  l2_regularization_strength=1e-3),
                  loss=keras.losses.BinaryCrossentropy(from_logits=True), metrics=["AUC"])
    return model


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(45)
    n = 2048
    city = rng.integers(0, 30, n)
    device = rng.integers(0, 4, n)
    hour = rng.integers(0, 24, n)
    crosses = np.stack([np.char.add("c", city.astype(str)), np.char.add(f"c{0}d", (city * 4 + device).astype(str)),
                        np.char.add("h", (hour // 6).astype(str))], axis=1)
    label = ((city % 3 == 0) ^ (hour < 6)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((crosses, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
