"""Stage 2: profile the chosen candidates on the real cluster and put the measurements into the study.

Two rounds on one started cluster. The first measures each candidate once. One measurement of a step time on a
shared machine is noisy, so picking the minimum of several single measurements favours whichever got lucky: on
the emulated testbed the same strategy measured a few seconds apart differs by 10-20%, because the machine's
speed drifts over seconds, while steps within one run agree to a few percent. The second round (*confirmation*)
spends the runs left in the budget on the best, the best builder and the candidates closest to them, measured
head to head (their jobs take turns, so the drift falls on all of them alike), and the winner is the fastest in
that comparison.
"""
from __future__ import annotations

import dataclasses
import functools
import logging
import time

import numpy as np

from autotune.search import _study
from autotune.search._families import rule_out
from space.errors import RunError, failure_line

log = logging.getLogger(__name__)

CONFIRM_ROUNDS = 10  # turns of the confirmation's head-to-head (each a chunk of confirm_steps / 10 steps)
NOISE_Z = 2.0  # a mix displaces the best builder only when faster head to head by this many standard errors


def median_se(times) -> float:
    """Standard error of the median of ``times``: 1.2533 sigma / sqrt(n), sigma from the interquartile range (robust
    to the odd slow step); 0 with fewer than 4 steps."""
    if len(times) < 4:
        return 0.0
    q25, q75 = np.percentile(np.asarray(times, float), [25, 75])
    return float(1.2533 * (q75 - q25) / 1.349 / np.sqrt(len(times)))


@dataclasses.dataclass(frozen=True)
class Measurement:
    median_s: float
    p10_s: float
    p90_s: float
    examples_per_s: float
    bytes_per_step: float = 0.0
    step_times_s: tuple[float, ...] = ()
    runs: int = 1  # profiling runs pooled into this measurement
    head_to_head_s: float = 0.0  # median in the confirmation's head-to-head comparison (0: not confirmed)
    head_to_head_se_s: float = 0.0  # standard error of that median, from its steps' spread (0: unknown)
    steps_per_call: int = 0  # the steps per call it was measured at, which training of it runs (0: unknown)


def pooled(a: Measurement, b: Measurement) -> Measurement:
    """Two measurements of one strategy as one: the quantiles of every timed step when both kept their steps,
    else the run-weighted mean of the medians (and the wider spread)."""
    runs = a.runs + b.runs
    if a.step_times_s and b.step_times_s:
        times = np.asarray(a.step_times_s + b.step_times_s)
        median, p10, p90 = (float(np.percentile(times, q)) for q in (50, 10, 90))
    else:
        median = (a.median_s * a.runs + b.median_s * b.runs) / runs
        p10, p90 = min(a.p10_s, b.p10_s), max(a.p90_s, b.p90_s)
    examples = a.examples_per_s * a.median_s / median if median > 0 else a.examples_per_s  # global batch / step
    return Measurement(median, p10, p90, examples, a.bytes_per_step, a.step_times_s + b.step_times_s, runs,
                       steps_per_call=a.steps_per_call)


class ClusterProfiler:
    """Starts the cluster's servers once and profiles strategies on them (fresh collective keys per trial)."""

    def __init__(self, inventory, cluster, cfg, on_build=None) -> None:
        self.inventory, self.cluster, self.cfg, self.on_build = inventory, cluster, cfg, on_build
        self._running = None
        self._session = None

    def __enter__(self) -> "ClusterProfiler":
        from runners.cluster import start_cluster
        from space.model import trace_step

        self._traced = trace_step(self.cfg.model)  # once per search: every candidate reuses the trace
        self._running = start_cluster(self.cluster, accept_unknown_hosts=self.cfg.accept_unknown_hosts)
        return self

    def profile(self, strategy) -> Measurement:
        from runners.profile import profile_strategy

        r = profile_strategy(self._traced, strategy, self._running, steps=self.cfg.steps, warmup=self.cfg.warmup,
                             on_build=self.on_build)
        return _from_result(r)

    def profile_together(self, strategies, steps_per_call=None) -> list[Measurement]:
        from runners.profile import profile_together

        # the contenders are within one run's noise of each other: more steps, in more turns, than a first run
        # (SearchConfig resolves confirm_steps; take_turns caps the turns at the steps)
        rs = profile_together(self._traced, strategies, self._running, steps=self.cfg.confirm_steps,
                              warmup=self.cfg.warmup, rounds=CONFIRM_ROUNDS, on_build=self.on_build,
                              steps_per_call=steps_per_call)
        return [_from_result(r) for r in rs]

    def __exit__(self, *exc) -> None:
        if self._running is not None:
            self._running.close()
            self._running = None


def _from_result(r) -> Measurement:
    return Measurement(median_s=r.median_s, p10_s=r.p10_s, p90_s=r.p90_s, examples_per_s=r.examples_per_s,
                       bytes_per_step=r.bytes_per_step, step_times_s=tuple(r.step_times_s),
                       steps_per_call=r.steps_per_call)


def _measurement(attrs: dict) -> Measurement:
    m = attrs["measured_s"]
    return Measurement(m, attrs.get("p10_s", m), attrs.get("p90_s", m), attrs.get("examples_per_s", 0.0),
                       attrs.get("bytes_per_step", 0.0), tuple(attrs.get("step_times_s") or ()), attrs.get("runs", 1),
                       attrs.get("head_to_head_s", 0.0), attrs.get("head_to_head_se_s", 0.0),
                       attrs.get("steps_per_call", 0))


def _already_measured(study) -> dict[str, Measurement]:
    """Per strategy hash, the measurement that pooled the most runs (a confirmation supersedes its first run)."""
    out: dict[str, Measurement] = {}
    for t in study.trials:
        a = t.user_attrs
        if a.get("stage") in ("profiled", "confirmed") and a.get("strategy_hash") and "measured_s" in a:
            m = _measurement(a)
            if a["strategy_hash"] not in out or m.runs > out[a["strategy_hash"]].runs:
                out[a["strategy_hash"]] = m
    return out


def contenders(measured: list, n: int, within: float) -> list:
    """The candidates to re-measure: those within ``within`` (relative) of the best measured, at most ``n``: the
    best first, then the best builder among them (the reference the search must beat), then the others by
    their step time; none when fewer than two qualify (a clear winner needs no confirmation)."""
    if n < 2:
        return []
    ranked = sorted(measured, key=lambda c: c.measured.median_s)
    close = [c for c in ranked if c.measured.median_s <= ranked[0].measured.median_s * (1 + within)]
    builder = next((c for c in close if c.builders), None)
    if builder is not None:
        close = [close[0]] + ([builder] if builder is not close[0] else []) + [c for c in close[1:] if c is not builder]
    close = close[:n]
    return close if len(close) >= 2 else []


def _confirmed_time(c) -> float:
    return c.measured.head_to_head_s or c.measured.median_s


def choose(measured: list, within: float, run_noise: float = 0.0):
    """The winner among measured candidates: the fastest, except that a single measurement within ``within``
    of a confirmed one does not displace it; then the fastest in the confirmation's head-to-head wins, except
    that a mix faster than the best builder there by less than the comparison's noise does not displace it."""
    return decide(measured, within, run_noise)[0]


def decide(measured: list, within: float, run_noise: float = 0.0):
    """``choose``'s winner and, when the noise rule kept a builder, a line saying so (else "").

    The noise rule: each head-to-head median has a standard error from its own steps' spread and, beyond that,
    ``run_noise`` (relative): one job's median moves that much from one comparison to the next (the order the
    jobs were built in, where their memory landed, the moments its turns saw). The difference of two medians
    has the root sum of squares of both; a mix must be faster than the best builder by ``NOISE_Z`` of those,
    else the builder, as fast as far as the comparison can tell and a known quantity, is kept.
    """
    best = min(measured, key=lambda c: c.measured.median_s)
    confirmed = [c for c in measured
                 if c.measured.runs >= 2 and c.measured.median_s <= best.measured.median_s * (1 + within)]
    if not confirmed:
        return best, ""
    winner = min(confirmed, key=_confirmed_time)
    builder = min((c for c in confirmed if c.builders), key=_confirmed_time, default=None)
    if builder is None or winner.builders:
        return winner, ""
    w, b = winner.measured, builder.measured
    margin = NOISE_Z * float(np.hypot(np.hypot(w.head_to_head_se_s, run_noise * w.head_to_head_s),
                                      np.hypot(b.head_to_head_se_s, run_noise * b.head_to_head_s)))
    if w.head_to_head_s and b.head_to_head_s and b.head_to_head_s - w.head_to_head_s <= margin:
        return builder, (f"kept {builder.label}: {winner.label} was {1 - w.head_to_head_s / b.head_to_head_s:.1%} "
                         f"faster head to head, within the comparison's noise ({NOISE_Z:g} standard errors: "
                         f"{margin / b.head_to_head_s:.1%})")
    return winner, ""


def _record(study, dists, c, multi, sim, stage: str, claims=None) -> None:
    """Record ``c``'s measurement: my claim of it becomes the record, or (no claim held) a trial of its own."""
    m = c.measured
    value = [m.median_s, sim.wire_mb(c)] if multi else m.median_s
    attrs = {"stage": stage, "predicted_s": c.predicted_s, "measured_s": m.median_s, "p10_s": m.p10_s,
             "p90_s": m.p90_s, "examples_per_s": m.examples_per_s, "bytes_per_step": m.bytes_per_step,
             "step_times_s": [round(t, 7) for t in m.step_times_s], "runs": m.runs,
             "head_to_head_s": m.head_to_head_s, "head_to_head_se_s": m.head_to_head_se_s,
             "steps_per_call": m.steps_per_call, "builders": c.builders, "sim_trial": c.trial,
             "strategy_hash": c.strategy_hash, "family": c.family, "lossy": c.lossy}
    values = value if isinstance(value, list) else [value]
    if claims is None or not claims.finish(c.strategy_hash, c.params, dists, values, attrs):
        _study.record(study, dists, c.params, value, attrs)


def _record_failure(study, dists, c, e: BaseException, claims=None) -> None:
    c.error = failure_line(e)
    attrs = {"stage": "failed", "predicted_s": c.predicted_s, "error": c.error, "node": getattr(e, "node", ""),
             "builders": c.builders, "sim_trial": c.trial, "strategy_hash": c.strategy_hash}
    if claims is None or not claims.finish(c.strategy_hash, c.params, dists, None, attrs):
        _study.record(study, dists, c.params, None, attrs)


def confirm_reserve(cfg) -> int:
    """Profiling runs kept back for the confirmation: ``confirm`` when the budget still leaves two candidates to
    compare, else none."""
    return cfg.confirm if cfg.confirm >= 2 and cfg.max_profiles - cfg.confirm >= 2 else 0


def profile_candidates(candidates, study, dists, inventory, cluster, cfg, factory, progress, multi, sim,
                       claims=None, more=None, timing=None):
    """Profile each candidate not measured before (in this study, by any process sharing it); then, with ``more``
    (``more(candidates, runs left) -> next round``, :class:`autotune.search._loop.ClosedLoop`), the rounds it
    chooses from what was measured, each appended to ``candidates``; then re-measure the closest contenders with
    the runs left in ``cfg.max_profiles`` (at most ``cfg.confirm``).

    A candidate that fails (a TensorFlow error, a step past its timeout, a server that died) is a FAIL trial in the
    study with its reason, and the search goes on with the next one, on a fresh cluster where the failure may have
    left the old one in a bad state. A cluster that cannot start, or a model that cannot be traced, ends the stage.
    With ``claims`` (``_claims.Claims``), searchers sharing the study divide the candidates: one claimed by another
    live searcher is waited for, not profiled again, and the confirmation is claimed as a whole.
    Returns ``(profiling runs done, interrupted)``; every finished measurement is already in the study.
    ``timing`` (a dict) gets the seconds of the rounds (``profiling_s``) and of the confirmation (``confirm_s``).
    """
    timing = {} if timing is None else timing
    started = time.monotonic()
    runs = 0
    try:
        with _Lazy(factory or functools.partial(ClusterProfiler, on_build=progress.say), inventory, cluster, cfg,
                   say=progress.say) as lazy:
            todo = _known(candidates, study)[:max(cfg.max_profiles, 0)]
            runs += _round(todo, "profiling", lazy, study, dists, multi, sim, progress, claims, candidates)
            while more is not None:
                # the budget counts every candidate this search has a measurement of, wherever it came from (a
                # resumed study, another searcher): a resumed search goes on where it stopped, not afresh
                spent = sum(c.measured is not None or bool(c.error) for c in candidates)  # a ruled-out one is free
                new = [c for c in more(candidates, cfg.max_profiles - confirm_reserve(cfg) - spent)
                       if all(c is not x for x in candidates)]
                if not new:
                    break
                candidates.extend(new)
                todo = _known(new, study)[:max(cfg.max_profiles - runs, 0)]
                runs += _round(todo, "profiling (refitted)", lazy, study, dists, multi, sim, progress, claims,
                               candidates)
            if claims is not None:
                claims.set_phase("profiled")
                claims.wait_for_others("profiled", say=progress.say)
            timing["profiling_s"] = time.monotonic() - started
            runs += _confirm(candidates, study, dists, cfg, lazy, progress, multi, sim, runs, claims)
    except KeyboardInterrupt:
        return runs, True
    finally:
        progress.close()
        timing.setdefault("profiling_s", time.monotonic() - started)
        timing["confirm_s"] = time.monotonic() - started - timing["profiling_s"]
    return runs, False


def _known(candidates, study) -> list:
    """The candidates still to measure; the others get their measurement from the study."""
    known = _already_measured(study)
    todo = []
    for c in candidates:
        if c.strategy_hash in known:
            c.measured = known[c.strategy_hash]
        else:
            todo.append(c)
    return todo


def _round(todo, desc, lazy, study, dists, multi, sim, progress, claims, everything=()) -> int:
    """Measure ``todo`` (one round), waiting for those another searcher claimed; a candidate whose lower bound
    cannot beat the best step of ``everything`` measured so far is ruled out instead. Returns the runs done here."""
    progress.close()
    progress.start(len(todo), desc)
    runs, waiting = 0, []
    for c in todo:
        best = min((x.measured.median_s for x in everything if x.measured is not None), default=None)
        if rule_out(c, best):
            progress.say(f"{c.label} not profiled: {c.skipped}")
            continue
        if claims is not None and not claims.claim(c.strategy_hash):
            waiting.append(c)  # another searcher is profiling it
            continue
        runs += 1
        _profile_one(c, lazy, study, dists, multi, sim, progress, claims)
    return runs + _await_others(waiting, claims, lazy, study, dists, multi, sim, progress)


def _profile_one(c, lazy, study, dists, multi, sim, progress, claims=None) -> None:
    """Measure ``c`` and record it, or record why it failed (and start the cluster again after a RunError); a claim
    held on ``c`` becomes that record, and is released however the measurement ends."""
    try:
        profiler = lazy.get()  # a cluster that cannot start ends the stage: every candidate would fail
        try:
            c.measured = profiler.profile(c.strategy)
        except Exception as e:  # noqa: BLE001 - a failing candidate is data, not the end of the search
            _record_failure(study, dists, c, e, claims)
            progress.say(f"{c.label} failed: {c.error}")
            lazy.restart_after(e)
            progress.update(last=f"{c.label} failed")
            return
        _record(study, dists, c, multi, sim, "profiled", claims)
    finally:
        if claims is not None:
            claims.release(c.strategy_hash)  # not recorded (interrupted, no cluster): others may take it
    progress.update(last=f"{c.label} {c.measured.median_s * 1e3:.1f}ms")


def _await_others(waiting, claims, lazy, study, dists, multi, sim, progress, poll_s: float = 1.0) -> int:
    """The candidates another searcher claimed: take its measurement (or its failure) when it lands, or profile the
    candidate here when its claim lapses (that searcher died). Returns the profiling runs done here."""
    runs = 0
    while waiting:
        known, failed = _already_measured(study), _failures(study)
        for c in list(waiting):
            if c.strategy_hash in known:
                c.measured = known[c.strategy_hash]
            elif c.strategy_hash in failed:
                c.error = failed[c.strategy_hash]
            elif claims.claim(c.strategy_hash):
                runs += 1
                _profile_one(c, lazy, study, dists, multi, sim, progress, claims)
            else:
                continue
            waiting.remove(c)
        if waiting:
            time.sleep(poll_s)
    return runs


def _failures(study) -> dict[str, str]:
    """Per strategy hash, why its profiling failed (any searcher's FAIL trial)."""
    return {t.user_attrs["strategy_hash"]: t.user_attrs.get("error", "failed") for t in study.trials
            if t.user_attrs.get("stage") == "failed" and t.user_attrs.get("strategy_hash")}


def _confirm(candidates, study, dists, cfg, lazy, progress, multi, sim, runs: int, claims=None) -> int:
    """The confirmation round: the closest contenders head to head. Returns its profiling runs. A failure there
    leaves the first round's measurements to decide. Searchers sharing a study confirm a set of contenders once:
    the one that claims it measures, the others wait and read its result."""
    measured = [c for c in candidates if c.measured is not None]
    close = contenders(measured, min(cfg.confirm, cfg.max_profiles - runs), cfg.confirm_within)
    again = [c for c in close if c.measured.runs < 2]  # resumed: a confirmed one keeps its pooled runs
    if not again:
        return 0
    key = "confirm:" + ",".join(sorted(c.strategy_hash for c in again))
    if claims is not None and not claims.claim(key):
        progress.say("another searcher is confirming the same contenders: waiting for its head-to-head")
        claims.wait_released(key)
        known = _already_measured(study)
        for c in again:
            c.measured = known.get(c.strategy_hash, c.measured)
        return 0
    try:
        return _head_to_head(again, study, dists, lazy, progress, multi, sim)
    finally:
        if claims is not None:
            claims.release(key)


def _head_to_head(again, study, dists, lazy, progress, multi, sim) -> int:
    progress.close()
    progress.start(len(again), "confirming")
    profiler = lazy.get()
    together = getattr(profiler, "profile_together", None)
    try:
        if together is not None and len(again) >= 2:
            # each at the steps per call of its first run: what training of it runs, and what that run measured
            again_measured = together([c.strategy for c in again],
                                      steps_per_call=[c.measured.steps_per_call or None for c in again])
        else:  # a profiler that measures one at a time: the reverse of the first round's order
            again_measured = [profiler.profile(c.strategy) for c in reversed(again)][::-1]
    except Exception as e:  # noqa: BLE001 - the first round's measurements still stand
        progress.say(f"confirmation failed, the first round decides: {failure_line(e)}")
        lazy.restart_after(e)
        return len(again)
    for c, m in zip(again, again_measured):
        first = c.measured
        c.measured = dataclasses.replace(pooled(first, m), head_to_head_s=m.median_s,
                                         head_to_head_se_s=median_se(m.step_times_s))
        _record(study, dists, c, multi, sim, "confirmed")
        progress.update(last=f"{c.label} {first.median_s * 1e3:.1f}->{m.median_s * 1e3:.1f}ms")
    return len(again)


class _Lazy:
    """Enters the profiler (starts the cluster) on first use only: a resumed search with nothing left to
    measure starts nothing. A start that fails for the work's reasons (:class:`RunError`: a server killed or
    dead while the cluster started) is tried once more; a second failure ends the stage."""

    def __init__(self, factory, *args, say=lambda _m: None) -> None:
        self._make, self._args, self._cm, self._profiler, self._say = factory, args, None, None, say

    def __enter__(self) -> "_Lazy":
        return self

    def get(self):
        if self._profiler is None:
            try:
                self._enter()
            except RunError as e:
                self._say(f"the cluster failed to start, starting it again: {failure_line(e)}")
                self._enter()
        return self._profiler

    def _enter(self) -> None:
        cm = self._make(*self._args)
        self._profiler = cm.__enter__()
        self._cm = cm

    def restart_after(self, error: BaseException) -> None:
        """After a failure that may have left the servers in a bad state (any :class:`RunError`: a dead server,
        a step cut by its timeout), stop the cluster; the next :meth:`get` starts a fresh one."""
        if isinstance(error, RunError) and self._cm is not None:
            cm, self._cm, self._profiler = self._cm, None, None
            cm.__exit__(None, None, None)

    def __exit__(self, *exc) -> None:
        if self._cm is not None:
            self._cm.__exit__(*exc)
