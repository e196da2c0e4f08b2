"""The launcher ABC: how a server process is started on a node, watched and stopped.

A launcher knows *how* to run a command on a node (a local subprocess, SSH, a network namespace); it does
not know what the server is for. :func:`runners.cluster.start_cluster` drives it in this order:
``free_port`` once per node, then ``launch`` once per node, then polls each :class:`ServerProcess` until
it is ready or dead, and finally ``stop``s every process, discards its log after a clean stop
(``discard_log``) and calls ``close``.
"""
from __future__ import annotations

import abc
import time

from space.cluster import Node

SERVER_MODULE = "runners.server_main"
READY_PREFIX = "autotune-server ready:"
PORT_TAKEN_STATUS = 98  # a server's exit status when another process holds its port (EADDRINUSE)


def format_ready(job: str, task: int, port: int, pid: int, gpus: int = 0) -> str:
    return f"{READY_PREFIX} job={job} task={task} port={port} pid={pid} gpus={gpus}"


def parse_ready(line: str) -> dict[str, str] | None:
    """The fields of a readiness line, or None when ``line`` is not one."""
    if not line.startswith(READY_PREFIX):
        return None
    return dict(item.split("=", 1) for item in line[len(READY_PREFIX):].split() if "=" in item)


class ServerProcess(abc.ABC):
    """One started server process. Every method must be safe to call after the process ended."""

    def __init__(self, node: Node, task: int, pid: int, log_path: str) -> None:
        self.node, self.task, self.pid, self.log_path = node, task, pid, log_path
        self.lost = ""  # set by ``poll`` when the process is out of reach rather than known to have exited

    @abc.abstractmethod
    def poll(self) -> int | None:
        """The exit status if the process has ended, else None. Never blocks for long."""

    @abc.abstractmethod
    def output_lines(self) -> list[str]:
        """Lines the server printed on stdout so far (non-blocking); the readiness line is one of them."""

    @abc.abstractmethod
    def log_tail(self, lines: int = 20) -> str:
        """The last lines of the server's log (stderr), for error messages; '' if unreadable."""

    @abc.abstractmethod
    def signal(self, name: str) -> None:
        """Send ``"TERM"`` or ``"KILL"`` to the process by its PID; no-op if it already ended."""

    def release(self) -> None:
        """Free what watching the process held (pipes, channels). Called once after it ended."""

    def discard_log(self) -> None:
        """Remove the server's log; never raises. Called after a clean stop, before the launcher's ``close``.

        Default: nothing (local logs live in a directory the cluster removes itself).
        """

    @property
    def where(self) -> str:
        return f"node {self.node.name} ({self.node.address}, task {self.task}, pid {self.pid})"

    def stop(self, timeout_s: float = 10.0) -> int | None:
        """SIGTERM, wait up to ``timeout_s``, then SIGKILL. Returns the exit status if known."""
        self.signal("TERM")
        return self.wait_or_kill(time.monotonic() + timeout_s)

    def wait_or_kill(self, deadline: float, kill_grace_s: float = 5.0) -> int | None:
        """Wait until ``deadline`` for the process to end, SIGKILL it if it has not, then release."""
        try:
            while (code := self.poll()) is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if code is None:
                self.signal("KILL")
                end = time.monotonic() + kill_grace_s
                while (code := self.poll()) is None and time.monotonic() < end:
                    time.sleep(0.05)
            return code
        finally:
            self.release()


class Launcher(abc.ABC):
    """Starts server processes on nodes. One launcher may serve several nodes."""

    @abc.abstractmethod
    def free_port(self, node: Node) -> int:
        """A TCP port that is free on ``node`` right now (probed on that host, all interfaces)."""

    @abc.abstractmethod
    def launch(self, node: Node, task: int, server_args: list[str], log_name: str) -> ServerProcess:
        """Start ``python -m runners.server_main *server_args`` on ``node`` without waiting for readiness.

        The launcher adds the arguments that tie the server's life to the driver (``--watch-fd`` /
        ``--watch-parent``) and sends stdout somewhere :meth:`ServerProcess.output_lines` reads it.
        ``log_name`` is a file name for the server's log, unique within one cluster start.
        Raises :class:`space.errors.UnreachableHost` when the node cannot be reached.
        """

    def close(self) -> None:
        """Release connections. Called by the cluster after its servers were stopped."""

    def describe(self, node: Node) -> str:
        """How this launcher reaches ``node``, for messages."""
        return type(self).__name__
