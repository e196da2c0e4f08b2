"""SSH launch through a real sshd on loopback: host keys pinned, unknown/changed keys refused, no leftovers."""
from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

from runners import run_with_timeout, start_cluster
from runners.launch import SSHLauncher
from space.cluster import ClusterSpec
from space.errors import RunError, UnreachableHost
from testsupport import alive, wait_gone

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
pytestmark = [pytest.mark.slow, pytest.mark.ssh,
              pytest.mark.skipif(SSHD is None, reason="needs openssh-server (apt-get install openssh-server)"),
              pytest.mark.skipif(os.geteuid() != 0, reason="sshd on a loopback port runs as root here")]
ROOT = pathlib.Path(__file__).resolve().parents[2]
SSH_ADDRESS = "127.0.0.2"  # the node launched over SSH; 127.0.0.1 is launched locally


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _keygen(path: pathlib.Path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path.with_suffix(".pub").read_text().split()[:2]


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    """A key-only sshd on 127.0.0.2:<free port>; yields (port, client key, known_hosts, dir)."""
    d = tmp_path_factory.mktemp("sshd")
    host_type, host_key = _keygen(d / "host_ed25519")
    _keygen(d / "client_ed25519")
    (d / "authorized_keys").write_text((d / "client_ed25519.pub").read_text())
    port = _free_port()
    (d / "known_hosts").write_text(f"[{SSH_ADDRESS}]:{port} {host_type} {host_key}\n")
    (d / "sshd_config").write_text(f"""ListenAddress {SSH_ADDRESS}:{port}
HostKey {d}/host_ed25519
AuthorizedKeysFile {d}/authorized_keys
PidFile {d}/sshd.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
""")
    os.makedirs("/run/sshd", exist_ok=True)  # privilege separation directory sshd insists on
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(d / "sshd_config")], stderr=open(d / "sshd.log", "w"))
    end = time.monotonic() + 10
    while True:
        try:
            socket.create_connection((SSH_ADDRESS, port), timeout=1).close()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > end:
                raise RuntimeError(f"sshd did not start: {(d / 'sshd.log').read_text()}") from None
            time.sleep(0.05)
    yield port, d / "client_ed25519", d / "known_hosts", d
    proc.terminate()
    proc.wait(10)


def _spec(sshd, *, known_hosts=None, port=None, local_chief=True, python=sys.executable) -> ClusterSpec:
    sshd_port, key, hosts, _ = sshd
    nodes = [{"address": "127.0.0.1", "chief": True}] if local_chief else []
    nodes.append({"address": SSH_ADDRESS, "ssh_config": "test", "python": str(python), "workdir": str(ROOT),
                  "chief": not local_chief})
    group = {"username": "root", "port": port or sshd_port, "key_file": str(key),
             "known_hosts": str(known_hosts or hosts),  # the node's cache, where its server logs go: the test's
             "shared_envs": {"TF_CPP_MIN_LOG_LEVEL": "2", "AUTOTUNE_CACHE_DIR": str(sshd[3] / "node-cache")}}
    return ClusterSpec.from_dict({"nodes": nodes, "ssh": {"test": group}})


def _parent_name(pid: int) -> str:
    ppid = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1]
    return open(f"/proc/{ppid}/comm").read().strip()


def test_ssh_node_runs_collectives_and_is_stopped(sshd):
    import tensorflow as tf
    from tensorflow.python.ops import collective_ops

    c = start_cluster(_spec(sshd), timeout_s=120)
    try:
        local_pid, ssh_pid = c.pids
        assert _parent_name(ssh_pid).startswith("sshd") and _parent_name(local_pid).startswith("py")
        key = c.next_instance_key_base()
        g = tf.Graph()
        outs = []
        with g.as_default():
            for k, address in enumerate(["127.0.0.1", SSH_ADDRESS]):
                with tf.compat.v1.device(c.task_device(f"{address}:CPU:0")):
                    outs.append(collective_ops.all_reduce_v2(tf.constant([float(k + 1)]), 2, 1, key,
                                                             merge_op="Add", final_op="Id"))
        with c.session(g) as sess:
            assert [float(v[0]) for v in run_with_timeout(sess, outs, 30, cluster=c)] == [3.0, 3.0]
        os.kill(ssh_pid, signal.SIGKILL)
        end = time.monotonic() + 5
        while not c.dead_servers() and time.monotonic() < end:
            time.sleep(0.05)
        with pytest.raises(Exception, match=rf"node {SSH_ADDRESS} \({SSH_ADDRESS}:\d+, task 1"):
            c.check_alive()
    finally:
        c.close()
    assert wait_gone([local_pid, ssh_pid], 2.0) == []
    remote_log = pathlib.Path(c.servers[1].log_path)  # kept for the error that named it; the node is this machine
    assert remote_log.is_file()
    remote_log.unlink()


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        for children in pathlib.Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            kids = [int(k) for k in children.read_text().split()]
            out += kids
            todo += kids
    return out


def test_a_node_that_stops_answering_is_lost_within_seconds(sshd):
    """The sshd serving the connection is frozen (SIGSTOP): no EOF, no exit status, as when a host vanishes from
    the network. The heartbeat lapses and the step is cut, naming the node, long before TCP would notice."""
    import tensorflow as tf

    c = start_cluster(_spec(sshd), timeout_s=120)
    daemon = int((sshd[3] / "sshd.pid").read_text())
    frozen: list[int] = []
    try:
        g = tf.Graph()
        with g.as_default(), tf.compat.v1.device(c.task_device(f"{SSH_ADDRESS}:CPU:0")):
            never = tf.queue.FIFOQueue(1, tf.float32, shared_name="never-filled").dequeue()
        frozen = [p for p in _descendants(daemon) if open(f"/proc/{p}/comm").read().startswith("sshd")]
        assert frozen, "no sshd session process serves the cluster"
        for p in frozen:
            os.kill(p, signal.SIGSTOP)
        start = time.monotonic()
        with c.session(g) as sess, pytest.raises(RunError, match=rf"node {SSH_ADDRESS} .*is out of reach: its node "
                                                                  r"has not answered an SSH heartbeat"):
            run_with_timeout(sess, never, 60, cluster=c)
        assert time.monotonic() - start < 15
    finally:
        for p in frozen:
            os.kill(p, signal.SIGCONT)
        c.close()
    pathlib.Path(c.servers[1].log_path).unlink(missing_ok=True)  # kept for the error; the node is this machine


def test_an_environment_value_reaches_the_server_as_data(sshd, tmp_path):
    """A value with shell syntax in it is passed verbatim, never run: the spec is data on this path."""
    mark = tmp_path / "ran"
    value = f"$(touch {mark}); `touch {mark}` ; touch {mark} && echo 'quoted'"
    group = _spec(sshd).ssh["test"]
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True},
                                            {"address": SSH_ADDRESS, "ssh_config": "test", "python": sys.executable,
                                             "workdir": str(ROOT)}],
                                  "ssh": {"test": {"username": group.username, "port": group.port,
                                                   "key_file": group.key_file, "known_hosts": group.known_hosts,
                                                   "shared_envs": {"AUTOTUNE_PROBE": value}}}})
    c = start_cluster(spec, timeout_s=120)
    try:
        environ = pathlib.Path(f"/proc/{c.pids[1]}/environ").read_bytes().split(b"\0")
        assert f"AUTOTUNE_PROBE={value}".encode() in environ
    finally:
        c.close()
    assert not mark.exists()


def test_unknown_host_key_is_refused(sshd, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    with pytest.raises(UnreachableHost, match=rf"unknown host key for node {SSH_ADDRESS}.*accept_unknown_hosts"):
        start_cluster(_spec(sshd, known_hosts=empty))


def test_unknown_host_key_is_accepted_with_the_flag(sshd, tmp_path):
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    spec = _spec(sshd, known_hosts=empty)
    launcher = SSHLauncher(spec, accept_unknown_hosts=True)
    try:
        assert 0 < launcher.free_port(spec.nodes[1]) < 65536
    finally:
        launcher.close()
    assert empty.read_text() == ""  # accepted for this connection only


def test_changed_host_key_is_refused_even_with_the_flag(sshd, tmp_path):
    port = sshd[0]
    key_type, other_key = _keygen(tmp_path / "other")
    hosts = tmp_path / "known_hosts"
    hosts.write_text(f"[{SSH_ADDRESS}]:{port} {key_type} {other_key}\n")
    spec = _spec(sshd, known_hosts=hosts)
    with pytest.raises(UnreachableHost, match="does not match known_hosts"):
        SSHLauncher(spec, accept_unknown_hosts=True).free_port(spec.nodes[1])


def test_unreachable_host_is_named(sshd, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path))  # where start_cluster makes its log dir
    closed = _free_port()
    with pytest.raises(UnreachableHost, match=rf"cannot reach node {SSH_ADDRESS} \(root@{SSH_ADDRESS}:{closed}\)"):
        start_cluster(_spec(sshd, port=closed))
    assert list((tmp_path / "server-logs").iterdir()) == []  # its log dir stayed empty, so it is not kept


def test_clean_close_removes_the_remote_log(sshd, tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    old = os.umask(0)
    try:
        c = start_cluster(_spec(sshd, local_chief=False), timeout_s=120)
    finally:
        os.umask(old)
    try:
        (server,) = c.servers
        remote = sshd[3] / "node-cache" / "server-logs"  # the node's cache dir, as its environment names it
        assert pathlib.Path(server.log_path).parent == remote and os.path.isfile(server.log_path)
        assert [oct(p.stat().st_mode & 0o777) for p in (remote, pathlib.Path(server.log_path))] == ["0o700", "0o600"]
        assert list((tmp_path / "server-logs").iterdir()) == [pathlib.Path(c.log_dir)]
    finally:
        c.close()
    left = os.path.exists(server.log_path)
    if left:
        os.remove(server.log_path)
    assert not left
    assert list((tmp_path / "server-logs").iterdir()) == [] and list((tmp_path / "tmp").iterdir()) == []


def test_failed_start_keeps_the_remote_log_and_drops_the_empty_local_dir(sshd, tmp_path, monkeypatch):
    python = tmp_path / "python"  # probes the free port like python, then fails as the server
    python.write_text(f'#!/bin/sh\n[ "$1" = -c ] && exec {sys.executable} "$@"\necho no-server-here >&2\nexit 3\n')
    python.chmod(0o755)
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(RunError, match=r"exited before it was ready with status 3: no-server-here; log \S+") as e:
        start_cluster(_spec(sshd, local_chief=False, python=python), timeout_s=60)
    log = re.search(r"; log (\S+)", str(e.value)).group(1)
    try:
        assert pathlib.Path(log).read_text() == "no-server-here\n"  # kept: the message points at it
    finally:
        os.remove(log)
    assert list((tmp_path / "cache" / "server-logs").iterdir()) == []


_DRIVER = """
import json, sys, time
from runners import start_cluster
from space.cluster import ClusterSpec
cluster = start_cluster(ClusterSpec.from_dict(json.loads(sys.argv[1])), timeout_s=120, log_dir=sys.argv[2])
print(json.dumps([cluster.pids, [s.log_path for s in cluster.servers]]), flush=True)
time.sleep(600)
"""


def test_driver_sigkill_leaves_no_remote_server(sshd, tmp_path):
    spec = _spec(sshd, local_chief=False).to_dict()
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER, json.dumps(spec), str(tmp_path)], cwd=ROOT,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    logs: list[str] = []
    try:
        (pid,), logs = json.loads(driver.stdout.readline())
        assert alive(pid)
        driver.kill()
        driver.wait(30)
        assert wait_gone([pid], 10.0) == []
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        for log in logs:  # a killed driver cannot remove its remote logs
            os.remove(log)
