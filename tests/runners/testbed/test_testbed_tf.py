"""A TensorFlow all-reduce between two testbed hosts takes the time their link rate predicts.

One ``tf.distribute.Server`` per host is started over SSH (paramiko, pinned host keys); the driver is this
process, in the root namespace, reaching the hosts through the testbed's root link. The prediction is the
wire time at the set rate plus the same all-reduce's time between two unshaped hosts, measured alongside
(TF's own gRPC and copy cost: ~0.2 s on an idle 2-core machine, more when it is loaded).
"""
from __future__ import annotations

import socket
import sys
import time

import pytest

from _testbed_helpers import HERE, ssh_client, unique_prefix, unique_subnet
from runners.testbed import _sys

pytestmark = [pytest.mark.netns, pytest.mark.ssh, pytest.mark.slow]

TF_PORT = 7070
FLOATS = 10 * 2**20  # 40 MiB of float32
TCP_PAYLOAD_SHARE = 1448 / 1514  # TCP payload per Ethernet frame (MTU 1500, TCP timestamps on)
TIMED_RUNS = 4


def _start_server(plan: dict, index: int, task: int, workers: list[str]) -> tuple[int, int | None]:
    """Start worker ``task`` of ``workers`` on host ``index`` over SSH; returns its (PID, start time)."""
    host = plan["hosts"][index]
    log = f"{plan['dir']}/{host['name']}/work/tf_server.log"
    cmd = (f"setsid nohup {plan['python']} {HERE / '_tf_server.py'} {task} {' '.join(workers)} "
           f"> {log} 2>&1 < /dev/null & echo $!")
    client = ssh_client(plan, host["address"])
    try:
        _, out, _ = client.exec_command(cmd, timeout=20)
        pid = int(out.read().decode().strip())
    finally:
        client.close()
    return pid, _sys.start_time(pid)  # one PID namespace: the remote PID is a local PID


def _wait_port(address: str, port: int, timeout_s: float = 90.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address, port), timeout=1.0).close()
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"TF server {address}:{port} not listening after {timeout_s:.0f} s")


@pytest.fixture(scope="module")
def tf_testbed(netns_ok, tmp_path_factory):
    """Four hosts: h0, h1 shaped to 200mbit; h2, h3 at 100gbit, i.e. unshaped (the software's own cost)."""
    import runners.testbed as tb

    plan = tb.make_plan(4, "100gbit", ["0=200mbit", "1=200mbit"], prefix=unique_prefix("tf"),
                        subnet=unique_subnet(1), directory=str(tmp_path_factory.mktemp("tf") / "state"),
                        python=sys.executable)
    try:
        tb.up(plan)
        yield plan
    finally:
        tb.down(plan["dir"])  # also ends anything still running in the host namespaces


@pytest.fixture(scope="module")
def tf_servers(tf_testbed):
    """Two 2-worker TF clusters, {h0, h1} (shaped) and {h2, h3} (unshaped); stopped by PID at the end."""
    clusters = [[f"{h['address']}:{TF_PORT}" for h in pair]
                for pair in (tf_testbed["hosts"][:2], tf_testbed["hosts"][2:])]
    started: list[tuple[int, int | None]] = []
    try:
        for c, workers in enumerate(clusters):
            for task in range(2):
                started.append(_start_server(tf_testbed, 2 * c + task, task, workers))
        for h in tf_testbed["hosts"]:
            _wait_port(h["address"], TF_PORT)
        yield clusters
    finally:
        for pid, start in started:
            _sys.terminate(pid, start)


def _all_reduce_session(tf, target: str):
    """A session on ``target`` and the fetch that runs a 40 MiB ring all-reduce across its two workers."""
    from tensorflow.python.ops import collective_ops

    graph = tf.Graph()
    with graph.as_default():
        heads = []
        for task in range(2):
            with graph.device(f"/job:worker/replica:0/task:{task}/device:CPU:0"):
                v = tf.compat.v1.Variable(tf.random.uniform([FLOATS]), name=f"grad{task}")  # not constant-foldable
                total = collective_ops.all_reduce_v2(v.read_value(), group_size=2, group_key=1, instance_key=1,
                                                     merge_op="Add", final_op="Id", communication_hint="ring")
                heads.append(total[:1])  # fetch one element: the 40 MiB stay on the workers
        init = tf.compat.v1.global_variables_initializer()
    config = tf.compat.v1.ConfigProto()
    config.experimental.collective_group_leader = "/job:worker/replica:0/task:0"
    session = tf.compat.v1.Session(f"grpc://{target}", graph=graph, config=config)
    session.run(init, options=tf.compat.v1.RunOptions(timeout_in_ms=60_000))
    return session, heads


def test_all_reduce_40mib_takes_the_time_the_rate_predicts(tf_testbed, tf_servers):
    import tensorflow as tf

    options = tf.compat.v1.RunOptions(timeout_in_ms=60_000)
    runs = [_all_reduce_session(tf, workers[0]) for workers in tf_servers]
    seconds: list[list[float]] = [[], []]
    try:
        for session, heads in runs:
            session.run(heads, options=options)  # warm-up: group and instance resolution
        for _ in range(TIMED_RUNS):  # interleaved, so both see the same load from the rest of the machine
            for i, (session, heads) in enumerate(runs):
                start = time.perf_counter()
                session.run(heads, options=options)
                seconds[i].append(time.perf_counter() - start)
    finally:
        for session, _ in runs:
            session.close()
    rate = tf_testbed["hosts"][0]["rate_bit"]
    # ring all-reduce, n=2: each host sends 2(n-1)/n = 1 times the tensor, at the TCP payload share of the rate
    wire = FLOATS * 4 * 8 / (rate * TCP_PAYLOAD_SHARE)
    shaped, unshaped = min(seconds[0]), min(seconds[1])  # load from elsewhere only adds time
    predicted = wire + unshaped
    print(f"all-reduce 40 MiB at {rate / 1e6:.0f} Mbit/s: wire time {wire:.3f} s + unshaped {unshaped:.3f} s "
          f"= predicted {predicted:.3f} s; measured {', '.join(f'{s:.3f}' for s in seconds[0])} s "
          f"(best {shaped / predicted - 1:+.1%} vs predicted, {shaped / wire - 1:+.1%} vs wire time)")
    assert shaped >= 0.95 * wire, "faster than the link rate allows: the shaping is not in effect"
    assert abs(shaped - predicted) <= 0.15 * predicted
