"""Parallax: sparse variables on load-balanced parameter servers, dense variables all-reduced."""
from __future__ import annotations

from space.builders._base import StrategyBuilder, register
from space.builders._placement import lpt_assign, ps_devices
from space.strategy import Strategy, ar_node, partitioned_node, ps_node, shard_sizes


@register("parallax")
class Parallax(StrategyBuilder):
    """Sparse-gradient variables split into one shard per PS (load-balanced); dense ones all-reduced.

    No local proxy by default: a proxy copy of a table is refreshed whole after every update, which costs the
    table's size per step where remote gathers move only the touched rows.
    """

    def __init__(self, chunk_size: int = 128, local_proxy_variable: bool = False, sync: bool = True) -> None:
        if chunk_size < 1:
            raise ValueError(f"`chunk_size >= 1` must hold, but got {chunk_size=}")
        self.chunk_size, self.local_proxy_variable, self.sync = chunk_size, local_proxy_variable, sync

    def build(self, inventory, cluster):
        devices = ps_devices(cluster)
        sparse = [v for v in inventory.variables if v.sparse]
        pieces, plan = [], {}
        for v in sparse:
            n = max(1, min(len(devices), v.shape[0])) if v.shape else 1
            plan[v.name] = shard_sizes(v.shape[0], n) if n > 1 else [v.shape[0] if v.shape else 1]
            pieces += [((v.name, i), s * v.row_bytes) for i, s in enumerate(plan[v.name])]
        place = lpt_assign(pieces, devices)
        nodes, dense_index = [], 0
        for v in inventory.variables:
            if not v.sparse:
                nodes.append(ar_node(v.name, group=dense_index // self.chunk_size))
                dense_index += 1
                continue
            parts = [ps_node(v.name, place[(v.name, i)], sync=self.sync, local_replication=self.local_proxy_variable)
                     for i in range(len(plan[v.name]))]
            nodes.append(parts[0] if len(parts) == 1 else partitioned_node(v.name, v.shape, 0, parts))
        return Strategy.build(nodes, cluster.replicas)
