"""Turn a :class:`Run` into the report: two tables (CSV + markdown) and four PNG figures in one directory."""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import pathlib

import pandas as pd

from autotune.report import _tables, _varmap, figures
from autotune.report._source import Run
from simulator import lower_bound
from space.cluster import load_cluster
from space.model import load_inventory
from space.search_space import SearchSpace

FIGURES = ("step_times.png", "predicted_vs_measured.png", "convergence.png", "strategy_map.png")


@dataclasses.dataclass
class Report:
    """What :func:`write_report` produced: the tables, the files, and warnings worth printing."""

    candidates: pd.DataFrame
    trials: pd.DataFrame
    files: list[pathlib.Path]
    warnings: list[str]
    parts: str = ""  # the predicted-vs-measured parts table (autotune.parts), "" where the search recorded none


def model_context(run: Run, model: str | None = None, spec: str | None = None, cache_dir: str | None = None):
    """``(inventory, cluster spec, warnings)`` of the run's model and cluster; ``None`` for what cannot be had.

    The inventory is the one the search recorded; ``model`` reads it from that model file instead, which imports it
    and so runs its code (an output directory from elsewhere is data, not a program). ``spec`` overrides the spec
    path the search recorded (relative to where it ran).
    """
    warnings = []
    inventory, cluster = run.inventory, None
    spec_path = spec or run.spec_path
    if model:  # asked for: importing a model file runs its code, so a report never does it on its own
        inventory = load_inventory(model, cache_dir=cache_dir)
    elif inventory is None:
        warnings.append("the search recorded no inventory: the variable map has no sizes (pass --model M.PY to "
                        "read them from the model file, which runs its code)")
    if spec_path and pathlib.Path(spec_path).is_file():
        cluster = load_cluster(spec_path)
    elif run.lower_bound_s is None or run.strategy is None:
        warnings.append(f"cluster spec {spec_path or '(not recorded)'} not found (pass --spec CLUSTER.YML)")
    return inventory, cluster, warnings


def complete_from_model(run: Run, inventory, cluster, warnings: list[str]) -> None:
    """A run read from a study lacks the winner's strategy and the lower bound: rebuild them from the model."""
    if inventory is None or cluster is None:
        return
    if run.strategy is None and "winner_params" in run.meta:
        run.strategy = _decode_winner(run, inventory, cluster, warnings)
    if run.lower_bound_s is None:
        run.lower_bound_s = lower_bound(inventory, cluster).step_s
        warnings.append("lower bound from the spec's nominal bandwidths (the study does not record the search's)")


def _decode_winner(run: Run, inventory, cluster, warnings: list[str]):
    """Rebuild the winner from its trial parameters. The study does not record the search space's options, so
    each plausible setting is tried and the one whose strategy hashes to the recorded ``strategy_hash`` wins."""
    params, want = run.meta["winner_params"], run.meta.get("winner_hash")
    options = run.meta.get("space")
    if options:  # searches record their space's options in the study
        try:
            return SearchSpace(inventory, cluster, **options).decode(params)
        except Exception as e:  # noqa: BLE001 - fall back to trying the settings below
            warnings.append(f"the study's recorded space options did not decode the winner ({e})")
    reduced = not all(k.startswith("v") and k.split(".")[0][1:].isdigit() for k in params)
    first, last_error = None, ""
    for allow_async, sparse_ps_only in itertools.product((False, True), (False, True)):
        try:
            space = SearchSpace(inventory, cluster, reduced=reduced, allow_async=allow_async,
                                sparse_ps_only=sparse_ps_only)
            strategy = space.decode(params)
        except Exception as e:  # noqa: BLE001 - another setting may decode; the last error is reported
            last_error = f"{type(e).__name__}: {e}"
            continue
        if want and hashlib.sha256(strategy.to_bytes()).hexdigest()[:16] == want:
            return strategy
        first = first or strategy
    if first is not None:
        warnings.append("the winner's strategy was rebuilt from the study's parameters but its hash differs from "
                        "the recorded one (model or space changed since the search?); the map may not match")
        return first
    warnings.append(f"winner's strategy not rebuilt from the study ({last_error})")
    return None


def write_report(run: Run, out: str | pathlib.Path, inventory=None) -> Report:
    """Write ``candidates.{csv,md}``, ``trials.{csv,md}`` and the four figures of :data:`FIGURES` into ``out``."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    candidates, trials = _tables.candidates_table(run), _tables.trials_table(run)
    files: list[pathlib.Path] = []
    warnings: list[str] = []
    for name, df in (("candidates", candidates), ("trials", trials)):
        df.to_csv(out / f"{name}.csv", index=False)
        (out / f"{name}.md").write_text(_tables.to_markdown(df))
        files += [out / f"{name}.csv", out / f"{name}.md"]
    rounds = run.meta.get("rounds") or []
    if rounds:  # the closed loop's rounds: how well the model that chose each round predicted it
        df = pd.DataFrame([{"round": r.get("round"), "measured": r.get("measured"),
                            "mape": r.get("mape"), "kendall_tau": r.get("kendall_tau"),
                            "chosen": ", ".join(r.get("chosen") or []), "stop": r.get("stop", "")} for r in rounds])
        df.to_csv(out / "rounds.csv", index=False)
        (out / "rounds.md").write_text(_tables.to_markdown(df))
        files += [out / "rounds.csv", out / "rounds.md"]
    families = run.meta.get("families") or []
    if families:  # which synchronizer families the search measured, and why not the others
        df = pd.DataFrame([{k: r.get(k) for k in ("family", "status", "representative", "predicted_ms", "best",
                                                   "measured_ms", "why")} for r in families])
        df.to_csv(out / "families.csv", index=False)
        (out / "families.md").write_text(_tables.to_markdown(df))
        files += [out / "families.csv", out / "families.md"]
    files.append(figures.step_time_figure(run.candidates, out / FIGURES[0], run.lower_bound_s))
    files.append(figures.fidelity_figure(run.candidates, out / FIGURES[1]))
    if len(run.measured) < 2:
        warnings.append(f"{FIGURES[1]}: {len(run.measured)} measured strategies, 2 needed for τ and MAPE")
    note = "(the study keeps builders and candidates only; the output dir has every trial)" \
        if run.meta.get("from_study") else ""
    files.append(figures.convergence_figure(run.trials, out / FIGURES[2], run.lower_bound_s, note))
    if run.strategy is not None:
        title = f"Winner ({run.winner}): per-variable map, largest first"
        files.append(_varmap.strategy_map(run.strategy, out / FIGURES[3], inventory, title=title))
    else:
        warnings.append(f"{FIGURES[3]} not written: the winner's strategy is unknown (no best.pb, or the study's "
                        "model / spec files are missing)")
    parts_text, parts_files = _parts(run, out)
    files += parts_files
    return Report(candidates=candidates, trials=trials, files=files, warnings=warnings, parts=parts_text)


def _parts(run: Run, out: pathlib.Path) -> tuple[str, list[pathlib.Path]]:
    """``parts.{csv,md,png}``: each measured strategy's step by part, predicted beside measured (from its trace
    where ``--trace-top`` traced it), as the search recorded them in ``parts.json``."""
    from autotune import parts
    from runners._trace import TRACES, trace_paths

    source = pathlib.Path(run.source)
    entries = parts.read_parts(source / "parts.json") if source.is_dir() else []
    if not entries:
        return "", []
    rows, drawn = [], []
    for e in entries:
        chrome = trace_paths(source / TRACES, e["strategy_id"])[0]
        trace = parts.trace_of(source / TRACES, e["strategy_id"])
        rows += parts.rows_for(e["label"], e["breakdown"], e["measured_s"], trace)
        if chrome.is_file() and trace is not None:  # the traced steps drawn per task
            try:
                drawn.append(figures.trace_figure(chrome, out / f"trace-{chrome.stem.removesuffix('.trace')}.png",
                                                  f"{e['label']}: traced steps per task"))
            except (ValueError, KeyError, TypeError):  # a cut trace: the table does without its picture
                continue
    df = pd.DataFrame([{"strategy": r.strategy, "part": r.part, "predicted_ms": r.predicted_s * 1e3,
                        "measured_ms": None if r.measured_s is None else r.measured_s * 1e3,
                        "off": r.off, "flagged": r.flagged} for r in rows])
    df.to_csv(out / "parts.csv", index=False)
    (out / "parts.md").write_text(_tables.to_markdown(df))
    figure = parts.parts_figure(rows, out / "parts.png")
    return parts.table(rows), [out / "parts.csv", out / "parts.md", figure, *drawn]
