"""A plain `tf.Module` (no Keras) with its own `tf.Variable`s and `tf.function`-decorated methods."""
import numpy as np
import tensorflow as tf

BATCH = 32
OPTIMIZER = {"name": "momentum", "learning_rate": 0.05, "momentum": 0.8}


class Dense(tf.Module):
    def __init__(self, in_dim, out_dim, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_dim, out_dim], stddev=1.0 / np.sqrt(in_dim)), name="w")
        self.b = tf.Variable(tf.zeros([out_dim]), name="b")

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


class MLP(tf.Module):
    def __init__(self, name="mlp"):
        super().__init__(name=name)
        with self.name_scope:
            self.l1 = Dense(16, 64, name="l1")
            self.l2 = Dense(64, 64, name="l2")
            self.l3 = Dense(64, 3, name="l3")

    @tf.function
    def __call__(self, x):
        return self.l3(tf.nn.relu(self.l2(tf.nn.relu(self.l1(x)))))

    @tf.function(input_signature=[tf.TensorSpec([None, 16], tf.float32), tf.TensorSpec([None], tf.int32)])
    def loss(self, x, y):
        logits = self(x)
        return tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))


def build_model():
    tf.random.set_seed(25)
    return MLP()


def loss_fn(model, batch):
    x, y = batch
    return model.loss(x, y)


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(25)
    x = rng.standard_normal((1536, 16)).astype("float32")
    y = np.argmax(x[:, :3], axis=1).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_workers, worker_index)
    return ds.repeat().batch(BATCH, drop_remainder=True)
