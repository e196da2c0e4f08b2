"""From a Strategy to a per-variable plan of *units* (a whole variable or one shard) with one synchronizer each.

Plain data, no TensorFlow: the graph builder walks this plan, and the transfer estimate reads it.
"""
from __future__ import annotations

import dataclasses

from space.cluster import parse_device
from space.errors import StrategyError
from space.strategy import Compressor, Node, Spec, Strategy, partition_axis, shard_sizes


@dataclasses.dataclass(frozen=True)
class Unit:
    """One stored piece of a variable: the whole variable, or shard ``shard`` (``offset``/``size`` along ``axis``)."""

    name: str
    var: str
    shard: int
    axis: int
    offset: int
    shape: tuple[int, ...]
    kind: str  # "ps" | "ar"
    device: str = ""  # PS only: the strategy device holding the unit
    sync: bool = True
    staleness: int = 0
    proxy: bool = False
    group: int = 0
    spec: str = "AUTO"
    compressor: str = "NoneCompressor"
    rank: int = 0
    gather: bool = False  # a sparse gradient is all-gathered (rows and indices) instead of densified
    hierarchical: bool = False  # all-reduced inside each unit of replicas first, then across units

    @property
    def size(self) -> int:
        return self.shape[self.axis] if self.shape else 1

    @property
    def num_elements(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def is_async(self) -> bool:
        return self.kind == "ps" and not self.sync


@dataclasses.dataclass(frozen=True)
class VarPlan:
    """A trainable variable and the units that store it (one unit unless partitioned)."""

    name: str
    index: int
    shape: tuple[int, ...]
    sparse: bool
    axis: int
    partitioned: bool
    units: tuple[Unit, ...]


def _unit(node: Node, var: str, shard: int, axis: int, offset: int, shape: tuple[int, ...]) -> Unit:
    kind = node.WhichOneof("synchronizer")
    if kind == "PSSynchronizer":
        s = node.PSSynchronizer
        parse_device(s.reduction_destination)
        return Unit(node.var_name or var, var, shard, axis, offset, shape, "ps", device=s.reduction_destination,
                    sync=s.sync, staleness=s.staleness, proxy=s.local_replication)
    if kind == "AllReduceSynchronizer":
        s = node.AllReduceSynchronizer
        return Unit(node.var_name or var, var, shard, axis, offset, shape, "ar", group=s.group,
                    spec=Spec.Name(s.spec), compressor=Compressor.Name(s.compressor), rank=s.powersgd_rank,
                    gather=s.gather_sparse, hierarchical=s.hierarchical)
    raise StrategyError("no synchronizer (PSSynchronizer or AllReduceSynchronizer)", f"variable {var!r}")


def plan_strategy(strategy: Strategy, names: list[str], shapes: list[tuple[int, ...]],
                  sparse: list[bool]) -> list[VarPlan]:
    """One :class:`VarPlan` per trainable variable, in the model's order. Run ``validate`` first."""
    nodes = {n.var_name: n for n in strategy.proto.node_config}
    plans = []
    for i, (name, shape, sp) in enumerate(zip(names, shapes, sparse)):
        node = nodes.get(name)
        if node is None:
            raise StrategyError(f"variable {name!r} has no node_config", hint="validate the strategy first")
        shape = tuple(int(d) for d in shape)
        if not node.partitioner:
            unit = _unit(node, name, 0, 0, 0, shape)
            plans.append(VarPlan(name, i, shape, sp, 0, False, (unit,)))
            continue
        axis, n = partition_axis(node.partitioner)
        sizes = shard_sizes(shape[axis], n) if shape else [1]
        units, offset = [], 0
        for k, (part, size) in enumerate(zip(node.part_config, sizes)):
            ushape = tuple(size if a == axis else d for a, d in enumerate(shape))
            units.append(_unit(part, name, k, axis, offset, ushape))
            offset += size
        plans.append(VarPlan(name, i, shape, sp, axis, True, tuple(units)))
    return plans


def all_units(plans: list[VarPlan]) -> list[Unit]:
    return [u for p in plans for u in p.units]


def execution_mode(plans: list[VarPlan]) -> tuple[str, int]:
    """``("threads", k)`` when every unit is asynchronous PS (one driver thread per tower, lead bounded by k,
    0 = unbounded); ``("lockstep", 0)`` otherwise (one ``Session.run`` per step for all towers)."""
    units = all_units(plans)
    if units and all(u.is_async for u in units):
        bounds = [u.staleness for u in units if u.staleness > 0]
        return "threads", min(bounds) if bounds else 0
    return "lockstep", 0


def node_address(device: str) -> str:
    return parse_device(device)[0]
