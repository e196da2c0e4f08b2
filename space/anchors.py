"""What ``autotune calibrate`` times besides the links: the anchor strategies, pairs of a model's real steps that
differ in one thing, and the matrices of the PowerSGD probe. ``runners.calibrate`` measures them and
``simulator.to_calibration`` fits costs to them; both read them from here, so neither imports the other."""
from __future__ import annotations

from space.builders import build_strategy
from space.strategy import Strategy, ar_node, partitioned_node, ps_node

ANCHOR_SHARDS = 4  # shards per variable of the split anchors
PSGD_SMALL, PSGD_SMALL_COUNT = (64, 64, 1), 16  # (n, m, rank) matrices of the PowerSGD probe, and how many
PSGD_LARGE, PSGD_LARGE_COUNT = (1024, 512, 4), 2


def anchor_strategies(inventory, spec) -> dict:
    """The model's strategies whose real steps set its per-piece and per-collective costs: pairs that differ in
    one thing only, so that the difference of their measured steps, less the difference the cost model already
    predicts, is that thing's cost.

    ``all_reduce`` (every variable in one fused group) against ``ar_split`` (each variable split into
    ``ANCHOR_SHARDS`` shards, same group: extra pieces) and ``ar_groups`` (a group per variable: extra
    collectives); ``ps`` (every variable on the chief) against ``ps_split`` (the same, split) and ``ps_lb`` (the
    ``ps_lb`` builder: the variables spread over every node's server); and the ``all_reduce_powersgd`` builder, for
    the per-matrix cost of a PowerSGD round.
    """
    chief = spec.chief.cpu_devices[0]

    def nodes(make, split: bool):
        out = []
        for i, v in enumerate(inventory.variables):
            if split and v.shape and v.shape[0] >= ANCHOR_SHARDS:
                out.append(partitioned_node(v.name, v.shape, 0, [make(v, i) for _ in range(ANCHOR_SHARDS)]))
            else:
                out.append(make(v, i))
        return Strategy.build(out, spec.replicas, builder="calibration")

    def ar(v, _i):
        return ar_node(v.name)

    def ar_own(v, i):
        return ar_node(v.name, group=i)

    def ps(v, _i):
        return ps_node(v.name, chief)

    return {"all_reduce": nodes(ar, False), "ar_split": nodes(ar, True), "ar_groups": nodes(ar_own, False),
            "ps": nodes(ps, False), "ps_split": nodes(ps, True), "ps_lb": build_strategy("ps_lb", inventory, spec),
            "powersgd": build_strategy("all_reduce_powersgd", inventory, spec)}
