"""The per-variable space on a large cluster: a variable's shards share one synchronizer.

Per variable ``v<i>``: ``v<i>.shards`` and ``v<i>.s<n>.axis`` as in the per-variable space (one shard per PS
stays a count, the ``uneven_ps`` builder's), then one slot ``v<i>`` for the whole variable or for all of its
shards alike. Its PS destination is one of a few servers spread over the cluster or ``balanced`` (largest-first
over every PS device), its all-reduce group a fixed id or ``chunk``, so a split over hundreds of servers costs
one placement parameter, not one per shard.
"""
from __future__ import annotations

import dataclasses
import heapq
import itertools
from typing import Any, Callable, Sequence

from space.errors import StrategyError
from space.inventory import VariableInfo
from space.search_space._full import PerVariableSpace, VarChoices
from space.search_space._plan import BALANCED, CHUNK, SlotPlan, VarPlan, piece_bytes
from space.search_space._slot import Ask

MAX_ENCODE_TRIES = 4096  # plans ``encode`` tries: both forms of 12 variables on one server or in one group


def spread(count: int, first: int, size: int) -> tuple[int, ...]:
    """``size`` indices out of ``range(count)``, evenly spaced (a cluster listed rack by rack, up to ``size`` racks,
    has servers in every rack), ``first`` in place of the one nearest to it, in increasing order; all of them when
    ``size >= count``."""
    if size >= count:
        return tuple(range(count))
    picked = [round(k * count / size) for k in range(size)]
    if first not in picked:
        picked[min(range(size), key=lambda k: abs(picked[k] - first))] = first
    return tuple(sorted(picked))


class CompactSpace(PerVariableSpace):
    """Parameters per variable, one synchronizer per variable: a bounded number of parameters per trial."""

    def __init__(self, variables: tuple[VariableInfo, ...], slot_for, base_shards: tuple[int, ...], num_ps: int,
                 chunk_size: int) -> None:
        super().__init__(variables, slot_for, base_shards, num_ps)
        self.variables, self.num_devices, self.chunk_size = variables, num_ps, chunk_size

    @staticmethod
    def slot_prefixes(vc, shards: int) -> list[str]:
        return [vc.prefix]

    def ask_slots(self, ask: Ask, vc, shards: int) -> tuple:
        """One synchronizer for every shard of the variable."""
        return (vc.slot.ask(ask, vc.prefix),) * shards

    def params(self, plans: list[VarPlan], names: list[str]) -> dict[str, Any]:
        """The inverse of :meth:`ask`; StrategyError where a variable's shards differ or a value is outside."""
        for plan, name in zip(plans, names):
            if len(set(plan.slots)) > 1:
                raise StrategyError("the shards of a variable use different synchronizers",
                                    f"compact search space, variable {name!r}",
                                    hint="on a large cluster every shard of a variable shares one synchronizer")
        return super().params(plans, names)

    def encode(self, plans: Sequence[VarPlan], names: list[str], matches: Callable[[dict], bool]) -> dict[str, Any]:
        """Parameters that decode to concrete ``plans`` (device indices, group ids). A variable's shards spread over
        servers (groups) read as ``balanced`` (``chunk``), and so may a whole variable on one server (in one group):
        which of those were balanced (chunked) is found by replaying the placement (the fusion) in its own order,
        then all fixed, all symbolic and the other combinations are tried, up to ``MAX_ENCODE_TRIES``."""
        forms = [self._forms(vc, p, name) for vc, p, name in zip(self.vars, plans, names)]
        sizes = [len(f) for f in forms]
        symbolic = balanced_vars(plans, self.variables, sizes, self.num_devices)
        chunked = chunked_vars(plans, sizes, self.chunk_size)
        replayed = () if symbolic is None or chunked is None else \
            (tuple(n - 1 if i in symbolic | chunked else 0 for i, n in enumerate(sizes)),)
        first, last = tuple(0 for _ in sizes), tuple(n - 1 for n in sizes)
        picks = itertools.chain(replayed, (first, last), itertools.product(*(range(n) for n in sizes)))
        tried: set[tuple[int, ...]] = set()
        for pick in picks:
            if pick in tried:
                continue
            if len(tried) == MAX_ENCODE_TRIES:
                break
            tried.add(pick)
            out = {k: v for f, k_ in zip(forms, pick) for k, v in f[k_].items()}
            if matches(out):
                return out
        raise StrategyError("the strategy places or groups its variables in a way the compact space cannot express "
                            "(one server/group per variable, or balanced/chunked)", "compact search space",
                            hint="use the reduced space (reduced=True)")

    def _forms(self, vc: VarChoices, plan: VarPlan, name: str) -> list[dict[str, Any]]:
        """The parameters of one variable: its fixed form where it has one, then its symbolic form."""
        where = f"compact search space, variable {name!r}"
        slot: SlotPlan = plan.slots[0]
        field, symbol = ("ps", BALANCED) if slot.kind == "ps" else ("group", CHUNK)
        if len({dataclasses.replace(s, ps=0, group=0) for s in plan.slots}) > 1:
            raise StrategyError("the shards of a variable use different synchronizers", where,
                                hint="on a large cluster every shard of a variable shares one synchronizer")
        out, error = [], None
        candidates = [getattr(slot, field)] if len({getattr(s, field) for s in plan.slots}) == 1 else []
        for value in candidates + [symbol]:
            tied = dataclasses.replace(slot, **{field: value})
            try:
                out.append(self.var_params(vc, dataclasses.replace(plan, slots=(tied,) * plan.shards), name))
            except StrategyError as e:
                error = e
        if not out:
            raise error
        return out

    def distributions(self) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for vc in self.vars:
            out |= self.var_distributions(vc)
        return out


def balanced_vars(plans: Sequence[VarPlan], variables, forms: Sequence[int], devices: int) -> set[int] | None:
    """Variables whose PS pieces a ``balanced`` placement put where ``plans`` have them, replaying ``_plan.realize``'s
    largest-first placement: a variable with one form must be balanced, one with two (fixed or balanced) is
    balanced where that places its pieces right, else fixed (depth first, back at most ``MAX_ENCODE_TRIES`` times).
    None where no choice replays the placement."""
    ps = [i for i, p in enumerate(plans) if p.slots[0].kind == "ps"]
    pieces = sorted(((i, j, b) for i in ps for j, b in enumerate(piece_bytes(variables[i], plans[i].axis,
                                                                          plans[i].shards))),
                    key=lambda piece: -piece[2])  # stable: equal sizes keep variable/shard order, as lpt_assign
    # (next piece, (load, device) heap of the balanced pieces so far, variable -> balanced): the choices left
    stack: list[tuple[int, list[tuple[float, int]], dict[int, bool]]] = [(0, [(0.0, d) for d in range(devices)], {})]
    branches = 0
    while stack:
        k, loads, decided = stack.pop()
        while k < len(pieces):
            i, j, size = pieces[k]
            if i not in decided:
                if forms[i] > 1:  # either form: balanced first, fixed when that fails
                    branches += 1
                    if branches > MAX_ENCODE_TRIES:
                        return None
                    stack.append((k, list(loads), decided | {i: False}))
                decided = decided | {i: True}
            if decided[i]:
                load, d = heapq.heappop(loads)  # lpt_assign's least loaded: ties to the first device
                if d != plans[i].slots[j].ps:
                    break
                heapq.heappush(loads, (load + size, d))
            k += 1
        else:
            return {i for i, balanced in decided.items() if balanced}
    return None


def chunked_vars(plans: Sequence[VarPlan], forms: Sequence[int], chunk_size: int) -> set[int] | None:
    """Variables whose all-reduce groups ``chunk`` fusion gives as ``plans`` have them, replaying ``_plan.realize``'s
    running index over the chunked tensors in variable/shard order (a variable with one form must be chunked);
    None where no choice replays the groups."""
    ar = [i for i, p in enumerate(plans) if p.slots[0].kind == "ar"]
    # reach[k]: running index before the k-th all-reduced variable -> (index before the one before, chunked)
    reach: list[dict[int, tuple[int, bool]]] = [{0: (0, False)}]
    for i in ar:
        step: dict[int, tuple[int, bool]] = {}
        for index in reach[-1]:
            if all(s.group == (index + j) // chunk_size for j, s in enumerate(plans[i].slots)):
                step.setdefault(index + plans[i].shards, (index, True))
            if forms[i] > 1:
                step.setdefault(index, (index, False))
        if not step:
            return None
        reach.append(step)
    out, index = set(), next(iter(reach[-1]))
    for k in range(len(ar), 0, -1):
        index, chunked = reach[k][index]
        if chunked:
            out.add(ar[k - 1])
    return out
