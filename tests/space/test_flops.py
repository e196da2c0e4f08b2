"""FLOPs of a traced step with control flow: loops times their trip count, the costlier branch of a conditional,
functions within loops; a loop of unknown length counted once and said so, in the inventory and by `inspect`.

Expectations are the matmuls, counted by hand: a step's forward matmuls and, for each, the two of its gradient
(the weights' and the input's); every other op adds its outputs, a few percent here.
"""
from __future__ import annotations

import json

import pytest

from space.model import load_inventory

B, D = 32, 64  # batch rows, width of the square weight every loop body multiplies by
MATMUL = 2 * B * D * D
TOLERANCE = 1.12  # elementwise ops (tanh, accumulators, loop variables) on top of the matmuls, at this width


def step_count(fn, batch_shape=(B, D)):
    """The FLOP count of a step ``reduce_sum(fn(x, w))`` with its gradient for ``w`` (a D x D variable)."""
    import tensorflow as tf

    from space._flops import count_flops

    w = tf.Variable(tf.random.stateless_normal([D, D], seed=[1, 2]) / D)

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(fn(x, w))
        return loss, tape.gradient(loss, [w])

    return count_flops(step.get_concrete_function(tf.TensorSpec(batch_shape)).graph)


def layer(x, w):
    import tensorflow as tf

    return tf.tanh(x @ w)


def while_less(x, w):
    import tensorflow as tf

    return tf.while_loop(lambda i, y: i < 6, lambda i, y: (i + 1, layer(y, w)), (0, x))[1]


def while_less_equal_from_one(x, w):
    import tensorflow as tf

    return tf.while_loop(lambda i, y: i <= 6, lambda i, y: (i + 1, layer(y, w)), (tf.constant(1), x))[1]


def count_down_by_two(x, w):
    import tensorflow as tf

    i = tf.constant(12)
    while i > 0:  # AutoGraph makes it a tf.while_loop (a Python int would unroll it)
        x = layer(x, w)
        i -= 2
    return x


def range_of_batch_rows(x, w):
    import tensorflow as tf

    for _ in tf.range(tf.shape(x)[0] // 8 + 2):  # 32 rows: 6 iterations
        x = layer(x, w)
    return x


def maximum_iterations_only(x, w):
    import tensorflow as tf

    return tf.while_loop(lambda y: tf.constant(True), lambda y: (layer(y, w),), (x,), maximum_iterations=6)[0]


def scan_over_six(x, w):
    import tensorflow as tf

    return tf.scan(lambda y, e: layer(y, w) + e, tf.zeros([6, B, D]), initializer=x)[-1]


@pytest.mark.parametrize("fn", [while_less, while_less_equal_from_one, count_down_by_two, range_of_batch_rows,
                                maximum_iterations_only, scan_over_six],
                         ids=["less", "less_equal", "count_down", "tf_range_of_shape", "maximum_iterations", "scan"])
def test_a_loop_counts_its_body_once_per_iteration(fn):
    """Six iterations of y = tanh(y @ w): six matmuls forward, twelve backward (for w and for y)."""
    count = step_count(fn)
    expected = 3 * 6 * MATMUL
    assert expected <= count.flops <= TOLERANCE * expected
    assert count.note == "" and not count.lower_bound


def test_a_loop_in_a_function_in_a_loop_multiplies_both_trip_counts():
    import tensorflow as tf

    @tf.function
    def inner(y, w):
        return tf.while_loop(lambda i, z: i < 3, lambda i, z: (i + 1, layer(z, w)), (0, y))[1]

    def outer(x, w):
        return tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, inner(y, w)), (0, x))[1]

    count = step_count(outer)
    expected = 3 * 12 * MATMUL
    assert expected <= count.flops <= TOLERANCE * expected and count.note == ""


@pytest.mark.parametrize("cell,gates", [("LSTM", 4), ("GRU", 3), ("SimpleRNN", 1)], ids=["lstm", "gru", "simple_rnn"])
def test_a_keras_rnn_counts_its_cell_once_per_timestep(cell, gates):
    """A cell's matmuls, input (F x gates*U) and recurrent (U x gates*U), for each of the T timesteps of the
    input spec; backward, the weights' and the inputs' and states' gradients: three times the forward's."""
    import keras
    import tensorflow as tf

    from space._flops import count_flops

    batch, steps, features, units = 16, 10, 8, 48
    inputs = keras.Input((steps, features))
    model = keras.Model(inputs, keras.layers.Dense(1)(getattr(keras.layers, cell)(units)(inputs)))

    @tf.function
    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(model(x, training=True))
        return loss, tape.gradient(loss, model.trainable_variables)

    count = count_flops(step.get_concrete_function(tf.TensorSpec([batch, steps, features])).graph)
    expected = 3 * steps * 2 * batch * (features + units) * gates * units
    assert expected <= count.flops <= 1.25 * expected  # gates, activations: elementwise, a cell's 1/10 to 1/5
    assert count.note == ""


def test_a_conditional_counts_its_costlier_branch_and_says_so():
    """y = x @ w, then (y @ w) @ w or y * 2 by the data: the costlier branch is two matmuls forward, four
    backward (w twice, the intermediate, y), on top of y's own two."""
    import tensorflow as tf

    def branchy(x, w):
        y = x @ w
        return tf.cond(tf.reduce_sum(y) > 0, lambda: (y @ w) @ w, lambda: y * 2.0)

    count = step_count(branchy)
    expected = 8 * MATMUL
    assert expected <= count.flops <= TOLERANCE * expected
    assert not count.lower_bound and "at most" in count.note and "costlier branch" in count.note


def test_a_switch_case_counts_its_costliest_branch():
    import tensorflow as tf

    def switch(x, w):
        index = tf.cast(tf.reduce_sum(x) > 0, tf.int32)
        return tf.switch_case(index, [lambda: x * 2.0, lambda: layer(layer(layer(x, w), w), w), lambda: layer(x, w)])

    count = step_count(switch)  # three matmuls forward, six backward (w thrice, two intermediates, x)
    assert 8 * MATMUL <= count.flops <= TOLERANCE * 9 * MATMUL and "costlier branch" in count.note


def test_a_conditional_on_a_constant_counts_the_branch_it_takes():
    import tensorflow as tf

    def fixed(x, w):
        return tf.cond(tf.constant(False), lambda: layer(layer(x, w), w), lambda: x * 2.0)

    count = step_count(fixed)
    assert count.flops < MATMUL / 2 and count.note == ""  # the other branch: two matmuls forward alone


def test_a_loop_of_unknown_length_is_counted_once_as_a_lower_bound():
    import tensorflow as tf

    def until_large(x, w):
        return tf.while_loop(lambda y: tf.reduce_sum(tf.abs(y)) < 1e6, lambda y: (layer(y, w) * 2.0,), (x,))[0]

    count = step_count(until_large)
    assert 3 * MATMUL <= count.flops <= TOLERANCE * 3 * MATMUL
    assert count.lower_bound and count.note.startswith("at least: ") and "unknown length" in count.note


def test_a_loop_ended_by_data_before_maximum_iterations_is_counted_to_them_as_an_upper_bound():
    import tensorflow as tf

    def capped(x, w):
        return tf.while_loop(lambda y: tf.reduce_sum(tf.abs(y)) < 1e6, lambda y: (layer(y, w) * 2.0,), (x,),
                             maximum_iterations=5)[0]

    count = step_count(capped)  # the gradient loop runs as often as the forward one: at most 5 times too
    assert 3 * 5 * MATMUL <= count.flops <= TOLERANCE * 3 * 5 * MATMUL
    assert not count.lower_bound and count.note.startswith("at most: ") and "maximum_iterations" in count.note


def test_a_loop_over_an_unknown_batch_dimension_is_a_lower_bound():
    count = step_count(range_of_batch_rows, batch_shape=(None, D))
    assert count.lower_bound and "unknown length" in count.note


UNKNOWN_LOOP_MODEL = '''
import tensorflow as tf, keras
def build_model():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(4)])
def loss_fn(model, batch):
    y = tf.while_loop(lambda y: tf.reduce_max(y) < 10.0, lambda y: (tf.abs(model(y)) + 2.0 * y + 1.0,), (batch,))[0]
    return tf.reduce_mean(y ** 2)
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(tf.ones([8, 4])).batch(4)
'''

RNN_MODEL = '''
import tensorflow as tf, keras
def build_model():
    inputs = keras.Input((20, 8))
    return keras.Model(inputs, keras.layers.Dense(1)(keras.layers.GRU(32)(inputs)))
def loss_fn(model, batch):
    return tf.reduce_mean(model(batch) ** 2)
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(tf.ones([32, 20, 8])).batch(16)
'''


def test_inspect_says_when_the_flops_are_a_lower_bound(run, tmp_path):
    model = tmp_path / "unknown_loop.py"
    model.write_text(UNKNOWN_LOOP_MODEL)
    code, out, err = run("inspect", "--model", str(model), "--cache-dir", str(tmp_path / "cache"))
    assert code == 0, err
    assert "MFLOP per step (at least: 2 loops of unknown length counted once)" in out
    code, out, _ = run("inspect", "--model", str(model), "--cache-dir", str(tmp_path / "cache"), "--json")
    data = json.loads(out)
    assert data["flops_lower_bound"] is True and data["flops_note"].startswith("at least")


def test_a_stale_cached_inventory_is_traced_again(tmp_path):
    """An inventory cached before loops were counted (an older version) must not hide their FLOPs."""
    from space.inventory import INVENTORY_VERSION

    model = tmp_path / "rnn.py"
    model.write_text(RNN_MODEL)
    fresh = load_inventory(model, cache_dir=tmp_path / "cache")
    expected = 3 * 20 * 2 * 16 * (8 + 32) * 3 * 32  # the GRU's matmuls, 20 timesteps, forward and backward
    assert expected <= fresh.flops_per_step <= 1.25 * expected and not fresh.flops_lower_bound
    entry = next((tmp_path / "cache").glob("inventory-*.json"))
    old = json.loads(entry.read_text())
    old.update(version=INVENTORY_VERSION - 1, flops_per_step=1.0)
    old.pop("flops_note"), old.pop("flops_lower_bound")
    entry.write_text(json.dumps(old))
    assert load_inventory(model, cache_dir=tmp_path / "cache").flops_per_step == fresh.flops_per_step
