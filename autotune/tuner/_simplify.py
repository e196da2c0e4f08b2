"""Simplifying a candidate before it is profiled.

TPE sets every parameter of every trial, also those the cost model hardly sees: a 256-byte bias split three ways
with a different synchronizer per shard, a PowerSGD group of one vector, a proxy on a tensor nobody reads twice.
Each such piece costs the real step graph ops, RPCs and collective launches (measured on the testbed: 0.3-0.6 ms
per extra piece), and makes the strategy file hard to read. Before profiling, each non-builder candidate is
walked variable by variable, smallest first, and a simpler choice is kept whenever the predicted step stays
within ``tolerance`` of the candidate's own prediction: no partitioning, the synchronizer a shard already uses,
no compressor, the default collective spec, the most used all-reduce group instead of a group of its own, no
proxy. Every move removes something, so the walk ends.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np

from space.search_space import SlotPlan, VarPlan

TOLERANCE = 0.01  # a simpler strategy may be predicted at most 1% slower than the candidate
MAX_PASSES = 2


def _groups_in_use(plans: Sequence[VarPlan], skip: int) -> list:
    """All-reduce groups of the other variables, the most used (by slots) first."""
    count: dict = {}
    for i, plan in enumerate(plans):
        if i != skip:
            for s in plan.slots:
                if s.kind == "ar":
                    count[s.group] = count.get(s.group, 0) + 1
    return sorted(count, key=lambda g: -count[g])


def _slot_moves(slot: SlotPlan, groups: list) -> list[SlotPlan]:
    if slot.kind == "ps":
        return [dataclasses.replace(slot, proxy=False)] if slot.proxy else []
    out = []
    if slot.compressor != "none":
        out.append(dataclasses.replace(slot, compressor="none", rank=0))
    if slot.spec != "auto":
        out.append(dataclasses.replace(slot, spec="auto"))
    if groups and slot.group not in groups:  # a collective of its own: join the most used group
        out.append(dataclasses.replace(slot, group=groups[0]))
    return out


def moves(plans: Sequence[VarPlan], i: int, tied: bool = False) -> list[VarPlan]:
    """Simpler plans for variable ``i``: one change each. ``tied``: the space gives every shard of a variable one
    synchronizer, so a change to it applies to all of them."""
    plan = plans[i]
    out: list[VarPlan] = []
    if plan.shards > 1:  # whole again, with one of the synchronizers its shards use
        for slot in dict.fromkeys(plan.slots):
            out.append(VarPlan(1, 0, (slot,)))
    groups = _groups_in_use(plans, i)
    if tied:
        out += [dataclasses.replace(plan, slots=(new,) * plan.shards) for new in _slot_moves(plan.slots[0], groups)]
        return [m for m in dict.fromkeys(out) if m != plan]
    for j, slot in enumerate(plan.slots):
        for new in _slot_moves(slot, groups):
            out.append(dataclasses.replace(plan, slots=plan.slots[:j] + (new,) + plan.slots[j + 1:]))
    return [m for m in dict.fromkeys(out) if m != plan]


def simplify(plans: Sequence[VarPlan], order: Sequence[int], score: Callable[[list[list[VarPlan]]], np.ndarray],
             tolerance: float = TOLERANCE, tied: bool = False) -> tuple[list[VarPlan], float, int]:
    """Greedy simplification of ``plans``; ``score`` predicts a batch of plan lists (seconds).

    Visits the variables in ``order``; for each, applies the best-predicted simpler move while the prediction
    stays within ``(1 + tolerance)`` of the starting one, until none is left; ``tied`` as in :func:`moves`.
    Returns (plans, predicted step, moves applied).
    """
    current = list(plans)
    start = float(score([current])[0])
    limit, best, applied = start * (1 + tolerance), start, 0
    for _ in range(MAX_PASSES):
        changed = False
        for i in order:
            while True:
                options = moves(current, i, tied)
                if not options:
                    break
                trials = [current[:i] + [m] + current[i + 1:] for m in options]
                times = np.asarray(score(trials), float)
                k = int(np.argmin(times))
                if times[k] > limit:
                    break
                current, best, applied, changed = trials[k], float(times[k]), applied + 1, True
        if not changed:
            break
    return current, best, applied
