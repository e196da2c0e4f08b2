"""Traced steps (TensorFlow's ``StepStats``, one per traced ``Session.run``) merged into one Chrome trace and summed
up per task and per link.

A distributed session's trace holds, per task, the ops it ran and, apart, the transfers it received over gRPC
(``RecvTensor`` for a tensor sent from one task to another, ``RecvBuf`` for a collective's piece), each labelled
``... from <sending device> to <receiving device>``. The summary sweeps each task's step: an instant where one of
its ops computes is compute; one where it only waits for a transfer into it, or inside a collective, is waiting on
the links carrying them (shared evenly where several do); the rest of the task's span is other (the call's set-up,
scheduling, the master's round trips). The three add up to the task's span in the step.

A receiver asks for a tensor before the sender has made it, so a transfer's record spans the wait for its producer
too: a link counts as busy from the producer's end (the edge's name names it) to the arrival, while the receiver's
waiting counts the whole record (what it waited for came over that link, however late it was made).

Every record also holds the transfer's own round trip (the request, the reply's set-up), whatever its bytes: a
record of a few bytes is that latency alone. A link's wire time is its busy time without it: the latency is the
trace's shortest record of at most ``SMALL_BYTES`` that neither waited for its producer nor queued behind a larger
one (:func:`_latency`); records that small carry no wire time, and a larger one is on the wire from its start plus
that latency (or its producer's end, if later) to its arrival.

The step as a whole (:class:`StepParts`) is swept over every task at once: an instant where some task computes is
compute; one where none does but a transfer is under way, or a task waits inside a collective, is exposed
communication; the rest is idle (nothing recorded on any task: scheduling, the call reaching each task).
"""
from __future__ import annotations

import dataclasses
import json
import re
from typing import Iterable, Mapping

TRANSFERS = ("RecvTensor", "RecvBuf")  # the records of what a task received over gRPC
COLLECTIVE = "collective"  # the link a collective op waits on where no transfer says which
TRANSFER_SUFFIX = " transfers"  # the Chrome trace's lane of what a task received, beside its ops' lane
_TASK = re.compile(r"(/job:[^/]+/replica:\d+/task:\d+)")
_ENDS = re.compile(r"from (\S+) to (\S+)")
_EDGE = re.compile(r"edge_\d+_(\S+?)(?::\d+)? from ")
_SIZE = re.compile(r"\[(\d+(?:\.\d+)?)(B|KB|MB|GB)\]")
_UNIT = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}
SMALL_BYTES = 4096  # a transfer this small is its latency: at 1 Gbit/s its bytes take 33 us, a round trip more


@dataclasses.dataclass(frozen=True)
class TaskTime:
    """One task's mean traced step by part: ``compute_s + sum(waiting_s) + other_s == span_s``."""

    task: str
    span_s: float  # from its first op's start to its last op's end
    compute_s: float
    waiting_s: Mapping[str, float]  # link ("src task -> dst task", or ``COLLECTIVE``) -> seconds waiting on it
    other_s: float

    @property
    def waiting_total_s(self) -> float:
        return float(sum(self.waiting_s.values()))


@dataclasses.dataclass(frozen=True)
class LinkTime:
    """One direction between two tasks: the mean seconds per step some transfer was under way (from its tensor's
    producer's end on the sending task, where the trace shows it, to its arrival), and its bytes (as TensorFlow's
    labels round them)."""

    src: str
    dst: str
    busy_s: float
    bytes: float
    wire_s: float | None = None  # busy_s without each transfer's latency (see the module's docstring)
    latency_s: float | None = None  # the latency taken off each transfer
    transfers: float = 0.0  # transfers per step

    @property
    def key(self) -> str:
        return link_name(self.src, self.dst)


@dataclasses.dataclass(frozen=True)
class StepParts:
    """The mean traced step over every task at once: ``compute_s + comm_s + idle_s == span_s``."""

    span_s: float  # from the first op's start on any task to the last op's end on any
    compute_s: float  # some task computes
    comm_s: float  # none computes; a transfer is under way or a task waits in a collective
    idle_s: float  # nothing recorded on any task


@dataclasses.dataclass(frozen=True)
class TraceSummary:
    """The traced steps summed up: per task (``tasks``) and per link (``links``, busiest first)."""

    steps: int
    step_s: float  # the driver's mean seconds per traced call
    tasks: tuple[TaskTime, ...]
    links: tuple[LinkTime, ...]
    step: StepParts | None = None  # None in a summary written before the step was swept as a whole

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def table(self) -> str:
        """The summary as text: per task its parts, per link its busy time."""
        ms = lambda s: f"{s * 1e3:9.3f}"  # noqa: E731
        lines = [f"traced {self.steps} step(s), {self.step_s * 1e3:.3f} ms per call (driver)",
                 f"{'task':32} {'span ms':>9} {'compute':>9} {'waiting':>9} {'other':>9}  waiting on"]
        for t in self.tasks:
            on = ", ".join(f"{k} {v * 1e3:.3f}" for k, v in sorted(t.waiting_s.items(), key=lambda kv: -kv[1]))
            lines.append(f"{t.task:32} {ms(t.span_s)} {ms(t.compute_s)} {ms(t.waiting_total_s)} {ms(t.other_s)}"
                         f"  {on or '-'}")
        if self.step is not None:
            st = self.step
            lines.append(f"{'step (every task at once)':32} {ms(st.span_s)} {ms(st.compute_s)} {ms(st.comm_s)} "
                         f"{ms(st.idle_s)}  (idle: nothing recorded on any task)")
        lines.append(f"{'link':44} {'busy ms':>9} {'wire ms':>9} {'latency':>9} {'transfers':>9} {'MB':>9}")
        for link in self.links:
            wire = "-" if link.wire_s is None else ms(link.wire_s)
            latency = "-" if link.latency_s is None else ms(link.latency_s)
            lines.append(f"{link.key:44} {ms(link.busy_s)} {wire:>9} {latency:>9} {link.transfers:9.1f} "
                         f"{link.bytes / 1e6:9.3f}")
        return "\n".join(lines)


def link_name(src: str, dst: str) -> str:
    return f"{src} -> {dst}"


def task_of(device: str) -> str:
    """``/job:worker/replica:0/task:1`` of a device name (the name itself where it names no task)."""
    m = _TASK.search(device)
    return m.group(1) if m else device


def is_transfers(dev) -> bool:
    """Whether a ``DeviceStepStats`` holds what its task received (every record a transfer)."""
    return bool(dev.node_stats) and all(n.node_name in TRANSFERS for n in dev.node_stats)


def merged(steps: Iterable) -> object:
    """One ``StepStats`` of several traced steps: per device, its ops of every step in one lane and what it
    received in another (``TRANSFER_SUFFIX``), so that TensorFlow's timeline draws the steps one after another."""
    from tensorflow.core.framework.step_stats_pb2 import StepStats

    out = StepStats()
    lanes: dict[str, object] = {}
    for stats in steps:
        for dev in stats.dev_stats:
            name = dev.device + (TRANSFER_SUFFIX if is_transfers(dev) else "")
            if name not in lanes:
                lanes[name] = out.dev_stats.add(device=name)
            lanes[name].node_stats.extend(dev.node_stats)
    return out


def chrome_trace(step_stats) -> str:
    """The Chrome-trace JSON of ``step_stats`` (:func:`merged`), drawn by TensorFlow's own timeline; each transfer's
    event keeps its label (its bytes, rate, tensor and ends), which the timeline leaves out."""
    from tensorflow.python.client import timeline

    labels = {(n.all_start_micros, n.all_end_rel_micros): n.timeline_label for dev in step_stats.dev_stats
              for n in dev.node_stats if n.node_name in TRANSFERS}
    trace = json.loads(timeline.Timeline(step_stats).generate_chrome_trace_format(show_dataflow=True,
                                                                                  show_memory=False))
    for event in trace.get("traceEvents", []):
        label = labels.get((event.get("ts"), event.get("dur"))) if event.get("name") in TRANSFERS else None
        if label is not None:
            event.setdefault("args", {})["label"] = label
    return json.dumps(trace, separators=(",", ":"))


def summarize(steps: list, walls_s: list[float], names: Mapping[str, str] | None = None) -> TraceSummary:
    """The mean of each traced step (``StepStats`` each, the driver's ``walls_s`` seconds for them) per task, per
    link and over every task at once; ``names`` renames the tasks (``/job:worker/replica:0/task:1`` -> its node's
    address)."""
    parsed = [_intervals(stats, names or {}) for stats in steps]
    n = max(len(steps), 1)
    return TraceSummary(steps=len(steps), step_s=sum(walls_s) / max(len(walls_s), 1), tasks=_task_times(parsed, n),
                        links=_link_times(parsed, n), step=_step_parts(parsed, n) if parsed else None)


def _task_times(parsed: list, n: int) -> tuple[TaskTime, ...]:
    tasks: dict[str, dict] = {}
    for ops, recv in parsed:
        for task in sorted(set(ops) | set(recv)):
            part = _sweep(task, ops.get(task, []), recv.get(task, []))
            acc = tasks.setdefault(task, {"span": 0.0, "compute": 0.0, "other": 0.0, "waiting": {}})
            for k in ("span", "compute", "other"):
                acc[k] += part[k]
            for k, v in part["waiting"].items():
                acc["waiting"][k] = acc["waiting"].get(k, 0.0) + v
    return tuple(TaskTime(t, a["span"] / n, a["compute"] / n, {k: v / n for k, v in sorted(a["waiting"].items())},
                          a["other"] / n) for t, a in sorted(tasks.items()))


def _link_times(parsed: list, n: int) -> tuple[LinkTime, ...]:
    """Per link: busy, bytes, wire time (busy without each transfer's latency) and transfers, busiest first."""
    by_step = [_by_link(recv) for _, recv in parsed]
    latency = _latency(by_step)
    acc: dict[tuple[str, str], list[float]] = {}
    for links in by_step:
        for key, spans in links.items():
            a = acc.setdefault(key, [0.0, 0.0, 0.0, 0.0])
            a[0] += _union(s[:2] for s in spans)
            a[1] += sum(s[2] for s in spans)
            a[2] += _union(w for w in (_wire(s, latency) for s in spans) if w is not None)
            a[3] += len(spans)
    out = (LinkTime(s, d, b / n, nb / n, wire_s=w / n, latency_s=latency * 1e-6, transfers=c / n)
           for (s, d), (b, nb, w, c) in acc.items())
    return tuple(sorted(out, key=lambda x: (-x.busy_s, x.src, x.dst)))


def _latency(by_step: list[dict]) -> float:
    """The microseconds of the trace's shortest record of at most ``SMALL_BYTES`` whose tensor was made before it was
    asked for (a record that waited for its producer is not a round trip alone) and that no larger record on its link
    overlaps (one that does may have queued behind its bytes); 0 without one. One value for every link: a link's own
    small records are few and often queue behind the step's other work, and too short a latency only leaves some of
    it in the wire time."""
    best = float("inf")
    for links in by_step:
        for spans in links.values():
            large = [(start, end) for _, end, nbytes, start in spans if nbytes > SMALL_BYTES]
            for sent, end, nbytes, start in spans:
                if nbytes <= SMALL_BYTES and sent == start < end and not any(a < end and start < b for a, b in large):
                    best = min(best, end - start)
    return 0.0 if best == float("inf") else float(best)


def _wire(span: tuple, latency_us: float) -> tuple[float, float] | None:
    """The part of one transfer's record its bytes were on the wire (None for a transfer of latency alone)."""
    sent, end, nbytes, start = span
    begin = max(sent, start + latency_us)
    return (begin, end) if nbytes > SMALL_BYTES and end > begin else None


def _step_parts(parsed: list, n: int) -> StepParts:
    """Every task's step swept at once (see the module's docstring), averaged over the steps."""
    span = compute = comm = 0
    for ops, recv in parsed:
        events = []
        for spans in ops.values():
            for start, end, waits in spans:
                kind = "wait" if waits else "compute"
                events += [(start, 1, kind), (end, -1, kind)]
        for spans in recv.values():
            for start, end, *_ in spans:
                events += [(start, 1, "wait"), (end, -1, "wait")]
        if not events:
            continue
        events.sort(key=lambda e: (e[0], e[1]))
        active = {"compute": 0, "wait": 0}
        last = events[0][0]
        for t, delta, kind in events:
            if t > last and active["compute"]:
                compute += t - last
            elif t > last and active["wait"]:
                comm += t - last
            active[kind] += delta
            last = t
        span += events[-1][0] - events[0][0]
    return StepParts(span_s=span * 1e-6 / n, compute_s=compute * 1e-6 / n, comm_s=comm * 1e-6 / n,
                     idle_s=(span - compute - comm) * 1e-6 / n)


def _intervals(stats, names: Mapping[str, str]) -> tuple[dict, dict]:
    """(task -> [(start us, end us, waits)] of its ops, task -> [(start, end, bytes, src task, sent)] it received).

    A tensor's transfer is asked for before its producer on the sending task has run; ``sent`` is when the bytes can
    have started to move: the producer's end where the trace holds it (the edge's name names it), else the start."""
    ops: dict[str, list] = {}
    recv: dict[str, list] = {}
    ready = {(task_of(dev.device), n.node_name): n.all_start_micros + n.all_end_rel_micros
             for dev in stats.dev_stats for n in dev.node_stats if n.node_name not in TRANSFERS}
    for dev in stats.dev_stats:
        for n in dev.node_stats:
            start, end = n.all_start_micros, n.all_start_micros + max(n.all_end_rel_micros, 0)
            if n.node_name in TRANSFERS:
                ends = _ENDS.search(n.timeline_label)
                if ends is None:
                    continue
                size = _SIZE.search(n.timeline_label)
                nbytes = float(size.group(1)) * _UNIT[size.group(2)] if size else 0.0
                dst, src = (task_of(ends.group(k)) for k in (2, 1))
                edge = _EDGE.search(n.timeline_label)
                sent = min(max(start, ready.get((src, edge.group(1)), start)), end) if edge else start
                recv.setdefault(names.get(dst, dst), []).append((start, end, nbytes, names.get(src, src), sent))
            else:
                waits = "Collective" in n.timeline_label.split("=", 1)[-1].split("(", 1)[0] or \
                    n.node_name.startswith("_Recv") or "= _Recv(" in n.timeline_label
                task = task_of(dev.device)
                ops.setdefault(names.get(task, task), []).append((start, end, waits))
    return ops, recv


def _by_link(recv: Mapping[str, list]) -> dict[tuple[str, str], list]:
    out: dict[tuple[str, str], list] = {}
    for dst, spans in recv.items():
        for start, end, nbytes, src, sent in spans:
            out.setdefault((src, dst), []).append((sent, end, nbytes, start))
    return out


def _union(spans: Iterable[tuple[int, int]]) -> float:
    """Seconds covered by some of ``spans`` (microseconds)."""
    total, reach = 0, None
    for start, end in sorted(spans):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total * 1e-6


def _sweep(task: str, ops: list, recv: list) -> dict:
    """One task's step: span, compute, waiting per link and other, in seconds (see the module's docstring)."""
    events = []
    for start, end, waits in ops:
        kind = ("wait" if waits else "compute", COLLECTIVE)
        events += [(start, 1, kind), (end, -1, kind)]
    for start, end, _, src, _ in recv:
        events += [(start, 1, ("link", src)), (end, -1, ("link", src))]
    if not events:
        return {"span": 0.0, "compute": 0.0, "other": 0.0, "waiting": {}}
    events.sort(key=lambda e: (e[0], e[1]))
    active: dict[tuple, int] = {}
    compute, waiting, last = 0, {}, events[0][0]
    for t, delta, key in events:
        dt = t - last
        if dt > 0:
            if active.get(("compute", COLLECTIVE)):
                compute += dt
            else:
                on = [k[1] for k, c in active.items() if c and k[0] == "link"] or \
                     ([COLLECTIVE] if active.get(("wait", COLLECTIVE)) else [])
                for k in on:
                    waiting[k] = waiting.get(k, 0.0) + dt / len(on)
        active[key] = active.get(key, 0) + delta
        last = t
    span = events[-1][0] - events[0][0]
    wait_total = sum(waiting.values())
    return {"span": span * 1e-6, "compute": compute * 1e-6, "other": (span - compute - wait_total) * 1e-6,
            "waiting": {(k if k == COLLECTIVE else link_name(k, task)): v * 1e-6 for k, v in waiting.items()}}
