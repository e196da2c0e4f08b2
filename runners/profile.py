"""Measure a strategy's real step time on a running cluster: median, spread, throughput, bytes per step.

``profile_strategy`` is what the search calls, many times on one running cluster (each trial builds its own
graph with fresh collective keys and frees its variables afterwards); ``profile_together`` is its head-to-head
confirmation, several strategies taking turns. ``profile_files`` is the CLI's path:
load, trace, validate, start the servers, profile once, stop them.
"""
from __future__ import annotations

import contextlib
import dataclasses
import statistics
import time
from typing import Any, Callable, Collection

from runners._peak_memory import PeakWatch
from runners._step_stats import TraceSummary
from runners._trace import trace_job
from runners.cluster import start_cluster
from runners.transform import TrainingJob, closed_together, graphs_ahead, job_graph
from space.cluster import load_cluster
from space.errors import BadInput
from space.model import inventory_from_trace, trace_step
from space.strategy import Strategy
from space.validate import validate


@dataclasses.dataclass
class ProfileResult:
    strategy_id: str
    builder: str
    mode: str  # "lockstep" | "threads" (all-async PS)
    num_replicas: int
    global_batch: int
    steps: int
    warmup: int
    step_times_s: list[float]
    median_s: float
    p10_s: float
    p90_s: float
    examples_per_s: float
    bytes_per_step: float  # estimated from the transfer plan: bytes crossing between nodes per step
    setup_s: float  # graph build + session + variable initialization
    final_loss: float
    steps_per_call: int = 1  # each of ``step_times_s`` is one call's seconds over its steps
    trace: TraceSummary | None = None  # the traced steps after the timed ones, where asked for (runners._trace)
    trace_s: float = 0.0  # seconds spent tracing and writing the trace
    peak_memory: dict = dataclasses.field(default_factory=dict)  # node -> runners._peak_memory.TaskPeak's data
    phases_s: dict = dataclasses.field(default_factory=dict)  # the run's wall time by phase (PhaseClock.split)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def summary(self) -> str:
        return (f"strategy {self.strategy_id} ({self.builder or 'custom'}; {self.num_replicas} replicas, {self.mode})\n"
                f"step time  median {self.median_s * 1e3:.2f} ms   p10 {self.p10_s * 1e3:.2f} ms   "
                f"p90 {self.p90_s * 1e3:.2f} ms   ({self.steps} {self._samples()} after {self.warmup} warm-up)\n"
                f"throughput {self.examples_per_s:,.0f} examples/s (global batch {self.global_batch})\n"
                f"moved      {self.bytes_per_step / 1e6:.3f} MB per step between nodes (estimate)\n"
                f"setup      {self.setup_s:.2f} s" + ("" if self.trace is None else
                                                   f"\ntrace      {self.trace_s:.2f} s\n{self.trace.table()}"))


    def _samples(self) -> str:
        return "steps" if self.steps_per_call == 1 else f"calls of {self.steps_per_call} steps"


PHASES = ("graph", "session", "executors", "ahead", "warmup", "steps_per_call", "timed", "close")


def split_line(phases: dict) -> str:
    """A profiling run's :meth:`PhaseClock.split` in one line: the total, each phase, and the overhead."""
    parts = [f"{p} {phases[p]:.2f}" for p in PHASES if p in phases]
    calls = ", ".join(f"{k} {v:.2f}" for k, v in phases.get("executors_by_call", {}).items())
    return (f"{phases.get('total', 0.0):.2f} s = " + " + ".join(parts) + (f" (executors: {calls})" if calls else "")
            + f"; overhead beyond the steps {phases.get('overhead', 0.0):.2f} s")


def _quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


# fewer timed samples than this: one step per call. Choosing k runs probe calls of its own and builds k copies of
# the step's graph (about 50 ms each), more than a profile this short measures; such a profile is a smoke check
CHOOSE_MIN_STEPS = 10
# the fewest samples a slow step's timing is cut to (samples_within)
MIN_SAMPLES = 5


def settle_steps_per_call(job, warm: list[float], samples: int, steps_per_call: int | None = None) -> int:
    """Set the steps per call of ``job`` (a ``TrainingJob`` past its warm-up, ``warm`` its warm calls' seconds:
    :func:`warm_calls`) before it is timed for ``samples`` calls, and return it: ``steps_per_call`` where given;
    else chosen (``TrainingJob.choose_steps_per_call``, at most ``TrainingJob.MAX_STEPS_PER_CALL``, as training
    chooses) where ``samples >= CHOOSE_MIN_STEPS`` and a warm-up ran; else 1.
    Above 1, runs the first call of that many steps where none ran yet, which builds its executors on the servers.
    What ``profile`` and ``calibrate`` time is so one step as training runs it."""
    if steps_per_call is not None:
        k = job.set_steps_per_call(steps_per_call)
    elif samples >= CHOOSE_MIN_STEPS and warm:
        k = job.choose_steps_per_call(statistics.median(warm))
    else:
        k = job.set_steps_per_call(1)
    if k > 1 and k not in job.built_calls:
        job.run(k)
    return k


def copies_ahead(samples: int, steps_per_call: int | None = None) -> int:
    """The copies of the step to build with a job's graph (``runners.transform.job_graph``) before
    :func:`settle_steps_per_call` sets its steps per call for ``samples`` calls: the most it can choose."""
    if steps_per_call is not None:
        return steps_per_call
    return TrainingJob.MAX_STEPS_PER_CALL if samples >= CHOOSE_MIN_STEPS else 1


def profile_strategy(traced, strategy, cluster, *, steps: int = 20, warmup: int = 5,
                     step_timeout_s: float = 120.0, steps_per_call: int | None = None,
                     on_build: Callable[[str], None] | None = None, within_s: float | None = None,
                     graph=None, settled: Callable[[], None] | None = None,
                     trace_dir: str | None = None) -> ProfileResult:
    """Run ``warmup`` one-step calls of ``strategy`` on ``cluster``, then time ``steps`` calls of ``steps_per_call``
    steps each: each sample is a call's seconds over its steps. The result's ``phases_s`` splits the run's wall
    time (:class:`PhaseClock`).

    Args:
        traced: ``space.model.trace_step(model_path)`` (trace once per search; it is not modified).
        strategy: a validated ``space.strategy.Strategy`` for that model and the cluster's spec.
        cluster: a :class:`runners.cluster.RunningCluster` (reused across calls).
        steps_per_call: ``None`` chooses it after the warm-up (``TrainingJob.choose_steps_per_call``, which runs
            a few calls of its own), so that the call's own cost is no more than a small share of a sample, as in
            training, when ``steps >= CHOOSE_MIN_STEPS`` (else 1); 1 times every call of one step (threads mode
            always does).
        on_build: told every few seconds while the servers build a call's executors (``TrainingJob``).
        within_s: time fewer samples where ``steps`` of them would take longer than this, as the warm-up's steps
            tell (:func:`samples_within`); ``None`` times ``steps``.
        graph: the job's graph built ahead (a future of :func:`runners.transform.job_graph`, or the graph, with
            :func:`copies_ahead` copies), so that its build overlaps another run; default: built here.
        settled: called once the servers built the first call's executors, before the warm calls: a caller building
            another graph meanwhile waits for it here, so that the timed steps have the driver to themselves.
        trace_dir: after the timed samples, trace a few steps on every task into a Chrome trace and summary there
            (:func:`runners._trace.trace_job`), outside the phases' clock (its seconds: ``trace_s``).
    Raises:
        RunError: a step hung past ``step_timeout_s`` or a server died (the message names the node).
    """
    if steps < 1 or warmup < 0 or (steps_per_call is not None and steps_per_call < 1):
        raise BadInput(f"`steps >= 1, warmup >= 0 and steps_per_call >= 1` must hold, but got ({steps=}, {warmup=}, "
                       f"{steps_per_call=})")
    clock = PhaseClock()
    watch = PeakWatch.begin(cluster)
    with clock.phase("graph"):
        graph = job_graph(traced, strategy, cluster, copies=copies_ahead(steps, steps_per_call)) if graph is None \
            else graph.result() if hasattr(graph, "result") else graph
    with clock.phase("session"):
        job = TrainingJob(traced, strategy, cluster, step_timeout_s=step_timeout_s, on_build=on_build, graph=graph)
    with job:
        watch.split()
        losses: list[float] = []
        with clock.phase("warmup", job):
            warm = warm_calls(job, warmup, steps_per_call, None if settled is None else clock.charged("ahead", settled))
        with clock.phase("steps_per_call", job):
            k = settle_steps_per_call(job, warm, steps, steps_per_call)
        steps = samples_within(steps, k * statistics.median(warm) if warm else 0.0, within_s)
        with clock.phase("timed", job):
            times = job.run(steps * k, on_step=lambda _s, _dt, loss: losses.append(loss))[::k]
        if job.graph.mode == "threads":  # each tower timed its own steps; one "step" = one step of every tower
            times = times[-steps * job.graph.num_towers:]
        result = dataclasses.replace(_result(strategy, job, times, steps, warmup, losses), peak_memory=watch.read())
        clock.end()
        if trace_dir:
            result = with_trace(result, job, trace_dir)
        clock.begin("close")
    clock.end()
    result.phases_s = clock.split()
    return result


def with_trace(result: ProfileResult, job, trace_dir: str) -> ProfileResult:
    """``result`` with the trace of a few more steps of ``job`` (:func:`runners._trace.trace_job`)."""
    t0 = time.perf_counter()
    summary = trace_job(job, trace_dir, result.strategy_id)
    return dataclasses.replace(result, trace=summary, trace_s=time.perf_counter() - t0)


class PhaseClock:
    """The wall time of a profiling run, phase by phase: ``graph`` (the job's graph built in the driver),
    ``session`` (the session created and the variables initialized on the servers), ``executors`` (the first call
    of each kind, which builds its executors on the servers: one per steps-per-call variant, the no-op probe),
    ``warmup`` (the warm calls), ``steps_per_call`` (its choice: probe calls), ``timed`` (the samples),
    ``close`` (the trial's variables freed), and ``ahead`` (waiting, before the warm steps, for another graph a
    caller builds meanwhile). A phase's first calls count as ``executors``, not as the phase."""

    def __init__(self) -> None:
        self._s: dict[str, float] = {}
        self._open: tuple[str, float, object] | None = None
        self._variants: dict[str, float] = {}
        self._moved = 0.0  # seconds of the open phase charged to another (charged)

    @contextlib.contextmanager
    def phase(self, name: str, job=None):
        self.begin(name, job)
        try:
            yield
        finally:
            self.end()

    def begin(self, name: str, job=None) -> None:
        self.end()
        self._open = (name, time.perf_counter(), job, set((job.first_calls_s if job else {})))

    def end(self) -> None:
        if self._open is None:
            return
        name, t0, job, before = self._open
        self._open = None
        took, self._moved = time.perf_counter() - t0 - self._moved, 0.0
        new = {k: v for k, v in (job.first_calls_s if job else {}).items() if k not in before}
        self._variants.update(new)
        self._s["executors"] = self._s.get("executors", 0.0) + sum(new.values())
        self._s[name] = self._s.get(name, 0.0) + took - sum(new.values())

    def charged(self, name: str, fn: Callable[[], None]) -> Callable[[], None]:
        """``fn``, its seconds charged to phase ``name`` instead of the phase it runs in."""
        def timed() -> None:
            t0 = time.perf_counter()
            try:
                fn()
            finally:
                took = time.perf_counter() - t0
                self._s[name] = self._s.get(name, 0.0) + took
                self._moved += took
        return timed

    def split(self) -> dict:
        """Seconds per phase, ``executors_by_call`` (kind of call -> its first call's seconds), ``total`` and
        ``overhead``: the total beyond the warm-up's and the timed steps (what the run costs beyond measuring)."""
        out = {k: round(self._s.get(k, 0.0), 4) for k in PHASES}
        out["total"] = round(sum(self._s.values()), 4)
        out["overhead"] = round(out["total"] - self._s.get("timed", 0.0) - self._s.get("warmup", 0.0), 4)
        out["executors_by_call"] = {k: round(v, 4) for k, v in self._variants.items()}
        return out


def profile_together(traced, strategies, cluster, *, steps: int = 20, warmup: int = 5, rounds: int = 5,
                     step_timeout_s: float = 120.0, steps_per_call: int | list | None = None,
                     on_build: Callable[[str], None] | None = None,
                     within_s: float | None = None, trace_dir: str | None = None,
                     trace_ids: Collection[str] = ()) -> list[ProfileResult]:
    """Profile several strategies head to head: every job is built and warmed up first, then they take turns in
    ``rounds`` chunks of about ``steps / rounds`` steps each (each round starting one strategy later).

    On a shared machine the step time drifts over seconds (another process, the page cache, the CPU clock), and
    strategies measured one after the other each see a different moment; taking turns puts the drift into
    every strategy's steps alike, so their ratio is what is measured. On the emulated testbed two PS builders
    measured one after the other swapped places from one run to the next; taking turns, they kept their order.
    Every job lives until the comparison ends (each in its own resource container), so the servers hold all
    of their variables at once. Each job runs its own steps per call, chosen as :func:`profile_strategy` does, or
    given (one for all, or a list with one per strategy, ``None`` where to choose); a sample is one call's seconds
    over its steps. ``within_s``: fewer samples where the turns would take longer (:func:`samples_within`).
    ``trace_dir``: after the turns, trace the jobs whose strategy id is in ``trace_ids`` (:func:`with_trace`).
    """
    if steps < 1 or warmup < 0 or rounds < 1:
        raise BadInput(f"`steps >= 1, warmup >= 0 and rounds >= 1` must hold, but got ({steps=}, {warmup=}, {rounds=})")
    each = list(steps_per_call) if isinstance(steps_per_call, (list, tuple)) else [steps_per_call] * len(strategies)
    with (closed_together() as jobs,
          graphs_ahead(traced, cluster, [(s, True, True) for s in strategies],
                       copies=max(copies_ahead(steps, k) for k in each)) as graphs):
        call_s = 0.0  # one sample of every job: a call of each
        for s, graph, k in zip(strategies, graphs, each):
            jobs.append(TrainingJob(traced, s, cluster, step_timeout_s=step_timeout_s, graph=graph.result(),
                                    on_build=on_build))
            call_s += warm_up(jobs[-1], warmup, steps, k)
        steps = samples_within(steps, call_s, within_s)
        losses: list[list[float]] = [[] for _ in jobs]
        times = take_turns(jobs, steps, rounds, on_step=lambda i, loss: losses[i].append(loss))
        results = [_result(s, job, times[i], steps, warmup, losses[i])
                   for i, (s, job) in enumerate(zip(strategies, jobs))]
        return [with_trace(r, job, trace_dir) if trace_dir and r.strategy_id in trace_ids else r
                for r, job in zip(results, jobs)]


def samples_within(samples: int, sample_s: float, within_s: float | None) -> int:
    """``samples``, fewer where taking them (``sample_s`` seconds each: a call of every job that takes turns) would
    last over ``within_s``, but at least ``MIN_SAMPLES``. A one-second step timed as the bundled examples are (20
    samples per candidate, a calibration's ten jobs x 10 in turns) would spend minutes of a first answer wanted in
    five on samples alone."""
    if within_s is None or sample_s <= 0:
        return samples
    return max(min(samples, MIN_SAMPLES), min(samples, int(within_s / sample_s)))


def warm_calls(job, warmup: int, steps_per_call: int | None = None,
               settled: Callable[[], None] | None = None) -> list[float]:
    """Warm ``job`` up; returns the warm calls' seconds over their steps (the first call, which builds the executors,
    left out where others follow): ``warmup`` one-step calls or, where the steps per call are given (above 1,
    lockstep), a first call of that many steps and then such calls for at least ``warmup`` steps. A given length
    needs no one-step call, whose executors the servers would build for nothing. ``settled()`` runs after the
    first call (first, without a warm-up)."""
    k = job.set_steps_per_call(steps_per_call) if warmup and steps_per_call is not None and steps_per_call > 1 else 1
    first = job.run(k)[::k] if warmup else []
    if settled is not None:
        settled()
    if k > 1:
        return job.run(-(-warmup // k) * k)[::k]
    return (job.run(warmup - 1) if warmup > 1 else []) or first


def warm_up(job, warmup: int, samples: int, steps_per_call: int | None = None) -> float:
    """:func:`warm_calls`, then :func:`settle_steps_per_call` for ``samples``; returns the seconds a sample will take
    by the warm-up (a call of the chosen steps, each a warm call's), 0 without a warm-up."""
    warm = warm_calls(job, warmup, steps_per_call)
    k = settle_steps_per_call(job, warm, samples, steps_per_call)
    return k * statistics.median(warm) if warm else 0.0


def turn_chunks(steps: int, rounds: int) -> list[int]:
    """The steps each job runs in each round of :func:`take_turns` (the first rounds take one more where
    ``steps`` does not divide evenly); the rounds are capped at the steps."""
    rounds = max(1, min(rounds, steps))
    return [steps // rounds + (1 if k < steps % rounds else 0) for k in range(rounds)]


def round_means(times: list[float], chunks: list[int]) -> list[float]:
    """One job's step times from :func:`take_turns` as the mean step of each round (``chunks``: its steps per
    round, :func:`turn_chunks`)."""
    out, start = [], 0
    for n in chunks:
        if n:
            out.append(sum(times[start:start + n]) / n)
        start += n
    return out


def take_turns(jobs, steps: int, rounds: int, *, on_step: Callable[[int, float], None] | None = None,
               progress: Callable[[int, int, int], None] | None = None) -> list[list[float]]:
    """Run ``steps`` samples of every running job (``TrainingJob``) in ``rounds`` chunks of about ``steps / rounds``,
    the jobs one after another in each round, each round starting one job later; returns each job's samples. A
    sample is one call of the job's ``steps_per_call`` steps, its seconds over its steps.

    ``on_step(job index, loss)`` after every step; ``progress(round, rounds, samples of each this round)`` before
    each.
    """
    chunks = turn_chunks(steps, rounds)
    times: list[list[float]] = [[] for _ in jobs]
    order = range(len(jobs))
    for k, n in enumerate(chunks):
        if progress:
            progress(k + 1, len(chunks), n)
        shift = k % len(jobs)
        for i in [*order[shift:], *order[:shift]]:
            k = jobs[i].steps_per_call
            times[i] += jobs[i].run(n * k, on_step=None if on_step is None else
                                    lambda _s, _dt, loss, i=i: on_step(i, loss))[::k]
    return times


def _result(strategy, job, times: list[float], steps: int, warmup: int, losses: list[float]) -> ProfileResult:
    g = job.graph
    median = statistics.median(times)
    return ProfileResult(
        strategy_id=strategy.proto.id, builder=strategy.proto.provenance.builder, mode=g.mode,
        num_replicas=g.num_towers, global_batch=g.global_batch, steps=steps, warmup=warmup, step_times_s=times,
        median_s=median, p10_s=_quantile(times, 0.1), p90_s=_quantile(times, 0.9),
        examples_per_s=g.global_batch / median if median > 0 else 0.0, bytes_per_step=g.bytes_per_step,
        setup_s=job.setup_s, final_loss=losses[-1] if losses else float("nan"), steps_per_call=job.steps_per_call)


def measured_steps_per_call(strategy, spec) -> int | None:
    """The steps per call ``strategy`` was measured at by the search that chose it on the cluster of ``spec`` (its
    provenance), so that profiling and training it again run what was measured; None where none was recorded or
    the cluster is another."""
    prov = strategy.proto.provenance
    if prov.steps_per_call > 0 and prov.cluster_fingerprint == spec.fingerprint:
        return prov.steps_per_call
    return None


def prepare(model_path: str, spec_path: str, strategy_path: str):
    """Load and check everything before any server starts: (traced step, strategy, cluster spec).

    Raises ``StrategyError`` when the strategy does not fit the model or the cluster.
    """
    strategy = Strategy.load(strategy_path)
    spec = load_cluster(spec_path)
    traced = trace_step(model_path)
    validate(strategy, inventory_from_trace(traced), spec, source=str(strategy_path))
    return traced, strategy, spec


def profile_files(model_path: str, spec_path: str, strategy_path: str, *, steps: int = 20, warmup: int = 5,
                  step_timeout_s: float = 120.0, start_timeout_s: float = 60.0,
                  steps_per_call: int | None = None, on_build: Callable[[str], None] | None = None,
                  trace_dir: str | None = None) -> ProfileResult:
    traced, strategy, spec = prepare(model_path, spec_path, strategy_path)
    if steps_per_call is None:
        steps_per_call = measured_steps_per_call(strategy, spec)
    with start_cluster(spec, timeout_s=start_timeout_s) as cluster:
        return profile_strategy(traced, strategy, cluster, steps=steps, warmup=warmup, step_timeout_s=step_timeout_s,
                                steps_per_call=steps_per_call, on_build=on_build, trace_dir=trace_dir)
