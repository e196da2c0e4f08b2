"""A fidelity run on disk: the picked strategies (``strategies/<label>.pb``), the rows (``rows.csv``), the summary,
the table and the predicted-vs-measured plot; and reading a run back (``load_measured``) to predict it again."""
from __future__ import annotations

import csv
import dataclasses
import json
import math
import pathlib
from typing import Any, Sequence

from autotune.fidelity._validation import Report, Row
from space.errors import BadInput
from space.strategy import Strategy


def _ms(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{x * 1e3:.2f}"


def format_metrics(m: dict[str, float] | None) -> str:
    if not m:
        return "-"
    top5 = f" (top-5 {m['top5_regret']:.1%})" if m.get("top5_regret") is not None else ""
    return (f"Kendall tau {m['kendall_tau']:.3f}   MAPE {m['mape']:.1%}   top-1 regret {m['top1_regret']:.1%}{top5}"
            f"   (n={int(m['n'])})")


def format_report(report: Report) -> str:
    lines = [f"{'strategy':<22}{'predicted ms':>13}{'measured ms':>13}{'p10-p90 ms':>16}{'error':>9}"
             f"{'corrected ms':>14}  split"]
    for r in sorted(report.rows, key=lambda r: (not r.ok, r.measured_s if r.ok else 0)):
        err = f"{(r.predicted_s - r.measured_s) / r.measured_s:+.0%}" if r.ok else "-"
        spread = f"{_ms(r.p10_s)}-{_ms(r.p90_s)}" if r.ok else (r.error[:40] or "-")
        lines.append(f"{r.label[:21]:<22}{_ms(r.predicted_s):>13}{_ms(r.measured_s):>13}{spread:>16}{err:>9}"
                     f"{_ms(r.corrected_s):>14}  {r.split}")
    lines += ["", f"all strategies:            {format_metrics(report.metrics)}"]
    if report.raw_metrics is not None:
        lines.append(f"  without the residual:    {format_metrics(report.raw_metrics)}")
    if report.since_calibration is not None:
        lines.append(f"  machine since calibrate: {report.since_calibration:.3f}x (the steps it timed, measured "
                     f"again here); divided out: {format_metrics(report.metrics_at_calibration)}")
    if report.anchor_fit:
        lines.append("calibration's anchor steps: " + ", ".join(
            f"{name} {_ms(t)} predicted {_ms(p)} ({p / t - 1:+.0%})" for name, (t, p) in report.anchor_fit.items()))
    if report.noise is not None:
        n = report.noise
        lines.append(f"measurement noise:         Kendall tau {n['kendall_tau']:.3f}   MAPE {n['mape']:.1%}   "
                     f"(one pass against another, {int(n['passes'])} passes: the ceiling of any prediction)")
    if report.residual is not None:
        lines += [f"held-out, before residual: {format_metrics(report.holdout_before)}",
                  f"held-out, after residual:  {format_metrics(report.holdout_after)}",
                  "residual: " + ", ".join(f"{k} {v:.4g}" for k, v in report.residual.items())]
    return "\n".join(lines)


def _file_label(label: str, taken: set[str]) -> str:
    base = "".join(c if c.isalnum() or c in "-_." else "_" for c in label) or "strategy"
    name, i = base, 1
    while name in taken:
        i += 1
        name = f"{base}-{i}"
    taken.add(name)
    return name


def save_strategies(picked: Sequence[tuple[str, Any]], out: pathlib.Path) -> dict[str, str]:
    """Write each picked strategy to ``out/strategies/<label>.pb``; returns label -> file name (relative to out)."""
    folder = out / "strategies"
    folder.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    names = {}
    for label, s in picked:
        name = f"strategies/{_file_label(label, taken)}.pb"
        s.save(out / name)
        names[label] = name
    return names


def load_measured(directory: pathlib.Path) -> tuple[list[tuple[str, Any]], list[Row]]:
    """The strategies and measurements of an earlier run (``rows.csv`` + ``strategies/``) for re-predicting.

    Returns ``(picked, rows)``: rows keep their measurement (or error); predictions are to be filled in anew.
    """
    directory = pathlib.Path(directory)
    csv_path = directory / "rows.csv"
    if not csv_path.is_file():
        raise BadInput(f"no rows.csv in {directory}", hint="pass the -o directory of an earlier validate-simulator run")
    picked, rows = [], []
    with open(csv_path, newline="") as fh:
        for rec in csv.DictReader(fh):
            rel = rec.get("strategy_file") or ""
            path = directory / rel
            if not rel or not path.is_file():
                raise BadInput(f"strategy {rec['label']!r} has no saved strategy file in {directory}",
                               hint="only runs that saved strategies/<label>.pb can be reused; profile again")
            s = Strategy.load(path)
            picked.append((rec["label"], s))
            rows.append(Row(label=rec["label"], strategy_id=rec["strategy_id"], predicted_s=math.nan,
                            raw_s=math.nan, compute_s=math.nan, comm_s=math.nan, latency_s=math.nan,
                            measured_s=float(rec["measured_s"] or "nan"), p10_s=float(rec["p10_s"] or "nan"),
                            p90_s=float(rec["p90_s"] or "nan"), error=rec.get("error") or "", strategy_file=rel,
                            repeat_medians=rec.get("repeat_medians") or ""))
    if not rows:
        raise BadInput(f"rows.csv in {directory} has no rows")
    return picked, rows


def recorded_seed(directory: pathlib.Path) -> int | None:
    """The seed an earlier run saved in ``directory`` drew its strategies and its train/held-out split with, as its
    journal's first line records it (``measurements.jsonl``); None where there is no journal or it names none."""
    try:
        with open(pathlib.Path(directory) / "measurements.jsonl") as fh:
            header = json.loads(fh.readline())
    except (OSError, json.JSONDecodeError):
        return None
    seed = header.get("seed") if isinstance(header, dict) else None
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


def write_outputs(report: Report, out: pathlib.Path, title: str = "") -> list[pathlib.Path]:
    """``rows.csv``, ``summary.json``, ``table.txt`` and ``predicted_vs_measured.png`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    fields = [f.name for f in dataclasses.fields(Row)]
    with open(out / "rows.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=fields)
        w.writeheader()
        for r in report.rows:
            w.writerow(dataclasses.asdict(r))
    summary = {"metrics": report.metrics, "holdout_before": report.holdout_before,
               "holdout_after": report.holdout_after, "residual": report.residual, "noise": report.noise,
               "raw_metrics": report.raw_metrics, "since_calibration": report.since_calibration,
               "metrics_at_calibration": report.metrics_at_calibration,
               "anchor_fit": {k: list(v) for k, v in report.anchor_fit.items()} if report.anchor_fit else None,
               "title": title}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "table.txt").write_text(format_report(report) + "\n")
    written = [out / "rows.csv", out / "summary.json", out / "table.txt"]
    good = [r for r in report.rows if r.ok]
    if len(good) >= 2:
        from autotune.report.figures import predicted_vs_measured

        m = report.metrics
        extra = f"{title + ': ' if title else ''}Kendall τ {m['kendall_tau']:.2f}, MAPE {m['mape']:.0%}"
        written.append(predicted_vs_measured([r.predicted_s for r in good], [r.measured_s for r in good],
                                             [r.label for r in good], out / "predicted_vs_measured.png", extra))
    return written
