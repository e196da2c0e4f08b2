"""The output directory of a search: best.pb (+ .pbtxt), trials.csv, summary.json, plots, the train command."""
from __future__ import annotations

import csv
import datetime
import json
import math
import pathlib
import re
import shlex

from autotune.tuner._families import lines as family_lines
from autotune.tuner._loop import round_lines
from autotune.tuner._measurement import confidence
from space import __version__
from space import format_table
from space.strategy import Strategy


def _ms(x) -> str:
    return f"{x * 1e3:.2f}" if x and math.isfinite(x) else "-"


def summary_rows(result) -> list[dict]:
    """Builders and profiled candidates with predicted / measured times, speedup and distance to the bound.

    ``measured_ms`` pools every run of a candidate; ``head_to_head_ms`` is its median in the confirmation, where
    the confirmed candidates took turns, and that column decides the winner among them. Where a candidate failed,
    its ``measured_ms`` says so and an ``error`` column says why; where a builder does not fit a node's memory, its
    ``measured_ms`` reads ``does not fit`` and a ``memory`` column says where."""
    measured_builders = [c.measured.median_s for c in result.candidates if c.builders and c.measured]
    best_builder = min(measured_builders) if measured_builders else None
    any_failed = any(c.error for c in result.candidates)
    any_misfit = any(not math.isfinite(c.predicted_s) for c in result.candidates)
    rows = []
    for c in sorted(result.candidates, key=lambda c: (c.measured.median_s if c.measured else float("inf"),
                                                       c.predicted_s)):
        m = c.measured.median_s if c.measured else None
        ref = m if m is not None else c.predicted_s
        rows.append({"strategy": c.label + (" *" if c is result.winner else ""),
                     "family": c.family, "lossy": "lossy" if c.lossy else "-",
                     "predicted_ms": _ms(c.predicted_s), "measured_ms": _ms(m),
                     "p10-p90_ms": f"{_ms(c.measured.p10_s)}-{_ms(c.measured.p90_s)}" if c.measured else "-",
                     "head_to_head_ms": _ms(c.measured.head_to_head_s) if c.measured else "-",
                     "speedup_vs_best_builder": f"{best_builder / m:.2f}x" if m and best_builder else "-",
                     "x_lower_bound": f"{ref / result.lower_bound_s:.2f}" if result.lower_bound_s else "-"})
        if any_failed:
            rows[-1]["measured_ms"] = "failed" if c.error else rows[-1]["measured_ms"]
            rows[-1]["error"] = c.error or "-"
        if any_misfit:  # pruned before scoring: predicted nothing, never profiled
            misfit = not math.isfinite(c.predicted_s)
            rows[-1]["measured_ms"] = "does not fit" if misfit else rows[-1]["measured_ms"]
            rows[-1]["memory"] = c.skipped if misfit else "-"
    return rows


def profiling_split(result) -> list[dict]:
    """Each profiled candidate's first run, its wall time by phase (``runners.profile.PhaseClock.split``)."""
    return [{"strategy": c.label, **c.measured.phases_s} for c in result.candidates
            if c.measured is not None and c.measured.phases_s]


def winner_line(result) -> str:
    """The winner (marked when it compresses gradients), how far from the lower bound, and the best builder: the
    best measured one where builders were measured, else the best predicted (a search without a cluster)."""
    w, bound = result.winner, result.lower_bound_s
    times = f"measured {_ms(w.measured.median_s)} ms, predicted {_ms(w.predicted_s)} ms" if w.measured \
        else f"predicted {_ms(w.predicted_s)} ms"
    ref = w.measured.median_s if w.measured else w.predicted_s
    line = f"winner: {w.label}" + (" (lossy: it compresses gradients; --lossless keeps the search exact)"
                                   if w.lossy else "")
    line += f", {times}" + (f" ({ref / bound:.2f} x the lower bound)" if bound else "")
    measured = [c for c in result.candidates if c.builders and c.measured]
    built = [c for c in result.candidates if c.builders]
    if measured:
        b = min(measured, key=lambda c: c.measured.median_s)
        line += f"; best builder measured: {b.label}{' (lossy)' if b.lossy else ''}, {_ms(b.measured.median_s)} ms"
    elif built:
        b = min(built, key=lambda c: c.predicted_s)
        line += f"; best builder predicted: {b.label}{' (lossy)' if b.lossy else ''}, {_ms(b.predicted_s)} ms"
    return line


def strategy_file(c, result, cfg):
    """``c``'s strategy with its provenance: what was predicted and measured, at which steps per call."""
    s = Strategy.from_bytes(c.strategy.to_bytes())  # a copy: the candidate keeps its hash (the study's key)
    prov = s.proto.provenance
    prov.builder = "search" if not c.builders else c.builders[0]
    prov.model_fingerprint = result.inventory.fingerprint
    prov.cluster_fingerprint = result.cluster.fingerprint
    prov.tool_version = __version__
    prov.model_path = str(cfg.model)
    prov.predicted_step_time_s = c.predicted_s
    prov.measured_step_time_s = c.measured.median_s if c.measured else 0.0
    prov.steps_per_call = c.measured.steps_per_call if c.measured else 0  # training runs it as it was measured
    prov.lower_bound_s = result.lower_bound_s
    prov.created_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return s


def _dashboard_notes(result, say) -> None:
    """Each carried-out candidate's strategy map and times as optuna-dashboard notes on its trials, and the
    winner and the table as the study's note, where optuna-dashboard is installed (``autotune dashboard``)."""
    try:
        import optuna_dashboard  # noqa: F401 - the notes are its format
    except ImportError:
        return
    import optuna

    from autotune.dashboard import annotate, study_note, trial_parts

    try:
        study = optuna.load_study(study_name=result.study_name, storage=result.storage)
        annotate(study, result.candidates, result.inventory, breakdowns=trial_parts(result.output, result.candidates),
                 summary=study_note(winner_line(result), summary_rows(result)))
    except Exception as e:  # noqa: BLE001 - a note must never lose the search's results
        say(f"warning: dashboard notes not written: {type(e).__name__}: {e}")


def _write_measured(result, cfg, out) -> list[dict]:
    """Every measured candidate, fastest first, to train or compare later (the winner is best.pb); returns
    summary.json's ``measured``: each file with its candidate's label."""
    measured = sorted((c for c in result.candidates if c.measured), key=lambda c: c.measured.median_s)
    files = []  # summary.json's ``measured``: each file with its candidate's label
    if measured:
        (out / "measured").mkdir(exist_ok=True)
        for old in (out / "measured").glob("*.pb"):
            old.unlink()
        for rank, c in enumerate(measured, 1):
            name = f"measured/{rank:02d}-{re.sub(r'[^A-Za-z0-9_.+-]', '_', c.label)}.pb"
            strategy_file(c, result, cfg).save(out / name)
            files.append({"strategy": c.label, "file": name})
    return files


def _write_trials(result, sim, out) -> None:
    """trials.csv: every simulated trial, with the measured step of those profiled."""
    profiled = {c.trial: c for c in result.candidates if c.measured}
    with open(out / "trials.csv.tmp", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["trial", "state", "builders", "predicted_s", "measured_s", "wire_mb", "finished_at"])
        for r in sim.records:
            c = profiled.get(r["number"])
            writer.writerow([r["number"], r["state"], "+".join(r.get("builders") or []), f"{r['predicted_s']:.6g}",
                             f"{c.measured.median_s:.6g}" if c else "", f"{r.get('wire_mb', 0.0):.4g}", r.get("t", "")])
    (out / "trials.csv.tmp").replace(out / "trials.csv")


def write_outputs(result, cfg, sim, say, show=print) -> None:
    """Write the output directory; ``show`` gets the result's table and lines (default stdout), ``say`` notes."""
    out = result.output
    w = result.winner
    best = strategy_file(w, result, cfg)
    best.save(out / "best.pb")
    best.save(out / "best.pbtxt")
    files = _write_measured(result, cfg, out)
    (out / "inventory.json").write_text(result.inventory.to_json())  # a report reads it instead of the model

    _write_trials(result, sim, out)

    rows = summary_rows(result)
    train = (f"autotune train --model {shlex.quote(str(cfg.model))} --spec {shlex.quote(str(cfg.spec))} "
             f"--strategy {shlex.quote(str(out / 'best.pb'))} --steps 1000 "
             f"--checkpoint {shlex.quote(str(out / 'ckpt'))}")
    summary = {"winner": w.label, "winner_family": w.family, "winner_lossy": w.lossy,
               "winner_predicted_s": w.predicted_s,
               "winner_measured_s": w.measured.median_s if w.measured else None,
               "lower_bound_s": result.lower_bound_s, "simulated_trials": result.simulated, "pruned": result.pruned,
               "profiling_runs": result.profiled, "calibrated": result.calibrated, "wall_s": round(result.wall_s, 2),
               "interrupted": result.interrupted, "kept_builder": result.kept_builder,
               "failed": [{"strategy": c.label, "error": c.error} for c in result.candidates if c.error],
               "space": {k: v for k, v in sim.space.describe().items() if k in ("mode", "param_names")},
               "study_name": result.study_name, "storage": result.storage, "seed": cfg.seed,
               "model": str(cfg.model), "spec": str(cfg.spec), "train_command": train, "rows": rows,
               "rounds": result.rounds, "families": result.families, "timing": result.timing,
               "budget": result.budget, "measured": files, "profiling_split": profiling_split(result),
               "confidence": confidence([c for c in result.candidates if c.measured], w, cfg.run_noise)
               if w.measured else None,
               "from_calibration": [c.label for c in result.candidates if c.measured and c.measured.source]}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    try:
        from autotune.report import figures

        figures.search_figures(out)
    except Exception as e:  # a plot must never lose the search's results
        say(f"warning: plots not written: {type(e).__name__}: {e}")
    _dashboard_notes(result, say)

    say("")
    show(format_table(rows))
    show(f"\nlower bound {_ms(result.lower_bound_s)} ms; {result.simulated} simulated trials "
          f"({result.pruned} pruned), "
          f"{result.profiled} profiling runs, {result.wall_s:.0f} s"
          + ("" if result.calibrated else "; uncalibrated cost model")
          + (" (interrupted)" if result.interrupted else ""))
    for line in round_lines(result.rounds) + family_lines(result.families):
        show(line)
    if result.budget:
        b = result.budget
        show(f"time budget {b['budget_s']:.0f} s, {b['used_s']:.0f} s used" + ("" if b["cut"] else "; nothing cut"))
        for line in b["cut"]:
            show(f"  cut: {line}")
    show(winner_line(result))
    if w.measured:
        show(summary["confidence"])
    show(f"wrote {out / 'best.pb'} ({w.label}); study {result.study_name!r} in {result.storage}")
    show(f"train with it:\n  {train}")


def write_measured_parts(out: pathlib.Path, candidates, scorer) -> None:
    """``parts.json``: every measured candidate's predicted step by part (``Scorer.breakdown``) beside its measured
    step, which ``autotune report`` draws next to the trace's parts where ``--trace-top`` traced it."""
    from autotune import parts

    entries = [{"label": c.label, "strategy_id": c.strategy.proto.id, "measured_s": c.measured.median_s,
                "breakdown": parts.breakdown_to_dict(scorer.breakdown(c.strategy))}
               for c in candidates if c.measured]
    if entries:
        parts.write_parts(out / "parts.json", entries)
