"""Plans: a strategy in plain values (device indices, group ids), between trial parameters and protobuf nodes.

Both spaces decode parameters into plans and :func:`realize` writes plans as ``Strategy.Node`` messages;
:func:`plans_of` reads a Strategy back into plans for encoding. Two symbolic values exist only in the
reduced space: ``BALANCED`` (PS destination chosen by largest-first load balancing over every balanced
piece, the classic builders' rule) and ``CHUNK`` (all-reduce group = running index of chunked tensors //
``chunk_size``, the classic builders' fusion rule).
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

from space.builders._placement import lpt_assign
from space.cluster import ClusterSpec
from space.errors import StrategyError
from space.inventory import Inventory, VariableInfo
from space.proto import strategy_pb2 as pb
from space.strategy import Compressor, Node, Spec, partition_axis, partitioner_string, shard_name, shard_sizes

BALANCED = "balanced"
CHUNK = "chunk"

SPECS = {"auto": "AUTO", "nccl": "NCCL", "ring": "RING"}
COMPRESSORS = {"none": "NoneCompressor", "fp16": "HorovodCompressor", "fp16_ef": "HorovodCompressorEF",
               "powersgd": "PowerSGDCompressor"}
_SPEC_ENUM = {k: Spec.Value(v) for k, v in SPECS.items()}
_COMP_ENUM = {k: Compressor.Value(v) for k, v in COMPRESSORS.items()}
_SPEC_SHORT = {v: k for k, v in _SPEC_ENUM.items()}
_COMP_SHORT = {v: k for k, v in _COMP_ENUM.items()}


@dataclasses.dataclass(frozen=True)
class SlotPlan:
    """One synchronizer: of a whole variable or of one shard."""

    kind: str  # "ps" or "ar"
    ps: int | str = 0  # index into cluster.ps_devices, or BALANCED
    sync: bool = True
    staleness: int = 0
    proxy: bool = False
    group: int | str = 0  # all-reduce group id, or CHUNK
    spec: str = "auto"
    compressor: str = "none"
    rank: int = 0  # PowerSGD rank; 0 unless compressor == "powersgd"
    gather: bool = False  # a sparse gradient all-gathered (rows and indices) instead of densified
    hier: bool = False  # all-reduced inside each unit of replicas first (one choice for the whole strategy)


@dataclasses.dataclass(frozen=True)
class VarPlan:
    """One variable: ``shards`` slices along ``axis`` (1 = not partitioned) and one slot per shard."""

    shards: int
    axis: int
    slots: tuple[SlotPlan, ...]


def piece_bytes(var: VariableInfo, axis: int, shards: int) -> list[float]:
    """Bytes of each shard (the whole variable when ``shards == 1``), as the classic builders count them."""
    if shards == 1:
        return [var.bytes]
    dim = var.shape[axis]
    return [s * (var.bytes / dim) for s in shard_sizes(dim, shards)]


def realize(plans: Sequence[VarPlan], inventory: Inventory, cluster: ClusterSpec, chunk_size: int,
            out: pb.Strategy) -> None:
    """Append one node per variable to ``out``, resolving BALANCED placement and CHUNK groups in
    variable/shard order. Fills the message in place: copying nodes costs more than the rest of a trial."""
    devices = cluster.ps_devices
    balanced = [((i, j), b) for i, (v, p) in enumerate(zip(inventory.variables, plans))
                for j, b in enumerate(piece_bytes(v, p.axis, p.shards))
                if p.slots[j].kind == "ps" and p.slots[j].ps == BALANCED]
    place = lpt_assign(balanced, devices) if balanced else {}
    chunk_index = 0
    for i, (v, p) in enumerate(zip(inventory.variables, plans)):
        node = out.node_config.add(var_name=v.name)
        if p.shards > 1:
            node.partitioner = partitioner_string(len(v.shape), p.axis, p.shards)
        for j, s in enumerate(p.slots):
            leaf = node if p.shards == 1 else node.part_config.add(var_name=shard_name(v.name, j))
            if s.kind == "ps":
                sync = leaf.PSSynchronizer
                sync.reduction_destination = place[(i, j)] if s.ps == BALANCED else devices[s.ps]
                sync.sync, sync.local_replication, sync.staleness = s.sync, s.proxy, s.staleness
                continue
            group = s.group
            if group == CHUNK:
                group, chunk_index = chunk_index // chunk_size, chunk_index + 1
            sync = leaf.AllReduceSynchronizer
            sync.group, sync.spec, sync.compressor = group, _SPEC_ENUM[s.spec], _COMP_ENUM[s.compressor]
            sync.powersgd_rank = s.rank
            sync.gather_sparse = s.gather
            sync.hierarchical = s.hier


def with_hier(plans: Sequence[VarPlan], hier: bool) -> list[VarPlan]:
    """``plans`` with every all-reduced slot hierarchical (or none)."""
    return [p if all(s.kind != "ar" or s.hier == hier for s in p.slots) else
            VarPlan(p.shards, p.axis, tuple(dataclasses.replace(s, hier=hier) if s.kind == "ar" else s
                                            for s in p.slots)) for p in plans]


def hier_of(plans: Sequence[VarPlan], where: str) -> bool:
    """Whether the all-reduced slots of ``plans`` are hierarchical; StrategyError where some are and some not."""
    seen = {s.hier for p in plans for s in p.slots if s.kind == "ar"}
    if len(seen) > 1:
        raise StrategyError("some all-reduced variables are hierarchical and some flat; the search space chooses it "
                            "for the whole strategy", where)
    return seen == {True}


def plans_of(strategy, inventory: Inventory, cluster: ClusterSpec) -> list[VarPlan]:
    """Read a strategy back into plans (concrete device indices and groups); StrategyError when impossible."""
    if strategy.replicas != cluster.replicas:
        raise StrategyError(f"replicas {strategy.replicas} differ from the cluster's {cluster.replicas}",
                            "search space", hint="the search space always trains on every replica")
    devices = {d: k for k, d in enumerate(cluster.ps_devices)}
    plans = []
    for v in inventory.variables:
        try:
            node = strategy.node(v.name)
        except KeyError:
            raise StrategyError(f"variable {v.name!r} has no node_config", "search space") from None
        if node.partitioner:
            axis, shards = partition_axis(node.partitioner)
            slots = list(node.part_config)
        else:
            axis, shards, slots = 0, 1, [node]
        plans.append(VarPlan(shards, axis, tuple(_slot_of(s, devices, v.name) for s in slots)))
    return plans


def _slot_of(node: Node, devices: dict[str, int], var_name: str) -> SlotPlan:
    kind = node.WhichOneof("synchronizer")
    if kind == "PSSynchronizer":
        s = node.PSSynchronizer
        if s.reduction_destination not in devices:
            raise StrategyError(f"PS destination {s.reduction_destination!r} is not one of the cluster's PS devices "
                                f"{sorted(devices)}", f"search space, variable {var_name!r}")
        return SlotPlan("ps", ps=devices[s.reduction_destination], sync=s.sync, staleness=s.staleness,
                        proxy=s.local_replication)
    if kind == "AllReduceSynchronizer":
        s = node.AllReduceSynchronizer
        comp = _COMP_SHORT[s.compressor]
        # powersgd_rank 0 means "default rank 1": encoded as rank 1 (same training, different bytes)
        rank = (s.powersgd_rank or 1) if comp == "powersgd" else 0
        return SlotPlan("ar", group=s.group, spec=_SPEC_SHORT[s.spec], compressor=comp, rank=rank,
                        gather=s.gather_sparse, hier=s.hierarchical)
    raise StrategyError("node has no synchronizer", f"search space, variable {var_name!r}")
