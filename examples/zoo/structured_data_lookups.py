"""Structured data with its preprocessing inside the model: raw string and integer category columns looked up
by `StringLookup` and `IntegerLookup` layers adapted on the data, each feeding an `Embedding`, concatenated with the
numeric columns scaled by an adapted `Normalization`, then `Dense` layers; compiled, trained on `(features, label)`
batches whose last one is smaller.

The layout follows Keras' "Structured data classification from scratch" example (a table of patient records,
some columns strings, some integer codes, some numbers), written anew here on synthetic records, with embeddings
instead of one-hot encodings."""
import numpy as np
import tensorflow as tf
import keras

THAL = ["normal", "fixed", "reversible"]  # a string category, with unseen values in the data
CHEST_PAIN = [1, 2, 3, 4]  # an integer-coded category
NUMERIC = ["age", "resting_bp", "cholesterol", "max_heart_rate"]
BATCH = 32


def _records(seed, n):
    rng = np.random.default_rng(seed)
    thal = np.array(THAL + ["unknown"])[rng.choice(4, n, p=[0.5, 0.2, 0.25, 0.05])]
    pain = rng.integers(0, 6, n).astype("int64")  # 0 and 5 are codes the lookup has not seen
    numbers = (rng.standard_normal((n, len(NUMERIC))) * [9.0, 17.0, 50.0, 23.0] + [54.0, 131.0, 246.0, 150.0])
    risk = 0.04 * (numbers[:, 0] - 54) - 0.03 * (numbers[:, 3] - 150) + (thal == "reversible") + (pain == 4)
    label = (risk + 0.3 * rng.standard_normal(n) > 0.6).astype("float32")
    return {"thal": thal, "chest_pain": pain, "numeric": numbers.astype("float32")}, label


def build_model():
    keras.utils.set_random_seed(61)
    features, _ = _records(610, 400)
    thal_in = keras.Input((), dtype="string", name="thal")
    pain_in = keras.Input((), dtype="int64", name="chest_pain")
    numeric_in = keras.Input((len(NUMERIC),), name="numeric")
    thal_ids = keras.layers.StringLookup(num_oov_indices=1)
    thal_ids.adapt(features["thal"])
    pain_ids = keras.layers.IntegerLookup(num_oov_indices=2)
    pain_ids.adapt(features["chest_pain"])
    scale = keras.layers.Normalization()
    scale.adapt(features["numeric"])
    thal = keras.layers.Embedding(thal_ids.vocabulary_size(), 8, name="thal_embedding")(thal_ids(thal_in))
    pain = keras.layers.Embedding(pain_ids.vocabulary_size(), 4, name="chest_pain_embedding")(pain_ids(pain_in))
    x = keras.layers.Concatenate()([thal, pain, scale(numeric_in)])
    x = keras.layers.Dense(32, activation="relu")(x)
    x = keras.layers.Dense(16, activation="relu")(x)
    model = keras.Model({"thal": thal_in, "chest_pain": pain_in, "numeric": numeric_in}, keras.layers.Dense(1)(x))
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss=keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[keras.metrics.BinaryAccuracy(threshold=0.0)])
    return model


def dataset_fn(worker_index, num_workers):
    ds = tf.data.Dataset.from_tensor_slices(_records(61, 300)).shard(num_workers, worker_index)
    return ds.batch(BATCH)
