"""A tuned input pipeline: `.shuffle(buffer, seed=...)`, `.map(..., num_parallel_calls=tf.data.AUTOTUNE)`
and `.prefetch(tf.data.AUTOTUNE)`."""
import numpy as np
import tensorflow as tf
import keras

BATCH = 32
OPTIMIZER = {"name": "adam", "learning_rate": 0.002}


def build_model():
    keras.utils.set_random_seed(26)
    return keras.Sequential([
        keras.Input((8, 8, 1)),
        keras.layers.Conv2D(16, 3, activation="relu"),
        keras.layers.Flatten(),
        keras.layers.Dense(5),
    ])


def augment(image, label):
    image = tf.image.convert_image_dtype(image, tf.float32)
    image = tf.image.flip_left_right(image)
    image = (image - 0.5) / 0.25
    return image, label


def loss_fn(model, batch):
    images, labels = batch
    logits = model(images, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(26)
    images = rng.integers(0, 256, (2000, 8, 8, 1)).astype("uint8")
    labels = (images[:, :4, :4, 0].mean(axis=(1, 2)) // 52).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((images, labels)).shard(num_workers, worker_index)
    ds = ds.shuffle(512, seed=7).repeat()
    ds = ds.map(augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(BATCH, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
