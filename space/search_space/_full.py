"""The per-variable space: every variable (and every shard) has its own parameters.

Per variable ``v<i>`` (index in the inventory): ``v<i>.shards`` from the variable's candidate counts
(1 = not partitioned); ``v<i>.s<n>.axis`` when ``n`` shards fit on more than one axis (the name carries
``n`` so that its choices never change); then one slot ``v<i>`` (whole) or ``v<i>.p<j>`` per shard.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from space.builders._placement import smallest_divisor_shards
from space.errors import StrategyError
from space.inventory import VariableInfo
from space.search_space._plan import VarPlan
from space.search_space._slot import Ask, SlotChoices


@dataclasses.dataclass(frozen=True)
class VarChoices:
    """A variable's fixed choices: shard counts and, per count, the axes that count fits on."""

    prefix: str
    shards: tuple[int, ...]
    axes: dict[int, tuple[int, ...]]
    slot: SlotChoices


def shard_candidates(var: VariableInfo, base: tuple[int, ...], num_ps: int) -> dict[int, tuple[int, ...]]:
    """Shard count -> the axes long enough for it. Counts: ``base`` and one per PS, each clipped to every
    axis length, plus the smallest divisor >= 2 of every axis length (the classic builders' even split).
    A sparse-gradient (gathered) variable splits along axis 0 only: column shards defeat the remote gather, so
    every step would pull the whole table."""
    shape = var.shape[:1] if var.sparse else var.shape
    counts = {1}
    for dim in shape:
        if dim >= 2:
            counts |= {min(c, dim) for c in (*base, num_ps)} | {smallest_divisor_shards(dim)}
    return {n: (0,) if n == 1 else tuple(a for a, d in enumerate(shape) if d >= n) for n in sorted(counts)}


class PerVariableSpace:
    """Parameters per variable and per shard: the exact space, every classic builder inside it."""

    def __init__(self, variables: tuple[VariableInfo, ...], slot_for, base_shards: tuple[int, ...],
                 num_ps: int) -> None:
        width = len(str(max(len(variables) - 1, 0)))
        self.vars = []
        for i, v in enumerate(variables):
            axes = shard_candidates(v, base_shards, num_ps)
            self.vars.append(VarChoices(f"v{i:0{width}d}", tuple(axes), axes, slot_for(v)))

    def ask(self, ask: Ask) -> list[VarPlan]:
        plans = []
        for vc in self.vars:
            n = ask(f"{vc.prefix}.shards", vc.shards) if len(vc.shards) > 1 else 1
            axes = vc.axes[n]
            axis = ask(f"{vc.prefix}.s{n}.axis", axes) if len(axes) > 1 else axes[0]
            plans.append(VarPlan(n, axis, self.ask_slots(ask, vc, n)))
        return plans

    def ask_slots(self, ask: Ask, vc: VarChoices, shards: int) -> tuple:
        """The synchronizers of a variable split in ``shards``: one per shard."""
        return tuple(vc.slot.ask(ask, p) for p in self.slot_prefixes(vc, shards))

    @staticmethod
    def slot_prefixes(vc: VarChoices, shards: int) -> list[str]:
        """The slot prefixes of a variable split in ``shards``: ``v<i>`` whole, ``v<i>.p<j>`` per shard."""
        return [vc.prefix] if shards == 1 else [f"{vc.prefix}.p{j}" for j in range(shards)]

    def params(self, plans: list[VarPlan], names: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for vc, plan, name in zip(self.vars, plans, names):
            out |= self.var_params(vc, plan, name)
        return out

    def var_params(self, vc: VarChoices, plan: VarPlan, name: str) -> dict[str, Any]:
        """The parameters of one variable's plan; StrategyError when a value is outside its choices."""
        where = f"search space, variable {name!r}"
        if plan.shards not in vc.axes or plan.axis not in vc.axes[plan.shards]:
            raise StrategyError(f"{plan.shards} shard(s) along axis {plan.axis} is outside the candidates "
                                f"{ {n: list(a) for n, a in vc.axes.items()} }", where,
                                hint="add the count to `shard_candidates`")
        out: dict[str, Any] = {}
        if len(vc.shards) > 1:
            out[f"{vc.prefix}.shards"] = plan.shards
        if len(vc.axes[plan.shards]) > 1:
            out[f"{vc.prefix}.s{plan.shards}.axis"] = plan.axis
        for j, (p, slot) in enumerate(zip(self.slot_prefixes(vc, plan.shards), plan.slots)):
            out |= vc.slot.params(slot, p, where + (f", shard {j}" if plan.shards > 1 else ""))
        return out

    def distributions(self) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for vc in self.vars:
            out |= self.var_distributions(vc)
            for j in range(max(vc.shards) if len(vc.shards) > 1 else 0):
                out |= vc.slot.distributions(f"{vc.prefix}.p{j}")
        return out

    @staticmethod
    def var_distributions(vc: VarChoices) -> dict[str, tuple]:
        """A variable's shard count, axis and whole-variable synchronizer parameters, with their choices."""
        out: dict[str, tuple] = {f"{vc.prefix}.shards": vc.shards} if len(vc.shards) > 1 else {}
        out |= {f"{vc.prefix}.s{n}.axis": a for n, a in vc.axes.items() if len(a) > 1}
        return out | vc.slot.distributions(vc.prefix)

    def describe_rows(self, variables) -> list[dict[str, Any]]:
        return [{"variable": v.name, "prefix": vc.prefix, "shards": list(vc.shards),
                 "axes": {n: list(a) for n, a in vc.axes.items() if n > 1},
                 "kinds": ["ps", "ar"] if vc.slot.allow_ar else ["ps"]} for v, vc in zip(variables, self.vars)]
