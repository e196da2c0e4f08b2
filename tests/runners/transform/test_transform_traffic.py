"""The count of what a step sends between nodes, read from a graph (``runners.transform._traffic``), on small graphs
built by hand: which tensors cross, how often, at what size, and what a collective sends."""
from __future__ import annotations

import types

import pytest

from space.errors import RunError

TASKS = {f"/job:worker/replica:0/task:{i}": f"10.0.0.{i + 1}" for i in range(3)}
A, B, C = TASKS.values()


def dev(task: int) -> str:
    return f"/job:worker/replica:0/task:{task}/device:CPU:0"


def traffic(train_op, expected=None, items=None):
    from runners.transform._traffic import step_traffic

    tg = types.SimpleNamespace(mode="lockstep", train_op=train_op, task_addresses=TASKS,
                               expected_elements=expected or {})
    return step_traffic(tg, items)


def test_a_tensor_crosses_once_per_receiving_task_and_a_read_runs_beside_its_variable():
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        with tf.device(dev(1)):
            v = tf.Variable(tf.zeros([10, 10]))
        read = tf.raw_ops.ReadVariableOp(resource=v.handle, dtype=tf.float32)  # no device: where v lives
        outs = []
        for task in (0, 0, 2):  # two consumers on task 0, one on task 2
            with tf.device(dev(task)):
                outs.append(tf.reduce_sum(read * 2.0))
        with tf.device(dev(0)):
            step = tf.group(outs)
        with tf.device(dev(2)):
            tf.reduce_sum(read * 3.0)  # outside the step
    assert traffic(step) == {(B, A): 400, (B, C): 400}


def test_a_tensor_whose_size_depends_on_the_batch_must_be_expected():
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        with tf.device(dev(0)):
            ids = tf.compat.v1.placeholder(tf.int32, [None])
        with tf.device(dev(1)):
            step = tf.group(tf.reduce_sum(ids))
    with pytest.raises(RunError, match="nobody expected"):
        traffic(step)
    assert traffic(step, {ids.name: 64}) == {(A, B): 256}


def test_a_ring_all_reduce_sends_from_each_rank_to_the_next():
    import tensorflow as tf
    from tensorflow.python.ops import collective_ops

    from space import wire

    g = tf.Graph()
    with g.as_default():
        reduced = []
        for task in (2, 0, 1):  # built in any order, ranked by task
            with tf.device(dev(task)):
                reduced.append(collective_ops.all_reduce_v2(tf.ones([100]), group_size=3, group_key=1,
                                                            instance_key=7, merge_op="Add", final_op="Id"))
        step = tf.group(reduced)
    sent = wire.ring_reduce_sent(100, 4, 3)
    items: list = []
    assert traffic(step, items=items) == {(A, B): sent[0], (B, C): sent[1], (C, A): sent[2]}
    assert {name for _, _, name, _ in items} == {reduced[0].op.name}


def test_an_op_with_neither_device_nor_resource_is_refused():
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default():
        x = tf.ones([4])
        with tf.device(dev(1)):
            step = tf.group(tf.reduce_sum(x))
    with pytest.raises(RunError, match="no device"):
        traffic(step)


@pytest.mark.slow
@pytest.mark.parametrize("model,alias", [("recommender", "ps"), ("recommender", "ps_proxy"), ("cnn", "ps_async")],
                         ids=lambda x: x)
def test_tensorflow_sends_the_tensors_the_graph_count_says(model, alias, cluster, spec, traced):
    """On two loopback servers, the tensors TensorFlow's partition graphs send between the tasks in one step (sized
    by a full trace) are those the count reads from the graph: one lookup's ids sent once, a proxy refreshed once,
    the state read and written back by the tower that steps on its own (static sizes: equal to the byte)."""
    from runners.transform import TrainingJob
    from runners.transform._traffic import partition_traffic, step_traffic
    from space.builders import build_strategy

    t, inv = traced(model)
    with TrainingJob(t, build_strategy(alias, inv, spec), cluster) as job:
        job.run(2)
        items: list = []
        step_traffic(job.graph, items)
        counted: dict = {}
        for a, b, name, nbytes in items:
            if not name.startswith("Collective"):
                counted[(a, b)] = counted.get((a, b), 0.0) + nbytes
        assert partition_traffic(job) == counted and counted
