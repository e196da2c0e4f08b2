"""Where a report's numbers come from: a search's output directory, or its Optuna study.

Both load into one :class:`Run`, so tables and figures never care which it was. The directory holds every
simulated trial (``trials.csv``); the study holds only the builders and the carried-out candidates (with
p10/p90 of their measurements), so a report from a study shows fewer trials.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import re
from typing import Any

import pandas as pd

from autotune.tuner._record import FAILED, MEASURED, SIMULATED, StudyKeys, TrialRecord, winner_trial
from space.errors import BadInput
from space.inventory import Inventory
from space.strategy import Strategy

TRIAL_COLUMNS = ["trial", "state", "builders", "predicted_s", "measured_s", "wire_mb", "finished_at"]
CANDIDATE_COLUMNS = ["label", "trial", "is_builder", "winner", "predicted_s", "measured_s", "p10_s", "p90_s",
                     "examples_per_s", "error", "family", "lossy"]


@dataclasses.dataclass
class Run:
    """One search as a report sees it.

    ``trials``: one row per simulated trial (:data:`TRIAL_COLUMNS`, times in seconds, ``builders`` "" for a
    sampled trial). ``candidates``: the builders and the strategies carried out of the simulated stage
    (:data:`CANDIDATE_COLUMNS`), exactly one with ``winner`` True.
    """

    source: str
    trials: pd.DataFrame
    candidates: pd.DataFrame
    lower_bound_s: float | None
    model_path: str | None
    spec_path: str | None
    strategy: Any = None  # the winner's space.strategy.Strategy, when it could be had
    meta: dict = dataclasses.field(default_factory=dict)
    inventory: Any = None  # the model's space.inventory.Inventory as the search recorded it, when it did

    @property
    def winner(self) -> str:
        return str(self.candidates.loc[self.candidates["winner"], "label"].iloc[0])

    @property
    def measured(self) -> pd.DataFrame:
        return self.candidates[self.candidates["measured_s"].notna()]


# ---- output directory ------------------------------------------------------------------------------------

def load_output_dir(path: str | pathlib.Path) -> Run:
    """Read ``summary.json``, ``trials.csv`` and ``best.pb`` of ``autotune search -o DIR``."""
    out = pathlib.Path(path)
    hint = "pass the -o DIR of `autotune search`, or --storage URL --study NAME"
    if not out.is_dir():
        raise BadInput("no such directory", str(out), hint=hint)
    missing = [f for f in ("summary.json", "trials.csv") if not (out / f).is_file()]
    if missing:
        raise BadInput(f"not a search output directory (no {' or '.join(missing)})", str(out), hint=hint)
    try:
        summary = json.loads((out / "summary.json").read_text())
        trials = pd.read_csv(out / "trials.csv", dtype={"builders": str, "state": str})
    except (ValueError, pd.errors.ParserError) as e:
        raise BadInput(f"unreadable search output ({type(e).__name__}: {str(e).splitlines()[0]})", str(out),
                       hint="rerun the search; the files were cut or edited") from None
    if not isinstance(summary, dict) or "rows" not in summary or set(TRIAL_COLUMNS) - set(trials.columns):
        raise BadInput("not a search output directory (summary.json or trials.csv lacks the search's fields)",
                       str(out), hint=hint)
    trials = _clean_trials(trials)
    candidates = _candidates_from_rows(summary["rows"], trials)
    strategy = None
    if (out / "best.pb").is_file():
        strategy = Strategy.load(out / "best.pb")
    inventory = None
    if (out / "inventory.json").is_file():  # what the search recorded: reading it runs none of the model's code
        try:
            inventory = Inventory.from_json((out / "inventory.json").read_text())
        except (ValueError, KeyError, TypeError):
            inventory = None
    return Run(source=str(out), trials=trials, candidates=candidates, lower_bound_s=summary.get("lower_bound_s"),
               model_path=summary.get("model"), spec_path=summary.get("spec"), strategy=strategy, meta=summary,
               inventory=inventory)


def _clean_trials(trials: pd.DataFrame) -> pd.DataFrame:
    trials = trials[TRIAL_COLUMNS].copy()
    trials["builders"] = trials["builders"].fillna("")
    for col in ("predicted_s", "measured_s", "wire_mb", "finished_at"):
        trials[col] = pd.to_numeric(trials[col], errors="coerce")
    return trials.sort_values("trial").reset_index(drop=True)


def _ms_cell(text: Any) -> float:
    try:
        return float(text) / 1e3
    except (TypeError, ValueError):
        return float("nan")


def _candidates_from_rows(rows: list[dict], trials: pd.DataFrame) -> pd.DataFrame:
    """The summary table's rows, with full-precision times from trials.csv where the trial is known."""
    by_builders = {b: t for t, b in zip(trials["trial"], trials["builders"]) if b}
    indexed = trials.set_index("trial")
    records = []
    for r in rows:
        label = str(r["strategy"])
        winner = label.endswith(" *")
        label = label.removesuffix(" *")
        m = re.fullmatch(r"trial (\d+)", label)
        trial = int(m.group(1)) if m else by_builders.get(label)
        p10, _, p90 = str(r.get("p10-p90_ms", "-")).partition("-")
        rec = {"label": label, "trial": trial, "is_builder": m is None, "winner": winner,
               "predicted_s": _ms_cell(r.get("predicted_ms")), "measured_s": _ms_cell(r.get("measured_ms")),
               "p10_s": _ms_cell(p10), "p90_s": _ms_cell(p90), "examples_per_s": float("nan"),
               "error": r.get("error") if r.get("error") not in (None, "-") else "",
               "family": r.get("family", ""), "lossy": r.get("lossy") == "lossy"}
        if trial is not None and trial in indexed.index:
            row = indexed.loc[trial]
            rec["predicted_s"] = float(row["predicted_s"])
            if pd.notna(row["measured_s"]):
                rec["measured_s"] = float(row["measured_s"])
        records.append(rec)
    return _finish_candidates(records)


def _finish_candidates(records: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame.from_records(records, columns=CANDIDATE_COLUMNS)
    if df.empty:
        raise BadInput("the search recorded no strategies", hint="rerun the search with more --trials")
    df["trial"] = df["trial"].astype("Int64")
    if not df["winner"].any():  # the search's rule: best measured, else best predicted
        key = df["measured_s"] if df["measured_s"].notna().any() else df["predicted_s"]
        df.loc[key.idxmin(), "winner"] = True
    return df


# ---- Optuna study --------------------------------------------------------------------------------------

def load_from_study(storage: str, name: str) -> Run:
    """Read the persistent study of a search (any storage URL Optuna takes)."""
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        study = optuna.load_study(study_name=name, storage=storage)
    except KeyError:
        names = _study_names(storage)
        raise BadInput(f"no study {name!r} in this storage", storage,
                       hint=f"studies here: {', '.join(names) or 'none'}") from None
    except Exception as e:  # SQLAlchemy: bad URL, unreachable database, not an Optuna schema
        raise BadInput(f"cannot open storage: {type(e).__name__}: {str(e).splitlines()[0]}", storage,
                       hint="give a SQLAlchemy URL such as sqlite:///DIR/study.db") from None
    recs = {t.number: TrialRecord.of(t) for t in study.trials}
    kept = [t for t in study.trials if recs[t.number].stage in (SIMULATED, *MEASURED)]
    errors = {recs[t.number].number(t): recs[t.number].error or "" for t in study.trials
              if recs[t.number].stage == FAILED}
    if not kept:
        raise BadInput(f"study {name!r} has no trials of an autotune search", storage,
                       hint="report on the study `autotune search` wrote (see its summary.json)")
    simulated = {recs[t.number].number(t): t for t in kept if recs[t.number].stage == SIMULATED}
    profiled = {}  # per trial, the measurement that pooled the most runs (a confirmation supersedes its first run)
    for t in kept:
        r = recs[t.number]
        num = r.number(t)
        if r.stage != SIMULATED and (num not in profiled or r.pooled_runs > recs[profiled[num].number].pooled_runs):
            profiled[num] = t
    chosen = winner_trial(study.user_attrs)
    trial_rows, records = _study_rows(simulated, profiled, recs, errors, chosen)
    trials = _clean_trials(pd.DataFrame(trial_rows, columns=TRIAL_COLUMNS))
    candidates = _finish_candidates(records)
    attrs = dict(study.user_attrs)
    inventory = None
    if isinstance(attrs.get(StudyKeys.INVENTORY), dict):
        try:
            inventory = Inventory.from_dict(attrs.pop(StudyKeys.INVENTORY))
        except (ValueError, KeyError, TypeError):
            inventory = None
    run = Run(source=f"study {name!r} in {storage}", trials=trials, candidates=candidates,
              lower_bound_s=attrs.get(StudyKeys.LOWER_BOUND),
              model_path=attrs.get(StudyKeys.MODEL_PATH), spec_path=attrs.get(StudyKeys.SPEC_PATH),
              meta={"study_name": name, "storage": storage, "from_study": True, **attrs}, inventory=inventory)
    win = candidates.loc[candidates["winner"]].iloc[0]
    won = simulated.get(int(win["trial"])) or profiled[int(win["trial"])]
    run.meta["winner_params"], run.meta["winner_hash"] = won.params, recs[won.number].strategy_hash
    _sibling_summary(run, storage, name)
    return run


def _study_rows(simulated: dict, profiled: dict, recs: dict, errors: dict, chosen) -> tuple[list, list]:
    """(the trials' rows, the candidates' rows) of a study's simulated and profiled records, per simulated trial."""
    trial_rows, records = [], []
    for num in sorted(set(simulated) | set(profiled)):
        t = simulated.get(num) or profiled[num]
        p = profiled.get(num)
        a, pa = recs[t.number], (recs[p.number] if p else TrialRecord())
        builders = list(a.builders or [])
        measured = _nan(pa.measured_s)
        trial_rows.append({"trial": num, "state": "complete", "builders": "+".join(builders),
                           "predicted_s": _nan(a.predicted_s), "measured_s": measured,
                           "wire_mb": t.values[1] if t.values and len(t.values) > 1 else float("nan"),
                           "finished_at": t.datetime_complete.timestamp() if t.datetime_complete else float("nan")})
        records.append({"label": "+".join(builders) or f"trial {num}", "trial": num, "is_builder": bool(builders),
                        "winner": num == chosen, "predicted_s": _nan(a.predicted_s), "measured_s": measured,
                        "p10_s": _nan(pa.p10_s), "p90_s": _nan(pa.p90_s), "examples_per_s": _nan(pa.examples_per_s),
                        "error": "" if p else errors.get(num, ""), "family": a.family or "",
                        "lossy": bool(a.lossy)})
    return trial_rows, records


def _nan(value) -> float:
    return float("nan") if value is None else value


def _study_names(storage: str) -> list[str]:
    import optuna

    try:
        return sorted(s.study_name for s in optuna.get_all_study_summaries(storage, include_best_trial=False))
    except Exception:  # the storage itself is the problem; the caller's message says so
        return []


def _sibling_summary(run: Run, storage: str, name: str) -> None:
    """A study in ``DIR/study.db`` next to its ``summary.json``: take the search's lower bound from there."""
    if not storage.startswith("sqlite:///"):
        return
    summary = pathlib.Path(storage.removeprefix("sqlite:///")).parent / "summary.json"
    try:
        data = json.loads(summary.read_text())
    except (OSError, ValueError):
        return
    if data.get("study_name") == name:
        run.lower_bound_s = data.get("lower_bound_s")
