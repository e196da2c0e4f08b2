"""A small Xception-like image classifier: separable convolutions with BatchNorm, residual 1x1 projections at each
downsampling, global average pooling, Dropout, one sigmoid output (cat or dog).

Adapted from "Image classification from scratch", keras.io,
https://keras.io/examples/vision/image_classification_from_scratch/ (its `make_model`: a Rescaling entry, two plain
convolutions, residual blocks of two SeparableConv2D + BatchNorm + MaxPooling with a strided 1x1 Conv2D on the
shortcut, a last SeparableConv2D, global average pooling, Dropout(0.5), binary cross-entropy, Adam at 0.001).
What changed: synthetic 64x64 RGB images (blobs and stripes whose orientation is the label) instead of the
Cats vs Dogs download at 180x180; the widths are a quarter of the original's (entry 8 and 16, blocks 32, 64, 128,
last 256) and there are three residual blocks instead of four, so a step fits a small CPU; no random flip and
rotation augmentation, so that the pipeline stays deterministic; no XLA compilation.
"""
import numpy as np
import tensorflow as tf
import keras

SIZE = 64
BLOCKS = [32, 64, 128]
BATCH = 16  # per replica
OPTIMIZER = {"name": "adam", "learning_rate": 0.001}


def build_model():
    keras.utils.set_random_seed(34)
    layers = keras.layers
    inputs = keras.Input((SIZE, SIZE, 3))
    x = layers.Rescaling(1.0 / 255)(inputs)
    x = layers.Conv2D(8, 3, strides=2, padding="same")(x)
    x = layers.Activation("relu")(layers.BatchNormalization()(x))
    x = layers.Conv2D(16, 3, padding="same")(x)
    x = layers.Activation("relu")(layers.BatchNormalization()(x))
    shortcut = x
    for width in BLOCKS:
        x = layers.Activation("relu")(x)
        x = layers.BatchNormalization()(layers.SeparableConv2D(width, 3, padding="same")(x))
        x = layers.Activation("relu")(x)
        x = layers.BatchNormalization()(layers.SeparableConv2D(width, 3, padding="same")(x))
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        x = layers.add([x, layers.Conv2D(width, 1, strides=2, padding="same")(shortcut)])
        shortcut = x
    x = layers.SeparableConv2D(256, 3, padding="same")(x)
    x = layers.Activation("relu")(layers.BatchNormalization()(x))
    x = layers.Dropout(0.5)(layers.GlobalAveragePooling2D()(x))
    return keras.Model(inputs, layers.Dense(1, name="logit")(x), name="xception_small")


def loss_fn(model, batch):
    images, label = batch
    logits = tf.squeeze(model(images, training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def images(n: int, seed: int = 34) -> tuple[np.ndarray, np.ndarray]:
    """uint8-range pictures: a few coloured blobs on a noisy background plus stripes, horizontal for label 0 and
    vertical for label 1."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype("float32") / SIZE
    label = rng.integers(0, 2, n).astype("float32")
    out = np.empty((n, SIZE, SIZE, 3), "float32")
    for i in range(n):
        img = rng.uniform(40, 120, 3) + rng.normal(0, 12, (SIZE, SIZE, 3))
        for _ in range(3):
            cy, cx, r = rng.uniform(0.1, 0.9, 2).tolist() + [rng.uniform(0.05, 0.2)]
            blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
            img += blob[..., None] * rng.uniform(-80, 120, 3)
        phase = (xx if label[i] else yy) * rng.uniform(8, 16) * np.pi
        img += 10 * np.sin(phase)[..., None]
        out[i] = np.clip(img, 0, 255)
    return out, label


def dataset_fn(worker_index, num_workers):
    x, y = images(1024)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True).prefetch(2)
