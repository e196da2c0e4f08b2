"""What ``autotune calibrate`` measured, and its turning into a :class:`simulator.Calibration` (no TensorFlow).

The probes themselves are in :mod:`runners.calibrate`.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

GBIT = 1e9 / 8  # bytes per second in one Gbit/s
PSGD_SMALL, PSGD_SMALL_COUNT = (64, 64, 1), 16  # (n, m, rank) matrices of the PowerSGD probe
PSGD_LARGE, PSGD_LARGE_COUNT = (1024, 512, 4), 2
ANCHOR_SHARDS = 4  # shards per variable of the split anchors


def anchor_strategies(inventory, spec) -> dict:
    """The model's strategies whose real steps set its per-piece and per-collective costs: pairs that differ in
    one thing only, so that the difference of their measured steps, less the difference the cost model already
    predicts, is that thing's cost.

    ``all_reduce`` (every variable in one fused group) against ``ar_split`` (each variable split into
    ``ANCHOR_SHARDS`` shards, same group: extra pieces) and ``ar_groups`` (a group per variable: extra
    collectives); ``ps`` (every variable on the chief) against ``ps_split`` (the same, split) and ``ps_lb`` (the
    ``ps_lb`` builder: the variables spread over every node's server); and the ``all_reduce_powersgd`` builder, for
    the per-matrix cost of a PowerSGD round.
    """
    from space.builders import build_strategy
    from space.strategy import Strategy, ar_node, partitioned_node, ps_node

    chief = spec.chief.cpu_devices[0]

    def nodes(make, split: bool):
        out = []
        for i, v in enumerate(inventory.variables):
            if split and v.shape and v.shape[0] >= ANCHOR_SHARDS:
                out.append(partitioned_node(v.name, v.shape, 0, [make(v, i) for _ in range(ANCHOR_SHARDS)]))
            else:
                out.append(make(v, i))
        return Strategy.build(out, spec.replicas, builder="calibration")

    def ar(v, _i):
        return ar_node(v.name)

    def ar_own(v, i):
        return ar_node(v.name, group=i)

    def ps(v, _i):
        return ps_node(v.name, chief)

    return {"all_reduce": nodes(ar, False), "ar_split": nodes(ar, True), "ar_groups": nodes(ar_own, False),
            "ps": nodes(ps, False), "ps_split": nodes(ps, True), "ps_lb": build_strategy("ps_lb", inventory, spec),
            "powersgd": build_strategy("all_reduce_powersgd", inventory, spec)}


@dataclasses.dataclass
class LinkFit:
    """One direction of one pair of nodes: medians per message size and the alpha-beta fit."""

    src: str
    dst: str
    sizes: list[int]
    seconds: list[float]  # median per size, the session's own cost (``base_s``) included
    base_s: float  # the same probe with source and destination on one task
    latency_s: float
    bandwidth_gbit: float


@dataclasses.dataclass
class Measurements:
    """Everything one calibration run measured (seconds, bytes); turned into a Calibration by ``to_calibration``."""

    links: list[LinkFit]
    allreduce_sizes: list[int]
    allreduce_s: list[float]
    allreduce_tiny_s: float  # a 4-byte all-reduce: launch overhead and latencies
    allreduce_base_s: float
    rpc_tensors: int
    rpc_s: float  # ``rpc_tensors`` tiny tensors in one run
    rpc_one_s: float  # one tiny tensor
    reduce_s_per_byte: float
    cast_s_per_byte: float
    step_single_s: float | None = None  # one replica alone
    chain_hops: tuple[int, int] = (0, 0)  # (short, long) chains of dependent tiny messages
    chain_s: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)  # link_key -> (short, long)
    collectives: int = 0  # independent tiny all-reduces in one run
    collectives_many_s: float = 0.0
    collectives_one_s: float = 0.0
    run_all_tasks_s: float | None = None  # a tiny run touching every task
    run_one_task_s: float | None = None  # the same on one task
    powersgd_small_s: float | None = None  # PSGD_SMALL_COUNT PowerSGD rounds of PSGD_SMALL matrices
    powersgd_large_s: float | None = None  # PSGD_LARGE_COUNT rounds of PSGD_LARGE matrices
    nosync_step_s: float | None = None  # the lockstep step of every replica with nothing synchronized
    nosync_noupdate_s: float | None = None  # the same with every gradient computed and none applied
    update_s: float | None = None  # the model's optimizer applied to every variable once, on one node
    anchors_s: dict[str, float] = dataclasses.field(default_factory=dict)  # anchor_strategies name -> median step
    # the same name -> its mean step in each round of the head-to-head turns (one round order for every anchor)
    anchor_rounds_s: dict[str, list[float]] = dataclasses.field(default_factory=dict)


def to_calibration(m: Measurements, spec, inventory=None, source: str = "autotune calibrate"):
    """Turn measurements into a :class:`simulator.Calibration` for ``spec`` (and the model of ``inventory``).

    A node's NIC is as fast as its fastest measured direction; a link gets its own entry only when it is
    clearly (15%) slower than both of its NICs. The all-reduce factor compares the measured time per byte with
    the ring formula on the measured links; its overhead is a 4-byte all-reduce minus the session and the latencies.
    """
    from simulator import Calibration, link_key

    addresses = [n.address for n in spec.nodes]
    pair: dict[str, list[LinkFit]] = {}
    for f in m.links:
        pair.setdefault(link_key(f.src, f.dst), []).append(f)
    link_bw = {k: float(np.mean([f.bandwidth_gbit for f in fs])) for k, fs in pair.items()}
    link_lat = {k: float(np.mean([f.latency_s for f in fs])) for k, fs in pair.items()}
    node_bw = {}
    for a in addresses:
        mine = [f.bandwidth_gbit for f in m.links if a in (f.src, f.dst)]
        node_bw[a] = max(mine) if mine else spec.node(a).network_bandwidth_gbit
    slow = {k: v for k, v in link_bw.items() if v < 0.85 * min(node_bw[x] for x in k.split("|"))}
    if m.chain_s:  # dependent messages on an already running step: latency without the cost of another task
        extra = max(m.chain_hops[1] - m.chain_hops[0], 1)
        link_lat = {k: max(0.0, (long - short) / extra) for k, (short, long) in m.chain_s.items()}
    latency = float(np.median(list(link_lat.values()))) if link_lat else 1e-4
    fields = dict(node_bandwidth_gbit=node_bw, link_bandwidth_gbit=slow, latency_s=latency, link_latency_s=link_lat,
                  rpc_overhead_s=max(0.0, (m.rpc_s - m.rpc_one_s) / max(m.rpc_tensors - 1, 1)),
                  reduce_s_per_byte=m.reduce_s_per_byte, cast_s_per_byte=m.cast_s_per_byte,
                  source=source)
    n = len(addresses)
    if n >= 2 and len(m.allreduce_sizes) >= 2:
        slope = np.polyfit(m.allreduce_sizes, m.allreduce_s, 1)[0]
        hops = [(addresses[i], addresses[(i + 1) % n]) for i in range(n)]
        ring_gbit = min(link_bw.get(link_key(a, b), min(node_bw[a], node_bw[b])) for a, b in hops)
        ideal = 2 * (n - 1) / n / (ring_gbit * GBIT)
        wire = slope - (n - 1) / n * m.reduce_s_per_byte
        factor = float(np.clip(ideal / wire, MIN_AR_FACTOR, MAX_AR_FACTOR)) if wire > 0 else 1.0
        alpha = max(link_lat.get(link_key(a, b), latency) for a, b in hops)
        overhead = max(0.0, m.allreduce_tiny_s - m.allreduce_base_s - 2 * (n - 1) * alpha)
        if m.collectives > 1:  # what one more collective adds to a step that already runs some
            overhead = max(0.0, (m.collectives_many_s - m.collectives_one_s) / (m.collectives - 1))
        fields |= dict(collective_bandwidth_factor=factor, collective_overhead_s=overhead)
    if m.powersgd_small_s is not None and m.powersgd_large_s is not None:
        fields |= powersgd_constants(m.powersgd_small_s, m.powersgd_large_s)
    if m.run_all_tasks_s is not None and m.run_one_task_s is not None:
        fields["step_overhead_s"] = max(0.0, m.run_all_tasks_s - m.run_one_task_s)
    if inventory is not None and m.step_single_s is not None:
        # the compute a synchronous step waits for: the lockstep step with nothing synchronized, less the fixed
        # cost of spanning the nodes (the cost model adds that on its own); one replica alone without replicas
        step = m.step_single_s
        if m.nosync_step_s is not None:
            step = max(m.nosync_step_s - fields.get("step_overhead_s", 0.0), m.step_single_s)
        fields |= dict(step_time_s=step, alone_step_s=m.step_single_s, model_hash=inventory.model_hash,
                       compute_flops_per_s=max(inventory.flops_per_step / max(m.step_single_s, 1e-9), 1.0))
        if m.update_s is not None:  # part of every replica's step: no more than one replica alone
            fields["update_s"] = min(m.update_s, m.step_single_s)
        if m.nosync_step_s is not None and m.nosync_noupdate_s is not None and step > 0:
            # what the updates take of the lockstep step (both steps span the nodes: that cost cancels)
            fields["update_share"] = float(np.clip((m.nosync_step_s - m.nosync_noupdate_s) / step, 0.0, 1.0))
    if inventory is not None:
        fields["anchors_s"] = dict(m.anchors_s)
        fields["anchor_rounds_s"] = {k: list(v) for k, v in m.anchor_rounds_s.items() if k in m.anchors_s}
    cal = Calibration.from_spec(spec, **fields)
    return anchor_costs(cal, inventory, spec) if inventory is not None else cal


MIN_AR_FACTOR, MAX_AR_FACTOR = 0.05, 2.0  # bounds of the all-reduce bandwidth factor (probe and anchors alike)
# what each anchor pair sets: (field, anchor, the anchor it differs from in that one thing; None: the anchor's own
# step). The factor is the ring's effective bandwidth in the model's own fused all-reduce step; it comes after the
# per-collective cost (a plain difference) and before the per-piece costs, whose pairs depend on it.
ANCHOR_PAIRS = (("collective_overhead_s", "ar_groups", "all_reduce"),
                ("collective_bandwidth_factor", "all_reduce", None),
                ("ps_serial_fraction", "ps", None), ("ps_spread_serial", "ps_lb", None),
                ("ar_piece_s", "ar_split", "all_reduce"), ("ps_piece_s", "ps_split", "ps"))
# the pairs that set a shard's cost: field -> (split anchor, whole anchor)
PIECE_PAIRS = {field: (name, base) for field, name, base in ANCHOR_PAIRS if field.endswith("_piece_s")}
RESOLVED_SE = 2.0  # a pair's measured difference counts as resolved beyond this many standard errors


def pair_difference(cal, name: str, base: str) -> tuple[float, float | None]:
    """The measured difference of an anchor pair, ``name``'s step less ``base``'s, and its standard error: the
    spread of their round-by-round differences in calibrate's head-to-head turns, where the machine's drift falls on
    both alike (None: the calibration kept no rounds, a file from before cost model 5)."""
    difference = cal.anchors_s[name] - cal.anchors_s[base]
    a, b = cal.anchor_rounds_s.get(name), cal.anchor_rounds_s.get(base)
    if not a or not b or len(a) != len(b) or len(a) < 3:
        return difference, None
    rounds = np.subtract(a, b)
    return difference, float(np.std(rounds, ddof=1) / np.sqrt(len(rounds)))


def resolved(difference: float, se: float | None) -> bool:
    """Whether a pair's difference measures a cost: a step that adds work and runs no slower resolves nothing,
    nor does one slower by less than ``RESOLVED_SE`` standard errors of the difference."""
    return difference > 0 and (se is None or difference > RESOLVED_SE * se)


# the range each anchor-solved field is kept in: the factor is a fraction of the link (kept above 0), the PS
# staggering lost a share; every other field is a cost in seconds up to 0.1
ANCHOR_BOUNDS = {"collective_bandwidth_factor": (MIN_AR_FACTOR, MAX_AR_FACTOR), "ps_serial_fraction": (0.0, 1.0)}


def anchor_costs(cal, inventory, spec):
    """Set the all-reduce bandwidth factor and the per-collective and per-piece costs from the calibration's
    anchor steps (``cal.anchors_s``): the anchor pairs (``ANCHOR_PAIRS``), then the PowerSGD per-matrix cost from
    the ``powersgd`` anchor; nothing without anchors. A difference of two real steps is immune to what both share
    (the compute, the session, the model's own errors), which an absolute anchor would fold into the cost.

    The all-reduce factor is the one absolute anchor: the fused all-reduce step, a ring after the whole compute,
    set against the lockstep compute the calibration measured. The bare probe read 0.96 of the links on the
    3-host testbed, yet that step measured 10-11% below the prediction on both models it was tried on (mlp 64.2
    ms vs 71.4, transformer 103.6 vs 113.5); read from the step, the factor is 1.10 and 1.22 (more than the link:
    the real step's gradient phase is shorter than compute-then-ring). Solving it against the ``ps`` step instead
    moved the PS steps' own error into it (mlp: 1.70, all-reduce strategies 26% too fast).

    The ``ps`` step is the other: how much of the staggering a synchronous PS step loses (``ps_serial_fraction``,
    0 to 1), the share of the way from the staggered step to every-pull-then-every-push at which the cost model
    predicts it, with all of the step's PS load on one server. Up to stop 37 (cost model 3) that share was scaled by
    the step's largest tensor's share of its PS bytes (the mlp, 85% of its bytes in one tensor, measured 0.42 of the
    way), with a calibrated share of a variable's shards on one server counted as one tensor; but the mlp's kernel
    split in four measured as slow as whole, and the transformer's embedding on one server, its dense variables
    all-reduced, measured 47-53 ms whole or in 2 to 16 shards, where that rule predicted 57 ms whole and 48-51 split
    (``benchmarks/experiments/stop38-sparse-shards``). A step loses the share however its PS bytes are split.

    Per piece (CPU work on the critical path): the x >= 0 at which the predicted difference of the pair equals the
    measured one (solved for: the prediction is piecewise linear in x). Where one of the two piece pairs does not
    resolve its difference (:func:`resolved`) and the other does, its shard takes the other's cost
    (:func:`borrowed_piece_cost`): the mlp's 18 extra PS shards added -1.7 to +4.1 ms to a 134-145 ms step on its 12
    calibrations, at or below zero on 3 (a cost of 0), where its 18 all-reduced shards added 3.2-13.5 ms to a
    53-65 ms one. Per
    collective: the measured difference over the extra collectives, as if none were hidden. The cost model charges
    every collective's fixed cost in full but lets the bytes of a group whose gradients are ready early run under
    the backward pass, more of them than the testbed does (the mlp with its first kernel in a group of its own: 5 ms
    of the others' ring hidden in the model, 2 ms measured); solved against the model's prediction of the pair, the
    collectives would carry those bytes too (mlp: 1.7-2.9 ms per collective instead of 0.5-1.6; five mlp runs of 30
    strategies predicted with MAPE 17-44% instead of 6-29%).
    """
    from simulator import COST_MODEL_VERSION, Scorer

    anchors = cal.anchors_s
    if not anchors:
        return cal
    cal = cal.replace(ps_spread_serial=None, ps_spread_busiest=None)  # set again below, from its anchor
    strategies = anchor_strategies(inventory, spec)

    def predict(calibration, name: str, base: str | None):
        """The anchor's step and its pair's (None for an absolute anchor), both from one scorer."""
        scorer = Scorer(inventory, spec, calibration)
        return scorer.predict(strategies[name]), scorer.predict(strategies[base]) if base is not None else None

    def predicted_gap(calibration, name: str, base: str | None) -> float:
        """The anchor's predicted step less its pair's (the step itself for an absolute anchor)."""
        anchor, against = predict(calibration, name, base)
        return anchor.raw_step_time_s - (against.raw_step_time_s if against is not None else 0.0)

    for field, name, base in ANCHOR_PAIRS:
        if name not in anchors or (base is not None and base not in anchors):
            continue
        measured = anchors[name] - (anchors[base] if base is not None else 0.0)
        if field == "collective_overhead_s":
            pair = predict(cal, name, base)
            extra = pair[0].collectives - pair[1].collectives
            if extra > 0:
                cal = cal.replace(collective_overhead_s=max(measured, 0.0) / extra)
            continue

        if field == "ps_spread_serial":
            cal = _solve_spread(cal, lambda c, n=name: predict(c, n, None)[0], measured)
            continue
        low, cap = ANCHOR_BOUNDS.get(field, (0.0, 0.1))

        def gap(x: float, f=field, n=name, b=base, low=low) -> float:
            return predicted_gap(cal.replace(**{f: max(x, low)}), n, b)

        x = solve_cost(gap, measured, prior=getattr(cal, field), cap=cap)
        cal = cal.replace(**{field: max(x, low)})
    borrowed = borrowed_piece_cost(cal)
    if borrowed is not None:
        taker, giver = borrowed
        cal = cal.replace(**{taker: getattr(cal, giver)})
    if "powersgd" in anchors:
        cal = cal.replace(powersgd_matrix_s=powersgd_matrix_from_step(cal, inventory, spec, anchors["powersgd"]))
    return cal.replace(cost_model=COST_MODEL_VERSION)


def borrowed_piece_cost(cal) -> tuple[str, str] | None:
    """``(taker, giver)``: the piece cost (``PIECE_PAIRS``) whose pair resolved nothing (:func:`resolved`) and the
    one whose pair did, which it takes; None where the calibration lacks a pair or both resolved alike. An extra
    shard is the same kind of CPU work (slicing, packing, applying) whether all-reduced or on a server, and a pair of
    long steps can hide it in their noise (the mlp's PS pair, 134-145 ms steps, three times in twelve calibrations;
    the recommender's all-reduced pair, 240-253 ms, twice in eight)."""
    ok = {field: resolved(*pair_difference(cal, name, base)) for field, (name, base) in PIECE_PAIRS.items()
          if name in cal.anchors_s and base in cal.anchors_s}
    if len(ok) < 2 or ok["ar_piece_s"] == ok["ps_piece_s"]:
        return None
    return ("ps_piece_s", "ar_piece_s") if ok["ar_piece_s"] else ("ar_piece_s", "ps_piece_s")


def _solve_spread(cal, anchor: Callable, measured: float):
    """``ps_spread_serial`` from the ``ps_lb`` step: the share of its staggering a synchronous PS step loses with its
    load spread over the servers as ``ps_lb`` spreads it, solved in [0, ``ps_serial_fraction``] (the share of the
    ``ps`` step, all of it on one server), and where that applies in full (``ps_spread_busiest``, the busiest
    server's share of the anchor's PS load). Nothing to set where a PS step loses no staggering or the builder has
    one server only.

    On the 3-host testbed ``ps_lb`` was the transformer's fastest step on every run (27-38 ms) and the cost model,
    charging it the ``ps`` step's share (0.76-1.0), predicted it 24-45% slow; the mlp's 3-11% slow. The dlrm's,
    its largest table on one server, came out right with the ``ps`` step's share. ``anchor(calibration)``: the
    ``ps_lb`` step's prediction."""
    loads = anchor(cal).server_load_bytes
    total = sum(loads.values())
    busiest = max(loads.values(), default=0.0) / total if total > 0 else 1.0
    if cal.ps_serial_fraction <= 0 or busiest >= 1.0:
        return cal
    top = cal.ps_serial_fraction

    def step(x: float) -> float:
        return anchor(cal.replace(ps_spread_serial=min(max(x, 0.0), top), ps_spread_busiest=busiest)).raw_step_time_s

    share = min(max(solve_cost(step, measured, prior=top, cap=top), 0.0), top)
    return cal.replace(ps_spread_serial=share, ps_spread_busiest=busiest)


def solve_cost(predicted: Callable[[float], float], measured: float, prior: float = 0.0, cap: float = 0.1,
               tol: float = 1e-8, flat_s: float = 1e-6) -> float:
    """The cost x in [0, cap] at which ``predicted(x)`` equals ``measured``.

    The prediction need not be monotone nor strictly increasing: a cost both steps pay may hide under one's
    backward pass and not the other's. Where a whole range of x predicts the measurement (to ``flat_s``) the
    step cannot tell them apart, and the x nearest ``prior`` (the isolated probe's value) is kept; otherwise the
    first crossing on a geometric grid, bisected to ``tol``; the x that comes closest when none reaches it.
    """
    xs = sorted({0.0, *np.geomspace(1e-6, cap, 49), min(max(prior, 0.0), cap)})
    err = np.array([predicted(x) - measured for x in xs])
    near = lambda cands: float(min(cands, key=lambda x: abs(x - prior)))  # noqa: E731
    flat = [x for x, e in zip(xs, err) if abs(e) <= flat_s]
    if len(flat) >= 2:
        return near(flat)
    for k in range(len(xs) - 1):
        if (err[k] < 0) != (err[k + 1] < 0):
            lo, hi, below = xs[k], xs[k + 1], err[k] < 0
            while hi - lo > tol:
                mid = (lo + hi) / 2
                lo, hi = (mid, hi) if (predicted(mid) - measured < 0) == below else (lo, mid)
            return float((lo + hi) / 2)
    return near([x for x, e in zip(xs, err) if abs(e) <= np.abs(err).min() + flat_s])


def powersgd_matrix_from_step(cal, inventory, spec, measured_s: float) -> float:
    """Per-matrix cost of a PowerSGD round inside a real step: what the model's ``all_reduce_powersgd`` step
    measured beyond the cost model's prediction without any per-matrix cost, per matrix on the step's critical
    path. The isolated probe (one task, no towers) sees microseconds per matrix; a real step also runs the
    factors' reshapes, the QR, the error-feedback and warm-start updates on every tower, and waits between the
    two dependent all-reduces -- on the 3-host testbed 0.7-2.2 ms per matrix."""
    from simulator import Scorer
    from space.builders import build_strategy

    strategy = build_strategy("all_reduce_powersgd", inventory, spec)

    def predict(x: float) -> float:
        return Scorer(inventory, spec, cal.replace(powersgd_matrix_s=x)).predict(strategy).raw_step_time_s

    if predict(1e-3) - predict(0.0) < 0.5e-3:  # no compressed matrix on the step's critical path
        return cal.powersgd_matrix_s
    return max(cal.powersgd_matrix_s, solve_cost(predict, measured_s, prior=cal.powersgd_matrix_s))


def powersgd_flops(n: int, m: int, r: int) -> float:
    """Flops of one PowerSGD round on an n x m matrix at rank r (as the simulator counts them)."""
    return 4.0 * n * m * r + 2.0 * (n + m) * r * r


def powersgd_constants(small_s: float, large_s: float) -> dict:
    """Per-matrix fixed cost and seconds per flop of a PowerSGD round, from the small and the large probe."""
    per_small, per_large = small_s / PSGD_SMALL_COUNT, large_s / PSGD_LARGE_COUNT
    f_small, f_large = powersgd_flops(*PSGD_SMALL), powersgd_flops(*PSGD_LARGE)
    per_flop = max(0.0, (per_large - per_small) / (f_large - f_small))
    return dict(powersgd_matrix_s=max(0.0, per_small - per_flop * f_small), powersgd_s_per_flop=per_flop)


ANCHOR_MISFIT = 0.05  # an anchor step the cost model predicts further off than this is named


def anchor_fit(cal, inventory, spec) -> dict[str, tuple[float, float]]:
    """Each anchor step the calibration holds, as ``(measured, predicted)`` seconds: the cost model's raw step (no
    residual) with the costs derived from those very steps. The pairs fit their differences, not each step, and a
    solved share stops at its bound, so an anchor can stay off: a step the model misses by 14% says the strategies
    like it will be predicted off by about as much (``validate-simulator --fit-residual`` fits a correction)."""
    from simulator import Scorer

    anchors = cal.anchors_s or {}
    strategies = anchor_strategies(inventory, spec)
    scorer = Scorer(inventory, spec, cal.replace(residual=None))
    return {name: (t, scorer.predict(strategies[name]).raw_step_time_s) for name, t in anchors.items()
            if name in strategies and t > 0}


def anchor_misfits(fit: dict[str, tuple[float, float]], limit: float = ANCHOR_MISFIT) -> list[str]:
    """``["ar_groups -14%", ...]``: the anchors predicted further off than ``limit`` (predicted over measured)."""
    return [f"{name} {predicted / measured - 1:+.0%}" for name, (measured, predicted) in fit.items()
            if abs(predicted / measured - 1) > limit]


def format_table(m: Measurements, cal, fit: dict[str, tuple[float, float]] | None = None) -> str:
    """Human-readable summary of the measurements and the constants derived from them; with ``fit``
    (``anchor_fit``), each anchor step as the cost model predicts it, and the ones it misses."""
    lines = [f"{'link':<36}{'bandwidth':>14}{'latency':>12}   medians per size"]
    for f in m.links:
        per = ", ".join(f"{_size(s)} {t * 1e3:.2f}ms" for s, t in zip(f.sizes, f.seconds))
        lines.append(f"{f.src + ' -> ' + f.dst:<36}{f.bandwidth_gbit * 1e3:>9.1f} Mbit{f.latency_s * 1e6:>9.0f} us"
                     f"   {per} (session {f.base_s * 1e3:.2f}ms)")
    lines.append("")
    rows = [("node bandwidth", ", ".join(f"{a} {g * 1e3:.1f} Mbit/s" for a, g in cal.node_bandwidth_gbit.items())),
            ("slower links", ", ".join(f"{k} {g * 1e3:.1f} Mbit/s" for k, g in cal.link_bandwidth_gbit.items())
             or "none"),
            ("latency (alpha)", f"{cal.latency_s * 1e6:.0f} us"),
            ("all-reduce bandwidth factor", f"{cal.collective_bandwidth_factor:.3f}"
             + (" (from the all_reduce step below)" if "all_reduce" in m.anchors_s else "")),
            ("all-reduce overhead", f"{cal.collective_overhead_s * 1e3:.3f} ms"),
            ("per-tensor RPC overhead", f"{cal.rpc_overhead_s * 1e6:.1f} us"),
            ("run spanning every node", f"+{cal.step_overhead_s * 1e3:.3f} ms"),
            ("PowerSGD round", f"{cal.powersgd_matrix_s * 1e3:.3f} ms per matrix + "
                               f"{(cal.powersgd_s_per_flop or 0) * 1e12:.1f} ps/flop"),
            ("reduce cost (gamma)", f"{cal.reduce_s_per_byte * 1e12:.1f} ps/byte"),
            ("cast cost", f"{cal.cast_s_per_byte * 1e12:.1f} ps/byte/pass")]
    if m.step_single_s is not None:
        rows.append(("model step, one replica alone", f"{m.step_single_s * 1e3:.2f} ms"))
    if cal.update_s is not None:
        rows.append(("optimizer update, every variable once", f"{cal.update_s * 1e3:.2f} ms (one node)"))
    if m.nosync_step_s is not None:
        rows.append(("model step, every replica, nothing synced", f"{m.nosync_step_s * 1e3:.2f} ms "
                     f"(compute {cal.step_time_s * 1e3:.2f} ms + spanning the nodes)"))
    if m.nosync_noupdate_s is not None and cal.update_share is not None:
        rows.append(("the same, no update applied", (f"{m.nosync_noupdate_s * 1e3:.2f} ms (the updates: "
                                                     f"{cal.update_share:.0%} of the compute)")))
    sets = {"all_reduce": f"-> all-reduce bandwidth factor {cal.collective_bandwidth_factor:.3f}",
            "ar_split": f"-> {cal.ar_piece_s * 1e3:.3f} ms per extra all-reduced piece",
            "ar_groups": f"-> {cal.collective_overhead_s * 1e3:.3f} ms per extra collective",
            "ps": f"-> a PS step on one server loses {cal.ps_serial_fraction:.2f} of its staggering",
            "ps_split": f"-> {cal.ps_piece_s * 1e3:.3f} ms per extra PS piece",
            "powersgd": f"-> {cal.powersgd_matrix_s * 1e3:.3f} ms per PowerSGD matrix"}
    if cal.ps_spread_serial is not None:
        sets["ps_lb"] = (f"-> spread over the servers (the busiest {cal.ps_spread_busiest:.0%} of the load), a PS "
                         f"step loses {cal.ps_spread_serial:.2f} of its staggering")
    bases = {name: base for _, name, base in ANCHOR_PAIRS if base is not None}
    for name, t in m.anchors_s.items():
        predicted = f" (the cost model: {fit[name][1] * 1e3:.2f} ms)" if fit and name in fit else ""
        rows.append((f"model step, {name}", f"{t * 1e3:.2f} ms{predicted} {sets.get(name, '')}".rstrip()
                     + _pair_note(cal, name, bases.get(name))))
    width = max(len(k) for k, _ in rows)
    lines += [f"{k:<{width}}  {v}" for k, v in rows]
    missed = anchor_misfits(fit or {})
    if missed:
        lines += ["", (f"the cost model misses {len(missed)} of its own anchor steps by more than {ANCHOR_MISFIT:.0%} "
                       f"(predicted over measured): {', '.join(missed)}; strategies like them will be predicted off "
                       "by about as much (`autotune validate-simulator --fit-residual` fits a correction)")]
    return "\n".join(lines)


def _pair_note(cal, name: str, base: str | None) -> str:
    """`` (+1.60 ± 2.10 ms against ps, not resolved: ...)``: an anchor pair's measured difference, with two
    standard errors where the rounds were kept; empty for an anchor that is no pair's."""
    if base is None or base not in cal.anchors_s or name not in cal.anchors_s:
        return ""
    difference, se = pair_difference(cal, name, base)
    spread = f" ± {RESOLVED_SE * se * 1e3:.2f}" if se is not None else ""
    note = f"{difference * 1e3:+.2f}{spread} ms against {base}"
    if not resolved(difference, se):
        takes = {"ps_piece_s": ": a PS shard takes an all-reduced shard's cost",
                 "ar_piece_s": ": an all-reduced shard takes a PS shard's cost"}
        borrowed = borrowed_piece_cost(cal)
        note += ", not resolved" + (takes[borrowed[0]] if borrowed and PIECE_PAIRS[borrowed[0]][0] == name else "")
    return f" ({note})"


def _size(nbytes: int) -> str:
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g}{unit}"
    return f"{nbytes}B"
