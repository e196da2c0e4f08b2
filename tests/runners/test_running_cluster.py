"""Local servers: a 2-node cluster runs placed ops and collectives; every process it starts is stopped."""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from runners import RunningCluster, run_with_timeout, start_cluster
from space.cluster import ClusterSpec
from space.errors import RunError, SpecError
from testsupport import alive, wait_gone

pytestmark = pytest.mark.slow
ROOT = pathlib.Path(__file__).resolve().parents[2]


def _spec(*addresses: str, **node0) -> ClusterSpec:
    nodes = [{"address": a} for a in addresses]
    nodes[0] |= {"chief": True} | node0
    return ClusterSpec.from_dict({"nodes": nodes})


def _server_children() -> list[int]:
    """PIDs of live server_main processes that are children of this test process."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            cmd = open(f"/proc/{entry}/cmdline", "rb").read()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and stat[0] != "Z" and b"runners.server_main" in cmd:
            out.append(int(entry))
    return out


@pytest.fixture(scope="module")
def cluster():
    with start_cluster(_spec("127.0.0.1", "127.0.0.2", cpus=[0, 1, 2]), timeout_s=120) as c:
        yield c


def _towers(cluster: RunningCluster, build):
    import tensorflow as tf

    g = tf.Graph()
    outs = []
    with g.as_default():
        for k, device in enumerate(["127.0.0.1:CPU:0", "127.0.0.2:CPU:0"]):
            with tf.compat.v1.device(cluster.task_device(device)):
                outs.append(build(k))
    return g, outs


def test_naming(cluster):
    assert cluster.task_device("127.0.0.2:CPU:0") == "/job:worker/replica:0/task:1/device:CPU:0"
    assert cluster.cluster_def() == {"worker": [f"127.0.0.1:{cluster.ports[0]}", f"127.0.0.2:{cluster.ports[1]}"]}
    assert cluster.target == f"grpc://127.0.0.1:{cluster.ports[0]}"
    assert len(set(cluster.ports)) == 2


def test_servers_get_the_thread_pools_of_their_nodes():
    spec = ClusterSpec.from_dict({"nodes": [
        {"address": "127.0.0.1", "chief": True, "intra_op_threads": 1, "inter_op_threads": 2},
        {"address": "127.0.0.2"}]})
    with start_cluster(spec, timeout_s=120) as c:
        args = [open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0") for pid in c.pids]
    def value(argv, flag):
        return argv[argv.index(flag.encode()) + 1].decode()
    assert [value(a, "--intra-op-threads") for a in args] == ["1", "0"]  # 0 = TensorFlow's default
    assert [value(a, "--inter-op-threads") for a in args] == ["2", "0"]


def test_unknown_device_is_a_spec_error(cluster):
    with pytest.raises(SpecError, match="127.0.0.9"):
        cluster.task_device("127.0.0.9:CPU:0")


def test_op_runs_on_task_1(cluster):
    import tensorflow as tf

    g, outs = _towers(cluster, lambda k: tf.constant([1.0, 2.0]) * float(k + 1))
    meta = tf.compat.v1.RunMetadata()
    opts = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
    with tf.compat.v1.Session(cluster.target, graph=g) as sess:
        value = sess.run(outs[1], options=opts, run_metadata=meta)
    assert value.tolist() == [2.0, 4.0]
    assert any("/job:worker/replica:0/task:1/" in d.device for d in meta.step_stats.dev_stats)


def test_all_reduce_across_tasks(cluster):
    import tensorflow as tf
    from tensorflow.python.ops import collective_ops

    key = cluster.next_instance_key_base()
    g, outs = _towers(cluster, lambda k: collective_ops.all_reduce_v2(
        tf.constant([1.0, 2.0]) * float(k + 1), 2, 1, key, merge_op="Add", final_op="Id", communication_hint="ring"))
    with tf.compat.v1.Session(cluster.target, graph=g) as sess:
        assert [v.tolist() for v in run_with_timeout(sess, outs, 30, cluster=cluster)] == [[3.0, 6.0]] * 2


def test_fresh_instance_keys_let_trials_change_dtype(cluster):
    """Servers cache instance parameters per key; a new trial with another dtype needs a fresh key."""
    import tensorflow as tf
    from tensorflow.python.ops import collective_ops

    bases = [cluster.next_instance_key_base() for _ in range(2)]
    assert bases[1] - bases[0] == cluster.instance_keys_per_trial
    for base, dtype in zip(bases, [tf.float32, tf.float16]):
        g, outs = _towers(cluster, lambda k: collective_ops.all_reduce_v2(
            tf.cast(tf.constant([1.0]) * float(k + 1), dtype), 2, 1, base, merge_op="Add", final_op="Id"))
        with tf.compat.v1.Session(cluster.target, graph=g) as sess:
            assert [float(v[0]) for v in run_with_timeout(sess, outs, 30, cluster=cluster)] == [3.0, 3.0]


def test_reset_resources_clears_variables(cluster):
    import tensorflow as tf

    def graph(shape):
        g = tf.Graph()
        with g.as_default(), tf.compat.v1.device(cluster.task_device("127.0.0.2:CPU:0")):
            v = tf.compat.v1.get_variable("v", initializer=tf.zeros(shape), use_resource=True)
        return g, v

    g, v = graph([2])
    with tf.compat.v1.Session(cluster.target, graph=g) as sess:
        sess.run(v.initializer)
    cluster.reset_resources()
    g, v = graph([3])  # same name, other shape: only works once the old variable is gone
    with tf.compat.v1.Session(cluster.target, graph=g) as sess:
        sess.run(v.initializer)
        assert sess.run(v).shape == (3,)


def test_hung_step_is_cut_by_timeout(cluster):
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default(), tf.compat.v1.device(cluster.task_device("127.0.0.2:CPU:0")):
        never = tf.queue.FIFOQueue(1, tf.float32, shared_name="never-filled").dequeue()
    start = time.monotonic()
    with cluster.session(g) as sess, pytest.raises(RunError, match="within 1 s.*stuck"):
        run_with_timeout(sess, never, 1.0, cluster=cluster)
    assert time.monotonic() - start < 20
    cluster.check_alive()  # the timeout did not hurt the servers


def test_killed_server_is_named_and_close_stops_the_rest():
    import tensorflow as tf

    c = start_cluster(_spec("127.0.0.3", "127.0.0.4"), timeout_s=120)
    try:
        pids = c.pids
        c.check_alive()
        os.kill(pids[1], signal.SIGKILL)
        g = tf.Graph()
        with g.as_default(), tf.compat.v1.device(c.task_device("127.0.0.4:CPU:0")):
            out = tf.constant(1.0) + 1.0
        with c.session(g, operation_timeout_s=5) as sess, pytest.raises(RunError, match=r"node 127\.0\.0\.4 "):
            run_with_timeout(sess, out, 10, cluster=c)
        with pytest.raises(RunError, match=r"node 127\.0\.0\.4 \(127\.0\.0\.4:\d+, task 1.*status -9"):
            c.check_alive()
    finally:
        c.close()
    c.close()  # idempotent
    assert wait_gone(pids, 1.0) == []
    assert os.path.isdir(c.log_dir)  # the error named the dead server's log: it stays for the user to read
    shutil.rmtree(c.log_dir)


@pytest.mark.parametrize("case", ["bad-python", "timeout"])
def test_failed_start_names_the_node_and_stops_what_started(case, tmp_path):
    if case == "bad-python":
        spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True},
                                                {"address": "127.0.0.5", "python": "/bin/false"}]})
        expect, timeout_s = r"node 127\.0\.0\.5 .*exited before it was ready", 120
    else:
        spec = _spec("127.0.0.1", "127.0.0.5")
        expect, timeout_s = r"127\.0\.0\.1:\d+, task 0\) not ready after 0\.5 s", 0.5
    before = set(_server_children())  # the module's cluster may be running
    with pytest.raises(RunError, match=expect):
        start_cluster(spec, timeout_s=timeout_s, log_dir=str(tmp_path))
    assert set(_server_children()) - before == set()


def test_failed_start_keeps_its_logs_privately_under_the_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path))  # the logs of failed starts go under the cache dir
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))  # and nothing into the temporary dir
    (tmp_path / "tmp").mkdir()
    old = os.umask(0)
    try:
        spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True, "python": "/bin/false"}]})
        with pytest.raises(RunError, match="exited before it was ready") as e:
            start_cluster(spec, timeout_s=60)
    finally:
        os.umask(old)
    (log_dir,) = (tmp_path / "server-logs").iterdir()
    (log,) = log_dir.iterdir()
    assert log_dir.name.startswith(f"autotune-servers-{os.getpid()}-") and f"; log {log} is empty" in str(e.value)
    assert [oct(p.stat().st_mode & 0o777) for p in (log_dir.parent, log_dir, log)] == ["0o700", "0o700", "0o600"]
    assert list((tmp_path / "tmp").iterdir()) == []


def test_the_logs_failed_starts_kept_are_pruned(tmp_path):
    from runners.launch._logs import KEEP, MAX_AGE_S, prune

    now = 1e9
    dead = 2**22 + 1  # beyond the kernel's largest PID: its process is gone
    for k in range(KEEP + 3):
        d = tmp_path / f"autotune-servers-{dead}-{k:02d}"
        d.mkdir()
        os.utime(d, (now - 60 * (KEEP + 3 - k), now - 60 * (KEEP + 3 - k)))
    live = tmp_path / f"autotune-servers-{os.getpid()}-old"  # its driver still runs: its cluster may too
    live.mkdir()
    os.utime(live, (now - 2 * MAX_AGE_S, now - 2 * MAX_AGE_S))
    gone = prune(tmp_path, now=now)
    assert sorted(p.name for p in gone) == [f"autotune-servers-{dead}-{k:02d}" for k in range(3)]
    assert live.is_dir() and len(list(tmp_path.iterdir())) == KEEP + 1


def test_remote_node_without_ssh_config_is_a_spec_error(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path))
    spec = ClusterSpec.from_dict({"nodes": [{"address": "10.9.9.9", "chief": True}]})
    with pytest.raises(SpecError, match="has no `ssh_config`"):
        start_cluster(spec)
    assert list((tmp_path / "server-logs").iterdir()) == []  # no empty log dir left behind


def test_a_python_without_tensorflow_is_named_in_one_line(tmp_path):
    python = tmp_path / "python"  # the interpreter without its site-packages: no TensorFlow, nor its dependencies
    python.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    python.chmod(0o755)
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True},
                                            {"address": "127.0.0.5", "python": str(python)}]})
    before = set(_server_children())
    with pytest.raises(SpecError) as e:
        start_cluster(spec, timeout_s=60, log_dir=str(tmp_path))
    line = str(e.value)
    missing = re.search(rf"^node 127\.0\.0\.5's python \({python}\) cannot import ([\w.]+), .*; log (\S+);", line)
    assert "\n" not in line and missing, line
    assert f"No module named '{missing.group(1)}'" in pathlib.Path(missing.group(2)).read_text()
    assert set(_server_children()) - before == set()


def test_a_port_taken_before_its_server_listens_is_chosen_again(tmp_path, monkeypatch):
    import socket

    from runners.launch._local import LocalLauncher

    taken = socket.socket()  # another process's listener, on the port the first choice will name
    taken.bind(("", 0))
    taken.listen()
    chosen = []
    real = LocalLauncher.free_port

    def free_port(self, node):
        port = taken.getsockname()[1] if not chosen else real(self, node)
        chosen.append(port)
        return port

    monkeypatch.setattr(LocalLauncher, "free_port", free_port)
    try:
        with start_cluster(_spec("127.0.0.3"), timeout_s=120, log_dir=str(tmp_path)) as c:
            assert c.ports != [taken.getsockname()[1]] and len(chosen) == 2
            c.check_alive()
    finally:
        taken.close()


def test_a_node_listing_cpus_gets_those_cpu_devices(cluster):
    import tensorflow as tf

    with tf.compat.v1.Session(cluster.target, graph=tf.Graph()) as sess:
        devices = sorted(d.name for d in sess.list_devices() if "CPU" in d.name)
    assert devices == [f"/job:worker/replica:0/task:0/device:CPU:{i}" for i in range(3)] + \
        ["/job:worker/replica:0/task:1/device:CPU:0"]


_DRIVER = """
import json, sys, time
from runners import start_cluster
from space.cluster import ClusterSpec
cluster = start_cluster(ClusterSpec.from_dict(json.loads(sys.argv[1])), timeout_s=120, log_dir=sys.argv[2])
print(json.dumps(cluster.pids), flush=True)
time.sleep(600)
"""


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT"])
def test_driver_death_leaves_no_server(sig, tmp_path):
    spec = {"nodes": [{"address": "127.0.0.6", "chief": True}, {"address": "127.0.0.7"}]}
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, json.dumps(spec), str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        pids = json.loads(driver.stdout.readline())
        assert all(alive(p) for p in pids)
        driver.send_signal(getattr(signal, sig))
        driver.wait(30)
        assert wait_gone(pids, 10.0) == []
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()


def test_stopped_server_is_cut_by_the_watchdog():
    """A plain Session (no operation timeout) blocks forever creating itself; the watchdog still returns."""
    import tensorflow as tf

    c = start_cluster(_spec("127.0.0.8", "127.0.0.9"), timeout_s=120, stop_timeout_s=2)
    pids = c.pids
    try:
        os.kill(pids[1], signal.SIGSTOP)
        g = tf.Graph()
        with g.as_default(), tf.compat.v1.device(c.task_device("127.0.0.9:CPU:0")):
            out = tf.constant(1.0) + 1.0
        sess = tf.compat.v1.Session(c.target, graph=g)
        with pytest.raises(RunError, match=r"not responding: node 127\.0\.0\.9 \(127\.0\.0\.9:\d+, task 1\).*stopped"):
            run_with_timeout(sess, out, 1, cluster=c, watchdog=True, grace_s=1, probe_timeout_s=2)
        assert c.closed  # the abandoned call stays blocked in its thread: sess is deliberately not closed
    finally:
        c.close()
    assert wait_gone(pids, 1.0) == []


def test_a_first_call_is_given_time_to_build_and_says_it_is_building():
    """A server starved of CPU (stopped here) while the first call of a kind builds its executors: the call is
    allowed the build's time, and told of every few seconds, not cut as stuck after the step timeout."""
    import threading

    import tensorflow as tf

    c = start_cluster(_spec("127.0.0.8", "127.0.0.9"), timeout_s=120, stop_timeout_s=2)
    try:
        g = tf.Graph()
        with g.as_default(), tf.compat.v1.device(c.task_device("127.0.0.9:CPU:0")):
            out = tf.constant(1.0) + 1.0
        sess = tf.compat.v1.Session(c.target, graph=g)
        os.kill(c.pids[1], signal.SIGSTOP)
        threading.Timer(4.0, os.kill, (c.pids[1], signal.SIGCONT)).start()
        waits: list[float] = []
        assert run_with_timeout(sess, out, 1, cluster=c, grace_s=1, build_s=30, on_wait=waits.append,
                                wait_every_s=1) == 2.0
        assert len(waits) >= 2 and waits == sorted(waits)
        sess.close()
    finally:
        os.kill(c.pids[1], signal.SIGCONT)
        c.close()


def _stored_value(cluster, container: str, value: float | None):
    """Store ``value`` in a variable of ``container`` on task 1 (or, with None, read it back: None if it is gone)."""
    import tensorflow as tf

    g = tf.Graph()
    with g.as_default(), tf.compat.v1.device(cluster.task_device("127.0.0.2:CPU:0")), \
            tf.compat.v1.container(container):
        v = tf.compat.v1.get_variable("lent", initializer=tf.constant(value or 0.0), use_resource=True)
        ready = tf.compat.v1.is_variable_initialized(v)
    with cluster.session(graph=g) as sess:
        if value is not None:
            sess.run(v.initializer)
            return value
        return float(sess.run(v.read_value())) if sess.run(ready) else None


def test_a_lent_cluster_is_borrowed_by_starts_of_its_spec_and_outlives_them(cluster):
    from runners import lend

    with lend(cluster):
        borrowed = start_cluster(cluster.spec, timeout_s=120)
        assert borrowed.pids == cluster.pids and borrowed.target == cluster.target
        assert _stored_value(borrowed, "", 2.5) == 2.5
        assert _stored_value(cluster, "", None) == 2.5  # the same servers
        with borrowed:
            pass
        assert borrowed.closed and not cluster.closed and all(alive(p) for p in cluster.pids)
        assert _stored_value(cluster, "", None) is None  # what it left in the default container went with it
        own_threads = start_cluster(cluster.spec, timeout_s=120, intra_op_threads=1)  # other servers: its own
        try:
            assert set(own_threads.pids).isdisjoint(cluster.pids)
        finally:
            own_threads.close()
        wedging = start_cluster(cluster.spec, timeout_s=120)
        os.kill(cluster.pids[1], signal.SIGSTOP)  # a borrower leaves a server wedged
        try:
            wedging.close()
        finally:
            os.kill(cluster.pids[1], signal.SIGCONT)
        after = start_cluster(cluster.spec, timeout_s=120)
        try:
            assert set(after.pids).isdisjoint(cluster.pids)  # lent no longer
        finally:
            after.close()
    assert not cluster.closed and all(alive(p) for p in cluster.pids)  # the lender's to close
