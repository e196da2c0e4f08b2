"""Drive one trial on a running cluster: open a session on the built graph, run steps, read values, clean up."""
from __future__ import annotations

import concurrent.futures
import contextlib
import math
import statistics
import threading
import time
from typing import Callable, Iterator

from runners._watched import run_with_timeout
from runners.transform import _control
from runners.transform._graph import TrainGraph, build_train_graph
from space.errors import RunError


class TrainingJob:
    """One strategy running on ``cluster`` (a :class:`runners.cluster.RunningCluster`); a context manager.

    Lockstep strategies run one ``Session.run`` per step for all towers, or ``steps_per_call`` steps per call
    (:meth:`set_steps_per_call`): the same training, less the call's own cost on every step. Strategies whose
    every unit is asynchronous PS run one driver thread per tower (no barrier); with ``staleness=k`` a tower
    waits before a step that would put it more than k steps ahead of the slowest tower.
    """

    # the share of a step that the call's own cost may take when the steps per call are chosen for it
    CALL_SHARE = 0.02
    # the most steps per call a job chooses, in profile, calibrate, the search and training alike, so that a strategy
    # trains at the step it was measured at. Each copy of the step is built on the servers: 64 copies of the
    # recommender's PS step took 13 s to build in the driver and 51 s on the servers of the 3-host testbed (load 9),
    # 8 copies 1.9 s and 3.9 s. At 8 the call's own cost is at most 16% of a step where the choice would want 64 (2%
    # there); on the testbed the example models' steps at 8, 16 and 64 per call were within the runs' noise
    MAX_STEPS_PER_CALL = 8
    PROBE_STEPS_PER_CALL = 4  # choose_steps_per_call times calls of this many steps (of its cap, where that is low)
    PROBE_AT_CAP = 8  # a cap up to this is probed at the cap itself (see choose_steps_per_call)
    PROBE_CALLS = 5  # the first of them builds the executors and is not counted
    # a call's own cost over the no-op call's (call_overhead_s) it is taken to be at most, to bound the steps per call
    # a step could want before probing: measured at 2-3x on loopback
    CALL_OVER_NOOP = 4.0

    # a call of a kind the servers have not run yet builds its executors first, outside TensorFlow's step timeout: the
    # watchdog allows this much more for it (64 copies of the recommender's PS step took 51 s to build on the 3-host
    # testbed with the machine's load at 9 on 2 cores, 4 s idle)
    BUILD_TIMEOUT_S = 900.0

    def __init__(self, traced, strategy, cluster, *, step_timeout_s: float = 120.0, synchronize: bool = True,
                 update: bool = True, start=None, graph: TrainGraph | None = None, evaluation: bool = False,
                 build_timeout_s: float | None = None, on_build: Callable[[str], None] | None = None) -> None:
        """``graph``: the job's graph built ahead by :func:`job_graph` with the same arguments (default: built now);
        ``evaluation``: with the validation step on the chief's replica (:meth:`evaluate`).
        ``on_build(message)`` hears every 15 s that a call is still building its executors on the servers."""
        import tensorflow as tf

        self._run_with_timeout = run_with_timeout
        self.cluster = cluster
        self.step_timeout_s = step_timeout_s
        self.build_timeout_s = self.BUILD_TIMEOUT_S if build_timeout_s is None else build_timeout_s
        self.on_build = on_build
        self._built: set = set()  # the kinds of call (what they fetch) whose executors the servers have built
        # kind -> seconds of its first call, which builds its executors on the servers: what a profile's split reads
        self.first_calls_s: dict[str, float] = {}
        t0 = time.perf_counter()
        self.graph: TrainGraph = graph or job_graph(traced, strategy, cluster, synchronize=synchronize,
                                                    update=update, start=start, evaluation=evaluation)
        self.steps_per_call = 1
        self.probe_steps = 0
        self._probe = None
        self.session = tf.compat.v1.Session(cluster.target, graph=self.graph.graph, config=cluster.session_config())
        self.steps_done = [0] * self.graph.num_towers
        self.built_calls: set[int] = set()  # the call lengths whose executors the servers have built
        self.max_lead = 0
        self.close_error = ""
        try:
            self._run(self.graph.init_ops, feed_dict=self.graph.init_feed, kind="init")
        except BaseException:
            self.close()
            raise
        self.setup_s = time.perf_counter() - t0

    def _run(self, fetches, feed_dict=None, *, kind, options=None, run_metadata=None):
        """One watched call; ``kind`` names what it fetches: the first call of a kind gets the build's allowance."""
        first = kind not in self._built
        on_wait = None
        if first and self.on_build is not None:
            on_wait = lambda s: self.on_build(f"the servers are still building a new call's executors ({kind}): "  # noqa: E731
                                              f"{s:.0f} s so far")
        t0 = time.perf_counter()
        out = self._run_with_timeout(self.session, fetches, self.step_timeout_s, cluster=self.cluster,
                                     feed_dict=feed_dict, build_s=self.build_timeout_s if first else 0.0,
                                     on_wait=on_wait, options=options, run_metadata=run_metadata)
        if first:
            self.first_calls_s[kind] = time.perf_counter() - t0
        self._built.add(kind)
        return out

    # ---- stepping --------------------------------------------------------------------------------------
    def set_steps_per_call(self, k: int) -> int:
        """Run ``k`` steps in each ``Session.run`` from now on (lockstep; threads mode keeps 1); returns the steps
        per call in effect. The first call of a new number of steps builds its executors on the servers (slow)."""
        if k < 1:
            raise ValueError(f"`steps_per_call >= 1` must hold, but got {k=}")
        if self.graph.mode == "lockstep" and k > 1:
            self.graph.repeat(k)
            self.steps_per_call = k
        else:
            self.steps_per_call = 1
        return self.steps_per_call

    def call_overhead_s(self, samples: int = 7) -> float:
        """The median seconds of a call that runs nothing but one no-op on each tower's device: what a call costs
        whatever its steps compute (the master's round trip and the step set-up on each task)."""
        import tensorflow as tf

        if self._probe is None:
            g = self.graph.graph
            tasks = {tf.DeviceSpec.from_string(g.get_operation_by_name(n).device).replace(device_type="CPU",
                                                                                         device_index=0)
                     for n in self.graph.steps.names if g.get_operation_by_name(n).device}
            with g.as_default():
                ops = []
                for task in sorted(tasks, key=str):
                    with tf.compat.v1.device(task):
                        ops.append(tf.no_op())
                self._probe = _control.group_by_device(ops, "call_probe")
        self._run(self._probe, kind="probe")
        return statistics.median(self._timed(lambda: self._run(self._probe, kind="probe")) for _ in range(samples))

    @staticmethod
    def _timed(fn) -> float:
        t0 = time.perf_counter()
        fn()
        return time.perf_counter() - t0

    def choose_steps_per_call(self, step_s: float, *, on_step: Callable[[int, float, float], None] | None = None,
                              most: int | None = None) -> int:
        """Set the steps per call so that a call's own cost is at most ``CALL_SHARE`` of what its steps compute;
        returns it. ``step_s``: the seconds of a (warm) one-step call.

        Runs ``PROBE_CALLS`` calls of ``PROBE_STEPS_PER_CALL`` training steps (``on_step`` is told of each;
        ``probe_steps`` says how many ran) and reads the call's own cost o off the two, a call of k steps taking
        o + k c. A call of no-ops (:meth:`call_overhead_s`) is its floor: it misses what a real step's call adds
        (fetches, the servers' threads waking up), 2-3 times as much on loopback. ``most`` caps it (default
        ``MAX_STEPS_PER_CALL``). A cap of at most ``PROBE_AT_CAP`` is probed at the cap itself: a step of a few
        milliseconds wants the cap, which then keeps the probe's copies and executors instead of building both
        again (each build of a call length costs seconds on the servers, and a calibration builds ten jobs). A step
        long enough that even ``CALL_OVER_NOOP`` no-op calls are a small share of it lowers the cap to what it could
        want (:meth:`most_wanted`), down to one step per call without a probe.
        """
        self.probe_steps = 0
        if self.graph.mode != "lockstep":
            return self.set_steps_per_call(1)
        floor = self.call_overhead_s()
        cap = min(most or self.MAX_STEPS_PER_CALL, self.most_wanted(step_s, floor))
        if cap == 1:
            return self.set_steps_per_call(1)
        k0 = self.set_steps_per_call(self.probe_length(cap))
        calls = self.run(self.PROBE_CALLS * k0, on_step=on_step)[::k0][1:]  # the first call builds the executors
        self.probe_steps = self.PROBE_CALLS * k0
        per_step = statistics.median(calls)
        overhead = max((step_s - per_step) * k0 / (k0 - 1), floor)
        compute = max(per_step - overhead / k0, 1e-6)
        k = math.ceil(overhead / (self.CALL_SHARE * compute))
        return self.set_steps_per_call(min(_power_of_two(k), cap))

    def most_wanted(self, step_s: float, floor: float) -> int:
        """The most steps per call a step of ``step_s`` seconds (a warm one-step call) could want, a call's own
        cost taken at ``CALL_OVER_NOOP`` times ``floor``, a no-op call's (:meth:`call_overhead_s`): a slow step's
        probe calls would cost many steps' time (five calls of eight one-second steps are 40 s) to confirm what its
        one-step call already shows."""
        bound = self.CALL_OVER_NOOP * floor
        if step_s <= 2 * bound:
            return self.MAX_STEPS_PER_CALL
        return _power_of_two(math.ceil(bound / (self.CALL_SHARE * (step_s - bound))))

    def probe_length(self, cap: int | None = None) -> int:
        """The steps of each probe call :meth:`choose_steps_per_call` runs under ``cap``."""
        cap = cap or self.MAX_STEPS_PER_CALL
        return cap if 2 <= cap <= self.PROBE_AT_CAP else self.PROBE_STEPS_PER_CALL

    def run(self, steps: int, *, delays: dict[int, float] | None = None,
            on_step: Callable[[int, float, float], None] | None = None,
            until: Callable[[], bool] | None = None) -> list[float]:
        """Run ``steps`` steps (per tower, in threads mode); returns each step's seconds.

        ``on_step(step, seconds, loss)`` is called after each lockstep step (threads mode: each of tower 0's steps);
        an exception it raises ends the run. ``delays`` (tower -> seconds slept before each of its steps, threads
        mode) makes one tower slow, for experiments on staleness. With several steps per call, each step of a
        call is told the call's seconds over its steps, after the call. ``until()``, asked after each call (each of
        tower 0's steps in threads mode), ends the run early when true.
        """
        if self.graph.mode == "threads":
            return self._run_threads(steps, delays or {}, on_step, until)
        times: list[float] = []
        g = self.graph
        s = 0
        while s < steps:
            # a remainder shorter than a call runs one step per call: a call of any other length would build its own
            # executors on every server (seconds, tens of them for a large model on the testbed), the one-step
            # call's are built by the first steps
            m = self.steps_per_call if steps - s >= self.steps_per_call else 1
            fetches = [g.train_op, [g.loss]] if m == 1 else [g.steps.train_ops[m - 1], g.steps.losses[:m]]
            t0 = time.perf_counter()
            _, losses = self._run(fetches, feed_dict=g.feed(copies=m), kind=f"{m} step(s) a call")
            dt = (time.perf_counter() - t0) / m
            self.built_calls.add(m)
            self.steps_done = [c + m for c in self.steps_done]
            times += [dt] * m
            for loss in losses:
                if on_step:
                    on_step(s, dt, float(loss))
                s += 1
            if until is not None and until():
                break
        return times

    def run_traced(self, steps: int) -> tuple[list, list[float]]:
        """Run ``steps`` one-step calls (one step of every tower in threads mode) traced on every task
        (``FULL_TRACE``); returns their ``StepStats`` and seconds. Tracing slows the calls it traces: they are not
        samples."""
        import tensorflow as tf

        g = self.graph
        lockstep = g.mode == "lockstep"
        fetches = g.train_op if lockstep else g.tower_train_ops
        feed = g.feed(copies=1)
        options = tf.compat.v1.RunOptions(trace_level=tf.compat.v1.RunOptions.FULL_TRACE)
        stats, seconds = [], []
        for _ in range(steps):
            meta = tf.compat.v1.RunMetadata()
            t0 = time.perf_counter()
            self._run(fetches, feed_dict=feed, kind="traced step", options=options, run_metadata=meta)
            seconds.append(time.perf_counter() - t0)
            stats.append(meta.step_stats)
        self.steps_done = [c + steps for c in self.steps_done]
        return stats, seconds

    def evaluate(self, feed: dict):
        """(loss, predictions) of the validation step on one batch (``feed``: its placeholders' values)."""
        ev = self.graph.evaluation
        return self._run([ev.loss, ev.outputs], feed_dict=feed, kind="evaluation")

    def _run_threads(self, steps: int, delays: dict[int, float],
                     on_step: Callable[[int, float, float], None] | None = None,
                     until: Callable[[], bool] | None = None) -> list[float]:
        n, bound = self.graph.num_towers, self.graph.staleness
        cond = threading.Condition()
        errors: list[BaseException] = []
        times: list[list[float]] = [[] for _ in range(n)]
        start = list(self.steps_done)

        stopped: list = []

        def tower(r: int) -> None:
            try:
                for _ in range(steps):
                    with cond:
                        while bound and not errors and self.steps_done[r] - min(self.steps_done) >= bound:
                            cond.wait(0.5)
                        if errors or stopped:
                            return
                    if delays.get(r):
                        time.sleep(delays[r])
                    t0 = time.perf_counter()
                    _, loss = self._run([self.graph.tower_train_ops[r], self.graph.tower_losses[r]],
                                        feed_dict=self.graph.feed([r]), kind=f"tower {r}'s step")
                    times[r].append(time.perf_counter() - t0)
                    if r == 0 and on_step:
                        on_step(len(times[0]) - 1, times[0][-1], float(loss))
                    if r == 0 and until is not None and until():
                        with cond:
                            stopped.append(True)
                            cond.notify_all()
                    with cond:
                        self.steps_done[r] += 1
                        self.max_lead = max(self.max_lead, self.steps_done[r] - min(self.steps_done))
                        cond.notify_all()
            except BaseException as e:  # noqa: BLE001 - re-raised in the driver thread
                with cond:
                    errors.append(e)
                    cond.notify_all()

        threads = [threading.Thread(target=tower, args=(r,), name=f"autotune-tower{r}", daemon=True)
                   for r in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        if not stopped and any(self.steps_done[r] - start[r] != steps for r in range(n)):
            raise RunError(f"towers finished {self.steps_done} steps, expected {steps} more each")
        return [t for ts in times for t in ts]

    # ---- values ----------------------------------------------------------------------------------------
    def values(self) -> tuple[dict, dict]:
        """(trainable variables, state) by strategy name, as numpy arrays; partitioned ones reassembled."""
        v, s = self._run([self.graph.var_values, self.graph.state_values], kind="values")
        return v, s

    def snapshot(self) -> tuple[dict, dict, dict]:
        """(trainable variables, state, optimizer slots) as numpy arrays, whole: what a checkpoint holds."""
        return tuple(self._run([self.graph.var_values, self.graph.state_values, self.graph.slot_values],
                               kind="snapshot"))

    def close(self) -> None:
        """Free this trial's variables and iterators on the servers, and close the session (idempotent).

        Never raises: it runs on the way out of every job, often while another error is on its way up, and a
        server that died or does not answer has nothing left to free. ``close_error`` keeps what went wrong.
        (Closing the session can itself time out, ``DeadlineExceededError``, once the 60 s operation timeout
        passes; that ended a whole fidelity run on the 3-host testbed after its measurements were taken.)
        """
        session, self.session = self.session, None
        if session is None:
            return
        for inp in self.graph.inputs:  # a fed tower's generator ends now, not at interpreter exit
            inp.iterator = None
        if self.cluster.closed or self.cluster.dead_servers():
            # nothing to free on a dead server, and a call given up on may still hold the session
            self.close_error = "the cluster was stopped or lost a server: nothing freed"
            _abandon(session)
            return
        for what, call in (("freeing the trial's variables", lambda: self._run_with_timeout(
                session, self.graph.destroy_op, 30.0)), ("closing the session", session.close)):
            try:
                call()
            except Exception as e:  # noqa: BLE001 - see above
                self.close_error = self.close_error or f"{what}: {type(e).__name__}: {str(e).splitlines()[0][:160]}"

    def __enter__(self) -> "TrainingJob":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def job_graph(traced, strategy, cluster, *, synchronize: bool = True, update: bool = True, start=None,
              copies: int = 1, evaluation: bool = False) -> TrainGraph:
    """The graph a :class:`TrainingJob` of these arguments runs, with ``copies`` copies of its step where it is
    lockstep (:meth:`TrainGraph.repeat`). Python alone, no server: a caller with several jobs to start builds the
    next one's graph while the servers build the executors of the last."""
    key_base = cluster.next_instance_key_base()
    graph = build_train_graph(traced, strategy, cluster.task_device, key_base, synchronize=synchronize, update=update,
                              evaluation=cluster.spec.chief.address if evaluation else None,
                              start=start, key_limit=key_base + cluster.instance_keys_per_trial,
                              replica_units=cluster.spec.replica_units(strategy.replicas))
    if copies > 1 and graph.mode == "lockstep":
        graph.repeat(copies)
    return graph


@contextlib.contextmanager
def graphs_ahead(traced, cluster, runs, *, copies: int = 1) -> Iterator[list]:
    """Futures of the :func:`job_graph` of each ``(strategy, synchronize, update)`` of ``runs``, built in order in
    one thread: a caller that starts the jobs in that order builds the next one's graph (Python, in the driver)
    while the servers build the last one's executors and run its first calls. What is left unbuilt on the way out
    is not built."""
    ahead = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="autotune-build")
    try:
        yield [ahead.submit(job_graph, traced, strategy, cluster, synchronize=sync, update=update, copies=copies)
               for strategy, sync, update in runs]
    finally:
        ahead.shutdown(cancel_futures=True)


def _abandon(session) -> None:
    """Let ``session`` go without telling its master, which is gone or does not answer. Dropped as it is, the session
    would close itself: a CloseSession call to the master that waits out gRPC's retries, 48 s for each of five jobs
    whose loopback cluster had stopped. ``Session`` has no public way to skip that call; the flag it checks does."""
    session._closed = True


@contextlib.contextmanager
def closed_together() -> Iterator[list]:
    """A list to put running jobs in; on the way out every job in it is closed, all at once.

    Closing a session while others are open on the same servers takes TensorFlow from 0.1 to 50 s each (one
    alone: 0.1 s); five dlrm jobs closed one after the other took 25-84 s, closed at once 14-17 s. The ten
    anchor jobs of a local dlrm calibration took about 2 minutes one after the other, 1.5 at once.
    """
    jobs: list = []
    try:
        yield jobs
    finally:
        threads = [threading.Thread(target=job.close, name="autotune-close", daemon=True) for job in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def _power_of_two(k: int) -> int:
    """The least power of two >= ``k`` (1 for k <= 1): two runs whose noisy estimates differ by less than 2x choose
    alike."""
    return 1 << max(0, k - 1).bit_length()
