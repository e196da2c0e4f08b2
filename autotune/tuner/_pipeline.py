"""The search pipeline: the opening, then phases that return typed values (``_phases``): the simulated stage
(Optuna + cost model), the candidates carried out (``_carried``), the profiling stage (real cluster), the decision,
the outputs."""
from __future__ import annotations

import dataclasses
import logging
import pathlib
import sys
import time
from typing import Any, Callable

import optuna

from autotune.calibration import cluster_calibration, current_costs, measure_and_store, stored_calibration
from autotune.tuner import _anchored, _families, _study
from autotune.tuner._budget import CONTENDERS, SIMULATED_SHARE, Budget, plan
from autotune.tuner._carried import carried_out
from autotune.tuner._claims import Claims
from autotune.tuner._journal import Journal
from autotune.tuner._loop import ClosedLoop
from autotune.tuner._measurement import decide, measurement_of
from autotune.tuner._output import write_measured_parts, write_outputs
from autotune.tuner._phases import Carried, Decision, Profiled, SearchContext
from autotune.tuner._progress import Progress
from autotune.tuner._record import MEASURED, StudyKeys, TrialRecord, winner_attrs
from autotune.tuner._simulated import Simulated, simulate
from autotune.tuner._stage import ProfilingStage
from autotune.tuner._types import REDUCE_ABOVE, Candidate, SearchConfig, SearchResult
from simulator import Calibration, Scorer, lower_bound
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
    # the one accumulator the phases share, owned here: the deadline of --budget, which every phase spends and the
    # profiling stage paces itself by run by run (the runs' seconds, and the cuts the summary lists)
    budget = Budget(cfg.budget_s, started=started)
    quick = cfg.calibrate and profiler_factory is None and not cfg.simulate_only
    if quick and cfg.budget_s is not None and cfg.budget_s < QUICK_CALIBRATION_MIN_BUDGET_S:
        quick = False
        budget.cut(f"no quick calibration: it needs a budget of {QUICK_CALIBRATION_MIN_BUDGET_S:.0f} s or more; "
                   "the cost model predicts with the spec's nominal values")
    ctx, timing = _open(cfg, say, quick, (lambda m: say(f"calibrate: {m}")) if progress else (lambda _m: None))
    # the model traced, the study opened, and any calibration (also on its own: calibration_s)
    timing = {**timing, "setup_s": time.monotonic() - started}
    with Claims(ctx.study, heartbeat_s=cfg.claim_grace_s / 6, grace_s=cfg.claim_grace_s) as claims:
        if cfg.seed is None:  # searchers sharing the study simulate different trials
            ctx = dataclasses.replace(ctx, cfg=dataclasses.replace(cfg, seed=claims.rank()))
        return _search(ctx, claims, budget, timing, profiler_factory, progress, started, show)


def _search(ctx: SearchContext, claims: Claims, budget: Budget, timing: dict[str, float], profiler_factory,
            progress: bool, started: float, show: Callable[[str], None] = print) -> SearchResult:
    """The phases, on an open study, as one of the searchers sharing it: simulated, carried out, profiled, decided,
    written. ``timing`` holds the opening's seconds; each phase's are added from what it returns."""
    cfg = ctx.cfg
    sim = _simulated(ctx, budget, progress)
    ctx.study.set_user_attr(StudyKeys.LOWER_BOUND, ctx.bound.step_s)
    carried = carried_out(ctx, sim)
    if budget.seconds is not None and not cfg.simulate_only and carried.to_profile:
        carried = dataclasses.replace(carried, to_profile=_planned(ctx, budget, carried))
    profiled = _profiled(ctx, sim, carried, claims, budget, profiler_factory, Progress(progress, ctx.say))
    decision = _winner(ctx, sim, carried.builders, profiled.candidates, profiled.interrupted)
    timing = {**timing, "simulated_s": sim.wall_s, **profiled.timing}
    return _written(ctx, sim, carried, profiled, decision, budget, timing, started, show)


def _simulated(ctx: SearchContext, budget: Budget, progress: bool) -> Simulated:
    """The simulated stage, within its share of the time budget; a stage that ends before any trial fits a node's
    memory is an error."""
    cfg, say = ctx.cfg, ctx.say
    journal = Journal(cfg.output / "simulated.jsonl")
    if not cfg.resume and journal.path.exists():
        journal.path.unlink()
    share = budget.share(SIMULATED_SHARE)
    simulated_cfg = cfg if share is None else dataclasses.replace(
        cfg, time_budget_s=min(share, cfg.time_budget_s or share))
    sim = simulate(ctx.space, ctx.scorer, ctx.dists, journal, simulated_cfg, multi=ctx.multi,
                   progress=Progress(progress, say))
    if share is not None and sim.finished < cfg.trials:
        budget.cut(f"the simulated stage stopped at {sim.finished} of {cfg.trials} trials "
                   f"({share:.0f} s of the time budget)")
    say(f"simulated stage: {sim.finished} trials ({sim.pruned} pruned) in {sim.wall_s:.1f} s; "
        f"best predicted {sim.best_s * 1e3:.2f} ms")
    if not sim.interrupted:
        sim.check_fits()
    return sim


def _profiled(ctx: SearchContext, sim: Simulated, carried: Carried, claims: Claims, budget: Budget, factory,
              progress: Progress) -> Profiled:
    """The profiling stage where there is one to run, and what it leaves: the candidates (the other searchers'
    measurements added), the runs, whether a stop cut it short, the closed loop's rounds (also in the study)."""
    cfg = ctx.cfg
    candidates = list(carried.to_profile)  # the rounds after the first add theirs
    interrupted, runs, loop, timing = sim.interrupted, 0, None, {}
    if not cfg.simulate_only and candidates and not interrupted:
        claims.set_phase("profiling")
        loop = _closed_loop(ctx, carried, candidates)
        runs, interrupted, timing = _profile(ctx, sim, claims, factory, progress, loop, candidates, budget)
        if not interrupted:
            claims.set_phase("deciding")
            claims.wait_for_others("deciding", say=ctx.say)
            candidates = candidates + _measured_elsewhere(ctx, candidates)
    if interrupted:  # the runs a stop cut short of a round's end are in the study all the same
        runs = sum(TrialRecord.of(t).stage in MEASURED for t in ctx.study.trials)
    rounds = loop.records() if loop is not None else []
    if loop is not None:
        ctx.study.set_user_attr(StudyKeys.ROUNDS, rounds)  # a report read from the study alone shows them
    return Profiled(candidates=candidates, runs=runs, interrupted=interrupted, rounds=rounds, timing=timing)


def _written(ctx: SearchContext, sim: Simulated, carried: Carried, profiled: Profiled, decision: Decision,
             budget: Budget, timing: dict[str, float], started: float, show: Callable[[str], None]) -> SearchResult:
    """The result: the families' record (also in the study), the outputs written, the table shown."""
    cfg = ctx.cfg
    shown = carried.builders + [c for c in profiled.candidates if all(c is not b for b in carried.builders)]
    families = _families.records(shown, carried.families, tiered=ctx.space.tiered, lossless=cfg.lossless,
                                 unmeasured=_unmeasured(cfg, profiled.interrupted, budget))
    ctx.study.set_user_attr(StudyKeys.FAMILIES, families)
    result = SearchResult(inventory=ctx.inventory, cluster=ctx.cluster, winner=decision.winner, candidates=shown,
                          simulated=sim.finished, pruned=sim.pruned, profiled=profiled.runs,
                          lower_bound_s=ctx.bound.step_s, calibrated=ctx.calibrated,
                          wall_s=time.monotonic() - started, output=cfg.output, study_name=ctx.name, storage=ctx.url,
                          interrupted=profiled.interrupted, kept_builder=decision.kept, rounds=profiled.rounds,
                          families=families)
    timing = {**timing, "total_s": time.monotonic() - started}
    result.timing = {k: round(v, 2) for k, v in timing.items()}
    result.budget = budget.record() if cfg.budget_s is not None else {}
    write_measured_parts(cfg.output, result.candidates, ctx.scorer)  # before the outputs: the notes show them
    write_outputs(result, cfg, sim, ctx.say, show)
    return result


def _profile(ctx: SearchContext, sim: Simulated, claims: Claims, factory, progress: Progress, loop: ClosedLoop,
             candidates: list[Candidate], budget: Budget) -> tuple[int, bool, dict[str, float]]:
    """The profiling stage, round by round: the first round, then each round the closed loop chooses from what
    was measured (appended to ``candidates``) while runs and time are left, then the head-to-head. Returns
    ``(profiling runs done, interrupted, seconds by part)``; every finished measurement is already in the study."""
    stage = ProfilingStage(cfg=ctx.cfg, study=ctx.study, dists=ctx.dists, multi=ctx.multi, sim=sim,
                           inventory=ctx.inventory, cluster=ctx.cluster, progress=progress, claims=claims,
                           factory=factory, budget=budget)
    try:
        with stage:
            # the calibration's anchor steps that are candidates: first-round measurements, not profiled again
            anchored = _anchored.calibration_steps(ctx.inventory, ctx.cluster, ctx.calibration)
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
        return stage.runs, True, dict(stage.timing)
    return stage.runs, False, dict(stage.timing)


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
          progress: Callable[[str], None] = lambda _m: None) -> tuple[SearchContext, dict[str, float]]:
    """Load the model and the cluster, make the space, open (or resume) the persistent study, pick the cost model;
    returns the context and the seconds of a calibration measured here (none: empty)."""
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
    timing: dict[str, float] = {}
    scorer, calibration, calibrated = _scorer(inventory, cluster, cfg, lambda m: say(f"warning: {m}"), say,
                                              self_calibrate, progress, timing)
    ctx = SearchContext(cfg=cfg, cluster=cluster, inventory=inventory, space=space,
                        dists=_study.distributions(space), multi=multi, name=name, url=url, study=study,
                        scorer=scorer, calibration=calibration, calibrated=calibrated,
                        bound=lower_bound(inventory, cluster, calibration), say=say)
    return ctx, timing


def _planned(ctx: SearchContext, budget: Budget, carried: Carried) -> list[Candidate]:
    """Under ``--budget``: what the profiling stage can buy (``_budget.plan``, said in one line, and a cut where it
    falls short of a trustworthy answer), and the first round in the order that buys it: the model's two best
    guesses, then each family's representative, then the rest, so that a short budget cuts the rest first."""
    cfg = ctx.cfg
    p = plan(budget.left(), families=len(carried.families), run_s=budget.next_run_s(), calibrated=ctx.calibrated,
             confirm_s=budget.confirm_s(CONTENDERS, (cfg.confirm_steps or cfg.steps) / max(cfg.steps, 1)))
    budget.plan = p
    ctx.say(p["line"])
    if p["family_runs"] < p["families"] or not p["head_to_head"]:
        budget.cut(p["line"])
    reps = {c.trial for c in carried.families.values()}
    head, rest = carried.to_profile[:2], carried.to_profile[2:]
    return head + [c for c in rest if c.trial in reps] + [c for c in rest if c.trial not in reps]


def _closed_loop(ctx: SearchContext, carried: Carried, first: list[Candidate]) -> ClosedLoop:
    """The closed loop over the rounds after the first (``_loop``), its pool the simulated stage's best and the
    builders (the objects ``carried_out`` made of them). With ``--round-size 0`` it chooses no round and only
    records the first."""
    by_trial = {c.trial: c for c in first}
    pool = first + [by_trial.get(c.trial, c) for c in carried.pool]
    loop = ClosedLoop(ctx.inventory, ctx.cluster, ctx.calibration, pool, ctx.cfg.round_size, ctx.say)
    loop.first(first)
    return loop


def _measured_elsewhere(ctx: SearchContext, mine: list[Candidate]) -> list[Candidate]:
    """The candidates other searchers measured in the shared study (the most pooled measurement of each): every
    searcher decides among everything measured, so all end with the same winner."""
    have = {c.strategy_hash for c in mine}
    best: dict[str, tuple[Any, TrialRecord]] = {}
    for t in ctx.study.trials:
        r = TrialRecord.of(t)
        h = r.strategy_hash
        if r.stage in MEASURED and h and h not in have and t.params and r.measured_s is not None:
            if h not in best or r.pooled_runs > best[h][1].pooled_runs:
                best[h] = (t, r)
    out = []
    for t, r in best.values():
        try:
            strategy = ctx.space.decode(t.params)
        except Exception:  # noqa: BLE001 - a study shared with another space setting: its strategies do not decode
            continue
        out.append(Candidate(params=t.params, strategy=strategy,
                             predicted_s=float("nan") if r.predicted_s is None else r.predicted_s,
                             builders=list(r.builders or []), trial=r.number(t), measured=measurement_of(r)))
    return [c for c in out if c.strategy_hash in best]


def _winner(ctx: SearchContext, sim: Simulated, builders: list[Candidate], to_profile: list[Candidate],
            interrupted: bool) -> Decision:
    """The best measured by the confirmation's rule (and its line when the noise rule kept a builder), else the
    best predicted; every candidate having failed is an error that keeps the simulated trials."""
    measured = [c for c in to_profile if c.measured is not None]
    failed = [c for c in to_profile if c.error]
    if failed and not measured and not interrupted:
        raise RunError(f"every profiled candidate failed; the first, {failed[0].label}: {failed[0].error}",
                       hint=f"the simulated trials are kept in {ctx.url}: fix the cause and rerun with --resume")
    pool = measured or sim.candidates(1) or builders
    if not pool:
        raise BadInput("no trial finished: nothing to write", hint="raise --trials or --time-budget")
    if not measured:
        winner, kept = min(pool, key=lambda c: c.predicted_s), ""
    else:
        winner, kept = decide(measured, ctx.cfg.confirm_within, ctx.cfg.run_noise)
    if kept:
        ctx.say(kept)
    # the rule's outcome, for a report read from the study alone and for the dashboard's list of study attributes
    ctx.study.set_user_attr(StudyKeys.WINNER, winner_attrs(winner))
    return Decision(winner=winner, kept=kept)
