"""Weight and activity regularizers and an `add_loss` term, with no `loss_fn`: the compiled loss plus
`model.losses`, as `model.fit` adds them."""
import numpy as np
import tensorflow as tf
import keras


class Smooth(keras.layers.Layer):
    """A layer that adds its own loss: the mean square of its output's differences."""

    def call(self, x):
        self.add_loss(1e-3 * keras.ops.mean(keras.ops.square(x[:, 1:] - x[:, :-1])))
        return x


def build_model():
    keras.utils.set_random_seed(48)
    model = keras.Sequential([
        keras.Input((10,)),
        keras.layers.Dense(24, activation="tanh", kernel_regularizer=keras.regularizers.L2(1e-3),
                           activity_regularizer=keras.regularizers.L1(1e-4)),
        Smooth(),
        keras.layers.Dense(1, kernel_regularizer=keras.regularizers.L1L2(l1=1e-4, l2=1e-3)),
    ])
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.5), loss="mse")
    return model


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(48)
    x = rng.standard_normal((1024, 10)).astype("float32")
    y = (x[:, :1] * 2.0 - x[:, 1:2]).astype("float32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(32, drop_remainder=True)
