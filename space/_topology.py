"""The cluster spec's topology: bandwidth and latency inside a node, inside a group of nodes and across groups."""
from __future__ import annotations

import dataclasses

TOPOLOGY_KEYS = ("intra_node", "intra_group", "inter_group")
TIER_KEYS = {"bandwidth", "latency"}


@dataclasses.dataclass(frozen=True)
class Tier:
    """Bandwidth and latency of one level of the topology (None: not given)."""

    bandwidth_gbit: float | None = None
    latency_s: float | None = None

    def to_dict(self) -> dict[str, float]:
        out = {"bandwidth": self.bandwidth_gbit, "latency": self.latency_s}
        return {k: v for k, v in out.items() if v is not None}


@dataclasses.dataclass(frozen=True)
class Topology:
    """How far apart two replicas are decides their bandwidth and latency: two GPUs of one node (``intra_node``),
    two nodes of one group (``intra_group``) or of different groups (``inter_group``). ``inter_group`` is what one
    node's traffic to the other groups gets at once (its share of the group's uplinks); a path never runs faster
    than the NICs at its ends."""

    intra_node: Tier = Tier()
    intra_group: Tier = Tier()
    inter_group: Tier = Tier()

    def to_dict(self) -> dict[str, dict[str, float]]:
        return {k: getattr(self, k).to_dict() for k in TOPOLOGY_KEYS if getattr(self, k).to_dict()}
