"""An embedding read by batches that end unevenly: 151 examples over two workers (76 and 75), batches of 16, so the
replicas' last batches differ in size (12 and 11 rows) and so do their sparse gradients."""
import numpy as np
import tensorflow as tf
import keras

OPTIMIZER = {"name": "sgd", "learning_rate": 0.5}


def build_model():
    keras.utils.set_random_seed(21)
    ids = keras.Input((), dtype="int32")
    return keras.Model(ids, keras.layers.Dense(1)(keras.layers.Embedding(500, 4)(ids)))


def loss_fn(model, batch):
    ids, y = batch
    return tf.reduce_mean(tf.square(model(ids)[:, 0] - y))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(4)
    ids = rng.integers(0, 500, 151).astype("int32")
    y = (ids % 7 == 0).astype("float32")
    return tf.data.Dataset.from_tensor_slices((ids, y)).shard(num_workers, worker_index).batch(16)
