"""The activations term: the forward tensors a backward pass reads, counted in a traced step's graph."""
from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")

from space._activations import saved_activation_bytes  # noqa: E402


def _step_graph(batch: int, hidden: int = 8):
    w1 = tf.Variable(tf.ones([4, hidden]))
    w2 = tf.Variable(tf.ones([hidden, 1]))

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1))
            loss = tf.reduce_sum(tf.matmul(h, w2))
        return loss, tape.gradient(loss, [w1, w2])

    return step.get_concrete_function(tf.TensorSpec([batch, 4], tf.float32)).graph


def test_the_batch_and_what_the_backward_pass_reads_are_counted_not_the_weights():
    # x (the batch) and relu's output (ReluGrad and w2's gradient read it); the variables' reads alias their buffers
    counted = saved_activation_bytes(_step_graph(32, hidden=8))
    assert 32 * 4 * 4 + 32 * 8 * 4 <= counted < 32 * 4 * 4 + 3 * 32 * 8 * 4


@pytest.mark.parametrize("batch", [16, 64])
def test_it_scales_with_the_replica_batch(batch):
    assert saved_activation_bytes(_step_graph(batch)) == batch // 16 * saved_activation_bytes(_step_graph(16))


def test_a_graph_without_a_backward_pass_counts_its_batch_only():
    @tf.function
    def forward(x):
        return tf.reduce_sum(tf.nn.relu(x))

    graph = forward.get_concrete_function(tf.TensorSpec([10, 3], tf.float32)).graph
    assert saved_activation_bytes(graph) == 10 * 3 * 4
