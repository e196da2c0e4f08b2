"""The cluster the profiling stage measures on: its servers started once, on first use, and started again after a
failure that may have left them in a bad state."""
from __future__ import annotations

import concurrent.futures

from autotune.tuner._measurement import Measurement
from runners._trace import TRACES
from runners.cluster import start_cluster
from runners.profile import copies_ahead, profile_strategy, profile_together
from runners.transform import job_graph
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
        # the steps per call the first lockstep candidate chose, at which every later one is measured (None: none
        # chose yet): like is compared with like, and a candidate skips the choice's probe calls and the one-step
        # call's executors
        self._steps_per_call: int | None = None
        self._ahead: list = []  # (strategy, future of its graph), built in order in one thread
        self._builder = None

    def __enter__(self) -> "ClusterProfiler":
        self._traced = trace_step(self.cfg.model)  # once per search: every candidate reuses the trace
        self._running = start_cluster(self.cluster, accept_unknown_hosts=self.cfg.accept_unknown_hosts)
        self._builder = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="autotune-build")
        return self

    def build_ahead(self, *strategies) -> None:
        """Build the graphs of ``strategies`` (the one to profile now, then the next) in the background, in order:
        the next one's graph is built in the driver while the servers build this one's executors. A graph built
        for a strategy then not profiled (ruled out, claimed elsewhere) is dropped."""
        keep = [(s, f) for s, f in self._ahead if any(s is x for x in strategies)]
        for _s, f in self._ahead:
            if all(f is not g for _x, g in keep):
                f.cancel()
        self._ahead = keep
        copies = copies_ahead(self.cfg.steps, self._steps_per_call)
        for s in strategies:
            if all(s is not x for x, _f in self._ahead):
                self._ahead.append((s, self._builder.submit(job_graph, self._traced, s, self._running,
                                                            copies=copies)))

    def _settled(self) -> None:
        """Wait for every graph building in the background: the driver's CPU is the timed steps' alone."""
        concurrent.futures.wait([f for _s, f in self._ahead])

    def profile(self, strategy) -> Measurement:
        graph = next((f for s, f in self._ahead if s is strategy), None)
        self._ahead = [(s, f) for s, f in self._ahead if s is not strategy]
        r = profile_strategy(self._traced, strategy, self._running, steps=self.cfg.steps, warmup=self.cfg.warmup,
                             on_build=self.on_build, within_s=PROFILE_S, steps_per_call=self._steps_per_call,
                             graph=graph, settled=self._settled, trace_dir=self._trace_dir(strategy))
        if self._steps_per_call is None and r.mode == "lockstep":
            self._steps_per_call = r.steps_per_call
        return result_measurement(r)

    def _trace_dir(self, strategy) -> str | None:
        """Where to trace ``strategy``: the output's traces while fewer than ``trace_top`` were traced."""
        if len(self._traced_ids) >= self.cfg.trace_top or strategy.proto.id in self._traced_ids:
            return None
        self._traced_ids.add(strategy.proto.id)
        return str(self.cfg.output / TRACES)  # runners._trace: the folder of a search's traces

    def profile_together(self, strategies, steps_per_call=None) -> list[Measurement]:
        self.build_ahead()  # nothing ahead any more: drop what was, and let it finish before the turns
        self._settled()
        # the contenders are within one run's noise of each other: more steps, in more turns, than a first run
        # (SearchConfig resolves confirm_steps; take_turns caps the turns at the steps)
        rs = profile_together(self._traced, strategies, self._running, steps=self.cfg.confirm_steps,
                              warmup=self.cfg.warmup, rounds=CONFIRM_ROUNDS, on_build=self.on_build,
                              steps_per_call=steps_per_call, within_s=CONFIRM_S)
        return [result_measurement(r) for r in rs]

    def __exit__(self, *exc) -> None:
        if self._builder is not None:
            self._builder.shutdown(cancel_futures=True)
            self._builder, self._ahead = None, []
        if self._running is not None:
            self._running.close()
            self._running = None


def result_measurement(r) -> Measurement:
    """A :class:`Measurement` of a ``runners.profile.ProfileResult``."""
    return Measurement(median_s=r.median_s, p10_s=r.p10_s, p90_s=r.p90_s, examples_per_s=r.examples_per_s,
                       bytes_per_step=r.bytes_per_step, step_times_s=tuple(r.step_times_s),
                       steps_per_call=r.steps_per_call, phases_s=dict(r.phases_s))


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
