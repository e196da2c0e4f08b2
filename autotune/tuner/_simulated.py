"""Stage 1: thousands of trials scored by the cost model on an in-memory Optuna study, journaled as they finish."""
from __future__ import annotations

import dataclasses
import time
from typing import Any

import optuna

from autotune._signals import deferred_interrupts
from autotune.tuner import _study
from autotune.tuner._types import Candidate
from space.validate import validate

PRUNED, COMPLETE = "pruned", "complete"


@dataclasses.dataclass
class SimulatedStage:
    space: Any
    records: list[dict[str, Any]]
    finished: int
    pruned: int
    wall_s: float
    interrupted: bool

    @property
    def best_s(self) -> float:
        done = [r["predicted_s"] for r in self.records if r["state"] == COMPLETE]
        return min(done) if done else float("nan")

    def _candidate(self, r: dict[str, Any]) -> Candidate:
        return Candidate(params=r["params"], strategy=self.space.decode(r["params"]), predicted_s=r["predicted_s"],
                         builders=list(r.get("builders") or []), trial=r["number"])

    def candidates(self, limit: int | None = None) -> list:
        """Completed trials, best predicted first, one per distinct parameter set (the first ``limit``: only those
        are decoded)."""
        seen, out = set(), []
        for r in sorted((r for r in self.records if r["state"] == COMPLETE), key=lambda r: r["predicted_s"]):
            key = repr(sorted(r["params"].items()))
            if key not in seen:
                seen.add(key)
                out.append(r)
            if limit is not None and len(out) >= limit:
                break
        return [self._candidate(r) for r in out]

    def builder_candidates(self) -> list:
        return [self._candidate(r) for r in self.records if r.get("builders")]

    def wire_mb(self, candidate) -> float:
        return next((r.get("wire_mb", 0.0) for r in self.records if r["number"] == candidate.trial), 0.0)


def _frozen(r: dict[str, Any], dists: dict, multi: bool) -> optuna.trial.FrozenTrial:
    state = optuna.trial.TrialState.COMPLETE if r["state"] == COMPLETE else optuna.trial.TrialState.PRUNED
    values = None
    if state == optuna.trial.TrialState.COMPLETE:
        values = [r["predicted_s"], r.get("wire_mb", 0.0)] if multi else [r["predicted_s"]]
    attrs = {"predicted_s": r["predicted_s"], "builders": r.get("builders") or []}
    return optuna.trial.create_trial(state=state, values=values, params=r["params"],
                                     distributions={k: dists[k] for k in r["params"]}, user_attrs=attrs,
                                     system_attrs={"autotune_history": True})


def simulate(space, scorer, dists, journal, cfg, *, multi: bool, progress, round_size: int = 250,
             history: int = 100) -> SimulatedStage:
    """Run the simulated stage to ``cfg.trials`` finished trials (counting resumed ones) or the time budget.

    TPE's cost per trial grows with the trials it has seen (~0.5 s/trial after a few hundred trials with ~100
    parameters on this machine), so the stage runs in rounds of ``round_size`` trials on a fresh in-memory study
    that starts from the ``history`` best trials so far and the builders: the cost per trial stays bounded and
    the sampler still models where the good region is.
    """
    records: list[dict[str, Any]] = []
    if cfg.resume:
        records = [r for r in journal.records() if {"params", "state", "predicted_s"} <= set(r)]
    best = min((r["predicted_s"] for r in records if r["state"] == COMPLETE), default=float("inf"))
    state = {"best": best, "pruned": sum(r["state"] == PRUNED for r in records)}

    def objective(trial: optuna.Trial):
        held.check()  # a safe point: Optuna records this trial as failed and lets the interrupt through
        strategy = space.suggest(trial)
        validate(strategy, space.inventory, space.cluster, source=f"trial {trial.number}")
        pred = scorer.predict(strategy)
        t = pred.step_time_s
        trial.set_user_attr("predicted_s", t)
        trial.set_user_attr("wire_mb", pred.wire_bytes / 1e6)
        builders = trial.user_attrs.get("builders") or []
        if not builders and t > cfg.prune_ratio * state["best"]:
            raise optuna.TrialPruned(f"predicted {t * 1e3:.2f} ms > {cfg.prune_ratio} x best")
        return (t, pred.wire_bytes / 1e6) if multi else t

    def finished(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        if trial.state not in (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED):
            return
        if trial.system_attrs.get("autotune_history"):
            return
        r = {"number": len(records), "state": COMPLETE if trial.state == optuna.trial.TrialState.COMPLETE else PRUNED,
             "params": trial.params, "predicted_s": trial.user_attrs["predicted_s"],
             "wire_mb": trial.user_attrs.get("wire_mb", 0.0), "builders": trial.user_attrs.get("builders") or [],
             "t": round(time.time(), 3)}
        records.append(r)
        journal.append(r)
        if r["state"] == PRUNED:
            state["pruned"] += 1
        else:
            state["best"] = min(state["best"], r["predicted_s"])
        progress.update(best=f"{state['best'] * 1e3:.2f}ms", pruned=str(state["pruned"]))

    started = time.monotonic()
    interrupted = False
    progress.start(max(0, cfg.trials - len(records)), "simulated")
    try:
        with deferred_interrupts() as held:
            for round_index in range(10**6):
                held.check()
                remaining = cfg.trials - len(records)
                left_s = None if cfg.time_budget_s is None else cfg.time_budget_s - (time.monotonic() - started)
                if remaining <= 0 or (left_s is not None and left_s <= 0):
                    break
                seed = None if cfg.seed is None else cfg.seed + round_index
                study = optuna.create_study(directions=["minimize", "minimize"] if multi else ["minimize"],
                                            sampler=_study.make_sampler(cfg.sampler, seed))
                done = sorted((r for r in records if r["state"] == COMPLETE), key=lambda r: r["predicted_s"])
                keep = done[:history] + [r for r in done[history:] if r.get("builders")]
                study.add_trials([_frozen(r, dists, multi) for r in keep])
                if not any(r.get("builders") for r in records):
                    space.enqueue_builders(study)
                study.optimize(objective, n_trials=min(round_size, remaining), timeout=left_s, callbacks=[finished])
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.close()
        journal.close()
    return SimulatedStage(space=space, records=records, finished=len(records), pruned=state["pruned"],
                          wall_s=time.monotonic() - started, interrupted=interrupted)
