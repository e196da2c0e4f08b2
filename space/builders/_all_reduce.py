"""All-reduce builders: AllReduce (and its compressed presets), PartitionedAR, RandomAxisPartitionAR."""
from __future__ import annotations

import random

from space.builders._base import StrategyBuilder, register
from space.builders._placement import gather_is_smaller, smallest_divisor_shards
from space.cluster import hierarchical_units
from space.strategy import Compressor, Spec, Strategy, ar_node, partitioned_node


class _ARBase(StrategyBuilder):
    def __init__(self, chunk_size: int = 128, all_reduce_spec: str = "AUTO", compressor: str = "NoneCompressor",
                 powersgd_rank: int = 0, hierarchical: bool = False) -> None:
        if chunk_size < 1:
            raise ValueError(f"`chunk_size >= 1` must hold, but got {chunk_size=}")
        Spec.Value(all_reduce_spec), Compressor.Value(compressor)  # raise early on unknown names
        self.chunk_size, self.spec, self.compressor = chunk_size, all_reduce_spec, compressor
        self.powersgd_rank = powersgd_rank if compressor == "PowerSGDCompressor" else 0
        self.hierarchical = hierarchical
        self._tiered = False  # hierarchical, and the cluster has units it runs over (set by build)

    def _units_apply(self, cluster) -> bool:
        """Hierarchical only where it runs as such: elsewhere the strategy is the flat one, alike to the byte."""
        return self.hierarchical and hierarchical_units(cluster.replica_units()) is not None

    def _ar(self, name: str, index: int, var=None, replicas: int = 0):
        """The ``index``-th all-reduced tensor joins fused group ``index // chunk_size``; a sparse gradient is
        all-gathered where that moves less than the dense ring (uncompressed only)."""
        gather = self.compressor == "NoneCompressor" and var is not None and gather_is_smaller(var, replicas)
        return ar_node(name, group=index // self.chunk_size, spec=self.spec, compressor=self.compressor,
                       powersgd_rank=self.powersgd_rank, gather_sparse=gather, hierarchical=self._tiered)


@register("all_reduce")
@register("all_reduce_ring", "all-reduce with the ring algorithm", all_reduce_spec="RING")
@register("all_reduce_fp16", "all-reduce with fp16 on the wire", compressor="HorovodCompressor")
@register("all_reduce_fp16_ef", "all-reduce, fp16 with error feedback", compressor="HorovodCompressorEF")
@register("all_reduce_powersgd", "all-reduce with PowerSGD rank-2 compression",
          compressor="PowerSGDCompressor", powersgd_rank=2)
@register("all_reduce_hierarchical", "all-reduce inside each rack (or node) first, then across", hierarchical=True)
class AllReduce(_ARBase):
    """Every variable all-reduced; every ``chunk_size`` consecutive variables fused into one group."""

    def build(self, inventory, cluster):
        self._tiered = self._units_apply(cluster)
        n = len(cluster.replicas)
        nodes = [self._ar(v.name, i, v, n) for i, v in enumerate(inventory.variables)]
        return Strategy.build(nodes, cluster.replicas)


class _PartitionedARBase(_ARBase):
    def axis_for(self, var) -> int:
        return 0

    def build(self, inventory, cluster):
        self._tiered = self._units_apply(cluster)
        nodes, index = [], 0
        for v in inventory.variables:
            axis = self.axis_for(v) if v.shape else 0
            n = smallest_divisor_shards(v.shape[axis]) if v.shape else 1
            if n == 1:
                nodes.append(self._ar(v.name, index))
                index += 1
                continue
            parts = [self._ar(v.name, index + i) for i in range(n)]
            index += n
            nodes.append(partitioned_node(v.name, v.shape, axis, parts))
        return Strategy.build(nodes, cluster.replicas)


@register("partitioned_ar")
class PartitionedAR(_PartitionedARBase):
    """Each variable split evenly along axis 0 (smallest divisor >= 2), every shard all-reduced.

    Differs from AutoDist: a prime first dimension is left whole instead of one shard per row.
    """


@register("random_axis_ar")
class RandomAxisPartitionAR(_PartitionedARBase):
    """Like PartitionedAR, but each variable is split along a random axis (seeded: same seed, same strategy).

    Sparse-gradient (embedding) variables are always split along axis 0: AutoDist could split a table by columns,
    which makes every read pull the whole table.
    """

    def __init__(self, seed: int = 0, **kwargs) -> None:
        super().__init__(**kwargs)
        self.seed = seed
        self._rng = random.Random(seed)

    def build(self, inventory, cluster):
        self._rng = random.Random(self.seed)  # each build starts from the seed
        return super().build(inventory, cluster)

    def axis_for(self, var) -> int:
        if var.sparse:  # a gathered table split by columns would be read whole: rows only (not in AutoDist)
            return 0
        candidates = [a for a, d in enumerate(var.shape) if smallest_divisor_shards(d) > 1]
        return self._rng.choice(candidates) if candidates else 0
