"""The reduced space: one set of parameters per variable class, expanded to every variable of the class.

Per class ``K`` (a key such as ``dense_m``): ``K.shards`` is a rule, not a count -- 1 (whole), a fixed count
clipped to each variable's axis length, ``even`` (smallest divisor >= 2 of the axis length) or ``per_ps``
(one shard per PS, at most the axis length); ``K.axis`` (first / last axis) when the class has a variable
of rank >= 2; then one slot ``K`` shared by every variable and shard of the class, whose PS destination may
be ``balanced`` and whose group may be ``chunk`` (see ``_plan``).
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Callable, Sequence

from space.builders._placement import smallest_divisor_shards
from space.errors import StrategyError
from space.inventory import VariableInfo
from space.search_space._plan import BALANCED, CHUNK, SlotPlan, VarPlan
from space.search_space._slot import Ask, SlotChoices

_KB, _MB = 1 << 10, 1 << 20
MAX_ENCODE_TRIES = 4096  # decodes ``params`` tries: two forms for each of 12 ambiguous classes
_BUCKETS = ((64 * _KB, "s"), (_MB, "m"), (16 * _MB, "l"))


def size_class(var: VariableInfo) -> str:
    """Default classes: dense/sparse x size bucket (<64 KiB s, <1 MiB m, <16 MiB l, else xl)."""
    bucket = next((name for limit, name in _BUCKETS if var.bytes < limit), "xl")
    return f"{'sparse' if var.sparse else 'dense'}_{bucket}"


@dataclasses.dataclass(frozen=True)
class ClassChoices:
    key: str
    members: tuple[int, ...]  # indices into the inventory
    rules: tuple  # shard rules: 1, fixed counts, "even", "per_ps"
    axis_rules: tuple[str, ...]
    slot: SlotChoices


def apply_rule(var: VariableInfo, rule: int | str, axis_rule: str, num_ps: int) -> tuple[int, int]:
    """(shards, axis) of one variable under a class's shard rule; (1, 0) when it cannot be split."""
    if not var.shape or rule == 1:
        return 1, 0
    axis = 0 if axis_rule == "first" else len(var.shape) - 1
    dim = var.shape[axis]
    n = smallest_divisor_shards(dim) if rule == "even" else min(num_ps if rule == "per_ps" else rule, dim)
    return (n, axis) if n >= 2 else (1, 0)


class ClassSpace:
    """Parameters per variable class; far fewer parameters, coarser strategies (see the package docstring)."""

    def __init__(self, variables: tuple[VariableInfo, ...], classify: Callable[[VariableInfo], str], slot_for,
                 base_shards: tuple[int, ...], num_ps: int) -> None:
        self.variables, self.num_ps = variables, num_ps
        groups: dict[str, list[int]] = {}
        for i, v in enumerate(variables):
            groups.setdefault(str(classify(v)), []).append(i)
        self.classes = []
        for key, members in groups.items():
            vs = [variables[i] for i in members]
            max_dim = max((d for v in vs for d in v.shape), default=1)
            rules: list = [1] + [c for c in base_shards if c <= max_dim]
            if any(smallest_divisor_shards(d) > 1 for v in vs for d in v.shape):
                rules.append("even")
            if num_ps > 1 and max_dim > 1:
                rules.append("per_ps")
            # gathered (sparse) tables split by rows only: column shards would be pulled whole every step
            axis_rules = ("first", "last") if any(len(v.shape) > 1 and not v.sparse for v in vs) else ("first",)
            self.classes.append(ClassChoices(key, tuple(members), tuple(rules), axis_rules, slot_for(vs)))
        self.class_of = {i: c for c in self.classes for i in c.members}

    def ask(self, ask: Ask) -> list[VarPlan]:
        picked = {}
        for c in self.classes:
            rule = ask(f"{c.key}.shards", c.rules) if len(c.rules) > 1 else 1
            axis_rule = ask(f"{c.key}.axis", c.axis_rules) if rule != 1 and len(c.axis_rules) > 1 else "first"
            picked[c.key] = (rule, axis_rule, c.slot.ask(ask, c.key))
        plans = []
        for i, v in enumerate(self.variables):
            rule, axis_rule, slot = picked[self.class_of[i].key]
            n, axis = apply_rule(v, rule, axis_rule, self.num_ps)
            plans.append(VarPlan(n, axis, (slot,) * n))
        return plans

    def params(self, plans: Sequence[VarPlan], matches: Callable[[dict], bool]) -> dict[str, Any]:
        """Parameters that decode to ``plans``. A class on one server (in one group) may have got there by fixed
        or by balanced placement (chunked groups), and balancing depends on the other balanced classes, so each
        such class's two forms are tried alongside every other's, the fixed forms first."""
        forms = []
        for c in self.classes:
            error: StrategyError | None = None
            found: list[dict] = []
            for spread_ps, chunk in itertools.product((False, True), (False, True)):
                try:
                    out = self._class_params(c, plans, spread_ps, chunk)
                except StrategyError as e:
                    error = e
                    continue
                if out not in found:
                    found.append(out)
            if not found:
                raise error
            forms.append(found)
        for tries, combination in enumerate(itertools.product(*forms)):
            if tries == MAX_ENCODE_TRIES:
                break
            out = {k: v for part in combination for k, v in part.items()}
            if matches(out):
                return out
        raise StrategyError("the strategy places or groups the variables of a class in a way the reduced space "
                            "cannot express (neither one device/group per class nor balanced/chunked)",
                            "reduced search space", hint="use the per-variable space (reduced=False)")

    def _class_params(self, c: ClassChoices, plans: Sequence[VarPlan], spread_ps: bool, chunk: bool) -> dict:
        where = f"reduced search space, class {c.key!r}"
        layout = [(plans[i].shards, plans[i].axis) for i in c.members]
        found = next(((r, a) for r in c.rules for a in c.axis_rules
                      if all(apply_rule(self.variables[i], r, a, self.num_ps) == lay
                             for i, lay in zip(c.members, layout))), None)
        if found is None:
            raise StrategyError(f"the shard counts/axes {layout} follow none of the class's rules {list(c.rules)}",
                                where, hint="use the per-variable space (reduced=False)")
        slots = [s for i in c.members for s in plans[i].slots]
        if len({dataclasses.replace(s, ps=0, group=0) for s in slots}) > 1:
            raise StrategyError("variables of one class use different synchronizer settings", where,
                                hint="use the per-variable space (reduced=False)")
        slot: SlotPlan = slots[0]
        if slot.kind == "ps":
            same = len({s.ps for s in slots}) == 1
            ps = BALANCED if (spread_ps or not same) and BALANCED in c.slot.ps else slot.ps
            slot = dataclasses.replace(slot, ps=ps)
        else:
            same = len({s.group for s in slots}) == 1
            slot = dataclasses.replace(slot, group=CHUNK if chunk or not same else slot.group)
        out = {}
        if len(c.rules) > 1:
            out[f"{c.key}.shards"] = found[0]
        if found[0] != 1 and len(c.axis_rules) > 1:
            out[f"{c.key}.axis"] = found[1]
        return out | c.slot.params(slot, c.key, where)

    def distributions(self) -> dict[str, tuple]:
        out: dict[str, tuple] = {}
        for c in self.classes:
            if len(c.rules) > 1:
                out[f"{c.key}.shards"] = c.rules
                if len(c.axis_rules) > 1:
                    out[f"{c.key}.axis"] = c.axis_rules
            out |= c.slot.distributions(c.key)
        return out

    def describe_rows(self) -> list[dict[str, Any]]:
        return [{"class": c.key, "variables": len(c.members), "shards": list(c.rules), "axes": list(c.axis_rules),
                 "kinds": ["ps", "ar"] if c.slot.allow_ar else ["ps"]} for c in self.classes]
