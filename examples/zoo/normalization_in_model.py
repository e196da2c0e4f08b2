"""`Normalization` adapted in `build_model` and used inside the model, with `Hashing` on an id column: state the
step only reads, kept on every replica as it starts (not synchronized); Adamax, compiled."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32


def _data(n):
    rng = np.random.default_rng(50)
    x = (rng.standard_normal((n, 6)) * [1, 10, 100, 0.1, 5, 50] + [0, 5, -30, 1, 2, 7]).astype("float32")
    ids = rng.integers(0, 10**6, n).astype("int64")
    y = (x[:, 0] + x[:, 1] / 10 - x[:, 2] / 100 + (ids % 3 == 0)).astype("float32")
    return {"x": x, "id": ids}, y


def build_model():
    keras.utils.set_random_seed(50)
    norm = keras.layers.Normalization()
    norm.adapt(_data(512)[0]["x"])
    x = keras.Input((6,), name="x")
    ids = keras.Input((), dtype="int64", name="id")
    e = keras.layers.Embedding(16, 4)(keras.layers.Hashing(num_bins=16)(ids))
    h = keras.layers.Dense(16, activation="relu")(keras.layers.Concatenate()([norm(x), e]))
    model = keras.Model({"x": x, "id": ids}, keras.layers.Dense(1)(h))
    model.compile(optimizer=keras.optimizers.Adamax(0.01), loss="mse")
    return model


def dataset_fn(worker_index, num_workers):
    ds = tf.data.Dataset.from_tensor_slices(_data(1024)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
