"""``SearchSpace``: the Strategy protobuf as an Optuna define-by-run space (see the package docstring)."""
from __future__ import annotations

import hashlib
import inspect
import math
import re
from typing import Any, Callable, Iterable, Sequence

from space.builders import AllReduce, aliases as builder_aliases, build_strategy
from space.builders._placement import smallest_divisor_shards
from space.cluster import ClusterSpec, hierarchical_units
from space.errors import StrategyError
from space.inventory import Inventory, VariableInfo
from space.proto import strategy_pb2 as pb
from space.search_space._compact import CompactSpace, spread
from space.search_space._full import PerVariableSpace
from space.search_space._plan import BALANCED, CHUNK, COMPRESSORS, VarPlan, hier_of, plans_of, realize, with_hier
from space.search_space._reduced import ClassSpace, size_class
from space.search_space._slot import SlotChoices, dict_ask, trial_ask
from space.strategy import Strategy

# the classic all-reduce builders fuse every `chunk_size` consecutive tensors into one group
CLASSIC_CHUNK = inspect.signature(AllReduce.__init__).parameters["chunk_size"].default


# a shard's slot (``.p<j>``) or a shard count's axis (``.s<n>``) inside a parameter name: left out, the same
# setting of the variable in another layout
_LAYOUT = re.compile(r"\.[ps]\d+(?=\.)")
_SHARD = re.compile(r"\.p(\d+)\.")
_REPLAYS = 64  # parents' replays kept (a local search's pool and best)
_LAYOUT_FIELDS = ("shards", "axis")  # a variable's (a class's) layout; every other field is a synchronizer slot's


class _OldLayout:
    """What a parameter set held before a change: the synchronizer slots it set (``v3``, ``v3.p1``, a class), and
    each field's values with the shard or count left out of its name, in asked order (``SearchSpace.neighbour``)."""

    def __init__(self, params: dict[str, Any]) -> None:
        self.slots = {n.rpartition(".")[0] for n in params if n.rpartition(".")[2] not in _LAYOUT_FIELDS}
        self.layout: dict[str, list] = {}
        for name, value in params.items():
            self.layout.setdefault(_LAYOUT.sub("", name), []).append(value)

    def value(self, name: str, options: Sequence[Any], rng) -> Any:
        """A new shard's setting from the old layout's shard or whole variable; else one drawn by ``rng``."""
        slot, _, field = name.rpartition(".")
        old = self.layout.get(_LAYOUT.sub("", name), []) if field in _LAYOUT_FIELDS or slot not in self.slots else []
        old = [v for v in old if any(_same(v, c) for c in options)]
        if old:
            shard = _SHARD.search(name)
            return old[int(shard.group(1)) % len(old) if shard else 0]
        return options[int(rng.integers(len(options)))]


def _same(a: Any, b: Any) -> bool:
    """Equal and of one type: choice ``False`` is not choice ``0``."""
    return a == b and type(a) is type(b)


def _check_choices(name: str, values: tuple[int, ...], low: int) -> tuple[int, ...]:
    values = tuple(sorted(set(values)))
    if not values or values[0] < low:
        raise ValueError(f"`{name}` must be a non-empty list of integers >= {low}, but got {values}.")
    return values


class SearchSpace:
    """Suggest, decode and encode strategies of one model on one cluster.

    ``reduced``: ``None`` picks the reduced space when the model has more than ``reduce_above`` variables;
    ``True`` / ``False`` force it. Cost: Optuna's TPE spends time per asked parameter that grows with the
    finished trials, and the per-variable space asks ~25 parameters per variable (a synchronizer per shard),
    so 20 variables already take ~1 s per TPE trial; lower ``reduce_above`` when trials must be cheap.
    ``compact_above``: on a cluster with more PS devices, the per-variable space is compact (``_compact``): one
    synchronizer per variable, placed on one of ``compact_above`` spread servers or balanced over all of them.
    ``allow_async=False`` keeps every PS synchronous (async changes the training dynamics, not only the step
    time, so the search offers it only when asked). ``sparse_ps_only`` keeps sparse-gradient variables on parameter
    servers (all-reducing a sparse gradient densifies it: a vocabulary-sized tensor every step). ``lossless`` keeps
    every gradient uncompressed (``space.families.lossy``): training stays exact, and lossy builders are left out.
    On a cluster whose replicas form units a hierarchical all-reduce runs over (racks, or nodes of several GPUs),
    one parameter, ``hierarchical``, makes every all-reduced variable of a strategy hierarchical or none.
    """

    def __init__(self, inventory: Inventory, cluster: ClusterSpec, *, reduced: bool | None = None,
                 reduce_above: int = 64, compact_above: int = 16, sparse_ps_only: bool = False,
                 allow_async: bool = True, lossless: bool = False,
                 shard_candidates: Iterable[int] = (2, 4, 8, 16), staleness: Iterable[int] = (0, 1, 2, 4),
                 powersgd_ranks: Iterable[int] = (1, 2, 4), max_groups: int = 8,
                 classify: Callable[[VariableInfo], str] = size_class, chunk_size: int = CLASSIC_CHUNK) -> None:
        if not inventory.variables:
            raise ValueError(f"the inventory of {inventory.model_path!r} has no trainable variables.")
        if max_groups < 1 or chunk_size < 1 or compact_above < 1:
            raise ValueError(f"`max_groups >= 1`, `chunk_size >= 1` and `compact_above >= 1` must hold, but got "
                             f"({max_groups=}, {chunk_size=}, {compact_above=}).")
        self.inventory, self.cluster, self.chunk_size = inventory, cluster, chunk_size
        # ``neighbour``'s replays of its parents, and the plans of the neighbour it returned last (``plans``)
        self._replays: dict[int, tuple[dict, dict, dict]] = {}
        self._decoded: tuple[dict, list[VarPlan]] | None = None
        self.sparse_ps_only, self.compact_above, self.lossless = sparse_ps_only, compact_above, lossless
        compressors = ("none",) if lossless else tuple(COMPRESSORS)
        self.reduced = len(inventory.variables) > reduce_above if reduced is None else bool(reduced)
        # compact: per-variable, but a variable's shards share one synchronizer placed by a rule (``_compact``)
        self.compact = not self.reduced and len(cluster.ps_devices) > compact_above
        base = _check_choices("shard_candidates", tuple(shard_candidates), 2)
        stale = _check_choices("staleness", tuple(staleness), 0)
        ranks = _check_choices("powersgd_ranks", tuple(powersgd_ranks), 1)
        num_ps = len(cluster.ps_devices)
        syncs = (True, False) if allow_async else (True,)
        stale = stale if allow_async else (0,)
        self.inexpressible: dict[str, str] = {}  # builder alias -> why builder_params() left it out
        self.tiered = hierarchical_units(cluster.replica_units()) is not None  # `hierarchical` is a choice
        if self.reduced:
            ps = tuple(range(num_ps)) + ((BALANCED,) if num_ps > 1 else ())
            groups = tuple(range(max_groups)) + (CHUNK,)
            slots = {(ar, sp): SlotChoices(ar, ps, stale, groups, ranks, syncs, compressors=compressors,
                                           gathers=(False, True) if sp else (False,))
                     for ar in (True, False) for sp in (True, False)}
            self._impl: PerVariableSpace | ClassSpace = ClassSpace(
                inventory.variables, classify,
                lambda vs: slots[(not (sparse_ps_only and any(v.sparse for v in vs)), any(v.sparse for v in vs))],
                base, num_ps)
        else:
            # enough groups for the classic builders' chunked fusion of the most tensors they can make
            tensors = sum(max([smallest_divisor_shards(d) for d in v.shape] + [1]) for v in inventory.variables)
            groups = tuple(range(max(max_groups, math.ceil(tensors / chunk_size))))
            ps = tuple(range(num_ps))
            if self.compact:  # a few servers spread over the cluster, the chief's first, or balanced over all
                chief = cluster.ps_devices.index(cluster.chief.cpu_devices[0])
                ps, groups = spread(num_ps, chief, compact_above) + (BALANCED,), groups + (CHUNK,)
            slots = {(ar, sp): SlotChoices(ar, ps, stale, groups, ranks, syncs, compressors=compressors,
                                           gathers=(False, True) if sp else (False,))
                     for ar in (True, False) for sp in (True, False)}
            slot_for = lambda v: slots[(not (sparse_ps_only and v.sparse), v.sparse)]  # noqa: E731
            self._impl = CompactSpace(inventory.variables, slot_for, base, num_ps, chunk_size) if self.compact \
                else PerVariableSpace(inventory.variables, slot_for, base, num_ps)

    # ---- trials <-> strategies ---------------------------------------------------------------------
    def suggest(self, trial) -> Strategy:
        """Sample every parameter from an Optuna trial (define-by-run) and return its strategy."""
        ask = trial_ask(trial)
        plans = self._impl.ask(ask)
        return self._strategy(with_hier(plans, ask("hierarchical", (False, True))) if self.tiered else plans)

    def decode(self, params: dict[str, Any]) -> Strategy:
        """The strategy of a trial's parameters (``trial.params``); extra keys are ignored."""
        return self._strategy(self.plans(params))

    def encode(self, strategy: Strategy) -> dict[str, Any]:
        """Trial parameters that decode to ``strategy`` (for ``study.enqueue_trial``); StrategyError if none do.

        The result is checked by decoding it. A PowerSGD rank of 0 ("default rank 1") encodes as rank 1.
        """
        plans = plans_of(strategy, self.inventory, self.cluster)
        # where no hierarchy runs, the flag is a no-op: the flat strategy stands for it
        extra = {"hierarchical": hier_of(plans, f"strategy {strategy.proto.id}")} if self.tiered else {}
        plans = with_hier(plans, bool(extra.get("hierarchical")))

        def matches(params: dict[str, Any]) -> bool:
            return plans_of(self.decode(params | extra), self.inventory, self.cluster) == plans

        if isinstance(self._impl, ClassSpace):
            return self._impl.params(with_hier(plans, False), matches) | extra
        if isinstance(self._impl, CompactSpace):
            return self._impl.encode(with_hier(plans, False), self.inventory.names, matches) | extra
        params = self._impl.params(with_hier(plans, False), self.inventory.names) | extra
        if not matches(params):  # every value was in range, so this is a bug, not a user error
            raise AssertionError(f"encode/decode disagree for strategy {strategy.proto.id}")
        return params

    def plans(self, params: dict[str, Any]) -> list[VarPlan]:
        """The per-variable plans of a trial's parameters (what ``decode`` realizes); a trial without
        ``hierarchical`` (a study from before the cluster had units) is flat."""
        decoded, self._decoded = self._decoded, None
        if decoded is not None and decoded[0] is params:  # the neighbour just proposed: its replay's plans
            return decoded[1]
        plans = self._impl.ask(dict_ask(params))
        if self.tiered and "hierarchical" in params:
            plans = with_hier(plans, dict_ask(params)("hierarchical", (False, True)))
        return plans

    def neighbour(self, params: dict[str, Any], rng, moves: int = 1) -> dict[str, Any]:
        """The parameters of a strategy ``moves`` changes away from ``params`` (a numpy Generator ``rng`` draws).

        A change gives one asked parameter, drawn uniformly, another of its choices; every other parameter still
        asked keeps its value. One the change makes relevant gets a random choice, but where the change lays a
        variable out anew (shard count, axis), a new shard's settings are those of the old layout's shard or whole
        variable (``v3.p2.ps`` takes ``v3.p0.ps`` after 2 -> 4 shards): one change, not a random synchronizer per
        shard. Of several changes, each after the first is made to the same variable or class as the first one
        time in two (a split and its shards' servers pay together, each alone seldom). The result holds exactly
        what a trial suggesting that strategy would hold (``hierarchical`` asked as ``suggest`` asks it), so it
        decodes, encodes and enqueues like one; a value outside its choices raises StrategyError.
        """
        current, choices = self._parent_replay(params, rng)
        first, plans = None, None
        for _ in range(moves):
            names = [name for name, options in choices.items() if len(options) > 1]
            if not names:  # a space of one point
                break
            near = [n for n in names if first is not None and n.split(".")[0] == first]
            pick = near if near and rng.random() < 0.5 else names
            name = pick[int(rng.integers(len(pick)))]
            first = name.split(".")[0] if first is None else first
            others = [c for c in choices[name] if not _same(c, current[name])]
            current, choices, plans = self._replay(current, rng, {name: others[int(rng.integers(len(others)))]})
        if plans is None:  # nothing changed: a copy, so the caller's dict is not the one replayed from
            return dict(current)
        self._decoded = (current, plans)
        return current

    def _parent_replay(self, params: dict[str, Any], rng) -> tuple[dict, dict]:
        """``_replay(params)`` once per parent dict: a local search draws many neighbours of the same few parents.
        Kept only where every asked name was in ``params`` (no draw from ``rng``, so a repeat gives the same)."""
        hit = self._replays.get(id(params))
        if hit is not None and hit[0] is params:
            return hit[1], hit[2]
        values, choices, _ = self._replay(params, rng)
        if all(name in params for name in values):
            if len(self._replays) >= _REPLAYS:
                self._replays.clear()
            self._replays[id(params)] = (params, values, choices)
        return values, choices

    def _replay(self, params: dict[str, Any], rng, changed: dict[str, Any] | None = None) -> tuple[dict, dict, list]:
        """(values, choices, plans) of every parameter asked when answering from ``changed``, then ``params``, then
        the old layout of a new shard's slot (``neighbour``), then ``rng``: a define-by-run pass, as ``suggest``'s;
        ``plans`` are what ``plans(values)`` returns."""
        values: dict[str, Any] = {}
        choices: dict[str, tuple] = {}
        known = dict_ask(params)
        olds: list = []  # the old layout of ``params`` (``_OldLayout``), read only where a name is not in them

        def ask(name: str, options: Sequence[Any]) -> Any:
            if changed and name in changed:
                value = changed[name]
            elif name in params:
                value = known(name, options)
            else:
                if not olds:
                    olds.append(_OldLayout(params))
                value = olds[0].value(name, options, rng)
            values[name], choices[name] = value, tuple(options)
            return value

        plans = self._impl.ask(ask)
        if self.tiered:
            plans = with_hier(plans, ask("hierarchical", (False, True)))
        return values, choices, plans

    @property
    def tied_shards(self) -> bool:
        """Whether every shard of a variable has the same synchronizer (reduced and compact spaces)."""
        return self.reduced or self.compact

    def params_of(self, plans: list[VarPlan]) -> dict[str, Any]:
        """Trial parameters of per-variable ``plans`` (per-variable and compact spaces: a class space cannot hold
        two same-class variables planned apart); StrategyError when a value is outside the choices."""
        if isinstance(self._impl, ClassSpace):
            raise StrategyError("the reduced space has no parameters per variable", "search space",
                                hint="use encode(strategy) instead")
        extra = {"hierarchical": any(s.hier for p in plans for s in p.slots if s.kind == "ar")} if self.tiered else {}
        return self._impl.params(with_hier(plans, False), self.inventory.names) | extra

    def strategy_of(self, plans: list[VarPlan]) -> Strategy:
        """The strategy of per-variable ``plans``."""
        return self._strategy(list(plans))

    def _strategy(self, plans: list[VarPlan]) -> Strategy:
        # one choice for the whole strategy: a slot a simplification made all-reduced follows the others
        plans = with_hier(plans, self.tiered and any(s.hier for p in plans for s in p.slots if s.kind == "ar"))
        msg = pb.Strategy()
        realize(plans, self.inventory, self.cluster, self.chunk_size, msg)
        msg.graph_config.replicas.extend(self.cluster.replicas)
        # a content hash: the same strategy gets the same id in every trial, process and run
        msg.id = "search-" + hashlib.sha256(msg.SerializeToString(deterministic=True)).hexdigest()[:12]
        msg.provenance.builder = "search"
        return Strategy(msg)

    # ---- classic builders as first trials ----------------------------------------------------------
    def builder_params(self, aliases: Iterable[str] | None = None, *, strict: bool = False) -> list[tuple[str, dict]]:
        """``(alias, params)`` of every classic builder whose strategy this space expresses.

        The others are left out (``strict=False``, reasons in :attr:`inexpressible`) or raise (``strict=True``).
        """
        out = []
        for alias in builder_aliases() if aliases is None else aliases:
            try:
                out.append((alias, self.encode(build_strategy(alias, self.inventory, self.cluster))))
            except StrategyError as e:
                if strict:
                    raise
                self.inexpressible[alias] = str(e)
        return out

    def enqueue_builders(self, study, aliases: Iterable[str] | None = None) -> list[list[str]]:
        """Enqueue each distinct builder strategy as one of the study's next trials; returns the aliases per trial.

        Builders that coincide here (``ps`` and ``ps_lb`` on one node) share a trial: user attrs ``builder``
        (the first alias) and ``builders`` (all of them). Trials already in the study are not enqueued again.
        """
        distinct: dict[str, tuple[dict, list[str]]] = {}
        for alias, params in self.builder_params(aliases):
            distinct.setdefault(repr(sorted(params.items())), (params, []))[1].append(alias)
        for params, names in distinct.values():
            study.enqueue_trial(params, user_attrs={"builder": names[0], "builders": names}, skip_if_exists=True)
        return [names for _, names in distinct.values()]

    # ---- introspection -----------------------------------------------------------------------------
    def distributions(self) -> dict[str, tuple]:
        """Every parameter name the space may ask, with its fixed choices."""
        return self._impl.distributions() | ({"hierarchical": (False, True)} if self.tiered else {})

    def describe(self) -> dict[str, Any]:
        """Size of the space: parameter names, and the choices per variable (or per class)."""
        dists = self.distributions()
        out: dict[str, Any] = {
            "mode": "reduced" if self.reduced else "compact" if self.compact else "per-variable",
            "variables": len(self.inventory.variables),
            "ps_devices": len(self.cluster.ps_devices), "sparse_ps_only": self.sparse_ps_only,
            "param_names": len(dists), "log10_size_upper": round(sum(math.log10(len(c)) for c in dists.values()), 1)}
        if isinstance(self._impl, ClassSpace):
            out["classes"] = self._impl.describe_rows()
        else:
            out["per_variable"] = self._impl.describe_rows(self.inventory.variables)
        return out
