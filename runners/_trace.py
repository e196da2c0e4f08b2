"""Trace a few steps of a running job on every task and write them down: one Chrome-trace JSON per strategy
(TensorFlow's own timeline of every task's ops and transfers) and its summary (:mod:`runners._step_stats`)."""
from __future__ import annotations

import json
import pathlib
import re

from runners._step_stats import TraceSummary, chrome_trace, merged, summarize

TRACES = "traces"  # the folder of an output directory (a search's, validate-simulator's) holding its traces
TRACE_STEPS = 3  # traced calls per strategy: enough to see a step's shape, few enough to cost little
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def trace_paths(trace_dir: str | pathlib.Path, strategy_id: str) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """(Chrome trace, summary JSON, summary table) of ``strategy_id`` under ``trace_dir``; the id is made safe for a
    file name."""
    stem = _UNSAFE.sub("_", strategy_id).strip("._") or "strategy"
    base = pathlib.Path(trace_dir)
    return base / f"{stem}.trace.json", base / f"{stem}.summary.json", base / f"{stem}.summary.txt"


def task_names(cluster) -> dict[str, str]:
    """Each task's name in a trace -> its node's address."""
    from runners.cluster import JOB

    return {f"/job:{JOB}/replica:0/task:{k}": n.address for k, n in enumerate(cluster.spec.nodes)}


def trace_job(job, trace_dir: str | pathlib.Path, strategy_id: str, steps: int = TRACE_STEPS) -> TraceSummary:
    """Trace ``steps`` calls of ``job`` (a warm :class:`runners.transform.TrainingJob`) and write its trace and
    summary under ``trace_dir`` (:func:`trace_paths`); returns the summary."""
    stats, seconds = job.run_traced(steps)
    summary = summarize(stats, seconds, task_names(job.cluster))
    trace, summary_json, table = trace_paths(trace_dir, strategy_id)
    trace.parent.mkdir(parents=True, exist_ok=True)
    trace.write_text(chrome_trace(merged(stats)))
    summary_json.write_text(json.dumps({"strategy_id": strategy_id, **summary.to_dict()}, indent=1))
    table.write_text(summary.table() + "\n")
    return summary


def load_summary(path: str | pathlib.Path) -> TraceSummary:
    """A summary :func:`trace_job` wrote (its ``.summary.json``)."""
    from runners._step_stats import LinkTime, StepParts, TaskTime

    d = json.loads(pathlib.Path(path).read_text())
    step = StepParts(**d["step"]) if d.get("step") else None
    return TraceSummary(steps=int(d["steps"]), step_s=float(d["step_s"]),
                        tasks=tuple(TaskTime(**t) for t in d["tasks"]), links=tuple(LinkTime(**x) for x in d["links"]),
                        step=step)
