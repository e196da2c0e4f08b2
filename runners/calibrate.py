"""Measure on a cluster's running servers what its cost-model constants are fitted to (``autotune calibrate``).

The probes return plain :class:`Measurements`; ``simulator.to_calibration`` derives the constants from them (each
item below names the constant its probe sets). Every probe is a small graph run through one
``tf.compat.v1.Session`` on the cluster, timed as the median of ``repeats`` runs after two warm-up runs. Data moved
is always a variable's value (a variable on the source task read and reduced on the destination task): Grappler
folds constants and ``tf.fill``, never variable reads.

- per ordered pair of nodes, a few message sizes -> an alpha-beta fit -> link bandwidth and latency; the
  session's own cost is removed by a same-shape probe that stays on one task;
- one all-reduce over every node at a few sizes vs the ring formula -> ``collective_bandwidth_factor`` and
  ``collective_overhead_s``;
- ``rpc_tensors`` tiny tensors vs one -> ``rpc_overhead_s`` per tensor;
- a chain of dependent tiny messages between two nodes, long vs short -> ``latency_s`` per message (the session's
  cost of involving another task cancels: both chains span the same tasks);
- many independent tiny all-reduces in one run vs one -> ``collective_overhead_s`` per extra collective;
- a tiny run touching every task vs one task -> ``step_overhead_s``, what a call spanning every node pays once
  beyond a one-task call, spread over the steps of a call of the model's step;
- adds and fp16 round trips on one task -> ``reduce_s_per_byte`` and ``cast_s_per_byte``;
- with a model: its optimizer applied once to every variable on one task -> ``update_s`` (every replica updates its
  own copy of an all-reduced variable, a server a synchronous PS variable once);
- with a traced model: its training step on one replica alone (the compute, and the flop rate); on every replica
  with nothing synchronized (each tower trains its own copy: the compute a synchronous step waits for when replicas
  share CPUs, less ``step_overhead_s``), and the same with every gradient computed and none applied (the share of
  that compute the replicas' updates take, ``update_share``); and the :func:`anchor_strategies`, pairs of real
  steps that differ in one thing, which set ``collective_overhead_s`` (a group per variable vs one fused group),
  ``ar_piece_s`` and ``ps_piece_s`` (every variable split in shards vs whole) and ``powersgd_matrix_s`` (the
  ``all_reduce_powersgd`` step; the one-task probe above sees only the matmuls and QR). Each cost comes from the
  measured difference of its pair (``simulator.anchor_costs``), so what both steps share cancels; the fused
  all-reduce step itself sets ``collective_bandwidth_factor`` again (the ring as it runs in the model's step), and
  the ``ps`` step ``ps_serial_fraction`` (how much of the replicas' staggering a PS step loses). The model steps are
  measured head to head: all jobs built, then taking turns a few calls at a time, each job at the steps per call
  ``profile`` runs it at (``Measurements.steps_per_call``), so what calibrate times is what profile times.
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import statistics
import time
from typing import Callable

from runners._measurements import LinkTiming, Measurements, grows, ms_list
from runners._watched import run_with_timeout
from runners.cluster import start_cluster
from runners.profile import copies_ahead, round_means, samples_within, take_turns, turn_chunks, warm_up
from runners.transform import TrainingJob, closed_together, graphs_ahead
from runners.transform._optimizer import Optimizer
from space.anchors import PSGD_LARGE, PSGD_LARGE_COUNT, PSGD_SMALL, PSGD_SMALL_COUNT, anchor_strategies
from space.builders import build_strategy
from space.cluster import link_key
from space.errors import RunError
from space.model import inventory_from_trace, trace_step
from space.strategy import Strategy

__all__ = ["Prober", "measure", "run_calibration", "LinkTiming", "Measurements"]

WARMUP_RUNS = 2
CONTAINER = "autotune-calibrate"
CHAIN_EXTRA = 10  # round trips the long latency chain adds to the short one
COLLECTIVES = 16  # independent tiny all-reduces of the per-collective overhead probe
LINK_RETRY_FACTOR = 4  # a link whose time does not grow with message size is timed again with this many times the runs
TURNS_S = 60.0  # the most seconds the model's jobs take turns for (fewer samples where a step is slow)
UPDATE_REPEATS = 20  # runs of the optimizer-update probe (its median moved 25% over 5 runs on a busy machine)


class Prober:
    """Runs probe graphs on a :class:`runners.cluster.RunningCluster`; variables live in one container."""

    def __init__(self, cluster, *, repeats: int = 5, timeout_s: float = 120.0,
                 progress: Callable[[str], None] = lambda _m: None) -> None:
        if repeats < 1:
            raise ValueError(f"`repeats >= 1` must hold, but got {repeats=}.")
        self.cluster, self.repeats, self.timeout_s, self.say = cluster, repeats, timeout_s, progress
        self._names = itertools.count()
        self.addresses = [n.address for n in cluster.spec.nodes]
        self._made: list[tuple[str, int]] = []  # (shared name, task) of every probe variable, for :meth:`free`

    # ---- plumbing -----------------------------------------------------------------------------------
    def _device(self, task: int) -> str:
        return f"/job:worker/replica:0/task:{task}/device:CPU:0"

    def _variable(self, task: int, nbytes: int):
        """A float32 variable of ``nbytes`` (at least one element) on ``task``, random, in the probe container."""
        import tensorflow as tf

        n = max(1, nbytes // 4)
        with tf.compat.v1.device(self._device(task)), tf.compat.v1.container(CONTAINER):
            v = tf.compat.v1.Variable(tf.random.uniform([n]), name=f"probe{next(self._names)}", use_resource=True)
        self._made.append((v.handle.op.get_attr("shared_name").decode(), task))
        return v

    def _timed(self, graph, fetches: dict, repeats: int | None = None) -> dict:
        """Median seconds of each fetch (run one at a time, interleaved over ``repeats``, default the prober's)."""
        import tensorflow as tf

        with graph.as_default():
            init = tf.compat.v1.global_variables_initializer()
        times: dict = {k: [] for k in fetches}
        with tf.compat.v1.Session(self.cluster.target, graph=graph, config=self.cluster.session_config()) as sess:
            run_with_timeout(sess, init, self.timeout_s, cluster=self.cluster)
            for r in range(WARMUP_RUNS + (repeats or self.repeats)):
                for k, f in fetches.items():
                    t0 = time.perf_counter()
                    run_with_timeout(sess, f, self.timeout_s, cluster=self.cluster)
                    if r >= WARMUP_RUNS:
                        times[k].append(time.perf_counter() - t0)
        return {k: statistics.median(v) for k, v in times.items()}

    # ---- probes -------------------------------------------------------------------------------------
    def link(self, src: int, dst: int, sizes: list[int]) -> LinkTiming:
        """Time moving a variable of each size from task ``src`` to task ``dst`` (``simulator.fit_link`` fits
        latency and bandwidth to it), timed again with more runs where the time does not grow with size."""
        import tensorflow as tf

        g = tf.Graph()
        with g.as_default():
            fetches = {}
            for s in sizes:
                v = self._variable(src, s)
                with tf.compat.v1.device(self._device(dst)):
                    fetches[s] = tf.reduce_sum(v.read_value())
            tiny, local = self._variable(src, 4), self._variable(dst, 4)
            with tf.compat.v1.device(self._device(dst)):
                fetches["tiny"] = tf.reduce_sum(tiny.read_value())
                fetches["base"] = tf.reduce_sum(local.read_value())
        t = self._timed(g, fetches)
        secs = [t[s] for s in sizes]
        floor = None
        if not grows(sizes, secs):  # the largest message took no longer than the smallest: a fast link for these
            repeats = LINK_RETRY_FACTOR * self.repeats
            self.say(f"link {self.addresses[src]} -> {self.addresses[dst]}: time did not grow with message size "
                     f"({ms_list(secs)}); again with {repeats} runs")
            t = self._timed(g, fetches, repeats)
            secs = [t[s] for s in sizes]
            if not grows(sizes, secs):
                floor = self._link_floor(src, dst, max(sizes), t[max(sizes)] - t["tiny"])
        return LinkTiming(self.addresses[src], self.addresses[dst], list(sizes), secs, t["base"], tiny_s=t["tiny"],
                          floor_gbit=floor)

    def _link_floor(self, src: int, dst: int, size: int, transfer_s: float) -> float:
        """Gbit/s of a link whose time does not grow with the message sizes measured: the largest message over
        what it took beyond a 4-byte one (the link is no slower than that), or what the cluster spec declares for
        the pair where even that difference is lost in the noise."""
        declared = self.cluster.spec.bandwidth_gbit(self.addresses[src], self.addresses[dst])
        gbit = size * 8 / transfer_s / 1e9 if transfer_s > 0 else declared
        how = "its largest message" if transfer_s > 0 else "the cluster spec"
        self.say(f"link {self.addresses[src]} -> {self.addresses[dst]}: still flat; bandwidth taken from {how}: "
                 f"{gbit:.3g} Gbit/s (measure larger messages with --sizes to resolve it)")
        return gbit

    def allreduce(self, sizes: list[int]) -> tuple[list[float], float, float]:
        """Median seconds of one ring all-reduce over every task per size, of a 4-byte one, of a run without."""
        import tensorflow as tf
        from tensorflow.python.ops import collective_ops

        n = len(self.addresses)
        base = self.cluster.next_instance_key_base()
        g = tf.Graph()
        with g.as_default():
            fetches = {}
            for i, s in enumerate([*sizes, 4]):
                outs = []
                for task in range(n):
                    v = self._variable(task, s)
                    with tf.compat.v1.device(self._device(task)):
                        y = collective_ops.all_reduce_v2(v.read_value(), group_size=n, group_key=base,
                                                         instance_key=base + 1 + i, merge_op="Add", final_op="Id",
                                                         communication_hint="ring")
                        outs.append(tf.reduce_sum(y))
                fetches[s if i < len(sizes) else "tiny"] = outs
            outs = []
            for task in range(n):
                v = self._variable(task, s)
                with tf.compat.v1.device(self._device(task)):
                    outs.append(tf.reduce_sum(v.read_value()))
            fetches["base"] = outs
        t = self._timed(g, fetches)
        return [t[s] for s in sizes], t["tiny"], t["base"]

    def rpc(self, src: int, dst: int, count: int) -> tuple[float, float]:
        """Seconds to move ``count`` 4-byte tensors from ``src`` to ``dst`` in one run, and one tensor."""
        import tensorflow as tf

        g = tf.Graph()
        with g.as_default():
            many = [self._variable(src, 4) for _ in range(count)]
            with tf.compat.v1.device(self._device(dst)):
                fetches = {"many": tf.add_n([v.read_value() for v in many]), "one": tf.reduce_sum(many[0].read_value())}
        t = self._timed(g, fetches)
        return t["many"], t["one"]

    def chain(self, a: int, b: int, hops: tuple[int, int]) -> tuple[float, float]:
        """Seconds of a chain of ``hops[0]`` and of ``hops[1]`` dependent 4-byte messages alternating a <-> b.

        Each hop multiplies by a variable read on the receiving task (never constant-folded); both chains span
        the same two tasks, so their difference is per-message latency only.
        """
        import tensorflow as tf

        g = tf.Graph()
        with g.as_default():
            start, sa, sb = self._variable(a, 4), self._variable(a, 4), self._variable(b, 4)
            fetches = {}
            for n in hops:
                x = start.read_value()
                for h in range(n):
                    task, scale = (b, sb) if h % 2 == 0 else (a, sa)
                    with tf.compat.v1.device(self._device(task)):
                        x = x * scale.read_value()
                with tf.compat.v1.device(self._device(a)):
                    fetches[n] = tf.reduce_sum(x) + tf.reduce_sum(sb.read_value())  # both chains touch both tasks
        t = self._timed(g, fetches)
        return t[hops[0]], t[hops[1]]

    def collectives(self, count: int) -> tuple[float, float]:
        """Seconds of ``count`` independent 4-byte all-reduces over every task in one run, and of one."""
        import tensorflow as tf
        from tensorflow.python.ops import collective_ops

        n = len(self.addresses)
        base = self.cluster.next_instance_key_base()
        g = tf.Graph()
        with g.as_default():
            vs = [self._variable(task, 4) for task in range(n)]
            outs: dict = {"many": [], "one": []}
            for i in range(count + 1):
                key = "one" if i == count else "many"
                for task in range(n):
                    with tf.compat.v1.device(self._device(task)):
                        outs[key].append(collective_ops.all_reduce_v2(
                            vs[task].read_value(), group_size=n, group_key=base, instance_key=base + 1 + i,
                            merge_op="Add", final_op="Id", communication_hint="ring"))
            fetches = {k: tf.add_n(v) for k, v in outs.items()}
        t = self._timed(g, fetches)
        return t["many"], t["one"]

    def run_overhead(self) -> tuple[float, float]:
        """Seconds of a tiny run touching every task (summed on task 0), and of the same on task 0 alone."""
        import tensorflow as tf

        g = tf.Graph()
        with g.as_default():
            vs = [self._variable(task, 4) for task in range(len(self.addresses))]
            reads = []
            for task, v in enumerate(vs):
                with tf.compat.v1.device(self._device(task)):
                    reads.append(tf.reduce_sum(v.read_value()))
            with tf.compat.v1.device(self._device(0)):
                fetches = {"all": tf.add_n(reads), "one": tf.identity(reads[0])}
        t = self._timed(g, fetches)
        return t["all"], t["one"]

    def powersgd(self, shapes: list[tuple[int, int, int]]) -> float:
        """Seconds of one PowerSGD round (error feedback, P = M Q, orthonormalise, Q = M^T P, approximation) for
        each ``(n, m, rank)`` matrix on task 0, all in one run, minus a run that only reads the gradients."""
        import tensorflow as tf

        g = tf.Graph()
        with g.as_default():
            outs, reads = [], []
            for n, m, r in shapes:
                grad, err, q = self._variable(0, 4 * n * m), self._variable(0, 4 * n * m), self._variable(0, 4 * m * r)
                with tf.compat.v1.device(self._device(0)):
                    mat = tf.reshape(grad.read_value(), [n, m]) + tf.reshape(err.read_value(), [n, m])
                    p_orth, _ = tf.linalg.qr(tf.matmul(mat, tf.reshape(q.read_value(), [m, r])))
                    q_new = tf.matmul(mat, p_orth, transpose_a=True)
                    approx = tf.matmul(p_orth, q_new, transpose_b=True)
                    outs += [tf.reduce_sum(mat - approx), tf.reduce_sum(q_new)]
                    reads.append(tf.reduce_sum(grad.read_value()))
            with tf.compat.v1.device(self._device(0)):
                fetches = {"psgd": tf.add_n(outs), "base": tf.add_n(reads)}
        t = self._timed(g, fetches)
        return max(0.0, t["psgd"] - t["base"])

    def local_passes(self, nbytes: int, k: int = 4) -> tuple[float, float]:
        """(reduce seconds per byte, cast seconds per byte per pass) on task 0, from ``k`` variables of ``nbytes``."""
        import tensorflow as tf

        g = tf.Graph()
        with g.as_default():
            vs = [self._variable(0, nbytes) for _ in range(k)]
            with tf.compat.v1.device(self._device(0)):
                x = vs[0].read_value()
                fetches = {"one": tf.reduce_sum(x), "sum": tf.reduce_sum(tf.add_n([v.read_value() for v in vs])),
                           "cast": tf.reduce_sum(tf.cast(tf.cast(x, tf.float16), tf.float32))}
        t = self._timed(g, fetches)
        size = max(1, nbytes // 4) * 4
        gamma = max(0.0, (t["sum"] - t["one"]) / ((k - 1) * size))
        cast = max(0.0, (t["cast"] - t["one"]) / (2 * size))  # two passes: to fp16 and back
        return gamma, cast

    def update(self, inventory) -> float:
        """Seconds of the model's optimizer applied once to every variable on task 0 (each variable's size, its
        slots, a gradient held in a variable), minus a run that only reads the gradients. Where plain SGD scatters
        a sparse gradient, only the rows a step touches are updated, as the backend does."""
        import tensorflow as tf

        opt = Optimizer(inventory.optimizer or {})
        g = tf.Graph()
        with g.as_default():
            applies, reads = [], []
            for v in inventory.variables:
                elements = v.updated_elements(opt.name)
                var, grad = self._variable(0, 4 * elements), self._variable(0, 4 * elements)
                with tf.compat.v1.device(self._device(0)), tf.compat.v1.container(CONTAINER):
                    slots = opt.create_slots(var, lambda name, value: tf.compat.v1.Variable(
                        value, name=f"probe{next(self._names)}_{name}", use_resource=True))
                    applies.append(opt.apply(var, slots, grad.read_value()))
                    reads.append(tf.reduce_sum(grad.read_value()))
            with tf.compat.v1.device(self._device(0)):
                fetches = {"update": tf.group(applies), "base": tf.group(reads)}
        t = self._timed(g, fetches, repeats=max(self.repeats, UPDATE_REPEATS))  # a few ms each: cheap to repeat
        return max(0.0, t["update"] - t["base"])

    def single_step(self, traced, inventory, steps: int, warmup: int) -> tuple[float, int]:
        """Median training step of the model on one replica alone (its compute as a server runs it), over
        ``steps`` calls at the steps per call ``profile`` would run; and those steps per call."""
        spec = self.cluster.spec
        nodes = build_strategy("all_reduce", inventory, spec).nodes
        with TrainingJob(traced, Strategy.build(nodes, spec.replicas[:1]), self.cluster,
                         step_timeout_s=self.timeout_s, on_build=self.say) as job:
            warm_up(job, warmup, steps)
            k = job.steps_per_call
            return statistics.median(job.run(steps * k)[::k]), k

    def model_steps(self, traced, inventory, steps: int, warmup: int, passes: int = 2, rounds_per_pass: int = 5,
                    left_open: list | None = None) -> tuple[float, float, float, dict, dict, dict]:
        """Median steps of the model, ``steps * passes`` samples each: on one replica alone (the compute of a replica
        with the machine to itself); on every replica with nothing synchronized (every tower trains its own copy:
        the compute a synchronous step waits for, when replicas share CPUs, and a step's fixed cost of spanning the
        nodes); the same with no update applied (what the replicas' updates take of that compute); and of each
        :func:`anchor_strategies`. Returns (alone, nothing synchronized, no update, {anchor: median}, {anchor: its
        mean step in each round}, {job: its steps per call}).

        Each job runs the steps per call that ``profile`` would run it at (``runners.profile.settle_steps_per_call``),
        a sample being one call's seconds over its steps: the steps the cost model is fitted to are the steps it
        predicts, whose call's own cost is spread over the call's steps.

        A slow model's jobs take fewer samples, to fit the turns in ``TURNS_S``
        (:func:`runners.profile.samples_within`): one-second steps would make them last minutes.

        Head to head: every job is built and warmed up first, then they take turns, ``rounds_per_pass * passes``
        rounds of a few steps each, each round starting one job later, so the machine's drift over the minutes
        this takes falls on every anchor alike and cancels in the differences that set the costs. Run one after
        the other, the mlp's group-per-variable anchor came out 1-14 ms slower than the fused one on four
        calibrations of one testbed (0.2-2.8 ms per collective), and one replica alone took 10.5 ms on one
        transformer calibration and 19.4 ms on the next.

        The updates are timed in the step because the one-node probe (:meth:`update`) misses what they cost there:
        on three emulated nodes, the recommender's lockstep step took 8.9 ms with its Adam updates and 5.0 without
        (the probe: 0.5 ms per update), dlrm's 15.6 and 7.4 (0.9); mlp, cnn and transformer agreed within 1 ms.

        With ``left_open``, the jobs go into it open, for the caller to close once it has stopped the cluster: the
        servers free everything when they stop, and closing a session while the others are open takes TensorFlow
        up to tens of seconds each (``runners.transform.closed_together``).
        """
        spec = self.cluster.spec
        strategies = anchor_strategies(inventory, spec)
        if not _has_matrices(inventory):
            strategies.pop("powersgd")
        one = Strategy.build(strategies["all_reduce"].nodes, spec.replicas[:1])
        runs = [("alone", one, True, True), ("nosync", strategies["all_reduce"], False, True),
                ("noupdate", strategies["all_reduce"], False, False)]
        runs += [(k, s, True, True) for k, s in strategies.items()]
        with (contextlib.nullcontext(left_open) if left_open is not None else closed_together() as jobs,
              graphs_ahead(traced, self.cluster, [r[1:] for r in runs],
                           copies=copies_ahead(steps * passes)) as graphs):
            call_s = 0.0  # the seconds of one sample of every job: a call of each
            for (name, strategy, sync, update), graph in zip(runs, graphs):
                self.say(f"model step, {name}: building its job, {warmup} warm-up step(s)")
                job = TrainingJob(traced, strategy, self.cluster, step_timeout_s=self.timeout_s, synchronize=sync,
                                  update=update, graph=graph.result(), on_build=self.say)
                jobs.append(job)
                call_s += warm_up(job, warmup, steps * passes)
            samples = samples_within(steps * passes, call_s, TURNS_S)
            if samples < steps * passes:
                self.say(f"model steps: {samples} samples of each job, not {steps * passes}: a sample of every job "
                         f"takes {call_s:.1f} s")
            times = take_turns(jobs, samples, rounds_per_pass * passes, progress=lambda k, rounds, n: self.say(
                f"model steps, round {k}/{rounds}: {n} step(s) of each of {len(jobs)}, taking turns"))
        medians = {name: statistics.median(t) for (name, *_), t in zip(runs, times)}
        chunks = turn_chunks(samples, rounds_per_pass * passes)
        rounds = {name: round_means(t, chunks) for (name, *_), t in zip(runs, times) if name in strategies}
        per_call = {name: job.steps_per_call for (name, *_), job in zip(runs, jobs)}
        return medians.pop("alone"), medians.pop("nosync"), medians.pop("noupdate"), medians, rounds, per_call

    def free(self) -> None:
        """Destroy the probe variables made so far, every session left open (:meth:`reset` closes a job's too)."""
        import tensorflow as tf

        if not self._made:
            return
        g = tf.Graph()
        with g.as_default():
            ops = []
            for name, task in self._made:
                with tf.compat.v1.device(self._device(task)):
                    handle = tf.raw_ops.VarHandleOp(dtype=tf.float32, shape=[], container=CONTAINER, shared_name=name)
                    ops.append(tf.raw_ops.DestroyResourceOp(resource=handle, ignore_lookup_error=True))
        with tf.compat.v1.Session(self.cluster.target, graph=g, config=self.cluster.session_config()) as sess:
            run_with_timeout(sess, ops, self.timeout_s, cluster=self.cluster)
        self._made = []

    def reset(self) -> None:
        """Free every probe variable on the servers."""
        import tensorflow as tf

        tf.compat.v1.Session.reset(self.cluster.target, containers=[CONTAINER])


def _has_matrices(inventory) -> bool:
    """Whether PowerSGD compresses anything of the model (a matrix with both sides above 1)."""
    return any(len(v.shape) >= 2 and min(v.shape[0], v.num_elements // max(v.shape[0], 1)) > 1
               for v in inventory.variables)


def measure(cluster, *, sizes: list[int], repeats: int = 5, rpc_tensors: int = 200, traced=None, inventory=None,
            steps: int = 10, warmup: int = 3, timeout_s: float = 120.0, left_open: list | None = None,
            probes: Measurements | None = None, progress: Callable[[str], None] = lambda _m: None) -> Measurements:
    """Run every probe on ``cluster`` (a RunningCluster), or take them from ``probes`` (another calibration's of this
    spec); with ``traced`` also the model's steps (its jobs left open in ``left_open``: :meth:`Prober.model_steps`)."""
    if probes is None and len(set(sizes)) < 2:
        raise ValueError(f"at least two different message sizes are needed, but got {sizes}.")
    p = Prober(cluster, repeats=repeats, timeout_s=timeout_s, progress=progress)
    m = dataclasses.replace(probes) if probes is not None else _cluster_probes(p, sizes, repeats, rpc_tensors)
    if inventory is not None:
        progress(f"optimizer update on one node: {inventory.optimizer_name} on "
                 f"{len(inventory.variables)} variable(s)")
        try:
            m.update_s = p.update(inventory)
        finally:
            p.reset()
    if traced is not None:
        if len(cluster.spec.replicas) >= 2:
            (m.step_single_s, m.nosync_step_s, m.nosync_noupdate_s, m.anchors_s, m.anchor_rounds_s,
             m.steps_per_call) = p.model_steps(traced, inventory, steps, warmup, left_open=left_open)
        else:
            progress(f"model step: {warmup} warm-up + {steps} calls on one replica alone")
            m.step_single_s, k = p.single_step(traced, inventory, steps, warmup)
            m.steps_per_call = {"alone": k}
    return m


def _cluster_probes(p: Prober, sizes: list[int], repeats: int, rpc_tensors: int) -> Measurements:
    """The probes of the cluster itself (links, collectives, overheads, local passes): no model in them."""
    progress, n = p.say, len(p.addresses)
    try:
        links = []
        for a, b in itertools.permutations(range(n), 2):
            progress(f"link {p.addresses[a]} -> {p.addresses[b]}: {len(sizes)} sizes x {repeats} runs")
            links.append(p.link(a, b, sizes))
        ar_s, ar_tiny, ar_base = [], 0.0, 0.0
        if n >= 2:
            progress(f"all-reduce over {n} nodes: {len(sizes)} sizes")
            ar_s, ar_tiny, ar_base = p.allreduce(sizes)
        progress(f"per-tensor overhead: {rpc_tensors} tiny tensors")
        rpc_many, rpc_one = p.rpc(n - 1, 0, rpc_tensors) if n >= 2 else (0.0, 0.0)
        if n >= 2:
            progress("per-message latency: chains of dependent tiny messages")
            hops = (2, 2 + 2 * CHAIN_EXTRA)
            chain = {link_key(p.addresses[a], p.addresses[b]): p.chain(a, b, hops)
                     for a, b in itertools.combinations(range(n), 2)}
            progress(f"per-collective overhead: {COLLECTIVES} tiny all-reduces")
            coll_many, coll_one = p.collectives(COLLECTIVES)
            progress("fixed cost of a run that spans every node")
            run_all, run_one = p.run_overhead()
        progress("PowerSGD rounds: many small matrices, then a few large ones")
        psgd_small = p.powersgd([PSGD_SMALL] * PSGD_SMALL_COUNT)
        psgd_large = p.powersgd([PSGD_LARGE] * PSGD_LARGE_COUNT)
        progress("reduction and cast cost on one node")
        gamma, cast = p.local_passes(max(max(sizes), 16 * 2**20))
        m = Measurements(links=links, allreduce_sizes=list(sizes) if n >= 2 else [], allreduce_s=ar_s,
                         allreduce_tiny_s=ar_tiny, allreduce_base_s=ar_base, rpc_tensors=rpc_tensors, rpc_s=rpc_many,
                         rpc_one_s=rpc_one, reduce_s_per_byte=gamma, cast_s_per_byte=cast)
        m.powersgd_small_s, m.powersgd_large_s = psgd_small, psgd_large
        if n >= 2:
            m.chain_hops, m.chain_s = hops, chain
            m.collectives, m.collectives_many_s, m.collectives_one_s = COLLECTIVES, coll_many, coll_one
            m.run_all_tasks_s, m.run_one_task_s = run_all, run_one
    finally:
        p.reset()
    return m


def run_calibration(spec, *, sizes: list[int], repeats: int = 5, rpc_tensors: int = 200, model_path: str | None = None,
                    steps: int = 10, warmup: int = 3, start_timeout_s: float = 60.0, timeout_s: float = 120.0,
                    accept_unknown_hosts: bool = False, probes: Measurements | None = None,
                    progress: Callable[[str], None] = lambda _m: None):
    """Trace the model (if any), start the cluster once, :func:`measure`. Returns (Measurements, Inventory or None)."""
    traced = inventory = None
    if model_path is not None:
        progress(f"tracing {model_path}")
        traced = trace_step(model_path)
        inventory = inventory_from_trace(traced)
    progress(f"starting {len(spec.nodes)} server(s) of {spec.source}")
    jobs: list = []  # the model's jobs, closed once their servers have stopped (which frees all they hold)
    try:
        with start_cluster(spec, timeout_s=start_timeout_s, accept_unknown_hosts=accept_unknown_hosts) as cluster:
            m = measure(cluster, sizes=sizes, repeats=repeats, rpc_tensors=rpc_tensors, traced=traced,
                        inventory=inventory, steps=steps, warmup=warmup, timeout_s=timeout_s, left_open=jobs,
                        probes=probes, progress=progress)
    finally:
        for job in jobs:
            job.close()
    if not m.links and len(spec.nodes) >= 2:
        raise RunError("no link was measured")
    return m, inventory

