"""The `mixed_bfloat16` dtype policy, per layer: variables in float32, matmuls and activations in bfloat16, the
logits cast back to float32 before the loss; a compiled model (bfloat16 needs no loss scaling)."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32


def build_model():
    keras.utils.set_random_seed(49)
    model = keras.Sequential([
        keras.Input((16,)),
        keras.layers.Dense(32, activation="relu", dtype="mixed_bfloat16"),
        keras.layers.Dense(32, activation="relu", dtype="mixed_bfloat16"),
        keras.layers.Dense(4, dtype="mixed_bfloat16"),
        keras.layers.Activation("linear", dtype="float32"),
    ])
    model.compile(optimizer=keras.optimizers.Adam(0.003),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    return model


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(49)
    x = rng.standard_normal((1024, 16)).astype("float32")
    y = np.argmax(x[:, :4] - 0.5 * x[:, 4:8], axis=1).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
