"""Start one ``tf.distribute.Server`` per node of a cluster spec, watch them, and stop them all.

Task ``k`` of job ``worker`` is the ``k``-th node of the spec. How a node is launched (the rule): every
node of a spec with ``launcher: slurm`` in one srun step; a node with ``ssh_config`` over SSH (even a loopback
address, which is how the SSH path is tested on one machine); a loopback node without it as a local subprocess;
a remote node without it is a spec error. A ``launcher=`` argument overrides the rule for every node (e.g.
network namespaces).

Every process is tracked by PID and stopped on :meth:`RunningCluster.close`, on an error during start,
on Ctrl-C (the context manager / the ``try`` in :func:`start_cluster`), and at interpreter exit (atexit).
If the driver dies without running any of those (SIGKILL), each server notices on its own: a local server
sees EOF on a pipe only the driver holds, a remote one sees EOF on its SSH channel's stdin.
"""
from __future__ import annotations

import atexit
import json
import os
import re
import threading
import time
import uuid
import weakref
from typing import Any, Iterable

from runners import _lending
from runners.launch._base import PORT_TAKEN_STATUS, Launcher, ServerProcess, parse_ready
from runners.launch._external import ExternalLauncher
from runners.launch._firewall import Firewall
from runners.launch._local import LocalLauncher
from runners.launch._logs import default_root, new_log_dir, remove_log_dir
from runners.launch._slurm import SlurmLauncher
from runners.server_main import server_config
from space.cluster import ClusterSpec, Node, parse_device
from space.errors import RunError, SpecError

JOB = "worker"
PORT_ATTEMPTS = 3  # starts of a cluster whose chosen port another process took meanwhile
_MAX_INSTANCE_KEY = 2**31 - 1
_OPEN: "weakref.WeakSet[RunningCluster]" = weakref.WeakSet()
_ATEXIT_LOCK = threading.Lock()
_atexit_registered = False


class PortTaken(RunError):
    """A server could not listen on its port: another process took it after it was chosen."""


class RunningCluster:
    """Servers of one cluster spec, started by :func:`start_cluster`; a context manager that closes them.

    Servers are meant to be reused across the trials of one search: take fresh collective instance keys
    per trial with :meth:`next_instance_key_base` and clear variables with :meth:`reset_resources`.
    """

    def __init__(self, spec: ClusterSpec, servers: list[ServerProcess], ports: list[int],
                 launchers: Iterable[Launcher], *, log_dir: str, owns_log_dir: bool = False,
                 stop_timeout_s: float = 10.0, instance_keys_per_trial: int = 1 << 20, firewall=None) -> None:
        self.spec = spec
        self._firewall = firewall
        self.servers = servers
        self.ports = ports
        self.log_dir = log_dir
        self.stop_timeout_s = stop_timeout_s
        self.instance_keys_per_trial = instance_keys_per_trial
        self._launchers = list(launchers)
        self._owns_log_dir = owns_log_dir
        self._keep_logs = False  # set when a start fails or a server dies: its error message points at the logs
        self._next_key_base = instance_keys_per_trial
        self._lock = threading.Lock()
        self._closed = False
        chief = next(i for i, n in enumerate(spec.nodes) if n.chief)
        self.target = f"grpc://{self.addresses[chief]}"

    # ---- naming ------------------------------------------------------------------------------------
    @property
    def addresses(self) -> list[str]:
        """``"host:port"`` of each task, in task order."""
        return [f"{n.address}:{p}" for n, p in zip(self.spec.nodes, self.ports)]

    @property
    def pids(self) -> list[int]:
        return [s.pid for s in self.servers]

    def cluster_def(self) -> dict[str, list[str]]:
        """The TF cluster definition, ``{"worker": ["addr:port", ...]}``."""
        return {JOB: self.addresses}

    def task_of(self, node_or_address: str) -> int:
        """Task index of a node given by address or hostname."""
        node = self.spec.node(node_or_address)
        return self.spec.nodes.index(node)

    def task_device(self, device: str) -> str:
        """``"127.0.0.2:CPU:0"`` -> ``"/job:worker/replica:0/task:1/device:CPU:0"``."""
        try:
            address, kind, index = parse_device(device)
        except ValueError as e:
            raise SpecError(str(e), self.spec.source) from None
        return f"/job:{JOB}/replica:0/task:{self.task_of(address)}/device:{kind}:{index}"

    def node_of_task(self, task: int) -> Node:
        return self.spec.nodes[task]

    # ---- trials ------------------------------------------------------------------------------------
    def next_instance_key_base(self) -> int:
        """First of ``instance_keys_per_trial`` collective instance keys no earlier trial used.

        Servers cache instance parameters per key (a reused key with another dtype or shape fails), so
        each trial must use keys ``base .. base + instance_keys_per_trial - 1``.
        """
        with self._lock:
            base = self._next_key_base
            if base + self.instance_keys_per_trial - 1 > _MAX_INSTANCE_KEY:
                raise RunError(f"collective instance keys exhausted after {base // self.instance_keys_per_trial - 1}"
                               " trials; restart the cluster or lower instance_keys_per_trial")
            self._next_key_base += self.instance_keys_per_trial
            return base

    def session_config(self, operation_timeout_s: float = 60.0):
        """A ConfigProto for driver sessions on :attr:`target`.

        Same collective group leader as the servers, and ``operation_timeout_in_ms`` so that no call hangs
        forever: without it, creating a session blocks for good while any server is down.
        """
        config = server_config(JOB)
        config.operation_timeout_in_ms = max(0, int(operation_timeout_s * 1000))
        return config

    def session(self, graph=None, *, operation_timeout_s: float = 60.0):
        """A ``tf.compat.v1.Session`` on :attr:`target` with :meth:`session_config`."""
        import tensorflow as tf

        return tf.compat.v1.Session(self.target, graph=graph, config=self.session_config(operation_timeout_s))

    def reset_resources(self, containers: list[str] | None = None) -> None:
        """Clear resource containers (variables, queues) on every server, so the next trial starts clean.

        Closes sessions open on :attr:`target` (``tf.compat.v1.Session.reset``).
        """
        import tensorflow as tf

        tf.compat.v1.Session.reset(self.target, containers=containers)

    # ---- health ------------------------------------------------------------------------------------
    def dead_servers(self) -> list[ServerProcess]:
        return [s for s in self.servers if s.poll() is not None]

    def check_alive(self) -> None:
        """Raise :class:`RunError` naming the first node whose server has exited, with its log tail."""
        if self._closed:
            raise RunError("the cluster was closed")
        for s in self.dead_servers():
            raise RunError(self.death_message(s), node=s.node.name)

    def death_message(self, s: ServerProcess) -> str:
        """What to say of a server that exited: node, exit status, log tail; its log is kept for the message."""
        self._keep_logs = True
        return _death_message(s, self.ports[s.task])

    def unresponsive_tasks(self, timeout_s: float = 5.0) -> list[int]:
        """Tasks whose server does not run a trivial op within ``timeout_s`` (a stopped or wedged node)."""
        import tensorflow as tf

        done: set[int] = set()

        def probe(task: int) -> None:
            g = tf.Graph()
            with g.as_default(), tf.compat.v1.device(f"/job:{JOB}/replica:0/task:{task}/device:CPU:0"):
                op = tf.constant(1.0) + tf.compat.v1.placeholder_with_default(0.0, [])
            opts = tf.compat.v1.RunOptions(timeout_in_ms=int(timeout_s * 1000))
            try:
                config = self.session_config(timeout_s)
                config.device_filters.append(f"/job:{JOB}/task:{task}")  # contact only this worker
                with tf.compat.v1.Session(self.target, graph=g, config=config) as sess:
                    sess.run(op, options=opts)
                done.add(task)
            except Exception:  # noqa: BLE001 - any failure means "not responsive"
                pass

        threads = [threading.Thread(target=probe, args=(k,), daemon=True) for k in range(len(self.servers))]
        for t in threads:
            t.start()
        end = time.monotonic() + timeout_s + 1.0
        for t in threads:
            t.join(max(0.0, end - time.monotonic()))
        return [k for k in range(len(self.servers)) if k not in done]

    # ---- shutdown ----------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop every server this cluster started (SIGTERM, then SIGKILL), by PID; idempotent.

        With a log dir of its own (``start_cluster`` without ``log_dir``), it then removes the logs: that
        dir and each server's remote log. A failed start keeps them for its error message (an empty dir goes).
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
        _stop_all(self.servers, self.stop_timeout_s)
        if self._firewall is not None:  # before the launchers close: remote rules need their connections
            self._firewall.remove()
        if self._owns_log_dir and not self._keep_logs:
            for s in self.servers:  # before the launchers close: remote logs need their connections
                s.discard_log()
        for launcher in self._launchers:
            try:
                launcher.close()
            except Exception:  # noqa: BLE001 - closing connections must not mask the stop
                pass
        _OPEN.discard(self)
        if self._owns_log_dir:
            remove_log_dir(self.log_dir, keep_logs=self._keep_logs)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "RunningCluster":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "running"
        return f"RunningCluster({self.addresses}, target={self.target!r}, {state})"


def start_cluster(spec: ClusterSpec, *, timeout_s: float = 60.0, accept_unknown_hosts: bool = False,
                  log_dir: str | None = None, launcher: Launcher | None = None, stop_timeout_s: float = 10.0,
                  instance_keys_per_trial: int = 1 << 20, intra_op_threads: int = 0,
                  inter_op_threads: int = 0, logs_root: str | os.PathLike | None = None) -> RunningCluster:
    """Start one server per node of ``spec`` and wait until all are ready.

    Args:
        spec: the cluster; task ``k`` is ``spec.nodes[k]``.
        timeout_s: how long to wait for every server to be ready (starts run in parallel).
        accept_unknown_hosts: SSH only; add unknown host keys instead of refusing them.
        log_dir: where local server logs go. Default: a private folder of its own under ``logs_root`` (default
            ``<cache dir>/server-logs``, ``runners.launch._logs``) that :meth:`close` removes along with the
            servers' remote logs; when the start fails or a server dies, the logs are kept (an empty folder is not).
        launcher: launch every node with this launcher instead of the rule in the module docstring.
        stop_timeout_s: grace between SIGTERM and SIGKILL when stopping.
        instance_keys_per_trial: size of each block returned by ``next_instance_key_base``.
        intra_op_threads, inter_op_threads: thread pools of every server, overriding the nodes' own
            ``intra_op_threads`` / ``inter_op_threads`` (0 = the node's setting, else TF's default).

    A port another process took between its choice and the server's start is chosen again (``PORT_ATTEMPTS``).

    Raises:
        UnreachableHost: an SSH node cannot be reached, or its host key is unknown/mismatched.
        RunError: a server exited or was not ready in time (the message names the node and its log).
        SpecError: a remote node has no ``ssh_config`` and no ``launcher`` was given; a node's python cannot
            import what the server needs (TensorFlow).
    Whatever already started is stopped before the error propagates (also on KeyboardInterrupt).

    While a running cluster of an equal spec and equal server settings is lent (:func:`runners.lend`), and no
    ``launcher`` or ``log_dir`` is asked for, this borrows it instead of starting servers.
    """
    if launcher is None and log_dir is None:
        lent = _lending.borrow(spec, intra_op_threads=intra_op_threads, inter_op_threads=inter_op_threads,
                               instance_keys_per_trial=instance_keys_per_trial)
        if lent is not None:
            return lent  # type: ignore[return-value]  # a RunningCluster to its user, bar stopping the servers
    _register_atexit()
    owns_log_dir = log_dir is None
    try:
        log_dir = log_dir or new_log_dir(logs_root)
    except OSError as e:
        raise RunError(f"cannot make a folder for the servers' logs under {logs_root or default_root()}: "
                       f"{e.strerror or e}") from None
    try:
        for attempt in range(PORT_ATTEMPTS):
            try:
                cluster = _start_once(spec, timeout_s, accept_unknown_hosts, log_dir, launcher, stop_timeout_s,
                                      instance_keys_per_trial, intra_op_threads, inter_op_threads)
            except PortTaken:
                if attempt == PORT_ATTEMPTS - 1:
                    raise
                continue
            cluster._owns_log_dir = owns_log_dir
            return cluster
    except BaseException:
        if owns_log_dir:
            remove_log_dir(log_dir, keep_logs=True)  # the error message points at any log in it
        raise
    raise AssertionError("unreachable")


def _start_once(spec: ClusterSpec, timeout_s: float, accept_unknown_hosts: bool, log_dir: str,
                launcher: Launcher | None, stop_timeout_s: float, instance_keys_per_trial: int,
                intra_op_threads: int, inter_op_threads: int) -> RunningCluster:
    """One try of :func:`start_cluster`: ports, rules, servers; what it started is stopped when it fails (the log
    folder is the caller's)."""
    run_id = uuid.uuid4().hex[:8]
    launchers: list[Launcher] = []
    servers: list[ServerProcess] = []
    cluster: RunningCluster | None = None
    firewall: Firewall | None = None
    try:
        launchers = _launchers_for(spec, launcher, accept_unknown_hosts, log_dir)
        ports = _choose_ports(spec, launchers)
        firewall = Firewall(spec, ports, launchers, run_id)
        firewall.install()  # before any server listens: no moment when a stranger can reach one
        cluster_json = json.dumps({JOB: [f"{n.address}:{p}" for n, p in zip(spec.nodes, ports)]})
        deadline = time.monotonic() + timeout_s
        for k, (node, lau) in enumerate(zip(spec.nodes, launchers)):
            args = server_args(node, k, cluster_json, intra_op_threads, inter_op_threads)
            servers.append(lau.launch(node, k, args, f"autotune-{run_id}-task{k}.log"))
        cluster = RunningCluster(spec, servers, ports, set(launchers), log_dir=log_dir,
                                 stop_timeout_s=stop_timeout_s, instance_keys_per_trial=instance_keys_per_trial,
                                 firewall=firewall)
        _OPEN.add(cluster)
        _wait_ready(servers, ports, deadline, timeout_s)
        return cluster
    except BaseException:
        if cluster is not None:
            cluster._keep_logs = True  # the error message points at them
            cluster.close()
        else:
            _stop_all(servers, stop_timeout_s)
            if firewall is not None:
                firewall.remove()
            for lau in set(launchers):
                lau.close()
        raise


# ---- helpers -----------------------------------------------------------------------------------------

def server_args(node: Node, task: int, cluster_json: str, intra_op_threads: int = 0,
                inter_op_threads: int = 0) -> list[str]:
    """The arguments of ``runners.server_main`` for ``node`` as task ``task`` (launch files use them too)."""
    args = ["--job", JOB, "--task", str(task), "--cluster", cluster_json,
            "--intra-op-threads", str(intra_op_threads or node.intra_op_threads),
            "--inter-op-threads", str(inter_op_threads or node.inter_op_threads)]
    if max(node.cpus) > 0:  # the spec lists more CPU devices than the one a server makes by itself
        args += ["--cpu-devices", str(max(node.cpus) + 1)]
    return args


def _death_message(s: ServerProcess, port: int, when: str = "") -> str:
    """One line: the node, how its server ended, the log's own reason where it gives one, and the log's path."""
    who = f"server of node {s.node.name} ({s.node.address}:{port}, task {s.task}, pid {s.pid})"
    if s.lost:
        return f"{who} is out of reach: {s.lost}; log {s.log_path} on the node"
    tail = s.log_tail(40)
    reason = log_reason(tail)
    return (f"{who} exited{when} with status {s.poll()}" + (f": {reason}" if reason else "")
            + f"; log {s.log_path}" + ("" if tail.strip() else " is empty"))


_NOISE = re.compile(r"^([IW]\d{4} |WARNING: All log messages before absl|autotune-server exiting|\s*$)")
_ERROR = re.compile(r"^(error: |[A-Za-z_][\w.]*(Error|Exception|Exit)\b|[EF]\d{4} |Segmentation fault|Killed)")


def log_reason(tail: str) -> str:
    """The line of a server's log that says why it ended: its own ``error:`` line or the last exception, else the
    last line that is not TensorFlow's start-up chatter ('' for none)."""
    lines = tail.strip().splitlines()
    own = [line for line in lines if line.startswith("error: ")]
    errors = [line for line in lines if _ERROR.match(line)]
    other = [line for line in lines if not _NOISE.match(line)]
    line = (own or errors or other or [""])[-1].strip()
    return (line[len("error: "):] if line.startswith("error: ") else line)[:300]


def _launchers_for(spec: ClusterSpec, launcher: Launcher | None, accept_unknown_hosts: bool,
                   log_dir: str) -> list[Launcher]:
    if launcher is not None:
        return [launcher] * len(spec.nodes)
    if spec.launcher == "slurm":  # one srun step for every node
        return [SlurmLauncher(spec, log_dir)] * len(spec.nodes)
    if spec.launcher == "external":  # started by a scheduler (a Kubernetes Job): only connected to
        return [ExternalLauncher(spec)] * len(spec.nodes)

    local: LocalLauncher | None = None
    ssh = None
    out: list[Launcher] = []
    for i, node in enumerate(spec.nodes):
        if node.ssh_config is not None:
            if ssh is None:
                from runners.launch._ssh import SSHLauncher  # paramiko: only when a node is reached over SSH

                ssh = SSHLauncher(spec, accept_unknown_hosts=accept_unknown_hosts)
            out.append(ssh)
        elif node.is_loopback:
            local = local or LocalLauncher(log_dir)
            out.append(local)
        else:
            raise SpecError(f"remote node {node.name!r} (nodes[{i}]) has no `ssh_config`", spec.source,
                            hint="add `ssh_config: <group>` to the node and define the group under `ssh:`")
    return out


def _choose_ports(spec: ClusterSpec, launchers: list[Launcher], attempts: int = 20) -> list[int]:
    """One free port per node; all distinct (local servers share one port space)."""
    ports: list[int] = []
    for node, lau in zip(spec.nodes, launchers):
        for _ in range(attempts):
            port = lau.free_port(node)
            if port not in ports:
                break
        else:
            raise RunError(f"no distinct free port found on node {node.name} after {attempts} tries")
        ports.append(port)
    return ports


def _wait_ready(servers: list[ServerProcess], ports: list[int], deadline: float, timeout_s: float) -> None:
    pending = list(servers)
    while pending:
        for s in list(pending):
            ready = next((r for line in s.output_lines() if (r := parse_ready(line))), None)
            if ready is not None:
                _check_gpus(s.node, ready)
                pending.remove(s)
            elif s.poll() is not None:
                raise _start_failure(s, ports[s.task])
        if pending and time.monotonic() > deadline:
            s = pending[0]
            reason = log_reason(s.log_tail(40))
            raise RunError(f"server of node {s.node.name} ({s.node.address}:{ports[s.task]}, task {s.task}) "
                           f"not ready after {timeout_s:g} s" + (f" (its log's last word: {reason})" if reason else "")
                           + f"; log {s.log_path}")
        if pending:
            time.sleep(0.05)


def _start_failure(s: ServerProcess, port: int) -> RunError | SpecError:
    """Why a server ended before it was ready: its port taken meanwhile (:class:`PortTaken`, started again), a
    module its python lacks (the node's ``python`` is wrong: a :class:`SpecError`), or a :class:`RunError`."""
    message = _death_message(s, port, " before it was ready")
    if s.poll() == PORT_TAKEN_STATUS:
        return PortTaken(message, node=s.node.name)
    missing = re.search(r"No module named '([\w.]+)'", s.log_tail(40))
    if missing:
        python = s.node.python or "the default python"
        return SpecError(f"node {s.node.name}'s python ({python}) cannot import {missing.group(1)}, which its server "
                         f"needs; log {s.log_path}", hint="install autotune and its dependencies (TensorFlow among "
                         "them) for that interpreter, or set the node's `python:` to one that has them")
    return RunError(message, node=s.node.name)


def _check_gpus(node: Node, ready: dict[str, str]) -> None:
    """A node's ``gpus:`` must name GPUs its server sees (a CPU-only TensorFlow sees none)."""
    if "gpus" not in ready or not node.gpus:
        return
    seen = int(ready["gpus"])
    missing = [g for g in node.gpus if not 0 <= g < seen]
    if missing:
        raise SpecError(f"node {node.name} names gpus {list(node.gpus)}, but its TensorFlow server sees "
                        f"{seen} GPU(s)", hint="remove `gpus:` from the node, or install a TensorFlow with CUDA "
                        "there (pip install -e '.[gpu]')")


def _stop_all(servers: list[ServerProcess], timeout_s: float) -> None:
    """SIGTERM every server first, then wait for all (stops run in parallel), SIGKILL stragglers."""
    for s in servers:
        try:
            s.signal("TERM")
        except Exception:  # noqa: BLE001 - a lost connection; the server watches its channel and exits
            pass
    deadline = time.monotonic() + timeout_s
    for s in servers:
        try:
            s.wait_or_kill(deadline)
        except Exception:  # noqa: BLE001
            pass


def _close_open_clusters() -> None:
    for cluster in list(_OPEN):
        cluster.close()


def _register_atexit() -> None:
    global _atexit_registered
    with _ATEXIT_LOCK:
        if not _atexit_registered:
            atexit.register(_close_open_clusters)
            _atexit_registered = True
