"""The parameters of one synchronizer slot (a whole variable or one shard), shared by both spaces.

Under a prefix ``P`` a slot asks, each only when it matters (and only when it has more than one choice):
``P.kind`` (ps / ar); for PS ``P.ps`` (device index), ``P.sync``, ``P.staleness`` (async only), ``P.proxy``
(local replication); for all-reduce ``P.group``, ``P.spec``, ``P.compressor``, ``P.rank`` (PowerSGD only),
``P.gather`` (a sparse gradient uncompressed: all-gathered rows, or densified).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Sequence

from space.errors import StrategyError
from space.search_space._plan import COMPRESSORS, SPECS, SlotPlan

Ask = Callable[[str, Sequence[Any]], Any]  # (name, choices) -> one of the choices


@dataclasses.dataclass(frozen=True)
class SlotChoices:
    """The fixed choice lists of a slot; identical for every trial of a study."""

    allow_ar: bool
    ps: tuple  # device indices (and BALANCED in the reduced space)
    staleness: tuple[int, ...]
    groups: tuple  # group ids (and CHUNK in the reduced space)
    ranks: tuple[int, ...]
    syncs: tuple[bool, ...] = (True, False)  # (True,) keeps every PS synchronous
    specs: tuple[str, ...] = tuple(SPECS)
    compressors: tuple[str, ...] = tuple(COMPRESSORS)
    gathers: tuple[bool, ...] = (False,)  # (False, True) for a sparse gradient: all-gathered rows or densified

    def distributions(self, prefix: str) -> dict[str, tuple]:
        """Every parameter this slot may ask, with its choices."""
        out = {f"{prefix}.kind": ("ps", "ar")} if self.allow_ar else {}
        out |= {f"{prefix}.ps": self.ps, f"{prefix}.sync": self.syncs, f"{prefix}.staleness": self.staleness,
                f"{prefix}.proxy": (False, True)}
        if self.allow_ar:
            out |= {f"{prefix}.group": self.groups, f"{prefix}.spec": self.specs,
                    f"{prefix}.compressor": self.compressors, f"{prefix}.rank": self.ranks,
                    f"{prefix}.gather": self.gathers}
        return {k: v for k, v in out.items() if len(v) > 1}

    def ask(self, ask: Ask, prefix: str) -> SlotPlan:
        pick = _picker(ask, prefix)
        if pick("kind", ("ps", "ar") if self.allow_ar else ("ps",)) == "ps":
            sync = pick("sync", self.syncs)
            staleness = 0 if sync else pick("staleness", self.staleness)
            return SlotPlan("ps", ps=pick("ps", self.ps), sync=sync, staleness=staleness,
                            proxy=pick("proxy", (False, True)))
        compressor = pick("compressor", self.compressors)
        return SlotPlan("ar", group=pick("group", self.groups), spec=pick("spec", self.specs), compressor=compressor,
                        rank=pick("rank", self.ranks) if compressor == "powersgd" else 0,
                        gather=pick("gather", self.gathers) if compressor == "none" else False)

    def params(self, slot: SlotPlan, prefix: str, where: str) -> dict[str, Any]:
        """The inverse of :meth:`ask`; StrategyError when a value is outside the choices."""
        out: dict[str, Any] = {}

        def put(field: str, value: Any, choices: Sequence[Any]) -> None:
            if not any(value == c and type(value) is type(c) for c in choices):
                raise StrategyError(f"{field}={value!r} is outside the search space's choices {list(choices)}", where)
            if len(choices) > 1:
                out[f"{prefix}.{field}"] = value

        put("kind", slot.kind, ("ps", "ar") if self.allow_ar else ("ps",))
        if slot.kind == "ps":
            put("sync", slot.sync, self.syncs)
            put("ps", slot.ps, self.ps)
            if not slot.sync:
                put("staleness", slot.staleness, self.staleness)
            elif slot.staleness:
                raise StrategyError(f"staleness={slot.staleness} on a synchronous PS is outside the search space",
                                    where, hint="staleness applies to asynchronous PS only")
            put("proxy", slot.proxy, (False, True))
        else:
            put("compressor", slot.compressor, self.compressors)
            put("group", slot.group, self.groups)
            put("spec", slot.spec, self.specs)
            if slot.compressor == "powersgd":
                put("rank", slot.rank, self.ranks)
            if slot.compressor == "none":
                put("gather", slot.gather, self.gathers)
            elif slot.gather:
                raise StrategyError("an all-gathered sparse gradient is not compressed in the search space", where)
        return out


def _picker(ask: Ask, prefix: str) -> Callable[[str, Sequence[Any]], Any]:
    def pick(field: str, choices: Sequence[Any]) -> Any:
        return choices[0] if len(choices) == 1 else ask(f"{prefix}.{field}", choices)

    return pick


def dict_ask(params: dict[str, Any]) -> Ask:
    """An :data:`Ask` answering from a parameter dict (decode); StrategyError on a missing or foreign value."""

    def ask(name: str, choices: Sequence[Any]) -> Any:
        if name not in params:
            raise StrategyError(f"parameter {name!r} is missing", "search space parameters")
        value = params[name]
        if not any(value == c and type(value) is type(c) for c in choices):
            raise StrategyError(f"parameter {name!r} = {value!r} is not one of {list(choices)}",
                                "search space parameters")
        return value

    return ask


def trial_ask(trial) -> Ask:
    """An :data:`Ask` backed by an Optuna trial (``suggest_categorical``: fixed choices per name)."""
    return lambda name, choices: trial.suggest_categorical(name, list(choices))
