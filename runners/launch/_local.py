"""Servers as local subprocesses (loopback nodes, or any node this machine can run directly)."""
from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import sys
from typing import Mapping, Sequence

from runners.launch._base import SERVER_MODULE, Launcher, ServerProcess
from space.cluster import Node
from space.errors import RunError


def _package_root() -> str:
    """The directory holding the ``runners`` package, so that ``-m runners.server_main`` imports."""
    return str(pathlib.Path(__file__).resolve().parents[2])


class LocalProcess(ServerProcess):
    """A server started with :class:`subprocess.Popen`; stdout and stderr go to one log file."""

    def __init__(self, node: Node, task: int, popen: subprocess.Popen, log_path: str, lifeline: int) -> None:
        super().__init__(node, task, popen.pid, log_path)
        self._popen, self._lifeline = popen, lifeline

    def poll(self) -> int | None:
        return self._popen.poll()

    def output_lines(self) -> list[str]:
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read().splitlines()
        except OSError:
            return []

    def log_tail(self, lines: int = 20) -> str:
        return "\n".join(self.output_lines()[-lines:])

    def signal(self, name: str) -> None:
        if self._popen.poll() is None:  # Popen has not reaped it, so the PID is still ours
            self._popen.send_signal(getattr(signal, f"SIG{name}"))

    def release(self) -> None:
        if self._lifeline >= 0:
            os.close(self._lifeline)
            self._lifeline = -1


class LocalLauncher(Launcher):
    """Runs each server as a child process of the driver, in its own session (Ctrl-C does not reach it).

    The child gets the read end of a pipe (``--watch-fd``) whose write end only the driver holds: when the
    driver exits for any reason, even SIGKILL, the server sees EOF and exits.

    Args:
        log_dir: where ``<log_name>`` files are written (required; start_cluster passes its own).
        python: interpreter for nodes without ``python`` in the spec (default: this interpreter).
        env: extra environment variables for every server.
        command_prefix: argv put before the python command, e.g. ``["ip", "netns", "exec", "h1"]``.
    """

    def __init__(self, log_dir: str | os.PathLike, *, python: str | None = None,
                 env: Mapping[str, str] | None = None, command_prefix: Sequence[str] = ()) -> None:
        self.log_dir = pathlib.Path(log_dir)
        self.python = python or sys.executable
        self.env = dict(env or {})
        self.command_prefix = list(command_prefix)

    def free_port(self, node: Node) -> int:
        if self.command_prefix:  # another network namespace: probe from inside it
            out = subprocess.run(self.command_prefix + [self.python, "-c", _PROBE], capture_output=True,
                                 text=True, timeout=30)
            if out.returncode != 0:
                raise RunError(f"cannot probe a free port for node {node.name}: {out.stderr.strip()[-300:]}")
            return int(out.stdout.strip())
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("", 0))  # TF's gRPC server listens on all interfaces, so probe all of them
            return s.getsockname()[1]

    def launch(self, node: Node, task: int, server_args: list[str], log_name: str) -> ServerProcess:
        self.log_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        log_path = self.log_dir / log_name
        read_end, write_end = os.pipe()
        env = os.environ | self.env
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH")) if p)
        argv = self.command_prefix + [node.python or self.python, "-u", "-m", SERVER_MODULE, *server_args,
                                      "--watch-fd", str(read_end), "--watch-parent"]
        try:
            with open(os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as log:
                popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         pass_fds=(read_end,), cwd=node.workdir, env=env,
                                         start_new_session=True)
        except OSError as e:
            os.close(write_end)
            raise RunError(f"cannot start the server of node {node.name} ({' '.join(argv[:4])} ...): {e}") from None
        finally:
            os.close(read_end)
        return LocalProcess(node, task, popen, str(log_path), write_end)

    def describe(self, node: Node) -> str:
        return "local process" + (f" via {' '.join(self.command_prefix)}" if self.command_prefix else "")


_PROBE = "import socket; s = socket.socket(); s.bind(('', 0)); print(s.getsockname()[1])"
