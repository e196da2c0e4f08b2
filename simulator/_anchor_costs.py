"""The costs calibrate's anchor steps set (:data:`space.anchors.anchor_strategies`): each from the measured
difference of a pair of real steps that differ in one thing, solved against the cost model's prediction of that
pair, and how well the derived costs predict the anchor steps themselves (see ``docs/design.md``)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from simulator._calibration import COST_MODEL_VERSION
from simulator._scorer import Scorer
from space.anchors import anchor_strategies
from space.builders import build_strategy

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
# the range each anchor-solved field is kept in: the factor is a fraction of the link (kept above 0), the PS
# staggering lost a share; every other field is a cost in seconds up to 0.1
ANCHOR_BOUNDS = {"collective_bandwidth_factor": (MIN_AR_FACTOR, MAX_AR_FACTOR), "ps_serial_fraction": (0.0, 1.0)}
ANCHOR_MISFIT = 0.05  # an anchor step the cost model predicts further off than this is named


def pair_difference(cal, name: str, base: str) -> tuple[float, float | None]:
    """The measured difference of an anchor pair, ``name``'s step less ``base``'s, and its standard error: the
    spread of their round-by-round differences in calibrate's head-to-head turns, where the machine's drift falls on
    both alike (None: the calibration kept no rounds)."""
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


def anchor_costs(cal, inventory, spec):
    """Set the all-reduce bandwidth factor, the PS staggering shares and the per-collective and per-piece costs
    from the calibration's anchor steps (``cal.anchors_s``): the anchor pairs (``ANCHOR_PAIRS``), then the PowerSGD
    per-matrix cost from the ``powersgd`` anchor; nothing without anchors. A difference of two real steps is immune
    to what both share (the compute, the session, the model's own errors), which an absolute anchor would fold into
    the cost.

    Two anchors are absolute: the fused all-reduce step sets the all-reduce factor (the ring as it runs in the
    model's step, against the lockstep compute the calibration measured), and the ``ps`` step how much of the
    replicas' staggering a synchronous PS step loses (``ps_serial_fraction``, 0 to 1, all of its PS load on one
    server), however the step's PS bytes are split into tensors. Per piece (CPU work on the critical path): the
    x >= 0 at which the predicted difference of the pair equals the measured one (:func:`solve_cost`); where one of
    the two piece pairs does not resolve its difference (:func:`resolved`) and the other does, its shard takes the
    other's cost (:func:`borrowed_piece_cost`). Per collective: the measured difference over the extra
    collectives, as if none were hidden. ``docs/design.md`` says why each is so.
    """
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
    long steps can hide it in their noise."""
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
    one server only. ``anchor(calibration)``: the ``ps_lb`` step's prediction."""
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
    strategy = build_strategy("all_reduce_powersgd", inventory, spec)

    def predict(x: float) -> float:
        return Scorer(inventory, spec, cal.replace(powersgd_matrix_s=x)).predict(strategy).raw_step_time_s

    if predict(1e-3) - predict(0.0) < 0.5e-3:  # no compressed matrix on the step's critical path
        return cal.powersgd_matrix_s
    return max(cal.powersgd_matrix_s, solve_cost(predict, measured_s, prior=cal.powersgd_matrix_s))


def anchor_fit(cal, inventory, spec) -> dict[str, tuple[float, float]]:
    """Each anchor step the calibration holds, as ``(measured, predicted)`` seconds: the cost model's raw step (no
    residual) with the costs derived from those very steps. The pairs fit their differences, not each step, and a
    solved share stops at its bound, so an anchor can stay off: a step the model misses by 14% says the strategies
    like it will be predicted off by about as much (``validate-simulator --fit-residual`` fits a correction)."""
    anchors = cal.anchors_s or {}
    strategies = anchor_strategies(inventory, spec)
    scorer = Scorer(inventory, spec, cal.replace(residual=None))
    return {name: (t, scorer.predict(strategies[name]).raw_step_time_s) for name, t in anchors.items()
            if name in strategies and t > 0}


def anchor_misfits(fit: dict[str, tuple[float, float]], limit: float = ANCHOR_MISFIT) -> list[str]:
    """``["ar_groups -14%", ...]``: the anchors predicted further off than ``limit`` (predicted over measured)."""
    return [f"{name} {predicted / measured - 1:+.0%}" for name, (measured, predicted) in fit.items()
            if abs(predicted / measured - 1) > limit]
