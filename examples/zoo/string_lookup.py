"""`keras.layers.StringLookup` in the input pipeline: string features are mapped to ids inside `dataset.map`
before they reach the model's embedding."""
import numpy as np
import tensorflow as tf
import keras

COUNTRIES = ["us", "de", "fr", "jp", "br", "in", "ng", "au"]
DEVICES = ["ios", "android", "web"]
BATCH = 32
OPTIMIZER = {"name": "sgd", "learning_rate": 0.1}


def build_model():
    keras.utils.set_random_seed(17)
    country = keras.Input((), dtype="int64", name="country")
    device = keras.Input((), dtype="int64", name="device")
    c = keras.layers.Embedding(len(COUNTRIES) + 1, 16)(country)   # +1 for the OOV bucket
    d = keras.layers.Embedding(len(DEVICES) + 1, 8)(device)
    h = keras.layers.Dense(64, activation="relu")(keras.layers.Concatenate()([c, d]))
    return keras.Model({"country": country, "device": device}, keras.layers.Dense(1)(h))


def loss_fn(model, batch):
    features, label = batch
    logits = tf.squeeze(model(features, training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    country_lookup = keras.layers.StringLookup(vocabulary=COUNTRIES)
    device_lookup = keras.layers.StringLookup(vocabulary=DEVICES)
    rng = np.random.default_rng(17)
    n = 2048
    countries = np.array(COUNTRIES + ["xx"])[rng.integers(0, len(COUNTRIES) + 1, n)]
    devices = np.array(DEVICES)[rng.integers(0, len(DEVICES), n)]
    label = ((countries == "us") | (devices == "ios")).astype("float32")

    def encode(row, y):
        return {"country": country_lookup(row["country"]), "device": device_lookup(row["device"])}, y

    ds = tf.data.Dataset.from_tensor_slices(({"country": countries, "device": devices}, label))
    ds = ds.shard(num_workers, worker_index).map(encode)
    return ds.repeat().batch(BATCH, drop_remainder=True)
