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
"""
from __future__ import annotations

import dataclasses
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

    @property
    def key(self) -> str:
        return link_name(self.src, self.dst)


@dataclasses.dataclass(frozen=True)
class TraceSummary:
    """The traced steps summed up: per task (``tasks``) and per link (``links``, busiest first)."""

    steps: int
    step_s: float  # the driver's mean seconds per traced call
    tasks: tuple[TaskTime, ...]
    links: tuple[LinkTime, ...]

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
        lines.append(f"{'link':65} {'busy ms':>9} {'MB':>9}")
        lines += [f"{link.key:65} {ms(link.busy_s)} {link.bytes / 1e6:9.3f}" for link in self.links]
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
    import json

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
    """The mean of each traced step (``StepStats`` each, the driver's ``walls_s`` seconds for them) per task and per
    link; ``names`` renames the tasks (``/job:worker/replica:0/task:1`` -> its node's address)."""
    tasks: dict[str, dict] = {}
    links: dict[tuple[str, str], list[float]] = {}
    for stats in steps:
        ops, recv = _intervals(stats, names or {})
        for task in sorted(set(ops) | set(recv)):
            part = _sweep(task, ops.get(task, []), recv.get(task, []))
            acc = tasks.setdefault(task, {"span": 0.0, "compute": 0.0, "other": 0.0, "waiting": {}})
            for k in ("span", "compute", "other"):
                acc[k] += part[k]
            for k, v in part["waiting"].items():
                acc["waiting"][k] = acc["waiting"].get(k, 0.0) + v
        for (src, dst), spans in _by_link(recv).items():
            acc = links.setdefault((src, dst), [0.0, 0.0])
            acc[0] += _union(s[:2] for s in spans)
            acc[1] += sum(s[2] for s in spans)
    n = max(len(steps), 1)
    task_times = tuple(TaskTime(t, a["span"] / n, a["compute"] / n, {k: v / n for k, v in sorted(a["waiting"].items())},
                                a["other"] / n) for t, a in sorted(tasks.items()))
    link_times = sorted((LinkTime(s, d, b / n, nb / n) for (s, d), (b, nb) in links.items()),
                        key=lambda x: (-x.busy_s, x.src, x.dst))
    return TraceSummary(steps=len(steps), step_s=sum(walls_s) / max(len(walls_s), 1), tasks=task_times,
                        links=tuple(link_times))


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
        for _, end, nbytes, src, sent in spans:
            out.setdefault((src, dst), []).append((sent, end, nbytes))
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
