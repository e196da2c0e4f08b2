"""Neural Collaborative Filtering (NeuMF): a matrix-factorization branch and an MLP branch over user and item
embeddings, trained on implicit feedback with sampled negatives.

Adapted from the NCF model of the TensorFlow Model Garden, `official/recommendation/neumf_model.py`,
https://github.com/tensorflow/models/blob/master/official/recommendation/neumf_model.py (one embedding table per
side holding both branches' vectors, sliced apart; element-wise product for the MF branch; concatenation and a
ReLU tower for the MLP branch; one logit over both; sigmoid cross-entropy; Adam). Sizes follow its MLPerf settings
(64 factors, MLP layers 256-256-128-64) on MovieLens 1M's 6,040 users and 3,706 items.
What changed: synthetic positives drawn here from latent user and item factors, with 4 uniform negatives per
positive generated in the pipeline, instead of the MovieLens download and the Model Garden's data server; the
plain sigmoid cross-entropy instead of its equivalent two-column softmax; the gradients of the tables stay sparse
(the original densified them for its GPU optimizer); no evaluation metrics (HR, NDCG); a per-replica batch of
1,280 (256 positives) instead of about 1M.
"""
import numpy as np
import tensorflow as tf
import keras

USERS, ITEMS = 6040, 3706
MF_DIM = 64
LAYERS = [256, 256, 128, 64]  # the first is the concatenated user + item MLP embedding
NEGATIVES = 4
POSITIVES = 256  # per replica and step
OPTIMIZER = {"name": "adam", "learning_rate": 0.0005, "beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-8}


def build_model():
    keras.utils.set_random_seed(32)
    user = keras.Input((), dtype="int32", name="user")
    item = keras.Input((), dtype="int32", name="item")
    width = MF_DIM + LAYERS[0] // 2
    user_vec = keras.layers.Embedding(USERS, width, embeddings_initializer="glorot_uniform",
                                      name="embedding_user")(user)
    item_vec = keras.layers.Embedding(ITEMS, width, embeddings_initializer="glorot_uniform",
                                      name="embedding_item")(item)
    mf = keras.layers.Multiply(name="gmf")([user_vec[:, :MF_DIM], item_vec[:, :MF_DIM]])
    mlp = keras.layers.Concatenate(name="mlp_input")([user_vec[:, MF_DIM:], item_vec[:, MF_DIM:]])
    for i, units in enumerate(LAYERS[1:]):
        mlp = keras.layers.Dense(units, activation="relu", name=f"mlp{i}")(mlp)
    both = keras.layers.Concatenate(name="neumf")([mf, mlp])
    logit = keras.layers.Dense(1, kernel_initializer="lecun_uniform", name="rating")(both)
    return keras.Model([user, item], logit, name="neumf")


def loss_fn(model, batch):
    user, item, label = batch
    logits = tf.squeeze(model([user, item], training=True), -1)
    return tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=label, logits=logits))


def dataset_fn(worker_index, num_workers):
    rng = np.random.default_rng(32)
    taste, kind = rng.normal(size=(USERS, 8)), rng.normal(size=(ITEMS, 8))
    # each user's positives: the items its factors like best among a random slate, popular items more often
    n = 65536
    user = rng.integers(0, USERS, n)
    slate = (rng.zipf(1.2, (n, 8)) + rng.integers(0, ITEMS, (n, 1))) % ITEMS
    best = np.argmax(np.einsum("nd,nkd->nk", taste[user], kind[slate]), axis=1)
    positives = tf.data.Dataset.from_tensor_slices((user.astype("int32"), slate[np.arange(n), best].astype("int32")))

    def with_negatives(index, pair):
        # NEGATIVES uniform items beside each positive, drawn from the batch's index: the same every epoch
        user, item = pair
        drawn = tf.random.stateless_uniform([POSITIVES, NEGATIVES], seed=tf.stack([index, 32]), maxval=ITEMS,
                                            dtype=tf.int32)
        users = tf.reshape(tf.tile(user[:, None], [1, NEGATIVES + 1]), [-1])
        items = tf.reshape(tf.concat([item[:, None], drawn], 1), [-1])
        labels = tf.reshape(tf.tile(tf.constant([[1.0] + [0.0] * NEGATIVES]), [POSITIVES, 1]), [-1])
        return users, items, labels

    ds = positives.shard(num_workers, worker_index).repeat().batch(POSITIVES, drop_remainder=True)
    return ds.enumerate().map(with_negatives).prefetch(2)
