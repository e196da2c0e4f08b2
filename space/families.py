"""Synchronizer families: what kind of mechanism a strategy synchronizes its variables with, and whether it is exact.

A family is a strategy's one mechanism when it uses one: every variable on parameter servers (``ps``), every
variable all-reduced densely (``all-reduce``), all-reduced with sparse gradients all-gathered (``sparse
all-gather``), all-reduced in tiers inside and across nodes (``hierarchical``), or with gradients compressed on the
wire (``compressed all-reduce``: fp16, error feedback, PowerSGD). A strategy that mixes parameter servers and
all-reduce is a ``mix``. The search measures the best member of each family so that no mechanism is left out on a
prediction alone.

A compressed strategy is *lossy*: its training differs from single-device training by more than roundoff (fp16
rounds every gradient on the wire; PowerSGD sends a low-rank approximation and carries the rest to the next step).
Every other synchronizer is exact.
"""
from __future__ import annotations

from space.strategy import Compressor, Node, Strategy

PS, ALL_REDUCE, GATHER, HIERARCHICAL, COMPRESSED, MIX = (
    "ps", "all-reduce", "sparse all-gather", "hierarchical", "compressed all-reduce", "mix")
FAMILIES = (PS, ALL_REDUCE, GATHER, HIERARCHICAL, COMPRESSED)  # the pure ones, each measured by the search
_NONE = Compressor.Value("NoneCompressor")


def _synchronizers(strategy: Strategy) -> list:
    """Every synchronizer of ``strategy``: one per variable, or one per shard of a partitioned variable."""
    out = []
    for node in strategy.proto.node_config:
        parts: list[Node] = list(node.part_config) or [node]
        out.extend(p for p in parts if p.WhichOneof("synchronizer"))
    return out


def lossy(strategy: Strategy) -> bool:
    """Whether some gradient of ``strategy`` is compressed on the wire (training is then not exact)."""
    return any(p.WhichOneof("synchronizer") == "AllReduceSynchronizer" and p.AllReduceSynchronizer.compressor != _NONE
               for p in _synchronizers(strategy))


def family(strategy: Strategy) -> str:
    """The family of ``strategy`` (module docstring): compression first (it decides exactness), then tiers, then
    sparse all-gather; a strategy with both parameter servers and all-reduce is a ``mix``."""
    syncs = _synchronizers(strategy)
    kinds = {p.WhichOneof("synchronizer") for p in syncs}
    if "PSSynchronizer" in kinds and "AllReduceSynchronizer" in kinds:
        return MIX
    if kinds == {"PSSynchronizer"}:
        return PS
    ar = [p.AllReduceSynchronizer for p in syncs]
    if any(s.compressor != _NONE for s in ar):
        return COMPRESSED
    if any(s.hierarchical for s in ar):
        return HIERARCHICAL
    if any(s.gather_sparse for s in ar):
        return GATHER
    return ALL_REDUCE
