"""`TextVectorization` inside the model, adapted in `build_model`: raw sentences in, token ids by the layer's
vocabulary table (on every replica), a bag-of-embeddings classifier; compiled with Nadam and `clipnorm`."""
import numpy as np
import tensorflow as tf
import keras

WORDS = ["good", "bad", "great", "awful", "fine", "movie", "plot", "actor", "scene", "music", "very", "not"]
LENGTH, BATCH = 8, 16


def _sentences(seed, n):
    rng = np.random.default_rng(seed)
    words = np.array(WORDS)[rng.integers(0, len(WORDS), (n, 6))]
    text = np.array([" ".join(w) for w in words])
    label = np.array([sum(t.count(p) for p in ("good", "great", "fine")) > t.count("bad") + t.count("awful")
                      for t in text]).astype("int32")
    return text, label


def build_model():
    keras.utils.set_random_seed(47)
    vectorize = keras.layers.TextVectorization(max_tokens=16, output_sequence_length=LENGTH)
    vectorize.adapt(_sentences(470, 200)[0])
    text = keras.Input((), dtype="string")
    x = keras.layers.Embedding(16, 8)(vectorize(text))
    x = keras.layers.GlobalAveragePooling1D()(x)
    model = keras.Model(text, keras.layers.Dense(2)(keras.layers.Dense(16, activation="relu")(x)))
    model.compile(optimizer=keras.optimizers.Nadam(0.01, clipnorm=1.0),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def dataset_fn(worker_index, num_workers):
    ds = tf.data.Dataset.from_tensor_slices(_sentences(47, 1024)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)


def val_dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(_sentences(48, 128)).shard(num_workers, worker_index).batch(32)
