"""Each server's peak memory while a job runs, as the server process itself reports it.

A TensorFlow server on a CPU has no allocator that reports a peak, so the peak is the process's resident set's
high-water mark (``VmHWM`` of ``/proc/self/status``). It is read by a ``ReadFile`` op placed on each task: the op
runs inside the server process, wherever that is (loopback, SSH, Slurm), so ``/proc/self`` is the server's and no
process id or remote shell is needed. Before the job the mark is reset (``5`` written to ``/proc/self/clear_refs``)
and the resident set at that moment is kept: the job's own memory is the peak above it, TensorFlow's runtime and
what earlier jobs left in the allocator's free lists aside. The job's set-up (its initial values, fed from the
driver through the chief's server) peaks apart from its steps: :meth:`PeakWatch.split` ends the set-up's peak
(``setup_peak``) and starts the steps' (``peak``), the one a memory plan counts. Where ``/proc`` is missing (not
Linux) nothing is recorded; where the reset is refused the peak is the process's lifetime one (``reset`` False).
"""
from __future__ import annotations

import dataclasses
import re
import threading
import time

STATUS, CLEAR_REFS = "/proc/self/status", "/proc/self/clear_refs"
_KB = re.compile(rb"^(VmHWM|VmRSS):\s+(\d+)\s+kB", re.M)


@dataclasses.dataclass(frozen=True)
class TaskPeak:
    """One server's resident bytes when the watch began (``start``) and its peak since (``peak``)."""

    address: str
    start: int
    peak: int
    reset: bool = True  # False: the peak is the process's lifetime one (the reset was refused)
    setup_peak: int = 0  # the set-up's peak where the watch was split (0: not split; ``peak`` covers it)

    @property
    def grown(self) -> int:
        """What the job added at its peak: the like of a memory plan's bytes (TensorFlow's own are in ``start``)."""
        return max(self.peak - self.start, 0)

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "grown": self.grown, "setup_grown": max(self.setup_peak - self.start, 0)}


def parse_status(text: bytes) -> tuple[int, int]:
    """(VmRSS, VmHWM) in bytes from the text of ``/proc/<pid>/status`` (the kernel's kB are KiB)."""
    found = {k.decode(): int(v) * 1024 for k, v in _KB.findall(text)}
    if len(found) < 2:
        raise ValueError("no VmRSS and VmHWM lines in the process status")
    return found["VmRSS"], found["VmHWM"]


class PeakWatch:
    """Watch every server of a running cluster from :meth:`begin` to :meth:`read` (each a call of its own)."""

    def __init__(self, cluster, timeout_s: float = 10.0) -> None:
        import tensorflow as tf

        self.cluster, self.timeout_s = cluster, timeout_s
        self.addresses = [n.address for n in cluster.spec.nodes]
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.status, self.clear = [], []
            for address in self.addresses:
                with tf.device(cluster.task_device(f"{address}:CPU:0")):
                    self.status.append(tf.io.read_file(STATUS))
                    self.clear.append(tf.io.write_file(CLEAR_REFS, "5"))
        self.start: list[int] | None = None
        self.setup: list[int] = []
        self.reset = True

    @classmethod
    def begin(cls, cluster) -> "PeakWatch":
        """A watch whose peaks start now; one that records nothing where the servers cannot report."""
        watch = cls(cluster)
        watch.start = watch._begin()
        return watch

    def _run(self, *calls) -> list:
        """Each call's fetches' values in one session, None from the first call that failed on. A watch never holds
        a job up: nothing is run where a server has exited, and a session that waits on one that exits meanwhile
        (gRPC retries for minutes) or takes longer than its time is left to end on its own thread, its calls None;
        the job that follows names the dead server itself."""
        if self.cluster.dead_servers():
            return [None] * len(calls)
        out: list = []
        done = threading.Event()

        def work() -> None:
            try:
                out.extend(self._session_run(calls))
            finally:
                done.set()

        threading.Thread(target=work, daemon=True, name="autotune-peak-memory").start()
        deadline = time.monotonic() + self.timeout_s * len(calls)
        while not done.wait(0.2):
            if self.cluster.dead_servers() or time.monotonic() > deadline:
                return [None] * len(calls)
        return out if len(out) == len(calls) else [None] * len(calls)

    def _session_run(self, calls) -> list:
        import tensorflow as tf

        out = []
        with self.cluster.session(self.graph, operation_timeout_s=self.timeout_s) as s:
            for fetches in calls:
                try:
                    out.append(s.run(fetches))
                except tf.errors.OpError:
                    out.append(None)
        return out

    def _begin(self) -> list[int] | None:
        cleared, status = self._run(self.clear, self.status)
        self.reset = cleared is not None
        try:
            return None if status is None else [parse_status(t)[0] for t in status]
        except ValueError:
            return None

    def split(self) -> None:
        """End the set-up's peak here (kept as ``setup_peak``) and start the steps'."""
        if self.start is None:
            return
        status, cleared = self._run(self.status, self.clear)
        try:
            self.setup = [] if status is None else [parse_status(t)[1] for t in status]
        except ValueError:
            self.setup = []
        self.reset = self.reset and cleared is not None

    def read(self) -> dict[str, dict]:
        """Per node address, :class:`TaskPeak` as plain data; {} where the servers cannot report."""
        status = None if self.start is None else self._run(self.status)[0]
        if status is None:
            return {}
        try:
            peaks = [parse_status(t)[1] for t in status]
        except ValueError:
            return {}
        setup = self.setup or [0] * len(peaks)
        return {a: TaskPeak(a, s, p, self.reset, u).to_dict()
                for a, s, p, u in zip(self.addresses, self.start, peaks, setup)}

