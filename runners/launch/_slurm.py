"""Servers started through ``srun``: one Slurm job step per cluster start, one task per node.

Slurm places the tasks, accounts for them and cleans them up: a cancelled job (``scancel``), a job past its time
limit or a failed node ends the step, and srun says so on its stderr, which :class:`_Step` reads to tell which
servers ended and why. Each task is ``runners.launch._slurm_task``: it reports a free port on its node, then starts
the node's server, runs the firewall's commands and signals the server as the driver asks on srun's stdin. When the
driver goes away for any reason, srun's stdin ends, every task stops its server and the step ends.
"""
from __future__ import annotations

import collections
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

from runners.launch import _slurm_task as task
from runners.launch._base import Launcher, ServerProcess
from runners.launch._local import _package_root
from space.cluster import ClusterSpec, Node
from space.errors import RunError, SpecError

_LABEL = re.compile(r"^\s*(\d+): ?(.*)$")
_TASK_END = re.compile(r"^srun: error: (\S+): tasks? [\d,\-]+: (.*)$")
_CANCELLED = re.compile(r"\*\*\* (?:STEP|JOB) \S+ ON \S+ (CANCELLED.*?|DUE TO .*?) \*\*\*")
_SIGNALLED = {"Terminated": -signal.SIGTERM, "Killed": -signal.SIGKILL, "Aborted": -signal.SIGABRT}


def node_name(node: Node) -> str:
    """The Slurm node name of a spec node: its ``hostname``, else its address."""
    return node.hostname or node.address


class _Step:
    """One running ``srun``: what its tasks said (by node name), and its own messages."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.argv = argv
        self.lock = threading.Lock()
        self.rank_node: dict[int, str] = {}
        self.hello: dict[str, dict[str, str]] = {}
        self.out: dict[str, list[str]] = collections.defaultdict(list)
        self.err: dict[int, list[str]] = collections.defaultdict(list)  # a rank's stderr until its log is open
        self.logs: dict[str, str] = {}
        self.exits: dict[str, int] = {}
        self.ended: dict[str, str] = {}  # node -> why srun says its task ended
        self.cancelled = ""  # why the whole step ended, in Slurm's words
        self.srun_lines: list[str] = []
        self.replies: dict[int, dict] = {}
        self._next_id = 0
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         env=env, start_new_session=True)
        except OSError as e:
            raise RunError(f"cannot run srun ({argv[0]}): {e}") from None
        self.readers = [threading.Thread(target=self._read, args=(self.proc.stdout, self._on_out), daemon=True,
                                         name="autotune-srun-out"),
                        threading.Thread(target=self._read, args=(self.proc.stderr, self._on_err), daemon=True,
                                         name="autotune-srun-err")]
        for t in self.readers:
            t.start()

    # ---- what srun says ----------------------------------------------------------------------------
    @staticmethod
    def _read(stream, handle) -> None:
        for raw in iter(stream.readline, b""):
            handle(raw.decode(errors="replace").rstrip("\n"))

    def _on_out(self, line: str) -> None:
        m = _LABEL.match(line)
        if m is None:
            return
        rank, text = int(m[1]), m[2]
        with self.lock:
            if text.startswith(task.HELLO + " "):
                fields = dict(f.split("=", 1) for f in text.split()[1:] if "=" in f)
                self.rank_node[rank] = fields.get("node", "")
                self.hello[fields.get("node", "")] = fields
                return
            node = self.rank_node.get(rank)
            if node is None:
                return
            if text.startswith(task.RAN + " "):
                reply = json.loads(text[len(task.RAN) + 1:])
                self.replies[reply["id"]] = reply
            elif text.startswith(task.STARTED + " "):
                self.hello[node]["pid"] = text.split("pid=", 1)[1].strip()
            elif text.startswith(task.EXITED + " "):
                self.exits[node] = int(text.split("status=", 1)[1])
            else:
                self.out[node].append(text)

    def _on_err(self, line: str) -> None:
        with self.lock:
            cancel = _CANCELLED.search(line)
            if cancel is not None and not self.cancelled:
                self.cancelled = f"the Slurm step ended: {cancel[0]}"
            m = _LABEL.match(line)
            if m is not None and not line.startswith(("srun:", "slurmstepd:")):
                self._log(int(m[1]), m[2])
                return
            self.srun_lines.append(line)
            end = _TASK_END.match(line)
            if end is not None:
                self.ended.setdefault(end[1], end[2])

    def _log(self, rank: int, text: str) -> None:
        node = self.rank_node.get(rank)
        path = self.logs.get(node) if node is not None else None
        if path is None:
            self.err[rank].append(text)
            return
        with open(path, "a") as f:
            f.write(text + "\n")

    def open_log(self, node: str, path: str) -> None:
        with self.lock:
            rank = next((r for r, n in self.rank_node.items() if n == node), None)
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "w") as f:
                f.writelines(line + "\n" for line in self.err.pop(rank, []))
            self.logs[node] = path

    # ---- telling the tasks -------------------------------------------------------------------------
    def send(self, kind: str, **body) -> bool:
        """Write one line to every task (each acts on what names its node); False once srun's stdin is gone."""
        line = json.dumps({kind: body}) + "\n"
        with self.lock:
            try:
                self.proc.stdin.write(line.encode())
                self.proc.stdin.flush()
                return True
            except (OSError, ValueError):
                return False

    def new_id(self) -> int:
        with self.lock:
            self._next_id += 1
            return self._next_id

    def status(self, node: str) -> tuple[int | None, str]:
        """(exit status, why) of the node's server: None while it runs."""
        with self.lock:
            if node in self.exits:
                return self.exits[node], ""
            why = self.ended.get(node)
            if why is not None:
                code = int(why.rsplit(" ", 1)[1]) if why.startswith("Exited with exit code") else None
                return (code if code is not None else _SIGNALLED.get(why, -1)), (
                    self.cancelled or f"srun says its task {why.lower()}")
            if self.cancelled:
                return -1, self.cancelled
        code = self.proc.poll()
        if code is not None:
            last = next((x for x in reversed(self.srun_lines) if x.strip()), "")
            return -1, f"its Slurm step ended (srun exited with status {code}" + (f": {last}" if last else "") + ")"
        return None, ""

    def close(self, timeout_s: float = 10.0) -> None:
        """End the step: close srun's stdin (the tasks stop their servers), then scancel it, then kill srun."""
        with self.lock:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            hello = next(iter(self.hello.values()), {})
            scancel = shutil.which("scancel")
            if scancel and hello.get("job") and hello.get("step"):
                subprocess.run([scancel, "--quiet", f"{hello['job']}.{hello['step']}"], capture_output=True,
                               timeout=30)
            try:
                self.proc.wait(5.0)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for t in self.readers:
            t.join(5.0)


class SlurmProcess(ServerProcess):
    """A node's server, the child of that node's task in the cluster's step."""

    def __init__(self, node: Node, task_index: int, pid: int, log_path: str, step: _Step) -> None:
        super().__init__(node, task_index, pid, log_path)
        self._step, self._name, self._noted = step, node_name(node), False

    def poll(self) -> int | None:
        code, why = self._step.status(self._name)
        pid = self._step.hello.get(self._name, {}).get("pid", "")
        if pid.isdigit():
            self.pid = int(pid)
        if code is not None and why and not self._noted:
            self._noted = True  # the log then says why, for the error message that quotes it
            with open(self.log_path, "a") as f:
                f.write(f"error: {why}\n")
        return code

    def output_lines(self) -> list[str]:
        with self._step.lock:
            return list(self._step.out.get(self._name, []))

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
        self._step: _Step | None = None

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

    def step(self) -> _Step:
        """The cluster's step, started on first use; waits until every node's task has reported."""
        if self._step is None:
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join(p for p in (_package_root(), env.get("PYTHONPATH")) if p)
            self._step = _Step(self.argv(), env)
            self._await_tasks(self._step)
        return self._step

    def _await_tasks(self, step: _Step) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while True:
            with step.lock:
                missing = [n for n in self.names if n not in step.hello]
                reported = sorted(step.hello)
            if not missing:
                return
            if len(reported) == len(self.names):
                raise SpecError(f"the Slurm step ran on nodes {', '.join(reported)}, but the spec names "
                                f"{', '.join(missing)}", self.spec.source,
                                hint="a node's `hostname` (else its address) must be its Slurm node name")
            code = step.proc.poll()
            if code is not None or time.monotonic() > deadline:
                step.close(timeout_s=1.0)
                words = " | ".join(x for x in step.srun_lines[-3:] if x.strip()) or "no message"
                what = f"exited with status {code}" if code is not None else \
                    f"did not start every task in {self.start_timeout_s:g} s"
                raise RunError(f"srun {what} ({words}) starting the servers on {','.join(self.names)}")
            time.sleep(0.02)

    # ---- Launcher ----------------------------------------------------------------------------------
    def free_port(self, node: Node) -> int:
        return int(self.step().hello[node_name(node)]["port"])

    def launch(self, node: Node, task_index: int, server_args: list[str], log_name: str) -> ServerProcess:
        step, name = self.step(), node_name(node)
        path = os.path.join(self.log_dir, log_name)
        os.makedirs(self.log_dir, mode=0o700, exist_ok=True)
        step.open_log(name, path)
        if not step.send("start", node=name, argv=server_args, python=node.python or self.python, cwd=node.workdir):
            raise RunError(f"cannot start the server of node {node.name}: its Slurm step has ended")
        return SlurmProcess(node, task_index, int(step.hello[name].get("pid", 0)), path, step)

    def run(self, node: Node, command: str, timeout_s: float = 30.0) -> tuple[int, str, str]:
        """Run a short shell command on ``node`` by its task (the firewall's ``nft``); (status, stdout, stderr)."""
        step = self.step()
        ident = step.new_id()
        if not step.send("run", node=node_name(node), id=ident, cmd=command, timeout_s=timeout_s):
            return 255, "", "its Slurm step has ended"
        deadline = time.monotonic() + timeout_s + 5.0
        while ident not in step.replies:
            if step.proc.poll() is not None:
                return 255, "", "its Slurm step has ended"
            if time.monotonic() > deadline:
                raise RunError(f"command on node {node.name} did not finish in {timeout_s:g} s: {command[:80]}")
            time.sleep(0.01)
        reply = step.replies.pop(ident)
        return reply["code"], reply["out"], reply["err"]

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
        hello = self._step.hello.get(node_name(node), {}) if self._step else {}
        return f"srun step {hello.get('job', '?')}.{hello.get('step', '?')} on {node_name(node)}"
