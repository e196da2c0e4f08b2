"""validate(): every way a strategy can fail to fit its model or cluster gets a precise message."""
from __future__ import annotations

import pytest

from space.builders import build_strategy
from space.cluster import ClusterSpec
from space.errors import StrategyError
from space.inventory import Inventory
from space.strategy import Strategy, ar_node, partitioned_node, ps_node
from space.validate import validate

INV = Inventory.synthetic([("w:0", (6, 4)), ("b:0", (4,)), ("e:0", (10, 2))], sparse=["e:0"])
CLUSTER = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True}, {"address": "127.0.0.2"}]})
R = ["127.0.0.1:CPU:0", "127.0.0.2:CPU:0"]
A, B = R


def good_nodes():
    return [ps_node("w:0", A), ar_node("b:0"),
            partitioned_node("e:0", (10, 2), 0, [ps_node("e:0", A), ps_node("e:0", B)])]


def test_good_strategy_passes():
    validate(Strategy.build(good_nodes(), R), INV, CLUSTER)


def _replace(index, node):
    nodes = good_nodes()
    nodes[index] = node
    return nodes


def _bad_part(mutate):
    node = good_nodes()[2]
    mutate(node)
    return _replace(2, node)


CASES = {
    "unknown_variable": (good_nodes() + [ar_node("zzz:0")], R, r"unknown variable 'zzz:0'"),
    "missing_variable": (good_nodes()[:2], R, r"variable 'e:0' has no node_config"),
    "duplicate_variable": (good_nodes() + [ar_node("b:0")], R, r"variable 'b:0' is configured twice"),
    "destination_not_in_cluster": (_replace(0, ps_node("w:0", "10.9.9.9:CPU:0")), R,
                                   r"reduction_destination '10.9.9.9:CPU:0' is not a device"),
    "replica_not_in_cluster": (good_nodes(), [A, "127.0.0.9:CPU:0"], r"replica '127.0.0.9:CPU:0' is not a device"),
    "no_replicas": (good_nodes(), [], r"replicas is empty"),
    "duplicate_replica": (good_nodes(), [A, A], r"lists a device twice"),
    "too_many_shards": (_replace(1, partitioned_node("b:0", (4,), 0, [ar_node("b:0")] * 5)), R,
                        r"asks for 5 shards along axis 0 of size 4"),
    "part_config_mismatch": (_bad_part(lambda n: n.part_config.pop()), R,
                             r"makes 2 shards but part_config has 1 entries"),
    "partitioner_axes": (_bad_part(lambda n: setattr(n, "partitioner", "2")), R,
                         r"has 1 axes but the variable has shape"),
    "two_split_axes": (_bad_part(lambda n: setattr(n, "partitioner", "2,2")), R, r"splits more than one axis"),
    "malformed_partitioner": (_bad_part(lambda n: setattr(n, "partitioner", "a,1")), R, r"not a comma-separated"),
    "negative_staleness": (_replace(0, ps_node("w:0", A, sync=False, staleness=-1)), R, r"staleness must be >= 0"),
    "negative_group": (_replace(1, ar_node("b:0", group=-2)), R, r"group must be >= 0, but got -2"),
    "rank_without_powersgd": (_replace(1, ar_node("b:0", powersgd_rank=2)), R, r"compressor is not PowerSGDCompressor"),
    "no_synchronizer": (_replace(1, Strategy.build([], []).proto.node_config.add(var_name="b:0")), R,
                        r"no synchronizer"),
    "shard_without_synchronizer": (_bad_part(lambda n: n.part_config[1].ClearField("PSSynchronizer")), R,
                                   r"no synchronizer .*shard 1"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rejected(case):
    nodes, replicas, pattern = CASES[case]
    with pytest.raises(StrategyError, match=pattern):
        validate(Strategy.build(nodes, replicas), INV, CLUSTER, source="s.pb")


def test_strategy_for_another_model_is_rejected():
    other = Inventory.synthetic([("dense/kernel:0", (3, 3))])
    s = build_strategy("ps", other, CLUSTER)
    with pytest.raises(StrategyError, match=r"unknown variable 'dense/kernel:0'.*hint: was this strategy built"):
        validate(s, INV, CLUSTER)


def test_summary_lists_every_variable_and_shard():
    s = Strategy.build(good_nodes(), R, builder="hand")
    text = s.summary(INV)
    for needle in ["w:0", "e/part_0:0", "e/part_1:0", f"PS {A} sync", "AR g0 auto none", "builder: hand"]:
        assert needle in text
