"""Parameter-server builders: PS, PSLoadBalancing, PartitionedPS, UnevenPartitionedPS."""
from __future__ import annotations

from space.builders._base import StrategyBuilder, register
from space.builders._placement import lpt_assign, ps_devices, smallest_divisor_shards
from space.strategy import Strategy, partitioned_node, ps_node, shard_sizes


class _PSBase(StrategyBuilder):
    def __init__(self, local_proxy_variable: bool = False, sync: bool = True, staleness: int = 0) -> None:
        if staleness < 0:
            raise ValueError(f"`staleness >= 0` must hold, but got {staleness=}")
        self.local_proxy_variable, self.sync, self.staleness = local_proxy_variable, sync, staleness

    def _ps(self, name: str, dest: str):
        return ps_node(name, dest, sync=self.sync, local_replication=self.local_proxy_variable,
                       staleness=self.staleness)


@register("ps")
@register("ps_async", "PS with asynchronous updates (no barrier)", sync=False)
@register("ps_proxy", "PS with a local proxy copy of each variable per node", local_proxy_variable=True)
class PS(_PSBase):
    """Every variable on one parameter server: the chief's CPU."""

    def build(self, inventory, cluster):
        ps_devices(cluster)
        dest = cluster.chief.cpu_devices[0]
        return Strategy.build([self._ps(v.name, dest) for v in inventory.variables], cluster.replicas)


@register("ps_lb")
class PSLoadBalancing(_PSBase):
    """Whole variables spread over one PS per node, greedy largest-first by bytes."""

    def build(self, inventory, cluster):
        place = lpt_assign([(v.name, v.bytes) for v in inventory.variables], ps_devices(cluster))
        return Strategy.build([self._ps(v.name, place[v.name]) for v in inventory.variables], cluster.replicas)


class _PartitionedPSBase(_PSBase):
    def shards(self, var, num_ps: int) -> int:
        raise NotImplementedError

    def build(self, inventory, cluster):
        devices = ps_devices(cluster)
        pieces, plan = [], {}
        for v in inventory.variables:
            n = self.shards(v, len(devices)) if v.shape else 1
            sizes = shard_sizes(v.shape[0], n) if n > 1 else [1]
            plan[v.name] = n
            row = v.bytes / v.shape[0] if v.shape and v.shape[0] else v.bytes
            pieces += [((v.name, i), s * row if n > 1 else v.bytes) for i, s in enumerate(sizes)]
        place = lpt_assign(pieces, devices)
        nodes = []
        for v in inventory.variables:
            n = plan[v.name]
            if n == 1:
                nodes.append(self._ps(v.name, place[(v.name, 0)]))
            else:
                parts = [self._ps(v.name, place[(v.name, i)]) for i in range(n)]
                nodes.append(partitioned_node(v.name, v.shape, 0, parts))
        return Strategy.build(nodes, cluster.replicas)


@register("partitioned_ps")
class PartitionedPS(_PartitionedPSBase):
    """Each variable split evenly along axis 0 (smallest divisor >= 2), shards load-balanced over the PSs.

    Differs from AutoDist: a prime first dimension is left whole instead of one shard per row.
    """

    def shards(self, var, num_ps):
        return smallest_divisor_shards(var.shape[0])


@register("uneven_ps")
class UnevenPartitionedPS(_PartitionedPSBase):
    """Each variable split along axis 0 into one shard per PS (uneven sizes allowed), load-balanced."""

    def shards(self, var, num_ps):
        return max(1, min(num_ps, var.shape[0]))
