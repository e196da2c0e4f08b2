"""Servers started through ``srun``: one Slurm job step per cluster start, one task per node.

Slurm places the tasks, accounts for them and cleans them up: a cancelled job (``scancel``), a job past its time
limit or a failed node ends the step, and srun says so on its stderr, which the step's reader
(``runners.launch._slurm_step``) reads to tell which servers ended and why. Each task is
``runners.launch._slurm_task``: it reports a free port on its node, then starts the node's server, runs the
firewall's commands and signals the server as the driver asks on srun's stdin. When the driver goes away for any
reason, srun's stdin ends, every task stops its server and the step ends.
"""
from __future__ import annotations

import os
import shutil
import socket
import sys

from runners.launch import _slurm_task as task
from runners.launch._base import Launcher, ServerProcess
from runners.launch._local import _package_root
from runners.launch._slurm_step import SrunStep
from space.cluster import ClusterSpec, Node
from space.errors import RunError, SpecError


def node_name(node: Node) -> str:
    """The Slurm node name of a spec node: its ``hostname``, else its address."""
    return node.hostname or node.address


class SlurmProcess(ServerProcess):
    """A node's server, the child of that node's task in the cluster's step."""

    def __init__(self, node: Node, task_index: int, pid: int, log_path: str, step: SrunStep) -> None:
        super().__init__(node, task_index, pid, log_path)
        self._step, self._name, self._noted = step, node_name(node), False

    def poll(self) -> int | None:
        code, why = self._step.status(self._name)
        pid = self._step.state.hello(self._name).get("pid", "")
        if pid.isdigit():
            self.pid = int(pid)
        if code is not None and why and not self._noted:
            self._noted = True  # the log then says why, for the error message that quotes it
            with open(self.log_path, "a") as f:
                f.write(f"error: {why}\n")
        return code

    def output_lines(self) -> list[str]:
        return self._step.state.output_lines(self._name)

    def log_tail(self, lines: int = 20) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                return "\n".join(f.read().splitlines()[-lines:])
        except OSError:
            return ""

    def signal(self, name: str) -> None:
        if name not in ("TERM", "KILL"):
            raise ValueError(f"`name` must be 'TERM' or 'KILL', but got {name!r}")
        if self.poll() is None:
            self._step.send("signal", node=self._name, name=name)

    @property
    def where(self) -> str:
        return f"node {self.node.name} ({self.node.address}, task {self.task}, pid {self.pid}, Slurm step)"


class SlurmLauncher(Launcher):
    """Starts every node's server in one ``srun`` step of the allocation this process runs in.

    Args:
        spec: the cluster; its nodes are Slurm nodes (a node's ``hostname``, else its address, is its Slurm name).
        log_dir: where each server's stderr is written, as srun carries it back.
        python: interpreter for the tasks and for nodes without ``python`` (default: the nodes' common ``python``,
            else this interpreter; Slurm nodes usually share their software).
        start_timeout_s: how long srun's tasks may take to report (a busy allocation queues a step).
    """

    def __init__(self, spec: ClusterSpec, log_dir: str, *, python: str | None = None,
                 start_timeout_s: float = 60.0) -> None:
        self.spec, self.log_dir, self.start_timeout_s = spec, log_dir, start_timeout_s
        pythons = {n.python for n in spec.nodes}
        self.python = python or (pythons.pop() if len(pythons) == 1 and None not in pythons else sys.executable)
        self.names = [node_name(n) for n in spec.nodes]
        self._step: SrunStep | None = None

    def argv(self) -> list[str]:
        srun = shutil.which("srun")
        if srun is None:
            raise SpecError("srun not found: a spec with `launcher: slurm` starts its servers with Slurm's srun",
                            self.spec.source, hint="run it on a machine of the Slurm cluster (slurm-client)")
        n = len(self.names)
        return [srun, f"--nodes={n}", f"--ntasks={n}", "--ntasks-per-node=1", f"--nodelist={','.join(self.names)}",
                "--label", "--unbuffered", "--input=all", "--export=ALL", "--overlap", "--kill-on-bad-exit=0",
                "--job-name=autotune-servers", *self.spec.launcher_options.get("srun_args", ()),
                self.python, "-u", "-m", task.__name__]

    def step(self) -> SrunStep:
        """The cluster's step, started on first use; waits until every node's task has reported."""
        if self._step is None:
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH")) if p)
            self._step = SrunStep(self.argv(), env)
            self._await_tasks(self._step)
        return self._step

    def _await_tasks(self, step: SrunStep) -> None:
        missing, reported = step.state.wait_for_hellos(self.names, self.start_timeout_s)
        if not missing:
            return
        if len(reported) >= len(self.names):
            step.close(timeout_s=1.0)
            raise SpecError(f"the Slurm step ran on nodes {', '.join(reported)}, but the spec names "
                            f"{', '.join(missing)}", self.spec.source,
                            hint="a node's `hostname` (else its address) must be its Slurm node name")
        step.close(timeout_s=1.0)
        code = step.proc.poll()
        words = step.state.srun_words() or "no message"
        what = f"exited with status {code}" if code is not None and step.state.output_complete() else \
            f"did not start every task in {self.start_timeout_s:g} s"
        raise RunError(f"srun {what} ({words}) starting the servers on {','.join(self.names)}")

    # ---- Launcher ----------------------------------------------------------------------------------
    def free_port(self, node: Node) -> int:
        return int(self.step().state.hello(node_name(node))["port"])

    def launch(self, node: Node, task_index: int, server_args: list[str], log_name: str) -> ServerProcess:
        step, name = self.step(), node_name(node)
        path = os.path.join(self.log_dir, log_name)
        os.makedirs(self.log_dir, mode=0o700, exist_ok=True)
        step.reader.open_log(name, path)
        if not step.send("start", node=name, argv=server_args, python=node.python or self.python, cwd=node.workdir):
            raise RunError(f"cannot start the server of node {node.name}: its Slurm step has ended")
        return SlurmProcess(node, task_index, int(step.state.hello(name).get("pid", 0)), path, step)

    def run(self, node: Node, command: str, timeout_s: float = 30.0) -> tuple[int, str, str]:
        """Run a short shell command on ``node`` by its task (the firewall's ``nft``); (status, stdout, stderr)."""
        step = self.step()
        reply = step.ask(node_name(node), command, timeout_s)
        if reply is not None:
            return reply["code"], reply["out"], reply["err"]
        if step.state.output_complete() or step.proc.poll() is not None:
            return 255, "", "its Slurm step has ended"
        raise RunError(f"command on node {node.name} did not finish in {timeout_s:g} s: {command[:80]}")

    def local_address(self, node: Node) -> str | None:
        """This machine's address towards ``node`` (the route's source): the firewall admits it."""
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((node.address, 9))
                return s.getsockname()[0]
        except OSError:
            return None

    def close(self) -> None:
        if self._step is not None:
            self._step.close()

    def describe(self, node: Node) -> str:
        hello = self._step.state.hello(node_name(node)) if self._step else {}
        return f"srun step {hello.get('job', '?')}.{hello.get('step', '?')} on {node_name(node)}"
