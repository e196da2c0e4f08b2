"""A toy ResNet for 32x32 colour images in 10 classes: two plain convolutions and a max-pool, two residual blocks
of two same-padded convolutions added to their input, a last convolution, global average pooling, a 256-unit
layer with Dropout(0.5).

Adapted from "A toy ResNet model" in "The Functional API", keras.io guide,
https://keras.io/guides/functional_api/#a-toy-resnet-model (CIFAR-10 images, these layers and widths, logits with a
cross-entropy, batches of 64).
What changed: synthetic 32x32 images (coloured textures whose dominant frequency and hue give one of 10 classes)
instead of the CIFAR-10 download; integer labels with a sparse cross-entropy instead of one-hot labels; Adam instead
of RMSprop (which the model contract does not offer); a per-replica batch of 16 so that a step fits a small CPU.
"""
import numpy as np
import tensorflow as tf
import keras

CLASSES = 10
BATCH = 16  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


def build_model():
    keras.utils.set_random_seed(37)
    layers = keras.layers
    inputs = keras.Input((32, 32, 3), name="img")
    x = layers.Conv2D(32, 3, activation="relu")(inputs)
    x = layers.Conv2D(64, 3, activation="relu")(x)
    block = layers.MaxPooling2D(3)(x)
    for _ in range(2):
        x = layers.Conv2D(64, 3, activation="relu", padding="same")(block)
        x = layers.Conv2D(64, 3, activation="relu", padding="same")(x)
        block = layers.add([x, block])
    x = layers.Conv2D(64, 3, activation="relu")(block)
    x = layers.Dense(256, activation="relu")(layers.GlobalAveragePooling2D()(x))
    return keras.Model(inputs, layers.Dense(CLASSES)(layers.Dropout(0.5)(x)), name="toy_resnet")


def loss_fn(model, batch):
    images, label = batch
    logits = model(images, training=True)
    return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=label, logits=logits))


def images(n: int, seed: int = 37) -> tuple[np.ndarray, np.ndarray]:
    """[0, 1] pictures: class c is a wave pattern of frequency 1 + c % 5 in a hue from c // 5, with noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:32, 0:32].astype("float32") / 32
    label = rng.integers(0, CLASSES, n)
    angle = rng.uniform(0, np.pi, n)
    freq = (1 + label % 5 + rng.normal(0, 0.15, n))[:, None, None] * 2 * np.pi
    wave = np.sin(freq * (np.cos(angle)[:, None, None] * xx + np.sin(angle)[:, None, None] * yy))
    hue = np.where((label // 5)[:, None] == 0, [0.8, 0.4, 0.2], [0.2, 0.4, 0.8]) + rng.normal(0, 0.1, (n, 3))
    pictures = 0.5 + 0.35 * wave[..., None] * hue[:, None, None, :] + rng.normal(0, 0.1, (n, 32, 32, 3))
    return np.clip(pictures, 0, 1).astype("float32"), label.astype("int32")


def dataset_fn(worker_index, num_workers):
    x, y = images(2048)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True).prefetch(2)
