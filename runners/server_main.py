"""Entry point run on each node: one ``tf.distribute.Server`` for one task, until told to stop.

``python -m runners.server_main --job worker --task K --cluster JSON_OR_FILE [--watch-fd N] [--watch-parent]``

The server is created with ``experimental.collective_group_leader`` set to task 0 of the job (without it
collectives hang). When the server listens, one line starting with ``runners.launch._base.READY_PREFIX`` is printed on
stdout. The process exits on SIGTERM/SIGINT/SIGHUP, when the watched file descriptor reaches EOF (the
driver's pipe, or the SSH channel's stdin: the driver went away), or when its parent process changes.
"""
from __future__ import annotations

import argparse
import errno
import json
import os
import signal
import socket
import sys
import threading
import time

from runners.launch._base import PORT_TAKEN_STATUS, format_ready

def load_cluster_def(value: str) -> dict[str, list[str]]:
    """``--cluster``: inline JSON (``{"worker": ["host:port", ...]}``) or the path of a JSON file."""
    text = value if value.lstrip().startswith("{") else open(value).read()
    data = json.loads(text)
    if not isinstance(data, dict) or not all(isinstance(v, list) and v for v in data.values()):
        raise ValueError(f"--cluster must map job names to non-empty address lists, but got {data!r}")
    return data


def _exit(code: int, why: str) -> None:
    # os._exit: a started TF server cannot be stopped cleanly (GrpcServer::Stop is unimplemented) and
    # interpreter shutdown with live TF threads can stall; this process owns nothing else.
    print(f"autotune-server exiting ({why})", file=sys.stderr, flush=True)
    os._exit(code)


def _watch_fd(fd: int) -> None:
    while True:
        try:
            data = os.read(fd, 4096)
        except InterruptedError:
            continue
        except OSError:
            data = b""
        if not data:
            _exit(0, f"driver went away (EOF on fd {fd})")


def _watch_parent(ppid: int, interval_s: float) -> None:
    while True:
        time.sleep(interval_s)
        if os.getppid() != ppid:
            _exit(0, f"parent process {ppid} went away")


def _taken(port: int) -> bool:
    """Whether another process listens on ``port`` (on any interface, where TensorFlow's server listens)."""
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError as e:
            return e.errno == errno.EADDRINUSE
    return False


def _split_gpu(tf, n: int, memory_mb: int = 2048) -> None:
    """Show the first GPU as ``n`` logical GPUs (``AUTOTUNE_LOGICAL_GPUS``): ``scripts/gpu-check`` runs two replicas
    on a machine with one GPU this way. Nothing happens without a GPU or with ``n < 2``."""
    gpus = tf.config.list_physical_devices("GPU")
    if n >= 2 and gpus:
        tf.config.set_logical_device_configuration(
            gpus[0], [tf.config.LogicalDeviceConfiguration(memory_limit=memory_mb)] * n)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m runners.server_main", description=__doc__.splitlines()[0])
    p.add_argument("--job", default="worker", help="job name (default: worker)")
    p.add_argument("--task", type=int, required=True, help="task index of this server in the job")
    p.add_argument("--cluster", required=True, help='JSON {"worker": ["host:port", ...]} or a JSON file path')
    p.add_argument("--watch-fd", type=int, default=None,
                   help="exit when this file descriptor reaches EOF (0 = stdin, e.g. an SSH channel)")
    p.add_argument("--watch-parent", action="store_true", help="exit when the parent process goes away")
    p.add_argument("--poll-s", type=float, default=0.5, help="parent polling interval in seconds")
    p.add_argument("--intra-op-threads", type=int, default=0, help="0 = TensorFlow's default")
    p.add_argument("--inter-op-threads", type=int, default=0, help="0 = TensorFlow's default")
    p.add_argument("--cpu-devices", type=int, default=1, help="CPU devices of the server: CPU:0 .. CPU:N-1 (1)")
    return p


def server_config(job: str, intra_op_threads: int = 0, inter_op_threads: int = 0, cpu_devices: int = 1):
    """The ConfigProto every server of the cluster needs (collective group leader = task 0), with the node's
    thread pools and, where its spec lists more than CPU:0, that many CPU devices."""
    import tensorflow as tf

    config = tf.compat.v1.ConfigProto()
    if cpu_devices > 1:
        config.device_count["CPU"] = cpu_devices
    config.experimental.collective_group_leader = f"/job:{job}/replica:0/task:0"
    config.intra_op_parallelism_threads = intra_op_threads
    config.inter_op_parallelism_threads = inter_op_threads
    return config


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        cluster = load_cluster_def(args.cluster)
    except (OSError, ValueError) as e:
        print(f"error: bad --cluster: {e}", file=sys.stderr)
        return 2
    if args.job not in cluster or not 0 <= args.task < len(cluster[args.job]):
        print(f"error: task {args.task} of job {args.job!r} is not in --cluster {cluster}", file=sys.stderr)
        return 2
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):  # until sigwait below: end at once
        signal.signal(sig, signal.SIG_DFL)
    if args.watch_fd is not None:
        threading.Thread(target=_watch_fd, args=(args.watch_fd,), daemon=True).start()
    if args.watch_parent:
        threading.Thread(target=_watch_parent, args=(os.getppid(), args.poll_s), daemon=True).start()

    port = int(cluster[args.job][args.task].rsplit(":", 1)[1])
    if _taken(port):  # seen before TensorFlow's seconds of import; the driver chooses ports again
        print(f"error: port {port} is taken by another process", file=sys.stderr, flush=True)
        return PORT_TAKEN_STATUS
    try:
        import tensorflow as tf  # a stop signal during the import ends the process by its default action
    except ImportError as e:
        print(f"error: {sys.executable} cannot import tensorflow: {type(e).__name__}: {e}", file=sys.stderr,
              flush=True)
        return 1

    _split_gpu(tf, int(os.environ.get("AUTOTUNE_LOGICAL_GPUS", "0") or 0))

    # From here the stop signals are blocked in the main thread (and the server's threads, which inherit
    # the mask) and taken with sigwait: a Python handler could be starved while TF's threads get the signal.
    stop_signals = {signal.SIGTERM, signal.SIGINT, signal.SIGHUP}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    config = server_config(args.job, args.intra_op_threads, args.inter_op_threads, args.cpu_devices)
    address = cluster[args.job][args.task]
    try:
        tf.distribute.Server(tf.train.ClusterSpec(cluster), job_name=args.job, task_index=args.task,
                             protocol="grpc", config=config, start=True)
    except Exception as e:  # noqa: BLE001 - reported to the driver through the log
        if _taken(port):  # taken meanwhile
            print(f"error: port {port} is taken by another process", file=sys.stderr, flush=True)
            return PORT_TAKEN_STATUS
        print(f"error: cannot start server {args.job}:{args.task} at {address}: {e}", file=sys.stderr, flush=True)
        return 1
    gpus = len(tf.config.list_logical_devices("GPU"))
    print(format_ready(args.job, args.task, port, os.getpid(), gpus), flush=True)
    signum = signal.sigwait(stop_signals)
    _exit(0, f"signal {signal.Signals(signum).name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
