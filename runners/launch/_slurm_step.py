"""One ``srun`` step, in three parts: the process, the reader of its line protocol, and the state they share.

- :class:`StepState` holds what the tasks and srun said, under one :class:`threading.Condition`. The reader
  updates it; everyone else asks it questions or waits on it, so nobody polls or reaches into its dicts.
- :class:`StepReader` turns srun's labelled stdout and stderr lines into updates of the state, and routes each
  task's stderr to its node's log file once the launcher names it.
- :class:`SrunStep` owns the ``srun`` process: it starts it with one reader thread per stream, writes the
  driver's lines to the tasks and ends the step.

The protocol itself (what a task prints) is ``runners.launch._slurm_task``'s.
"""
from __future__ import annotations

import collections
import json
import os
import re
import shutil
import signal
import subprocess
import threading
from collections.abc import Callable

from runners.launch import _slurm_task as task
from space.errors import RunError

_LABEL = re.compile(r"^\s*(\d+): ?(.*)$")
_TASK_END = re.compile(r"^srun: error: (\S+): tasks? [\d,\-]+: (.*)$")
_CANCELLED = re.compile(r"\*\*\* (?:STEP|JOB) \S+ ON \S+ (CANCELLED.*?|DUE TO .*?) \*\*\*")
_SIGNALLED = {"Terminated": -signal.SIGTERM, "Killed": -signal.SIGKILL, "Aborted": -signal.SIGABRT}
_STREAMS = 2  # srun's stdout and stderr: the step's output is complete once both have ended


class StepState:
    """What a step's tasks (by node name) and srun itself said; every change wakes the waiters."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._rank_node: dict[int, str] = {}
        self._hello: dict[str, dict[str, str]] = {}
        self._out: dict[str, list[str]] = collections.defaultdict(list)
        self._exits: dict[str, int] = {}
        self._ended: dict[str, str] = {}  # node -> why srun says its task ended
        self._cancelled = ""  # why the whole step ended, in Slurm's words
        self._srun_lines: list[str] = []
        self._replies: dict[int, dict] = {}
        self._streams_ended = 0

    # ---- updates, from the reader ------------------------------------------------------------------
    def _update(self, change: Callable[[], None]) -> None:
        with self._changed:
            change()
            self._changed.notify_all()

    def said_hello(self, rank: int, fields: dict[str, str]) -> None:
        def change() -> None:
            self._rank_node[rank] = fields.get("node", "")
            self._hello[fields.get("node", "")] = dict(fields)
        self._update(change)

    def said(self, rank: int, text: str) -> None:
        """A task's line after its hello: a reply, its server's pid or exit, or the server's own output."""
        def change() -> None:
            node = self._rank_node.get(rank)
            if node is None:
                return
            if text.startswith(task.RAN + " "):
                reply = json.loads(text[len(task.RAN) + 1:])
                self._replies[reply["id"]] = reply
            elif text.startswith(task.STARTED + " "):
                self._hello[node]["pid"] = text.split("pid=", 1)[1].strip()
            elif text.startswith(task.EXITED + " "):
                self._exits[node] = int(text.split("status=", 1)[1])
            else:
                self._out[node].append(text)
        self._update(change)

    def step_cancelled(self, words: str) -> None:
        """Slurm's words for the end of the whole step (the first such line counts)."""
        def change() -> None:
            if not self._cancelled:
                self._cancelled = f"the Slurm step ended: {words}"
        self._update(change)

    def srun_said(self, line: str) -> None:
        """A line of srun's own (or slurmstepd's): a task that ended, or words to quote."""
        def change() -> None:
            self._srun_lines.append(line)
            end = _TASK_END.match(line)
            if end is not None:
                self._ended.setdefault(end[1], end[2])
        self._update(change)

    def stream_ended(self) -> None:
        def change() -> None:
            self._streams_ended += 1
        self._update(change)

    # ---- questions ---------------------------------------------------------------------------------
    def node_of(self, rank: int) -> str | None:
        with self._changed:
            return self._rank_node.get(rank)

    def rank_of(self, node: str) -> int | None:
        with self._changed:
            return next((r for r, n in self._rank_node.items() if n == node), None)

    def hello(self, node: str) -> dict[str, str]:
        """The node's task's hello (node, port, pid, job, step), or {} before it reported."""
        with self._changed:
            return dict(self._hello.get(node, {}))

    def any_hello(self) -> dict[str, str]:
        with self._changed:
            return dict(next(iter(self._hello.values()), {}))

    def output_lines(self, node: str) -> list[str]:
        with self._changed:
            return list(self._out.get(node, []))

    def srun_words(self, last: int = 3) -> str:
        with self._changed:
            return " | ".join(x for x in self._srun_lines[-last:] if x.strip())

    def output_complete(self) -> bool:
        with self._changed:
            return self._streams_ended >= _STREAMS

    def status(self, node: str) -> tuple[int, str] | None:
        """(exit status, why) of the node's server once the step says it ended, else None."""
        with self._changed:
            if node in self._exits:
                return self._exits[node], ""
            why = self._ended.get(node)
            if why is not None:
                code = int(why.rsplit(" ", 1)[1]) if why.startswith("Exited with exit code") else None
                return (code if code is not None else _SIGNALLED.get(why, -1)), (
                    self._cancelled or f"srun says its task {why.lower()}")
            if self._cancelled:
                return -1, self._cancelled
        return None

    def last_srun_line(self) -> str:
        with self._changed:
            return next((x for x in reversed(self._srun_lines) if x.strip()), "")

    # ---- waiting -----------------------------------------------------------------------------------
    def wait_for_hellos(self, names: list[str], timeout_s: float) -> tuple[list[str], list[str]]:
        """Wait until every node in ``names`` reported, the step's output ended, or the time is up.

        Returns (the nodes still missing, the nodes that reported)."""
        def settled() -> bool:
            return all(n in self._hello for n in names) or len(self._hello) >= len(names) or \
                self._streams_ended >= _STREAMS
        with self._changed:
            self._changed.wait_for(settled, timeout_s)
            return [n for n in names if n not in self._hello], sorted(self._hello)

    def wait_for_reply(self, ident: int, timeout_s: float) -> dict | None:
        """The task's reply to command ``ident``; None if the step's output ended first or the time ran out."""
        with self._changed:
            self._changed.wait_for(lambda: ident in self._replies or self._streams_ended >= _STREAMS, timeout_s)
            return self._replies.pop(ident, None)


class StepReader:
    """Reads srun's labelled lines into a :class:`StepState`; a task's stderr goes to its node's log file."""

    def __init__(self, state: StepState) -> None:
        self.state = state
        self._logs_lock = threading.Lock()
        self._logs: dict[str, str] = {}
        self._early: dict[int, list[str]] = collections.defaultdict(list)  # a rank's stderr until its log is open

    def read(self, stream, handle: Callable[[str], None]) -> None:
        """Feed every line of ``stream`` to ``handle``; then tell the state this stream has ended."""
        try:
            for raw in iter(stream.readline, b""):
                handle(raw.decode(errors="replace").rstrip("\n"))
        finally:
            self.state.stream_ended()

    def on_out(self, line: str) -> None:
        m = _LABEL.match(line)
        if m is None:
            return
        rank, text = int(m[1]), m[2]
        if text.startswith(task.HELLO + " "):
            self.state.said_hello(rank, dict(f.split("=", 1) for f in text.split()[1:] if "=" in f))
        else:
            self.state.said(rank, text)

    def on_err(self, line: str) -> None:
        cancel = _CANCELLED.search(line)  # slurmstepd may say it on a task's labelled stream too
        if cancel is not None:
            self.state.step_cancelled(cancel[0])
        m = _LABEL.match(line)
        if m is not None and not line.startswith(("srun:", "slurmstepd:")):
            self._log(int(m[1]), m[2])
            return
        self.state.srun_said(line)

    def _log(self, rank: int, text: str) -> None:
        node = self.state.node_of(rank)
        with self._logs_lock:
            path = self._logs.get(node) if node is not None else None
            if path is None:
                self._early[rank].append(text)
                return
            with open(path, "a") as f:
                f.write(text + "\n")

    def open_log(self, node: str, path: str) -> None:
        """From now on the node's task's stderr goes to ``path`` (owner-only), after what it said before."""
        rank = self.state.rank_of(node)
        with self._logs_lock:
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "w") as f:
                f.writelines(line + "\n" for line in self._early.pop(rank, []))
            self._logs[node] = path


class SrunStep:
    """A running ``srun``: its state, its reader threads, and the driver's side of the protocol."""

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.argv = argv
        self.state = StepState()
        self.reader = StepReader(self.state)
        self._write_lock = threading.Lock()
        self._ids = iter(range(1, 1 << 62))
        try:
            self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         env=env, start_new_session=True)
        except OSError as e:
            raise RunError(f"cannot run srun ({argv[0]}): {e}") from None
        self._threads = [threading.Thread(target=self.reader.read, args=(self.proc.stdout, self.reader.on_out),
                                          daemon=True, name="autotune-srun-out"),
                         threading.Thread(target=self.reader.read, args=(self.proc.stderr, self.reader.on_err),
                                          daemon=True, name="autotune-srun-err")]
        for t in self._threads:
            t.start()

    def send(self, kind: str, **body) -> bool:
        """Write one line to every task (each acts on what names its node); False once srun's stdin is gone."""
        line = json.dumps({kind: body}) + "\n"
        with self._write_lock:
            try:
                self.proc.stdin.write(line.encode())
                self.proc.stdin.flush()
                return True
            except (OSError, ValueError):
                return False

    def ask(self, node: str, command: str, timeout_s: float) -> dict | None:
        """Run ``command`` on the node's task and wait for its reply; None if the step ended or did not answer."""
        with self._write_lock:
            ident = next(self._ids)
        if not self.send("run", node=node, id=ident, cmd=command, timeout_s=timeout_s):
            return None
        return self.state.wait_for_reply(ident, timeout_s + 5.0)

    def status(self, node: str) -> tuple[int | None, str]:
        """(exit status, why) of the node's server: None while it runs."""
        said = self.state.status(node)
        if said is not None:
            return said
        code = self.proc.poll()
        if code is not None:
            last = self.state.last_srun_line()
            return -1, f"its Slurm step ended (srun exited with status {code}" + (f": {last}" if last else "") + ")"
        return None, ""

    def close(self, timeout_s: float = 10.0) -> None:
        """End the step: close srun's stdin (the tasks stop their servers), then scancel it, then kill srun."""
        with self._write_lock:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self._scancel()
            try:
                self.proc.wait(5.0)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for t in self._threads:
            t.join(5.0)

    def _scancel(self) -> None:
        hello = self.state.any_hello()
        scancel = shutil.which("scancel")
        if scancel and hello.get("job") and hello.get("step"):
            subprocess.run([scancel, "--quiet", f"{hello['job']}.{hello['step']}"], capture_output=True, timeout=30)
