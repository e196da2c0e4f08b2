"""Servers another system started (a Kubernetes Job's pods): ``launcher: external``, task i at ``port + i``.

The driver starts and stops nothing: a server is ready once its port accepts a connection, and dead once it stops
accepting them; the scheduler that started the servers ends them (``autotune export --to k8s`` ends the other pods
when the driver's pod succeeds).
"""
from __future__ import annotations

import socket
import time

from runners.launch._base import Launcher, ServerProcess, format_ready
from space.cluster import ClusterSpec, Node

CHECK_EVERY_S = 1.0


def _answers(address: str, port: int, timeout_s: float = 2.0) -> bool:
    try:
        with socket.create_connection((address, port), timeout=timeout_s):
            return True
    except OSError:
        return False


class ExternalProcess(ServerProcess):
    """A server reached at ``address:port``; 'ended' when it stops accepting connections, or once stopped."""

    def __init__(self, node: Node, task: int, port: int) -> None:
        super().__init__(node, task, 0, f"(the log of the server at {node.address}:{port}, kept by its scheduler)")
        self.port, self._ready, self._checked, self._code = port, False, 0.0, None

    def poll(self) -> int | None:
        if self._code is None and time.monotonic() - self._checked >= CHECK_EVERY_S:
            self._checked = time.monotonic()
            answers = _answers(self.node.address, self.port)
            if answers:
                self._ready = True
            elif self._ready:
                self._code, self.lost = -1, f"its server stopped accepting connections on port {self.port}"
        return self._code

    def output_lines(self) -> list[str]:
        self.poll()
        return [format_ready("worker", self.task, self.port, 0, len(self.node.gpus))] if self._ready else []

    def log_tail(self, lines: int = 20) -> str:
        return ""

    def signal(self, name: str) -> None:
        self._code = 0 if self._code is None else self._code  # its scheduler ends it; the driver only lets go


class ExternalLauncher(Launcher):
    """Connects to servers that already listen at port ``external.port + i`` of node i (started with the cluster's
    ``--cluster`` definition by someone else); a server not answering yet is waited for, as a starting one is."""

    def __init__(self, spec: ClusterSpec) -> None:
        self.spec = spec

    def port(self, node: Node) -> int:
        return self.spec.launcher_options["port"] + self.spec.nodes.index(node)

    def free_port(self, node: Node) -> int:
        return self.port(node)

    def launch(self, node: Node, task: int, server_args: list[str], log_name: str) -> ServerProcess:
        return ExternalProcess(node, task, self.port(node))

    def describe(self, node: Node) -> str:
        return f"a server started by its scheduler at {node.address}:{self.port(node)}"
