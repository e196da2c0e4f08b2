"""The simulator's fidelity harness: pick strategies, profile and predict them, score the agreement, write it out.

Split so that everything except the profiling itself runs without TensorFlow: ``pick_strategies`` (the classic
builders, then random samples of the search space), ``evaluate`` (metrics on all rows, and with a residual fit,
before/after on a held-out split), ``write_outputs`` (table, CSV, JSON, PNG). ``run_validation`` joins them with
a ``profile(strategy) -> (median, p10, p90)`` callable: the real cluster in the CLI, a fake in tests.
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import math
import pathlib
from typing import Any, Callable, Sequence

import numpy as np

from space.errors import AutotuneError, BadInput


@dataclasses.dataclass
class Row:
    """One strategy: what the simulator said and what the cluster did (seconds)."""

    label: str
    strategy_id: str
    predicted_s: float  # with the calibration's residual, if it has one
    raw_s: float  # before any residual
    compute_s: float
    comm_s: float
    latency_s: float
    measured_s: float = math.nan
    p10_s: float = math.nan
    p90_s: float = math.nan
    split: str = "all"  # "train" | "holdout" with --fit-residual
    corrected_s: float = math.nan  # with the residual fitted here
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.measured_s > 0


@dataclasses.dataclass
class Report:
    rows: list[Row]
    metrics: dict[str, float]  # all measured rows, predictions as the calibration gives them
    holdout_before: dict[str, float] | None = None
    holdout_after: dict[str, float] | None = None
    residual: dict[str, float] | None = None


def strategy_key(strategy) -> str:
    """Content hash of a strategy, ignoring its id and provenance (two builders may coincide)."""
    msg = type(strategy.proto)()
    msg.CopyFrom(strategy.proto)
    msg.ClearField("id")
    msg.ClearField("provenance")
    return hashlib.sha256(msg.SerializeToString(deterministic=True)).hexdigest()[:16]


def pick_strategies(inventory, cluster, n: int, seed: int = 0, max_tries: int | None = None) -> list[tuple[str, Any]]:
    """``n`` distinct ``(label, Strategy)``: every classic builder that builds and validates, then random samples."""
    import optuna

    from space import builders
    from space.search_space import SearchSpace
    from space.validate import validate

    if n < 2:
        raise BadInput(f"`--strategies >= 2` must hold, but got {n}", hint="Kendall tau needs at least two points")
    out: dict[str, tuple[str, Any]] = {}
    for alias in builders.aliases():
        if len(out) >= n:
            break
        try:
            s = builders.build_strategy(alias, inventory, cluster)
            validate(s, inventory, cluster, source=f"builder {alias!r}")
        except AutotuneError:
            continue
        out.setdefault(strategy_key(s), (alias, s))
    space = SearchSpace(inventory, cluster)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    tries = 0
    limit = max_tries if max_tries is not None else 50 * n
    while len(out) < n and tries < limit:
        tries += 1
        trial = study.ask()
        s = space.suggest(trial)
        study.tell(trial, 0.0)
        out.setdefault(strategy_key(s), (f"random{trial.number}", s))
    return list(out.values())


def predict_rows(scorer, picked: Sequence[tuple[str, Any]]) -> list[Row]:
    rows = []
    for label, s in picked:
        p = scorer.predict(s)
        rows.append(Row(label=label, strategy_id=s.proto.id, predicted_s=p.step_time_s, raw_s=p.raw_step_time_s,
                        compute_s=p.compute_s, comm_s=p.exposed_comm_s, latency_s=p.latency_s))
    return rows


def split_holdout(n: int, fraction: float, seed: int = 0) -> np.ndarray:
    """Boolean mask of the held-out rows: ``round(fraction * n)`` of them, at least 2, leaving at least 2 to fit."""
    if not 0 < fraction < 1:
        raise BadInput(f"`0 < --holdout < 1` must hold, but got {fraction!r}")
    if n < 4:
        raise BadInput(f"a residual fit with a held-out split needs at least 4 measured strategies, but got {n}",
                       hint="raise --strategies")
    k = min(max(2, round(fraction * n)), n - 2)
    mask = np.zeros(n, bool)
    mask[np.random.default_rng(seed).permutation(n)[:k]] = True
    return mask


def evaluate(rows: list[Row], *, fit: bool = False, holdout: float = 0.3, seed: int = 0) -> Report:
    """Fidelity of the measured rows; with ``fit`` a residual on the train split, scored on the held-out one."""
    from simulator import apply_residual, fidelity, fit_residual

    good = [r for r in rows if r.ok]
    if len(good) < 2:
        raise AutotuneError(f"only {len(good)} strategies were measured; fidelity needs at least 2")
    pred = np.array([r.predicted_s for r in good])
    meas = np.array([r.measured_s for r in good])
    report = Report(rows=rows, metrics=fidelity(pred, meas))
    if not fit:
        return report
    mask = split_holdout(len(good), holdout, seed)
    feats = np.array([[r.compute_s, r.comm_s, r.latency_s] for r in good])
    residual = fit_residual(feats[~mask], meas[~mask])
    corrected = apply_residual(feats, residual)
    for r, held, c in zip(good, mask, corrected):
        r.split, r.corrected_s = ("holdout" if held else "train"), float(c)
    raw = np.array([r.raw_s for r in good])
    report.residual = residual
    report.holdout_before = fidelity(raw[mask], meas[mask])
    report.holdout_after = fidelity(corrected[mask], meas[mask])
    return report


def run_validation(picked, scorer, profile: Callable[[Any], tuple[float, float, float]], *,
                   fit: bool = False, holdout: float = 0.3, seed: int = 0,
                   progress: Callable[[str], None] = lambda _m: None) -> Report:
    """Predict and profile every picked strategy (a failure is recorded on its row), then ``evaluate``."""
    rows = predict_rows(scorer, picked)
    for i, (row, (_label, s)) in enumerate(zip(rows, picked), 1):
        try:
            row.measured_s, row.p10_s, row.p90_s = profile(s)
        except AutotuneError as e:
            row.error = str(e).splitlines()[0][:200]
        state = f"{row.measured_s * 1e3:.1f} ms" if row.ok else f"FAILED: {row.error}"
        progress(f"[{i}/{len(rows)}] {row.label}: predicted {row.predicted_s * 1e3:.1f} ms, measured {state}")
    return evaluate(rows, fit=fit, holdout=holdout, seed=seed)


# ---- output ------------------------------------------------------------------------------------------

def _ms(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{x * 1e3:.2f}"


def format_metrics(m: dict[str, float] | None) -> str:
    if not m:
        return "-"
    return (f"Kendall tau {m['kendall_tau']:.3f}   MAPE {m['mape']:.1%}   top-1 regret {m['top1_regret']:.1%}"
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
    if report.residual is not None:
        lines += [f"held-out, before residual: {format_metrics(report.holdout_before)}",
                  f"held-out, after residual:  {format_metrics(report.holdout_after)}",
                  "residual: " + ", ".join(f"{k} {v:.4g}" for k, v in report.residual.items())]
    return "\n".join(lines)


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
               "holdout_after": report.holdout_after, "residual": report.residual, "title": title}
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
