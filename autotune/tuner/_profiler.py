"""The cluster the profiling stage measures on: its servers started once, on first use, and started again after a
failure that may have left them in a bad state."""
from __future__ import annotations

from autotune.tuner._measurement import Measurement
from runners._trace import TRACES
from runners.cluster import start_cluster
from runners.profile import profile_strategy, profile_together
from space.errors import RunError, failure_line
from space.model import trace_step

CONFIRM_ROUNDS = 10  # turns of the confirmation's head-to-head (each a chunk of confirm_steps / 10 steps)
# the most seconds a candidate's timed steps, and the head-to-head's turns, take: a slow step gets fewer samples
# (runners.profile.samples_within), the examples' steps all of theirs
PROFILE_S = 10.0
CONFIRM_S = 60.0


class ClusterProfiler:
    """Starts the cluster's servers once and profiles strategies on them (fresh collective keys per trial)."""

    def __init__(self, inventory, cluster, cfg, on_build=None) -> None:
        self.inventory, self.cluster, self.cfg, self.on_build = inventory, cluster, cfg, on_build
        self._running = None
        self._traced_ids: set[str] = set()

    def __enter__(self) -> "ClusterProfiler":
        self._traced = trace_step(self.cfg.model)  # once per search: every candidate reuses the trace
        self._running = start_cluster(self.cluster, accept_unknown_hosts=self.cfg.accept_unknown_hosts)
        return self

    def profile(self, strategy) -> Measurement:
        r = profile_strategy(self._traced, strategy, self._running, steps=self.cfg.steps, warmup=self.cfg.warmup,
                             on_build=self.on_build, within_s=PROFILE_S, trace_dir=self._trace_dir(strategy))
        return result_measurement(r)

    def _trace_dir(self, strategy) -> str | None:
        """Where to trace ``strategy``: the output's traces while fewer than ``trace_top`` were traced."""
        if len(self._traced_ids) >= self.cfg.trace_top or strategy.proto.id in self._traced_ids:
            return None
        self._traced_ids.add(strategy.proto.id)
        return str(self.cfg.output / TRACES)  # runners._trace: the folder of a search's traces

    def profile_together(self, strategies, steps_per_call=None) -> list[Measurement]:
        # the contenders are within one run's noise of each other: more steps, in more turns, than a first run
        # (SearchConfig resolves confirm_steps; take_turns caps the turns at the steps)
        rs = profile_together(self._traced, strategies, self._running, steps=self.cfg.confirm_steps,
                              warmup=self.cfg.warmup, rounds=CONFIRM_ROUNDS, on_build=self.on_build,
                              steps_per_call=steps_per_call, within_s=CONFIRM_S)
        return [result_measurement(r) for r in rs]

    def __exit__(self, *exc) -> None:
        if self._running is not None:
            self._running.close()
            self._running = None


def result_measurement(r) -> Measurement:
    """A :class:`Measurement` of a ``runners.profile.ProfileResult``."""
    return Measurement(median_s=r.median_s, p10_s=r.p10_s, p90_s=r.p90_s, examples_per_s=r.examples_per_s,
                       bytes_per_step=r.bytes_per_step, step_times_s=tuple(r.step_times_s),
                       steps_per_call=r.steps_per_call)


class LazyProfiler:
    """Enters the profiler (starts the cluster) on first use only: a resumed search with nothing left to
    measure starts nothing. A start that fails for the work's reasons (:class:`RunError`: a server killed or
    dead while the cluster started) is tried once more; a second failure ends the stage."""

    def __init__(self, factory, *args, say=lambda _m: None) -> None:
        self._make, self._args, self._cm, self._profiler, self._say = factory, args, None, None, say

    def __enter__(self) -> "LazyProfiler":
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
