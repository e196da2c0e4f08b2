"""The search pipeline: simulated stage (Optuna + cost model), profiling stage (real cluster), outputs."""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import logging
import pathlib
import sys
import time
from typing import Any, Callable

import optuna

from autotune.search import _study
from autotune.search._journal import Journal
from autotune.search._progress import Progress
from autotune.search._select import diverse_top_k
from space.cluster import ClusterSpec
from space.errors import BadInput, RunError
from space.inventory import Inventory
from space.strategy import Strategy

log = logging.getLogger(__name__)

REDUCE_ABOVE = 16  # variables above which the search uses the reduced (per-class) space


def make_space(inventory: Inventory, cluster: ClusterSpec, *, reduced: bool | None = None,
               reduce_above: int = REDUCE_ABOVE, sparse_ps_only: bool = False, allow_async: bool = False):
    """The strategy space ``autotune search`` draws from (its defaults: synchronous only, reduced above 16
    variables); ``validate-simulator`` samples the same space, so the simulator is judged where it is used."""
    from space.search_space import SearchSpace

    return SearchSpace(inventory, cluster, reduced=reduced, reduce_above=reduce_above,
                       sparse_ps_only=sparse_ps_only, allow_async=allow_async)


@dataclasses.dataclass
class SearchConfig:
    model: str
    spec: str
    output: pathlib.Path
    trials: int = 2000
    top_k: int = 5
    builders_to_profile: int = 5  # at most this many builders profiled beside the top-k ...
    builder_band: float = 1.5  # ... those predicted within this factor of the best builder
    max_profiles: int = 10  # profiling runs in all, confirmation included
    confirm: int = 3  # of those, re-measure up to this many contenders head to head ...
    confirm_within: float = 0.25  # ... measured within this fraction of the best (one run's noise: 10-20%)
    time_budget_s: float | None = None
    storage: str | None = None
    study_name: str | None = None
    resume: bool = False
    seed: int | None = 0
    sampler: str = "tpe"
    simulate_only: bool = False
    prune_ratio: float = 2.0  # a candidate predicted slower than this x the best so far is pruned
    reduced: bool | None = None
    sparse_ps_only: bool = False
    allow_async: bool = False
    reduce_above: int = REDUCE_ABOVE
    calibration: str | None = None
    cache_dir: str | None = None
    steps: int = 20
    warmup: int = 5
    confirm_steps: int | None = None  # steps of each contender in the head-to-head (None: 3 x steps)
    # a job's head-to-head median moves this much (relative) from one comparison to the next, beyond its steps'
    # spread: validate-simulator's pass-against-pass noise on the testbed, 1.4-2.6% MAPE over 17 runs
    run_noise: float = 0.02
    accept_unknown_hosts: bool = False

    def __post_init__(self) -> None:
        self.output = pathlib.Path(self.output)
        checks = {"trials": self.trials >= 1, "top_k": self.top_k >= 0, "prune_ratio": self.prune_ratio > 1,
                  "builders_to_profile": self.builders_to_profile >= 0, "builder_band": self.builder_band >= 1,
                  "steps": self.steps >= 1, "warmup": self.warmup >= 0, "max_profiles": self.max_profiles >= 0,
                  "confirm": self.confirm >= 0, "confirm_within": self.confirm_within >= 0,
                  "confirm_steps": self.confirm_steps is None or self.confirm_steps >= 1,
                  "run_noise": 0 <= self.run_noise < 1}
        for name, ok in checks.items():
            if not ok:
                raise BadInput(f"--{name.replace('_', '-')} is out of range: {getattr(self, name)!r}",
                               hint="trials/steps/confirm-steps >= 1, top-k/warmup/max-profiles/confirm >= 0, "
                                    "prune-ratio > 1, 0 <= run-noise < 1")
        if self.confirm_steps is None:
            self.confirm_steps = 3 * self.steps
        if self.time_budget_s is not None and self.time_budget_s <= 0:
            raise BadInput(f"--time-budget must be > 0 seconds, got {self.time_budget_s!r}")


@dataclasses.dataclass
class Candidate:
    """One strategy carried out of the simulated stage."""

    params: dict[str, Any]
    strategy: Strategy
    predicted_s: float
    builders: list[str]
    trial: int
    measured: Any = None  # runners' measurement, when profiled
    simplified: int = 0  # changes the simplification made to the trial's parameters before profiling
    error: str = ""  # why profiling it failed (the first line), when it did

    @property
    def label(self) -> str:
        return "+".join(self.builders) if self.builders else f"trial {self.trial}"

    @property
    def strategy_hash(self) -> str:
        return hashlib.sha256(self.strategy.to_bytes()).hexdigest()[:16]


@dataclasses.dataclass
class SearchResult:
    inventory: Inventory
    cluster: ClusterSpec
    winner: Candidate
    candidates: list[Candidate]  # every builder and every profiled candidate
    simulated: int
    pruned: int
    profiled: int
    lower_bound_s: float
    calibrated: bool
    wall_s: float
    output: pathlib.Path
    study_name: str
    storage: str
    interrupted: bool = False
    kept_builder: str = ""  # the noise rule's line when it kept the best builder over a faster-looking mix


def _scorer(inventory: Inventory, cluster: ClusterSpec, cfg: SearchConfig, warn: Callable[[str], None],
            say: Callable[[str], None] = lambda _m: None):
    """(Scorer, Calibration, calibrated): the stored calibration (its costs derived again where another version of
    the cost model derived them), else the spec's nominal values, with a warning. Says whether the predictions
    include a residual correction."""
    from simulator import Calibration, Scorer

    if cfg.calibration:
        cal = Calibration.load(cfg.calibration, cluster=cluster, model_hash=inventory.model_hash)
        calibrated = True
    else:
        found = _find_calibration(cluster, inventory, cfg)
        calibrated = found is not None
        cal = found or Calibration.from_spec(cluster)
        if not calibrated:
            warn("no calibration for this cluster: predictions use the spec's nominal bandwidths and textbook "
                 "overheads (run `autotune calibrate --spec ...` to calibrate)")
    if calibrated:  # derived by another version of the cost model: derived again from its anchor steps
        from autotune.calibration import current_costs

        cal = current_costs(cal, inventory, cluster, warn)
        if cal.residual is not None:
            say("predictions include the residual correction stored with the calibration "
                "(`autotune validate-simulator --fit-residual` fitted it)")
        else:
            say("the calibration holds no residual correction: predictions are the cost model's own "
                "(`autotune validate-simulator --fit-residual` fits one on profiled strategies; see the README)")
    return Scorer(inventory, cluster, cal), cal, calibrated


def _simplified(picked: list[Candidate], space, scorer, say: Callable[[str], None]) -> list[Candidate]:
    """Each non-builder candidate simplified (``_simplify``); two that simplify alike are profiled once."""
    from autotune.search._simplify import simplify

    order = sorted(range(len(space.inventory.variables)), key=lambda i: space.inventory.variables[i].bytes)

    def score(plan_lists):
        return scorer.score_many([space.strategy_of(p) for p in plan_lists])

    out, seen = [], set()
    for c in picked:
        if not c.builders:
            plans, predicted, applied = simplify(space.plans(c.params), order, score)
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


def confirm_reserve(cfg: SearchConfig) -> int:
    """Profiling runs kept back from the first round for confirmation: ``confirm`` when the budget still leaves
    two candidates to compare, else none."""
    return cfg.confirm if cfg.confirm >= 2 and cfg.max_profiles - cfg.confirm >= 2 else 0


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


def _find_calibration(cluster, inventory, cfg):
    from simulator import Calibration
    from simulator import calibration_path
    from space.model import default_cache_dir

    directory = pathlib.Path(cfg.cache_dir) if cfg.cache_dir else default_cache_dir()
    for model_hash in (inventory.model_hash, None):
        path = calibration_path(directory / "calibration", cluster, model_hash)
        if path.is_file():
            return Calibration.load(path, cluster=cluster, model_hash=model_hash)
    return None


def run_search(cfg: SearchConfig, *, profiler_factory: Callable[..., Any] | None = None,
               progress: bool = True, out: Callable[[str], None] | None = None) -> SearchResult:
    """Run both stages and write the output directory. ``profiler_factory(inventory, cluster, cfg)`` returns a
    context manager with ``profile(strategy) -> measurement``; default: the real cluster through ``runners``."""
    from space.cluster import load_cluster
    from space.model import load_inventory
    # ERROR: a Ctrl-C inside a trial is a clean stop, not Optuna's "Trial N failed" warning with its parameters
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    say = out or (lambda s: print(s, file=sys.stderr))
    started = time.monotonic()
    cluster = load_cluster(cfg.spec)
    inventory = load_inventory(cfg.model, cache_dir=cfg.cache_dir)
    cfg.output.mkdir(parents=True, exist_ok=True)
    space = make_space(inventory, cluster, reduced=cfg.reduced, reduce_above=cfg.reduce_above,
                       sparse_ps_only=cfg.sparse_ps_only, allow_async=cfg.allow_async)
    dists = _study.distributions(space)
    multi = cfg.sampler == "nsga2"
    name = cfg.study_name or f"{pathlib.Path(cfg.model).stem}-{cluster.fingerprint[:8]}"
    url = _study.storage_url(cfg.storage, cfg.output)
    attrs = {"model_fingerprint": inventory.fingerprint, "cluster_fingerprint": cluster.fingerprint,
             "model_path": str(cfg.model), "spec_path": str(cfg.spec),
             # the space's options: a report can rebuild the space and decode the study's parameters
             "space": {"reduced": space.reduced, "reduce_above": cfg.reduce_above,
                       "sparse_ps_only": cfg.sparse_ps_only, "allow_async": cfg.allow_async},
             # the model as data: a report on the study reads it instead of importing (running) the model file
             "inventory": inventory.to_dict()}
    persistent = _study.open_study(url, name, directions=["minimize", "minimize"] if multi else ["minimize"],
                                   attrs=attrs, resume=cfg.resume)
    scorer, calibration, calibrated = _scorer(inventory, cluster, cfg, lambda m: say(f"warning: {m}"), say)
    journal = Journal(cfg.output / "simulated.jsonl")
    if not cfg.resume and journal.path.exists():
        journal.path.unlink()

    # ---- stage 1: simulated -------------------------------------------------------------------------
    from autotune.search._simulated import simulate

    sim = simulate(space, scorer, dists, journal, cfg, multi=multi, progress=Progress(progress, say))
    say(f"simulated stage: {sim.finished} trials ({sim.pruned} pruned) in {sim.wall_s:.1f} s; "
        f"best predicted {sim.best_s * 1e3:.2f} ms")

    from simulator import lower_bound

    bound = lower_bound(inventory, cluster, calibration)
    persistent.set_user_attr("lower_bound_s", bound.step_s)
    builders = sim.builder_candidates()
    by_trial = {c.trial: c for c in builders}  # one object per trial: a builder picked as a candidate is the same
    picked = [by_trial.get(c.trial, c)
              for c in diverse_top_k([(c.predicted_s, c.params, c) for c in sim.candidates()], cfg.top_k)]
    if not space.reduced:
        picked = _simplified(picked, space, scorer, say)
    to_profile = list(picked)
    # the builders are the reference to beat: profile every one the cost model cannot tell apart from the best
    # (predicted within `builder_band` x the best builder), up to `builders_to_profile`
    ranked = sorted(builders, key=lambda c: c.predicted_s)
    close = [b for b in ranked if b.predicted_s <= cfg.builder_band * ranked[0].predicted_s] if ranked else []
    for b in close[:max(cfg.builders_to_profile, 0)]:
        if all(b is not c for c in to_profile):
            to_profile.append(b)
    to_profile = first_round(to_profile, cfg.max_profiles - confirm_reserve(cfg))
    for c in builders + [c for c in picked if not c.builders]:
        _study.record(persistent, dists, c.params, [c.predicted_s, sim.wire_mb(c)] if multi else c.predicted_s,
                      {"stage": "simulated", "predicted_s": c.predicted_s, "builders": c.builders,
                       "sim_trial": c.trial, "simplified": c.simplified, "strategy_hash": c.strategy_hash})

    # ---- stage 2: profiled ------------------------------------------------------------------------------
    interrupted = sim.interrupted
    profiled = 0
    if not cfg.simulate_only and to_profile and not interrupted:
        from autotune.search._profiling import profile_candidates

        profiled, interrupted = profile_candidates(to_profile, persistent, dists, inventory, cluster, cfg,
                                                   profiler_factory, Progress(progress, say), multi, sim)
    measured = [c for c in to_profile if c.measured is not None]
    failed = [c for c in to_profile if c.error]
    if failed and not measured and not interrupted:
        raise RunError(f"every profiled candidate failed; the first, {failed[0].label}: {failed[0].error}",
                       hint=f"the simulated trials are kept in {url}: fix the cause and rerun with --resume")
    pool = measured or sim.candidates()[:1] or builders
    if not pool:
        raise BadInput("no trial finished: nothing to write", hint="raise --trials or --time-budget")
    kept = ""
    if measured:
        from autotune.search._profiling import decide

        winner, kept = decide(measured, cfg.confirm_within, cfg.run_noise)
        if kept:
            say(kept)
        # the rule's outcome, for a report read from the study alone
        persistent.set_user_attr("winner", {"sim_trial": winner.trial, "strategy_hash": winner.strategy_hash})
    else:
        winner = min(pool, key=lambda c: c.predicted_s)
    shown = builders + [c for c in to_profile if all(c is not b for b in builders)]
    result = SearchResult(inventory=inventory, cluster=cluster, winner=winner, candidates=shown,
                          simulated=sim.finished, pruned=sim.pruned, profiled=profiled,
                          lower_bound_s=bound.step_s, calibrated=calibrated, wall_s=time.monotonic() - started,
                          output=cfg.output, study_name=name, storage=url, interrupted=interrupted,
                          kept_builder=kept)
    from autotune.search._output import write_outputs

    write_outputs(result, cfg, sim, say)
    return result
