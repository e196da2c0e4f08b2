"""Stage 1: thousands of candidates scored by the cost model, journaled as they finish.

The sampler (an in-memory Optuna study) draws the first trials, the classic builders among them; a local search
(``_local``) then scores neighbours of the best through the cost model directly for the rest. Optuna's TPE spends
milliseconds per asked parameter on each trial, the cost model under one on a whole strategy, so the sampler finds
the good region and the cost model's own speed explores it (``--simulated sampler``: every trial from the sampler).
A candidate that does not fit a node's memory (``Scorer.memory``) is pruned before it is scored, with the reason:
it is never profiled, and a builder so pruned stays in the table, marked.
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np
import optuna

from autotune._signals import deferred_interrupts
from autotune.tuner import _study
from autotune.tuner._local import LocalSearch
from autotune.tuner._record import TrialRecord
from autotune.tuner._types import Candidate
from space.errors import BadInput
from space.validate import validate

PRUNED, COMPLETE = "pruned", "complete"
# trials the sampler draws before the local search takes over: the builders (12-15 distinct), random ones up to TPE's
# 20 start-up trials, then about 40 of TPE's own, while its cost per trial (growing with the trials seen) is small;
# on dlrm's 90 parameters TPE's best did not move from its 60th trial to its 200th on two seeds, and 1000 candidates
# climbed from there end within 1% of TPE's 1000 trials, in a twentieth of the time (benchmarks/simulated_stage.py)
SAMPLED = 60


@dataclasses.dataclass(frozen=True)
class Simulated:
    """What the simulated stage made: its trials' records (resumed ones first), how many finished and were pruned,
    its wall time, and whether a stop cut it short."""

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
                         builders=list(r.get("builders") or []), trial=r["number"],
                         skipped=(r.get("memory") or {}).get("why", ""))

    def check_fits(self) -> None:
        """Refuse in one line when no candidate fits the nodes' memory: the smallest shortfall, and where."""
        if any(r["state"] == COMPLETE for r in self.records):
            return
        short = [r["memory"] for r in self.records if r.get("memory")]
        if short:
            least = min(short, key=lambda m: m["need"] - m["has"])
            raise BadInput(f"no strategy fits the nodes' memory: the one nearest {least['why']}",
                           self.space.cluster.source,
                           hint="give the nodes more `memory:` in the spec if they have it, or add nodes")

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
    attrs = TrialRecord(predicted_s=r["predicted_s"], builders=r.get("builders") or []).to_attrs()
    return optuna.trial.create_trial(state=state, values=values, params=r["params"],
                                     distributions={k: dists[k] for k in r["params"]}, user_attrs=attrs,
                                     system_attrs={"autotune_history": True})


def sampled_trials(cfg, multi: bool) -> int:
    """The trials the sampler draws (resumed ones included): ``SAMPLED`` before a local search, else all. Two
    objectives (nsga2) are the sampler's: a climb on the step time alone would crowd one end of their front."""
    return min(cfg.trials, SAMPLED) if cfg.simulated == "local" and not multi else cfg.trials


class _Log:
    """The stage's records (resumed ones first), the journal they go to, and the best and pruned so far."""

    def __init__(self, journal, progress, cfg) -> None:
        self.journal, self.progress = journal, progress
        self.records: list[dict[str, Any]] = []
        if cfg.resume:
            self.records = [r for r in journal.records() if {"params", "state", "predicted_s"} <= set(r)]
        self.best = min((r["predicted_s"] for r in self.records if r["state"] == COMPLETE), default=float("inf"))
        self.pruned = sum(r["state"] == PRUNED for r in self.records)

    def add(self, state: str, params: dict, predicted_s: float, wire_mb: float, builders: list, method: str,
            memory: dict | None = None) -> None:
        r = {"number": len(self.records), "state": state, "params": params, "predicted_s": predicted_s,
             "wire_mb": wire_mb, "builders": builders, "t": round(time.time(), 3), "method": method}
        if memory:  # pruned for not fitting: why, and the need and room of its node (bytes)
            r["memory"] = memory
        self.records.append(r)
        self.journal.append(r)
        if state == PRUNED:
            self.pruned += 1
        else:
            self.best = min(self.best, predicted_s)
        self.progress.update(best=f"{self.best * 1e3:.2f}ms", pruned=str(self.pruned))


def misfit(space, scorer, strategy) -> dict | None:
    """Where ``strategy`` does not fit a node's memory (``{why, need, has, node}``), None where it fits or no node's
    memory is known (then nothing is computed)."""
    if not any(n.memory_bytes is not None or n.gpu_memory_bytes is not None for n in space.cluster.nodes):
        return None
    m = scorer.memory(strategy).misfit(space.cluster)
    return None if m is None else {"why": m.line(), "need": m.need, "has": m.has, "node": m.address}


def _score(space, scorer, strategy, source: str) -> tuple[float, float]:
    """(predicted step time, MB on the wire) of a valid strategy."""
    validate(strategy, space.inventory, space.cluster, source=source)
    pred = scorer.predict(strategy)
    return pred.step_time_s, pred.wire_bytes / 1e6


def simulate(space, scorer, dists, journal, cfg, *, multi: bool, progress, round_size: int = 250,
             history: int = 100) -> Simulated:
    """Run the simulated stage to ``cfg.trials`` candidates (counting resumed ones) or the time budget: the
    sampler's first (``sampled_trials``), then the local search's (``cfg.simulated == "local"``)."""
    log = _Log(journal, progress, cfg)
    started = time.monotonic()
    deadline = None if cfg.time_budget_s is None else started + cfg.time_budget_s
    interrupted = False
    progress.start(max(0, cfg.trials - len(log.records)), "simulated")
    try:
        with deferred_interrupts() as held:
            sampled = sampled_trials(cfg, multi)
            _sampled(space, scorer, dists, log, cfg, held, deadline, sampled, multi=multi, round_size=round_size,
                     history=history)
            if sampled < cfg.trials:
                _local(space, scorer, log, cfg, held, deadline)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        progress.close()
        journal.close()
    return Simulated(space=space, records=log.records, finished=len(log.records), pruned=log.pruned,
                          wall_s=time.monotonic() - started, interrupted=interrupted)


def _sampled(space, scorer, dists, log: _Log, cfg, held, deadline: float | None, until: int, *, multi: bool,
             round_size: int, history: int) -> None:
    """The sampler's trials, up to ``until`` records.

    TPE's cost per trial grows with the trials it has seen (~0.5 s/trial after a few hundred trials with ~100
    parameters on this machine), so the sampler runs in rounds of ``round_size`` trials on a fresh in-memory study
    that starts from the ``history`` best trials so far and the builders: the cost per trial stays bounded and
    the sampler still models where the good region is.
    """
    def objective(trial: optuna.Trial):
        held.check()  # a safe point: Optuna records this trial as failed and lets the interrupt through
        strategy = space.suggest(trial)
        short = misfit(space, scorer, strategy)
        if short:
            TrialRecord(predicted_s=math.inf, memory=short).write(trial.set_user_attr)
            raise optuna.TrialPruned(short["why"])
        t, wire_mb = _score(space, scorer, strategy, f"trial {trial.number}")
        TrialRecord(predicted_s=t, wire_mb=wire_mb).write(trial.set_user_attr)
        if not (TrialRecord.of(trial).builders or []) and t > cfg.prune_ratio * log.best:
            raise optuna.TrialPruned(f"predicted {t * 1e3:.2f} ms > {cfg.prune_ratio} x best")
        return (t, wire_mb) if multi else t

    def finished(study: optuna.Study, trial: optuna.trial.FrozenTrial) -> None:
        if trial.state not in (optuna.trial.TrialState.COMPLETE, optuna.trial.TrialState.PRUNED):
            return
        if trial.system_attrs.get("autotune_history"):
            return
        r = TrialRecord.of(trial)
        log.add(COMPLETE if trial.state == optuna.trial.TrialState.COMPLETE else PRUNED, trial.params,
                r.predicted_s, 0.0 if r.wire_mb is None else r.wire_mb, r.builders or [], cfg.sampler, r.memory)

    records = log.records
    for round_index in range(10**6):
        held.check()
        remaining = until - len(records)
        left_s = None if deadline is None else deadline - time.monotonic()
        if remaining <= 0 or (left_s is not None and left_s <= 0):
            return
        seed = None if cfg.seed is None else cfg.seed + round_index
        study = optuna.create_study(directions=["minimize", "minimize"] if multi else ["minimize"],
                                    sampler=_study.make_sampler(cfg.sampler, seed))
        done = sorted((r for r in records if r["state"] == COMPLETE), key=lambda r: r["predicted_s"])
        keep = done[:history] + [r for r in done[history:] if r.get("builders")]
        study.add_trials([_frozen(r, dists, multi) for r in keep])
        if not any(r.get("builders") for r in records):
            space.enqueue_builders(study)
        study.optimize(objective, n_trials=min(round_size, remaining), timeout=left_s, callbacks=[finished])


def _local(space, scorer, log: _Log, cfg, held, deadline: float | None) -> None:
    """The local search's candidates, up to ``cfg.trials`` records."""
    # a generator of its own, seeded by the search's seed: the same seed proposes the same neighbours
    search = LocalSearch(space, log.records, np.random.default_rng(cfg.seed), reach=cfg.prune_ratio)
    while len(log.records) < cfg.trials and (deadline is None or time.monotonic() < deadline):
        held.check()  # a safe point: between two candidates
        params = search.propose()
        if params is None:  # nothing to climb from, or every neighbour within reach scored
            return
        strategy = space.decode(params)
        short = misfit(space, scorer, strategy)
        if short:
            log.add(PRUNED, params, math.inf, 0.0, [], "local", short)
            search.tell(params, math.inf)
            continue
        t, wire_mb = _score(space, scorer, strategy, f"candidate {len(log.records)}")
        log.add(PRUNED if t > cfg.prune_ratio * log.best else COMPLETE, params, t, wire_mb, [], "local")
        search.tell(params, t)


def refine(space, scorer, starts: list[dict[str, Any]], *, candidates: int, seed: int | None = None,
           reach: float = 1.5) -> list[tuple[dict[str, Any], Any, float]]:
    """The simulated stage's local search on its own (re-planning a running job uses it): ``candidates``
    neighbours climbed from ``starts`` (parameter sets of ``space``, the classic builders' among them), each scored
    by ``scorer``. Returns ``(params, strategy, predicted step)`` of every scored candidate that fits the nodes'
    memory; an interrupt waits for the candidate in hand."""
    records = []
    for params in starts:
        strategy = space.decode(params)
        if misfit(space, scorer, strategy) is None:
            records.append({"state": COMPLETE, "params": params, "builders": [],
                            "predicted_s": _score(space, scorer, strategy, "a start of the local search")[0]})
    search = LocalSearch(space, records, np.random.default_rng(seed), reach=reach)
    out: list[tuple[dict[str, Any], Any, float]] = []
    with deferred_interrupts() as held:
        for number in range(candidates):
            held.check()
            params = search.propose()
            if params is None:
                break
            strategy = space.decode(params)
            if misfit(space, scorer, strategy) is not None:
                search.tell(params, math.inf)
                continue
            t = _score(space, scorer, strategy, f"re-planning candidate {number}")[0]
            out.append((params, strategy, t))
            search.tell(params, t)
    return out
