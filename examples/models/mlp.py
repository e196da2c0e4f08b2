"""A 3-layer MLP classifier on synthetic 784-feature data (MNIST-sized). Dense gradients only."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32  # per replica
OPTIMIZER = {"name": "sgd", "learning_rate": 0.05}


def build_model():
    keras.utils.set_random_seed(1)
    return keras.Sequential([
        keras.Input((784,)),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10),
    ], name="mlp")


def loss_fn(model, batch):
    x, y = batch
    logits = model(x, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2048, 784)).astype("float32")
    y = (x[:, :10].argmax(axis=1)).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
