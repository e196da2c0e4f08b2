"""The step from the simulated stage to the cluster: which candidates are carried out to be profiled.

A diverse top-k of the simulated trials, simplified, then the builders the cost model cannot tell apart from the
best, the first round cut to its size with each family's best predicted member in it, every candidate's floor,
and the simulated records of all of them in the study.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Callable

import numpy as np

from autotune.tuner import _families, _study
from autotune.tuner._loop import POOL
from autotune.tuner._measurement import confirm_reserve
from autotune.tuner._phases import Carried, SearchContext
from autotune.tuner._record import SIMULATED, TrialRecord
from autotune.tuner._select import diverse_top_k
from autotune.tuner._simplify import simplify
from autotune.tuner._simulated import Simulated, misfit
from autotune.tuner._types import Candidate, SearchConfig
from simulator import floor_s


def carried_out(ctx: SearchContext, sim: Simulated) -> Carried:
    """The builders, the first round to profile, the closed loop's pool and the families' representatives; every
    builder and every candidate recorded in the study as simulated."""
    cfg = ctx.cfg
    builders = sim.builder_candidates()
    by_trial = {c.trial: c for c in builders}  # one object per trial: a builder picked as a candidate is the same
    picked = _selected(ctx, sim, by_trial)
    ranked = sorted((b for b in builders if not b.skipped), key=lambda c: c.predicted_s)
    to_profile = picked + _banded(cfg, ranked, picked)
    size = first_round_size(cfg)
    pool = ranked + [by_trial.get(c.trial, c) for c in sim.candidates(POOL)]  # those that fit
    families = _families.representatives(pool)
    to_profile = _families.with_representatives(first_round(to_profile, size), families, size,
                                                cfg.max_profiles - confirm_reserve(cfg))
    _floors(ctx, to_profile)
    _record_simulated(ctx, sim, builders + [c for c in to_profile if not c.builders])
    return Carried(builders=builders, to_profile=to_profile, pool=pool, families=families)


def _selected(ctx: SearchContext, sim: Simulated, by_trial: dict[int, Candidate]) -> list[Candidate]:
    """A diverse top-k of the simulated trials (a builder among them as the builder's object), simplified where
    the space is not reduced."""
    picked = [by_trial.get(c.trial, c)
              for c in diverse_top_k([(c.predicted_s, c.params, c) for c in sim.candidates()], ctx.cfg.top_k)]
    if not ctx.space.reduced:
        picked = simplified(picked, ctx.space, ctx.scorer, ctx.say)
    return picked


def _banded(cfg: SearchConfig, ranked: list[Candidate], picked: list[Candidate]) -> list[Candidate]:
    """The builders to profile beside ``picked``: they are the reference to beat, so every one the cost model
    cannot tell apart from the best builder (predicted within ``builder_band`` x it), up to ``builders_to_profile``
    (``ranked``: the builders that fit, best predicted first)."""
    close = [b for b in ranked if b.predicted_s <= cfg.builder_band * ranked[0].predicted_s] if ranked else []
    return [b for b in close[:max(cfg.builders_to_profile, 0)] if all(b is not c for c in picked)]


def simplified(picked: list[Candidate], space, scorer, say: Callable[[str], None]) -> list[Candidate]:
    """Each non-builder candidate simplified (``_simplify``); two that simplify alike are profiled once."""
    order = sorted(range(len(space.inventory.variables)), key=lambda i: space.inventory.variables[i].bytes)

    def score(plan_lists):  # a simplification that no longer fits a node's memory is never the better one
        strategies = [space.strategy_of(p) for p in plan_lists]
        return np.where([misfit(space, scorer, s) is None for s in strategies], scorer.score_many(strategies),
                        np.inf)

    out, seen = [], set()
    for c in picked:
        if not c.builders:
            plans, predicted, applied = simplify(space.plans(c.params), order, score, tied=space.tied_shards)
            if applied:
                strategy = space.strategy_of(plans)
                say(f"simplified trial {c.trial}: {applied} change(s), predicted {c.predicted_s * 1e3:.2f} -> "
                    f"{predicted * 1e3:.2f} ms")
                c = dataclasses.replace(c, params=space.params_of(plans), strategy=strategy, predicted_s=predicted,
                                        simplified=applied)
        if c.strategy_hash not in seen:
            seen.add(c.strategy_hash)
            out.append(c)
    return out


def first_round_size(cfg: SearchConfig) -> int:
    """Profiling runs of the first round: the budget less the confirmation's reserve and, where two candidates
    are still left to the first round, one round of the closed loop (``--round-size``)."""
    explore = cfg.max_profiles - confirm_reserve(cfg)
    return explore - cfg.round_size if explore - cfg.round_size >= 2 else explore


def first_round(to_profile: list[Candidate], n: int) -> list[Candidate]:
    """At most ``n`` candidates, search trials and builders taken in turn, each in predicted order: the trials are
    the cost model's best guesses, the builders the reference to beat and the hedge where the model is wrong (on
    the transformer it ranked ps_lb behind four trials it predicted alike; ps_lb measured 23% faster)."""
    if len(to_profile) <= n:
        return to_profile
    trials = [c for c in to_profile if not c.builders]
    built = sorted((c for c in to_profile if c.builders), key=lambda c: c.predicted_s)
    turns = [c for pair in itertools.zip_longest(trials, built) for c in pair if c is not None]
    return turns[:max(n, 0)]


def _floors(ctx: SearchContext, candidates: list[Candidate]) -> None:
    """Set each candidate's lower bound: the cost model's floor for its strategy (``simulator.floor_s``)."""
    for c in candidates:
        if c.strategy is not None and not c.lower_bound_s:
            c.lower_bound_s = floor_s(ctx.scorer.predict(c.strategy), ctx.bound)


def _record_simulated(ctx: SearchContext, sim: Simulated, candidates: list[Candidate]) -> None:
    """Each of ``candidates`` as a simulated record of the study (what a report and a resumed search read)."""
    for c in candidates:
        value = [c.predicted_s, sim.wire_mb(c)] if ctx.multi else c.predicted_s
        _study.record(ctx.study, ctx.dists, c.params, value,
                      TrialRecord(stage=SIMULATED, predicted_s=c.predicted_s, builders=c.builders, sim_trial=c.trial,
                                  simplified=c.simplified, strategy_hash=c.strategy_hash, family=c.family,
                                  lossy=c.lossy))
