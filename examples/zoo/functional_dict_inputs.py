"""A Keras functional model with named dict inputs; the dataset yields `(features_dict, label)`."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.002}


def build_model():
    keras.utils.set_random_seed(15)
    inputs = {
        "age": keras.Input((1,), name="age"),
        "income": keras.Input((1,), name="income"),
        "history": keras.Input((8,), name="history"),
        "region": keras.Input((), dtype="int32", name="region"),
    }
    region = keras.layers.Embedding(10, 4, name="region_embedding")(inputs["region"])
    numeric = keras.layers.Concatenate()([inputs["age"], inputs["income"]])
    numeric = keras.layers.Dense(8, activation="relu")(numeric)
    history = keras.layers.Dense(32, activation="relu")(inputs["history"])
    h = keras.layers.Concatenate()([numeric, history, region])
    h = keras.layers.Dense(64, activation="relu")(h)
    out = keras.layers.Dense(1, name="logit")(h)
    return keras.Model(inputs=inputs, outputs=out, name="churn")


def loss_fn(model, batch):
    features, label = batch
    logits = model(features, training=True)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(15)
    n = 2048
    features = {
        "age": rng.uniform(18, 80, (n, 1)).astype("float32") / 80.0,
        "income": rng.lognormal(0, 1, (n, 1)).astype("float32"),
        "history": rng.standard_normal((n, 8)).astype("float32"),
        "region": rng.integers(0, 10, n).astype("int32"),
    }
    label = ((features["history"][:, :1] > 0) & (features["age"] < 0.6)).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((features, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
