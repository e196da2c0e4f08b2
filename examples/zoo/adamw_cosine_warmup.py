"""AdamW with a cosine learning-rate schedule after a linear warm-up, `global_clipnorm`, and biases kept out of
weight decay (`exclude_from_weight_decay`), as transformers are trained; a compiled model."""
import numpy as np
import tensorflow as tf
import keras

VOCAB, LENGTH, BATCH = 200, 12, 16


def build_model():
    keras.utils.set_random_seed(43)
    tokens = keras.Input((LENGTH,), dtype="int32")
    x = keras.layers.GlobalAveragePooling1D()(keras.layers.Embedding(VOCAB, 16)(tokens))
    x = x + keras.layers.Dense(16, activation="gelu")(x)  # a residual block
    model = keras.Model(tokens, keras.layers.Dense(2)(x))
    schedule = keras.optimizers.schedules.CosineDecay(
        initial_learning_rate=0.0, decay_steps=200, warmup_target=3e-3, warmup_steps=5)
    optimizer = keras.optimizers.AdamW(schedule, weight_decay=0.01, global_clipnorm=0.5)
    optimizer.exclude_from_weight_decay(var_names=["bias"])
    model.compile(optimizer=optimizer, loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(43)
    tokens = rng.integers(0, VOCAB, (1024, LENGTH)).astype("int32")
    label = (np.sum(tokens < 20, axis=1) > 1).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((tokens, label)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
