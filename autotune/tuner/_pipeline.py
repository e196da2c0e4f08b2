"""The search pipeline: simulated stage (Optuna + cost model), profiling stage (real cluster), outputs."""
from __future__ import annotations

import dataclasses
import itertools
import logging
import pathlib
import sys
import time
from typing import Any, Callable

import numpy as np
import optuna

from autotune.calibration import cluster_calibration, current_costs, measure_and_store, stored_calibration
from autotune.tuner import _study
from autotune.tuner._claims import Claims
from autotune.tuner import _families
from autotune.tuner._journal import Journal
from autotune.tuner._loop import POOL, ClosedLoop
from autotune.tuner._output import write_measured_parts, write_outputs
from autotune.tuner import _anchored
from autotune.tuner._budget import CONTENDERS, SIMULATED_SHARE, Budget, plan
from autotune.tuner._measurement import confirm_reserve, decide, measurement_of
from autotune.tuner._record import MEASURED, SIMULATED, StudyKeys, TrialRecord, winner_attrs
from autotune.tuner._simplify import simplify
from autotune.tuner._stage import ProfilingStage
from autotune.tuner._progress import Progress
from autotune.tuner._select import diverse_top_k
from autotune.tuner._simulated import SimulatedStage, misfit, simulate
from autotune.tuner._types import REDUCE_ABOVE, Candidate, SearchConfig, SearchResult
from simulator import Calibration, Scorer, floor_s, lower_bound
from space.cluster import ClusterSpec, load_cluster
from space.errors import BadInput, RunError
from space.inventory import Inventory
from space.model import default_cache_dir, load_inventory
from space.search_space import SearchSpace

log = logging.getLogger(__name__)


def make_space(inventory: Inventory, cluster: ClusterSpec, *, reduced: bool | None = None,
               reduce_above: int = REDUCE_ABOVE, sparse_ps_only: bool = False, allow_async: bool = False,
               lossless: bool = False):
    """The strategy space ``autotune search`` draws from (its defaults: synchronous only, reduced above 16
    variables); ``validate-simulator`` samples the same space, so the simulator is judged where it is used."""
    return SearchSpace(inventory, cluster, reduced=reduced, reduce_above=reduce_above,
                       sparse_ps_only=sparse_ps_only, allow_async=allow_async, lossless=lossless)


def _scorer(inventory: Inventory, cluster: ClusterSpec, cfg: SearchConfig, warn: Callable[[str], None],
            say: Callable[[str], None] = lambda _m: None, self_calibrate: bool = False,
            progress: Callable[[str], None] = lambda _m: None, timing: dict | None = None):
    """(Scorer, Calibration, calibrated): the stored calibration (its costs derived again where another version of
    the cost model derived them); else, with ``self_calibrate``, a quick one measured now and stored; else the
    spec's nominal values, with a warning. Says whether the predictions include a residual correction."""
    if cfg.calibration:
        cal = Calibration.load(cfg.calibration, cluster=cluster, model_hash=inventory.model_hash)
        calibrated = True
    else:
        found = stored_calibration(cluster, inventory, cfg.cache_dir)
        if self_calibrate and (found is None or found.model_hash is None):
            started = time.monotonic()
            found = _quick_calibration(cluster, cfg, warn, say, progress, found)
            if timing is not None:
                timing["calibration_s"] = time.monotonic() - started
        calibrated = found is not None
        cal = found or Calibration.from_spec(cluster)
        if not calibrated:
            warn("no calibration for this cluster: predictions use the spec's nominal bandwidths and textbook "
                 "overheads (run `autotune calibrate --spec ...` to calibrate)")
    if calibrated:  # derived by another version of the cost model: derived again from its anchor steps
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


# the quick calibration a search runs where it finds none: fewer sizes, runs and steps than `autotune calibrate`
QUICK_CALIBRATION = dict(sizes=[256 * 1024, 1024 * 1024], repeats=3, rpc_tensors=100, steps=5, warmup=2)
# a time budget below this leaves a search no time for a quick calibration and for profiling after it (the quick
# calibration took 1-13 minutes on a loaded 2-core machine): it predicts with the spec's nominal values instead
QUICK_CALIBRATION_MIN_BUDGET_S = 300.0


def _quick_calibration(cluster, cfg: SearchConfig, warn, say, progress, spec_only=None):
    """Measure the cluster and the model's anchor steps quickly (``QUICK_CALIBRATION``) and store the result where
    ``autotune calibrate`` would (a full calibration later replaces it); None, with a warning, where it fails.

    Where a calibration of this spec kept its cluster probes (another model's, or a model-less one), those are
    reused and only the model's part is measured: the cluster did not change with the model. A model-less
    calibration that kept none (``spec_only``) is used as it is: extending it would measure the cluster again."""
    directory = (pathlib.Path(cfg.cache_dir) if cfg.cache_dir else default_cache_dir()) / "calibration"
    reuse = cluster_calibration(directory, cluster)
    if reuse is None and spec_only is not None:
        return spec_only
    source = "autotune search (quick calibration)"
    if reuse is not None:
        say(f"reusing the cluster's calibration from {reuse[1]}; measuring the model's steps")
        source = f"autotune search (quick calibration, the cluster's probes from {reuse[1].name})"
    else:
        say("no calibration for this cluster: measuring a quick one first (--no-calibrate skips it; "
            "`autotune calibrate --model` measures a full one)")
    started = time.monotonic()
    try:
        _, _, cal, path = measure_and_store(cluster, cfg.model, cfg.cache_dir, source, progress=progress,
                                            accept_unknown_hosts=cfg.accept_unknown_hosts,
                                            reuse=reuse[0] if reuse else None, **QUICK_CALIBRATION)
    except RunError as e:
        warn(f"the quick calibration failed: {e}")
        return spec_only
    say(f"quick calibration: {time.monotonic() - started:.0f} s, stored in {path}")
    return cal


@dataclasses.dataclass
class _Setup:
    """What both stages work with: the model, the cluster, the space, the study and the cost model."""

    cfg: SearchConfig
    cluster: ClusterSpec
    inventory: Inventory
    space: Any
    dists: dict
    multi: bool
    name: str
    url: str
    study: optuna.Study
    scorer: Any
    calibration: Any
    calibrated: bool
    say: Callable[[str], None]
    bound: Any = None  # the model's lower bound on this cluster (``simulator.lower_bound``)
    pool: list = dataclasses.field(default_factory=list)  # the builders and the simulated stage's best
    timing: dict = dataclasses.field(default_factory=dict)  # seconds of each phase: calibration, simulated, ...
    families: dict = dataclasses.field(default_factory=dict)  # family -> its best predicted member
    budget: Budget = dataclasses.field(default_factory=lambda: Budget(None))  # --budget: the search's deadline


def run_search(cfg: SearchConfig, *, profiler_factory: Callable[..., Any] | None = None,
               progress: bool = True, out: Callable[[str], None] | None = None,
               show: Callable[[str], None] = print) -> SearchResult:
    """Run both stages and write the output directory. ``profiler_factory(inventory, cluster, cfg)`` returns a
    context manager with ``profile(strategy) -> measurement``; default: the real cluster through ``runners``.
    ``out`` gets the notes on the way (default stderr), ``show`` the result's table and lines (default stdout)."""
    # ERROR: a Ctrl-C inside a trial is a clean stop, not Optuna's "Trial N failed" warning with its parameters
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    say = out or (lambda s: print(s, file=sys.stderr))
    started = time.monotonic()
    budget = Budget(cfg.budget_s, started=started)
    # a caller's own profiler measures the cluster its own way: the quick calibration runs on the real one only
    quick = cfg.calibrate and profiler_factory is None and not cfg.simulate_only
    if quick and cfg.budget_s is not None and cfg.budget_s < QUICK_CALIBRATION_MIN_BUDGET_S:
        quick = False
        budget.cut(f"no quick calibration: it needs a budget of {QUICK_CALIBRATION_MIN_BUDGET_S:.0f} s or more; "
                   "the cost model predicts with the spec's nominal values")
    setup = _open(cfg, say, quick, (lambda m: say(f"calibrate: {m}")) if progress else (lambda _m: None))
    setup.budget = budget
    # the model traced, the study opened, and any calibration (also on its own: calibration_s)
    setup.timing["setup_s"] = time.monotonic() - started
    with Claims(setup.study, heartbeat_s=cfg.claim_grace_s / 6, grace_s=cfg.claim_grace_s) as claims:
        return _search(setup, claims, profiler_factory, progress, started, show)


def _search(setup: _Setup, claims: Claims, profiler_factory, progress: bool, started: float,
            show: Callable[[str], None] = print) -> SearchResult:
    """Both stages, on an open study, as one of the searchers sharing it."""
    cfg, say = setup.cfg, setup.say
    if cfg.seed is None:  # searchers sharing the study simulate different trials
        cfg = setup.cfg = dataclasses.replace(cfg, seed=claims.rank())
    journal = Journal(cfg.output / "simulated.jsonl")
    if not cfg.resume and journal.path.exists():
        journal.path.unlink()
    share = setup.budget.share(SIMULATED_SHARE)
    simulated_cfg = cfg if share is None else dataclasses.replace(
        cfg, time_budget_s=min(share, cfg.time_budget_s or share))
    sim = simulate(setup.space, setup.scorer, setup.dists, journal, simulated_cfg, multi=setup.multi,
                   progress=Progress(progress, say))
    setup.timing["simulated_s"] = sim.wall_s
    if share is not None and sim.finished < cfg.trials:
        setup.budget.cut(f"the simulated stage stopped at {sim.finished} of {cfg.trials} trials "
                         f"({share:.0f} s of the time budget)")
    say(f"simulated stage: {sim.finished} trials ({sim.pruned} pruned) in {sim.wall_s:.1f} s; "
        f"best predicted {sim.best_s * 1e3:.2f} ms")
    if not sim.interrupted:
        sim.check_fits()

    bound = setup.bound = lower_bound(setup.inventory, setup.cluster, setup.calibration)
    setup.study.set_user_attr(StudyKeys.LOWER_BOUND, bound.step_s)
    builders, to_profile = _carried_out(setup, sim)
    if setup.budget.seconds is not None and not cfg.simulate_only and to_profile:
        to_profile = _planned(setup, to_profile)
    interrupted, profiled, loop = sim.interrupted, 0, None
    if not cfg.simulate_only and to_profile and not interrupted:
        claims.set_phase("profiling")
        loop = _closed_loop(setup, sim, builders, to_profile)
        profiled, interrupted = _profile(setup, sim, claims, profiler_factory, Progress(progress, say), loop,
                                         to_profile)
        if not interrupted:
            claims.set_phase("deciding")
            claims.wait_for_others("deciding", say=say)
            to_profile = to_profile + _measured_elsewhere(setup, to_profile)
    if interrupted:  # the runs a stop cut short of a round's end are in the study all the same
        profiled = sum(TrialRecord.of(t).stage in MEASURED for t in setup.study.trials)
    if loop is not None:
        setup.study.set_user_attr(StudyKeys.ROUNDS, loop.records())  # a report read from the study alone shows them
    winner, kept = _winner(setup, sim, builders, to_profile, interrupted)
    shown = builders + [c for c in to_profile if all(c is not b for b in builders)]
    families = _families.records(shown, setup.families, tiered=setup.space.tiered, lossless=cfg.lossless,
                                 unmeasured=_unmeasured(cfg, interrupted, setup.budget))
    setup.study.set_user_attr(StudyKeys.FAMILIES, families)
    result = SearchResult(inventory=setup.inventory, cluster=setup.cluster, winner=winner, candidates=shown,
                          simulated=sim.finished, pruned=sim.pruned, profiled=profiled,
                          lower_bound_s=bound.step_s, calibrated=setup.calibrated, wall_s=time.monotonic() - started,
                          output=cfg.output, study_name=setup.name, storage=setup.url, interrupted=interrupted,
                          kept_builder=kept, rounds=loop.records() if loop else [],
                          families=families)
    setup.timing["total_s"] = time.monotonic() - started
    result.timing = {k: round(v, 2) for k, v in setup.timing.items()}
    result.budget = setup.budget.record() if cfg.budget_s is not None else {}
    write_outputs(result, cfg, sim, say, show)
    write_measured_parts(cfg.output, result.candidates, setup.scorer)
    return result


def _profile(setup: _Setup, sim: SimulatedStage, claims: Claims, factory, progress: Progress, loop: ClosedLoop,
             candidates: list[Candidate]) -> tuple[int, bool]:
    """The profiling stage, round by round: the first round, then each round the closed loop chooses from what
    was measured (appended to ``candidates``) while runs and time are left, then the head-to-head. Returns
    ``(profiling runs done, interrupted)``; every finished measurement is already in the study."""
    cfg = setup.cfg
    stage = ProfilingStage(cfg=cfg, study=setup.study, dists=setup.dists, multi=setup.multi, sim=sim,
                           inventory=setup.inventory, cluster=setup.cluster, progress=progress, claims=claims,
                           factory=factory, budget=setup.budget)
    try:
        with stage:
            # the calibration's anchor steps that are candidates: first-round measurements, not profiled again
            anchored = _anchored.calibration_steps(setup.inventory, setup.cluster, setup.calibration)
            adopted = [c for c in stage.adopt(_anchored.matching(loop.pool, anchored))
                       if all(c is not x for x in candidates)]
            candidates.extend(adopted)
            loop.also_first(adopted)
            chosen, desc = list(candidates), "profiling"
            while chosen:
                stage.measure(chosen, candidates, desc)
                chosen = [c for c in loop.next_round(candidates, stage.runs_left(candidates))
                          if all(c is not x for x in candidates)]
                candidates.extend(chosen)
                desc = "profiling (refitted)"
            claims.set_phase("profiled")
            claims.wait_for_others("profiled", say=progress.say)
            stage.confirm(candidates)
    except KeyboardInterrupt:
        return stage.runs, True
    finally:
        setup.timing.update(stage.timing)
    return stage.runs, False


def _unmeasured(cfg: SearchConfig, interrupted: bool, budget: Budget) -> str:
    """Why a candidate chosen to be profiled was not."""
    if cfg.simulate_only:
        return "--simulate-only profiles nothing"
    if interrupted:
        return "the search was interrupted before it"
    if budget.notes:
        return "the time budget was spent before it"
    return "the profiling budget was spent before it"


def _open(cfg: SearchConfig, say: Callable[[str], None], self_calibrate: bool = False,
          progress: Callable[[str], None] = lambda _m: None) -> _Setup:
    """Load the model and the cluster, make the space, open (or resume) the persistent study, pick the cost model."""
    cluster = load_cluster(cfg.spec)
    inventory = load_inventory(cfg.model, cache_dir=cfg.cache_dir)
    cfg.output.mkdir(parents=True, exist_ok=True)
    space = make_space(inventory, cluster, reduced=cfg.reduced, reduce_above=cfg.reduce_above,
                       sparse_ps_only=cfg.sparse_ps_only, allow_async=cfg.allow_async, lossless=cfg.lossless)
    multi = cfg.sampler == "nsga2"
    name = cfg.study_name or _study.default_name(cfg.model, cluster)
    url = _study.storage_url(cfg.storage, cfg.output)
    attrs = {StudyKeys.MODEL_FINGERPRINT: inventory.fingerprint, StudyKeys.CLUSTER_FINGERPRINT: cluster.fingerprint,
             StudyKeys.MODEL_PATH: str(cfg.model), StudyKeys.SPEC_PATH: str(cfg.spec),
             # the space's options: a report can rebuild the space and decode the study's parameters
             StudyKeys.SPACE: {"reduced": space.reduced, "reduce_above": cfg.reduce_above,
                               "compact_above": space.compact_above, "sparse_ps_only": cfg.sparse_ps_only,
                               "allow_async": cfg.allow_async, "lossless": cfg.lossless},
             # the model as data: a report on the study reads it instead of importing (running) the model file
             StudyKeys.INVENTORY: inventory.to_dict()}
    study = _study.open_study(url, name, directions=["minimize", "minimize"] if multi else ["minimize"],
                              attrs=attrs, resume=cfg.resume, say=say)
    timing: dict = {}
    scorer, calibration, calibrated = _scorer(inventory, cluster, cfg, lambda m: say(f"warning: {m}"), say,
                                              self_calibrate, progress, timing)
    return _Setup(cfg=cfg, cluster=cluster, inventory=inventory, space=space, dists=_study.distributions(space),
                  multi=multi, name=name, url=url, study=study, scorer=scorer, calibration=calibration,
                  calibrated=calibrated, say=say, timing=timing)


def _carried_out(setup: _Setup, sim: SimulatedStage) -> tuple[list[Candidate], list[Candidate]]:
    """(the builders, the candidates to profile): a diverse top-k, simplified, and the builders the cost model
    cannot tell apart from the best; every one recorded in the study as simulated."""
    cfg = setup.cfg
    builders = sim.builder_candidates()
    by_trial = {c.trial: c for c in builders}  # one object per trial: a builder picked as a candidate is the same
    picked = [by_trial.get(c.trial, c)
              for c in diverse_top_k([(c.predicted_s, c.params, c) for c in sim.candidates()], cfg.top_k)]
    if not setup.space.reduced:
        picked = _simplified(picked, setup.space, setup.scorer, setup.say)
    to_profile = list(picked)
    # the builders are the reference to beat: profile every one the cost model cannot tell apart from the best
    # (predicted within `builder_band` x the best builder), up to `builders_to_profile`
    ranked = sorted((b for b in builders if not b.skipped), key=lambda c: c.predicted_s)
    close = [b for b in ranked if b.predicted_s <= cfg.builder_band * ranked[0].predicted_s] if ranked else []
    for b in close[:max(cfg.builders_to_profile, 0)]:
        if all(b is not c for c in to_profile):
            to_profile.append(b)
    size = first_round_size(cfg)
    setup.pool = ranked + [by_trial.get(c.trial, c) for c in sim.candidates(POOL)]  # those that fit
    setup.families = _families.representatives(setup.pool)
    to_profile = _families.with_representatives(first_round(to_profile, size), setup.families, size,
                                                cfg.max_profiles - confirm_reserve(cfg))
    _floors(setup, to_profile)
    for c in builders + [c for c in to_profile if not c.builders]:
        value = [c.predicted_s, sim.wire_mb(c)] if setup.multi else c.predicted_s
        _study.record(setup.study, setup.dists, c.params, value,
                      TrialRecord(stage=SIMULATED, predicted_s=c.predicted_s, builders=c.builders, sim_trial=c.trial,
                                  simplified=c.simplified, strategy_hash=c.strategy_hash, family=c.family,
                                  lossy=c.lossy))
    return builders, to_profile


def _planned(setup: _Setup, to_profile: list[Candidate]) -> list[Candidate]:
    """Under ``--budget``: what the profiling stage can buy (``_budget.plan``, said in one line, and a cut where it
    falls short of a trustworthy answer), and the first round in the order that buys it: the model's two best
    guesses, then each family's representative, then the rest, so that a short budget cuts the rest first."""
    cfg = setup.cfg
    b = setup.budget
    p = plan(b.left(), families=len(setup.families), run_s=b.next_run_s(), calibrated=setup.calibrated,
             confirm_s=b.confirm_s(CONTENDERS, (cfg.confirm_steps or cfg.steps) / max(cfg.steps, 1)))
    setup.budget.plan = p
    setup.say(p["line"])
    if p["family_runs"] < p["families"] or not p["head_to_head"]:
        setup.budget.cut(p["line"])
    reps = {c.trial for c in setup.families.values()}
    head, rest = to_profile[:2], to_profile[2:]
    return head + [c for c in rest if c.trial in reps] + [c for c in rest if c.trial not in reps]


def _floors(setup: _Setup, candidates: list[Candidate]) -> None:
    """Set each candidate's lower bound: the cost model's floor for its strategy (``simulator.floor_s``)."""
    for c in candidates:
        if c.strategy is not None and not c.lower_bound_s:
            c.lower_bound_s = floor_s(setup.scorer.predict(c.strategy), setup.bound)


def _closed_loop(setup: _Setup, sim: SimulatedStage, builders: list[Candidate], first: list[Candidate]):
    """The closed loop over the rounds after the first (``_loop``), its pool the simulated stage's best and the
    builders (the objects ``_carried_out`` made of them). With ``--round-size 0`` it chooses no round and only
    records the first."""
    by_trial = {c.trial: c for c in first}
    pool = first + [by_trial.get(c.trial, c) for c in setup.pool]
    loop = ClosedLoop(setup.inventory, setup.cluster, setup.calibration, pool, setup.cfg.round_size, setup.say)
    loop.first(first)
    return loop


def _measured_elsewhere(setup: _Setup, mine: list[Candidate]) -> list[Candidate]:
    """The candidates other searchers measured in the shared study (the most pooled measurement of each): every
    searcher decides among everything measured, so all end with the same winner."""
    have = {c.strategy_hash for c in mine}
    best: dict[str, tuple[Any, TrialRecord]] = {}
    for t in setup.study.trials:
        r = TrialRecord.of(t)
        h = r.strategy_hash
        if r.stage in MEASURED and h and h not in have and t.params and r.measured_s is not None:
            if h not in best or r.pooled_runs > best[h][1].pooled_runs:
                best[h] = (t, r)
    out = []
    for t, r in best.values():
        try:
            strategy = setup.space.decode(t.params)
        except Exception:  # noqa: BLE001 - a study shared with another space setting: its strategies do not decode
            continue
        out.append(Candidate(params=t.params, strategy=strategy,
                             predicted_s=float("nan") if r.predicted_s is None else r.predicted_s,
                             builders=list(r.builders or []), trial=r.number(t), measured=measurement_of(r)))
    return [c for c in out if c.strategy_hash in best]


def _winner(setup: _Setup, sim: SimulatedStage, builders: list[Candidate], to_profile: list[Candidate],
            interrupted: bool) -> tuple[Candidate, str]:
    """The best measured by the confirmation's rule (and its line when the noise rule kept a builder), else the
    best predicted; every candidate having failed is an error that keeps the simulated trials."""
    measured = [c for c in to_profile if c.measured is not None]
    failed = [c for c in to_profile if c.error]
    if failed and not measured and not interrupted:
        raise RunError(f"every profiled candidate failed; the first, {failed[0].label}: {failed[0].error}",
                       hint=f"the simulated trials are kept in {setup.url}: fix the cause and rerun with --resume")
    pool = measured or sim.candidates(1) or builders
    if not pool:
        raise BadInput("no trial finished: nothing to write", hint="raise --trials or --time-budget")
    if not measured:
        winner, kept = min(pool, key=lambda c: c.predicted_s), ""
    else:
        winner, kept = decide(measured, setup.cfg.confirm_within, setup.cfg.run_noise)
    if kept:
        setup.say(kept)
    # the rule's outcome, for a report read from the study alone and for the dashboard's list of study attributes
    setup.study.set_user_attr(StudyKeys.WINNER, winner_attrs(winner))
    return winner, kept
