"""Stage 2: profile candidates on the real cluster and put the measurements into the study.

The pipeline drives it round by round (``measure``), then once more head to head (``confirm``); the stage owns the
cluster, the study's records and the claims of searchers sharing the study, and it is the one place that settles a
candidate: measured, failed, or ruled out without a run.
"""
from __future__ import annotations

import dataclasses
import functools
import time

from autotune.tuner import _study
from autotune.tuner._budget import Budget
from autotune.tuner._families import bounds_hold, ruled_out
from autotune.tuner._measurement import Measurement, confirm_reserve, contenders, measured_in, median_se, pooled
from autotune.tuner._profiler import ClusterProfiler, LazyProfiler
from autotune.tuner._record import CONFIRMED, FAILED, PROFILED, TrialRecord
from runners.profile import split_line
from space.errors import failure_line


class ProfilingStage:
    """Measures candidates on the cluster (started on first use) and records them in the study.

    A candidate that fails (a TensorFlow error, a step past its timeout, a server that died) is a FAIL trial in the
    study with its reason, and the search goes on with the next one, on a fresh cluster where the failure may have
    left the old one in a bad state. A cluster that cannot start, or a model that cannot be traced, ends the stage.
    With ``claims`` (``_claims.Claims``), searchers sharing the study divide the candidates: one claimed by another
    live searcher is waited for, not profiled again, and the confirmation is claimed as a whole. ``factory``
    (default :class:`ClusterProfiler`) makes the profiler: ``factory(inventory, cluster, cfg)``, a context manager
    with ``profile(strategy) -> Measurement`` and, optionally, ``profile_together(strategies, steps_per_call)``.
    """

    def __init__(self, *, cfg, study, dists, multi: bool, sim, inventory, cluster, progress, claims=None,
                 factory=None, budget: Budget | None = None) -> None:
        self.cfg, self.study, self.dists, self.multi, self.sim = cfg, study, dists, multi, sim
        self.progress, self.claims = progress, claims
        self.budget = budget or Budget(None)
        self.runs = 0  # profiling runs done here
        self.timing: dict[str, float] = {"profiling_s": 0.0, "confirm_s": 0.0}
        make = factory or functools.partial(ClusterProfiler, on_build=progress.say)
        self.lazy = LazyProfiler(make, inventory, cluster, cfg, say=progress.say)

    def __enter__(self) -> "ProfilingStage":
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.lazy.__exit__(*exc)
        finally:
            self.progress.close()

    # ---- what is left ----------------------------------------------------------------------------------
    def runs_left(self, candidates) -> int:
        """Profiling runs the rounds may still take: the budget less the confirmation's reserve, counting every
        candidate this search has a measurement of, wherever it came from (a resumed study, another searcher); with
        a time budget, no more than the time left (less the confirmation's) holds at the runs' pace so far."""
        # a ruled-out one is free, and so is one the calibration measured
        spent = sum((c.measured is not None and not c.measured.source) or bool(c.error) for c in candidates)
        left = self.cfg.max_profiles - confirm_reserve(self.cfg) - spent
        if self.budget.seconds is not None:
            time_left = self.budget.left() - self._confirm_s_estimate()
            fit = int(max(0.0, time_left) // self.budget.next_run_s())
            if fit < left:
                self.budget.cut(f"{left - fit} profiling run(s) of the refitted rounds did not fit the time budget")
            left = min(left, fit)
        return left

    def _confirm_s_estimate(self) -> float:
        """What the head-to-head is expected to take: each contender built and warmed as a run is, and its steps."""
        n = confirm_reserve(self.cfg)
        return self.budget.confirm_s(n, self.cfg.confirm_steps / max(self.cfg.steps, 1)) if n else 0.0

    def adopt(self, found) -> list:
        """Take each ``(candidate, measurement)`` of ``found`` (the calibration's anchor steps,
        :mod:`autotune.tuner._anchored`) as measured, into the study, unless the study has it already; returns
        the candidates."""
        known = measured_in(self.study)
        for c, m in found:
            if c.strategy_hash in known:
                self._settle(c, measured=known[c.strategy_hash])
                continue
            self._settle(c, measured=m)
            self._record(c, PROFILED)
            if m.phases_s:
                self.budget.steps_s.append(m.phases_s.get("warmup", 0.0) + m.phases_s.get("timed", 0.0))
        if found:
            self.progress.say(f"measured by the calibration, not profiled again: "
                              f"{', '.join(c.label for c, _m in found)}")
        return [c for c, _m in found]

    # ---- rounds ----------------------------------------------------------------------------------------
    def measure(self, todo, everything, desc: str = "profiling") -> None:
        """One round: measure each of ``todo`` not measured before (in this study, by any process sharing it),
        within the runs and the time left; a candidate whose lower bound cannot beat the best step of
        ``everything`` measured so far is ruled out instead; one claimed by another searcher is waited for."""
        started = time.monotonic()
        todo = self._known(todo)[:max(self.cfg.max_profiles - self.runs, 0)]
        self.progress.close()
        self.progress.start(len(todo), desc)
        waiting = []
        try:
            for i, c in enumerate(todo):
                best = min((x.measured.median_s for x in everything if x.measured is not None), default=None)
                why = ruled_out(c, best) if bounds_hold(everything) else ""
                if why:
                    self._settle(c, skipped=why)
                    self.progress.say(f"{c.label} not profiled: {why}")
                    continue
                if not self.budget.allows_run():
                    self.budget.cut(f"{c.label} and the rest of its round did not fit the time budget")
                    break
                if self.claims is not None and not self.claims.claim(c.strategy_hash):
                    waiting.append(c)  # another searcher is profiling it
                    continue
                self._profile_one(c, then=todo[i + 1] if i + 1 < len(todo) else None)
            self._await_others(waiting)
        finally:
            self.timing["profiling_s"] += time.monotonic() - started

    def _known(self, candidates) -> list:
        """The candidates still to measure; the others get their measurement from the study."""
        known = measured_in(self.study)
        todo = []
        for c in candidates:
            if c.strategy_hash in known:
                self._settle(c, measured=known[c.strategy_hash])
            else:
                todo.append(c)
        return todo

    def _profile_one(self, c, then=None) -> None:
        """Measure ``c`` and record it, or record why it failed (and start the cluster again after a RunError); a
        claim held on ``c`` becomes that record, and is released however the measurement ends. A profiler that
        can (``build_ahead``) builds the graph of ``then``, the next candidate, while it measures ``c``."""
        started = time.monotonic()
        self.runs += 1
        try:
            profiler = self.lazy.get()  # a cluster that cannot start ends the stage: every candidate would fail
            # the cluster's start is not the run's: the budget paces the runs after it by what they cost
            started = time.monotonic()
            ahead = getattr(profiler, "build_ahead", None)
            if ahead is not None:
                ahead(*[x.strategy for x in (c, then) if x is not None])
            try:
                m = profiler.profile(c.strategy)
            except Exception as e:  # noqa: BLE001 - a failing candidate is data, not the end of the search
                self._settle(c, error=failure_line(e))
                self._record_failure(c, getattr(e, "node", ""))
                self.progress.say(f"{c.label} failed: {c.error}")
                self.lazy.restart_after(e)
                self.progress.update(last=f"{c.label} failed")
                return
            self._settle(c, measured=m)
            self._record(c, PROFILED)
            if m.phases_s:
                self.budget.steps_s.append(m.phases_s.get("warmup", 0.0) + m.phases_s.get("timed", 0.0))
            if self.cfg.verbose and m.phases_s:
                self.progress.say(f"{c.label} profiled in {split_line(m.phases_s)}")
        finally:
            if self.claims is not None:
                self.claims.release(c.strategy_hash)  # not recorded (interrupted, no cluster): others may take it
            self.budget.run_s.append(time.monotonic() - started)
        self.progress.update(last=f"{c.label} {c.measured.median_s * 1e3:.1f}ms")

    def _await_others(self, waiting, poll_s: float = 1.0) -> None:
        """The candidates another searcher claimed: take its measurement (or its failure) when it lands, or profile
        the candidate here when its claim lapses (that searcher died)."""
        while waiting:
            known, failed = measured_in(self.study), _failures(self.study)
            for c in list(waiting):
                if c.strategy_hash in known:
                    self._settle(c, measured=known[c.strategy_hash])
                elif c.strategy_hash in failed:
                    self._settle(c, error=failed[c.strategy_hash])
                elif self.claims.claim(c.strategy_hash):
                    self._profile_one(c)
                else:
                    continue
                waiting.remove(c)
            if waiting:
                time.sleep(poll_s)

    # ---- the confirmation ------------------------------------------------------------------------------
    def confirm(self, candidates) -> None:
        """Re-measure the closest contenders head to head, with the runs left in ``max_profiles`` (at most
        ``confirm``). A failure there leaves the first measurements to decide. Searchers sharing a study confirm a
        set of contenders once: the one that claims it measures, the others wait and read its result."""
        started = time.monotonic()
        try:
            measured = [c for c in candidates if c.measured is not None]
            close = contenders(measured, min(self.cfg.confirm, self.cfg.max_profiles - self.runs),
                               self.cfg.confirm_within)
            again = [c for c in close if c.measured.runs < 2]  # resumed: a confirmed one keeps its pooled runs
            if not again:
                return
            if not self.budget.fits(self._confirm_s_estimate()):
                self.budget.cut(f"the head-to-head of {', '.join(c.label for c in again)} did not fit the time "
                                "budget: their first runs decide")
                return
            key = "confirm:" + ",".join(sorted(c.strategy_hash for c in again))
            if self.claims is not None and not self.claims.claim(key):
                self.progress.say("another searcher is confirming the same contenders: waiting for its head-to-head")
                self.claims.wait_released(key)
                known = measured_in(self.study)
                for c in again:
                    self._settle(c, measured=known.get(c.strategy_hash, c.measured))
                return
            try:
                self._head_to_head(again)
            finally:
                if self.claims is not None:
                    self.claims.release(key)
        finally:
            self.timing["confirm_s"] += time.monotonic() - started

    def _head_to_head(self, again) -> None:
        self.progress.close()
        self.progress.start(len(again), "confirming")
        self.runs += len(again)
        profiler = self.lazy.get()
        together = getattr(profiler, "profile_together", None)
        try:
            if together is not None and len(again) >= 2:
                # each at the steps per call of its first run: what training of it runs, and what that run measured
                second = together([c.strategy for c in again],
                                  steps_per_call=[c.measured.steps_per_call or None for c in again])
            else:  # a profiler that measures one at a time: the reverse of the first round's order
                second = [profiler.profile(c.strategy) for c in reversed(again)][::-1]
        except Exception as e:  # noqa: BLE001 - the first round's measurements still stand
            self.progress.say(f"confirmation failed, the first round decides: {failure_line(e)}")
            self.lazy.restart_after(e)
            return
        for c, m in zip(again, second):
            first = c.measured
            self._settle(c, measured=dataclasses.replace(pooled(first, m), head_to_head_s=m.median_s,
                                                         head_to_head_se_s=median_se(m.step_times_s)))
            self._record(c, CONFIRMED)
            self.progress.update(last=f"{c.label} {first.median_s * 1e3:.1f}->{m.median_s * 1e3:.1f}ms")

    # ---- settling and recording ------------------------------------------------------------------------
    @staticmethod
    def _settle(c, *, measured: Measurement | None = None, error: str = "", skipped: str = "") -> None:
        """The one place a candidate learns what became of it."""
        if measured is not None:
            c.measured = measured
        if error:
            c.error = error
        if skipped:
            c.skipped = skipped

    def _record(self, c, stage: str) -> None:
        """Record ``c``'s measurement: my claim of it becomes the record, or (no claim held) a trial of its own."""
        m = c.measured
        value = [m.median_s, self.sim.wire_mb(c)] if self.multi else m.median_s
        rec = TrialRecord(stage=stage, predicted_s=c.predicted_s, measured_s=m.median_s, p10_s=m.p10_s,
                          p90_s=m.p90_s, examples_per_s=m.examples_per_s, bytes_per_step=m.bytes_per_step,
                          step_times_s=[round(t, 7) for t in m.step_times_s], runs=m.runs,
                          head_to_head_s=m.head_to_head_s, head_to_head_se_s=m.head_to_head_se_s,
                          steps_per_call=m.steps_per_call, phases_s=m.phases_s, source=m.source,
                          builders=c.builders, sim_trial=c.trial, strategy_hash=c.strategy_hash, family=c.family,
                          lossy=c.lossy)
        values = value if isinstance(value, list) else [value]
        if self.claims is None or not self.claims.finish(c.strategy_hash, c.params, self.dists, values, rec):
            _study.record(self.study, self.dists, c.params, value, rec)

    def _record_failure(self, c, node: str) -> None:
        rec = TrialRecord(stage=FAILED, predicted_s=c.predicted_s, error=c.error, node=node, builders=c.builders,
                          sim_trial=c.trial, strategy_hash=c.strategy_hash)
        if self.claims is None or not self.claims.finish(c.strategy_hash, c.params, self.dists, None, rec):
            _study.record(self.study, self.dists, c.params, None, rec)


def _failures(study) -> dict[str, str]:
    """Per strategy hash, why its profiling failed (any searcher's FAIL trial)."""
    records = [TrialRecord.of(t) for t in study.trials]
    return {r.strategy_hash: FAILED if r.error is None else r.error for r in records
            if r.stage == FAILED and r.strategy_hash}
