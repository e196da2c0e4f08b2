"""``validate(strategy, inventory, cluster)``: reject a strategy that does not fit, with a precise message."""
from __future__ import annotations

from space.cluster import ClusterSpec
from space.errors import StrategyError
from space.inventory import Inventory, VariableInfo
from space.strategy import Compressor, Node, Strategy, partition_axis

_POWERSGD = Compressor.Value("PowerSGDCompressor")


def validate(strategy: Strategy, inventory: Inventory, cluster: ClusterSpec, source: str = "strategy") -> None:
    """Raise :class:`StrategyError` naming the first problem; return ``None`` when the strategy fits."""
    devices = set(cluster.devices)
    replicas = strategy.replicas
    if not replicas:
        raise StrategyError("graph_config.replicas is empty", source, hint="list at least one replica device")
    for r in replicas:
        if r not in devices:
            raise StrategyError(f"replica {r!r} is not a device of the cluster", source,
                                hint=f"devices are {sorted(devices)}")
    if len(set(replicas)) != len(replicas):
        raise StrategyError("graph_config.replicas lists a device twice", source)

    known = {v.name: v for v in inventory.variables}
    seen: set[str] = set()
    for node in strategy.proto.node_config:
        if node.var_name not in known:
            raise StrategyError(f"unknown variable {node.var_name!r} (not in model {inventory.model_path})", source,
                                hint="was this strategy built for another model? rebuild it with `autotune build`")
        if node.var_name in seen:
            raise StrategyError(f"variable {node.var_name!r} is configured twice", source)
        seen.add(node.var_name)
        _check_node(node, known[node.var_name], devices, source)
    missing = [n for n in known if n not in seen]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise StrategyError(f"variable {missing[0]!r}{more} has no node_config", source,
                            hint="every trainable variable needs a synchronizer")


def _check_node(node: Node, var: VariableInfo, devices: set[str], source: str) -> None:
    where = f"{source}, variable {node.var_name!r}"
    if not node.partitioner:
        if node.part_config:
            raise StrategyError("part_config given without a partitioner", where)
        _check_sync(node, devices, where)
        return
    try:
        axis, shards = partition_axis(node.partitioner)
    except ValueError as e:
        raise StrategyError(str(e), where) from None
    ndims = max(len(var.shape), 1)
    if len(node.partitioner.split(",")) != ndims:
        raise StrategyError(f"partitioner {node.partitioner!r} has {len(node.partitioner.split(','))} axes but the "
                            f"variable has shape {list(var.shape)}", where)
    dim = var.shape[axis] if var.shape else 1
    if shards > dim:
        raise StrategyError(f"partitioner {node.partitioner!r} asks for {shards} shards along axis {axis} "
                            f"of size {dim}", where, hint="use at most as many shards as the dimension")
    if len(node.part_config) != shards:
        raise StrategyError(f"partitioner {node.partitioner!r} makes {shards} shards but part_config has "
                            f"{len(node.part_config)} entries", where)
    if node.WhichOneof("synchronizer"):
        raise StrategyError("a partitioned variable sets its synchronizer per shard in part_config, "
                            "not on the variable", where)
    for i, part in enumerate(node.part_config):
        if part.partitioner or part.part_config:
            raise StrategyError(f"shard {i} is partitioned again; shards cannot be nested", where)
        _check_sync(part, devices, f"{where}, shard {i}")


def _check_sync(node: Node, devices: set[str], where: str) -> None:
    kind = node.WhichOneof("synchronizer")
    if kind is None:
        raise StrategyError("no synchronizer (PSSynchronizer or AllReduceSynchronizer)", where)
    if kind == "PSSynchronizer":
        s = node.PSSynchronizer
        if s.reduction_destination not in devices:
            raise StrategyError(f"reduction_destination {s.reduction_destination!r} is not a device of the cluster",
                                where, hint=f"devices are {sorted(devices)}")
        if s.staleness < 0:
            raise StrategyError(f"staleness must be >= 0, but got {s.staleness}", where)
        return
    s = node.AllReduceSynchronizer
    if s.group < 0:
        raise StrategyError(f"all-reduce group must be >= 0, but got {s.group}", where)
    if s.powersgd_rank < 0:
        raise StrategyError(f"powersgd_rank must be >= 0, but got {s.powersgd_rank}", where)
    if s.powersgd_rank and s.compressor != _POWERSGD:
        raise StrategyError(f"powersgd_rank={s.powersgd_rank} is set but the compressor is not PowerSGDCompressor",
                            where)
