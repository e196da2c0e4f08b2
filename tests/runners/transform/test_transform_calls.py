"""How a traced function's loops, conditionals and nested calls use the variable handles passed to them: what
decides whether a tower-local copy may stand for a variable (read only) or not (anything that may write it)."""
from __future__ import annotations

import pytest


def _use(fn):
    """The :class:`HandleUse` of the one variable ``fn`` (a ``tf.function`` of no arguments) captures."""
    from runners.transform._calls import HandleUses

    g = fn.get_concrete_function().graph
    (_, internal), = [c for c in g.captures]
    return HandleUses(g.as_graph_def()).of(internal.op.name)


@pytest.fixture(scope="module")
def tf():
    import tensorflow as tf

    return tf


def test_a_loop_that_reads(tf):
    v = tf.Variable(tf.ones([3, 3]))

    @tf.function
    def f():
        return tf.while_loop(lambda i, x: i < 4, lambda i, x: (i + 1, tf.matmul(x, v)), (0, tf.ones([1, 3])))[1]

    use = _use(f)
    assert (use.called, use.written) == (True, False)


def test_a_loop_that_writes(tf):
    v = tf.Variable(0.0)

    @tf.function
    def f():
        def body(i):
            v.assign_add(1.0)
            return i + 1
        return tf.while_loop(lambda i: i < 4, body, (0,))

    assert _use(f).written


def test_a_conditional_that_reads(tf):
    v = tf.Variable(2.0)

    @tf.function
    def f():
        return tf.cond(tf.constant(True), lambda: v * 3.0, lambda: tf.constant(0.0))

    use = _use(f)
    assert (use.called, use.written) == (True, False)


def test_a_write_in_a_call_inside_a_conditional_inside_a_loop(tf):
    v = tf.Variable(1.0)

    @tf.function
    def bump():
        v.assign(v * 2.0)
        return v.read_value()

    @tf.function
    def f():
        def body(i, x):
            return i + 1, tf.cond(i > 1, bump, lambda: x)
        return tf.while_loop(lambda i, x: i < 4, body, (0, 1.0))[1]

    use = _use(f)
    assert (use.called, use.written) == (True, True)


def test_a_read_outside_any_call(tf):
    v = tf.Variable(2.0)

    @tf.function
    def f():
        return v * 3.0

    use = _use(f)
    assert (use.called, use.written) == (False, False)
