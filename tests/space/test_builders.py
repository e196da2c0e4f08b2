"""The classic builders: each one's rule on each example model, and the alias registry."""
from __future__ import annotations

import collections

import pytest

from testpaths import EXAMPLE_CLUSTERS, EXAMPLE_MODELS
from space import builders
from space.builders._placement import smallest_divisor_shards
from space.cluster import ClusterSpec
from space.errors import BadInput
from space.inventory import Inventory
from space.strategy import partition_axis, shard_sizes
from space.validate import validate

ALIASES = builders.aliases()


@pytest.mark.parametrize("cluster", EXAMPLE_CLUSTERS)
@pytest.mark.parametrize("model", EXAMPLE_MODELS)
@pytest.mark.parametrize("alias", ALIASES)
def test_every_builder_validates(alias, model, cluster, inventories, clusters):
    inv, spec = inventories(model), clusters[cluster]
    s = builders.build_strategy(alias, inv, spec)
    validate(s, inv, spec)
    assert s.replicas == spec.replicas
    assert s.proto.provenance.builder == alias and s.proto.provenance.model_fingerprint == inv.fingerprint


def _leaves(strategy):
    for n in strategy.nodes:
        yield from ([(n, p) for p in n.part_config] if n.partitioner else [(n, n)])


@pytest.mark.parametrize("model", EXAMPLE_MODELS)
def test_ps_puts_everything_on_the_chief(model, inventories, clusters):
    spec = clusters["heterogeneous"]
    s = builders.build_strategy("ps", inventories(model), spec)
    assert {p.PSSynchronizer.reduction_destination for _, p in _leaves(s)} == {spec.chief.cpu_devices[0]}
    assert all(p.PSSynchronizer.sync and not p.PSSynchronizer.local_replication for _, p in _leaves(s))


@pytest.mark.parametrize("model", EXAMPLE_MODELS)
def test_ps_lb_balances_within_the_largest_variable(model, inventories, clusters):
    inv, spec = inventories(model), clusters["heterogeneous"]
    s = builders.build_strategy("ps_lb", inv, spec)
    loads = collections.Counter({d: 0 for d in spec.ps_devices})
    for n in s.nodes:
        loads[n.PSSynchronizer.reduction_destination] += inv.variable(n.var_name).bytes
    largest = max(v.bytes for v in inv.variables)
    assert max(loads.values()) - min(loads.values()) <= largest  # greedy LPT's guarantee
    assert not any(n.partitioner for n in s.nodes)


def test_ps_lb_is_greedy_largest_first():
    inv = Inventory.synthetic([("a:0", (10,)), ("b:0", (30,)), ("c:0", (20,)), ("d:0", (15,))])
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True}, {"address": "127.0.0.2"}]})
    s = builders.build_strategy("ps_lb", inv, spec)
    place = {n.var_name: n.PSSynchronizer.reduction_destination[-9:-6] for n in s.nodes}
    # b(30)->.1, c(20)->.2, d(15)->.2 (load 20<30), a(10)->.1 (30 < 35)
    assert place == {"b:0": "0.1", "c:0": "0.2", "d:0": "0.2", "a:0": "0.1"}


@pytest.mark.parametrize("alias", ["partitioned_ps", "partitioned_ar"])
@pytest.mark.parametrize("model", EXAMPLE_MODELS)
def test_even_partitioning_uses_smallest_divisor(alias, model, inventories, clusters):
    inv = inventories(model)
    s = builders.build_strategy(alias, inv, clusters["localhost"])
    for n in s.nodes:
        v = inv.variable(n.var_name)
        expected = smallest_divisor_shards(v.shape[0]) if v.shape else 1
        axis, shards = partition_axis(n.partitioner) if n.partitioner else (0, 1)
        assert (axis, shards) == (0, expected), n.var_name
        if shards > 1:
            assert v.shape[0] % shards == 0


def test_prime_first_dimension_is_not_split_per_row():
    inv = Inventory.synthetic([("w:0", (10007, 8)), ("b:0", (12,))])
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1"}]})
    s = builders.build_strategy("partitioned_ps", inv, spec)
    assert s.node("w:0").partitioner == "" and s.node("b:0").partitioner == "2"


@pytest.mark.parametrize("model", EXAMPLE_MODELS)
def test_uneven_ps_one_shard_per_server(model, inventories, clusters):
    inv, spec = inventories(model), clusters["heterogeneous"]
    s = builders.build_strategy("uneven_ps", inv, spec)
    for n in s.nodes:
        v = inv.variable(n.var_name)
        expected = min(3, v.shape[0]) if v.shape else 1
        assert (partition_axis(n.partitioner)[1] if n.partitioner else 1) == expected, n.var_name


def test_uneven_ps_balances_shards():
    inv = Inventory.synthetic([("e:0", (10, 4))])
    spec = ClusterSpec.from_dict({"nodes": [{"address": f"127.0.0.{i}", "chief": i == 1} for i in (1, 2, 3)]})
    s = builders.build_strategy("uneven_ps", inv, spec)
    assert shard_sizes(10, 3) == [4, 3, 3]
    assert sorted(p.PSSynchronizer.reduction_destination for p in s.node("e:0").part_config) == spec.ps_devices


@pytest.mark.parametrize("chunk", [1, 10, 128])
def test_all_reduce_groups_by_chunk(chunk, inventories, clusters):
    inv = inventories("transformer")
    s = builders.get_builder("all_reduce", chunk_size=chunk).build(inv, clusters["localhost"])
    assert [n.AllReduceSynchronizer.group for n in s.nodes] == [i // chunk for i in range(len(inv.variables))]


@pytest.mark.parametrize("alias,compressor", [("all_reduce_fp16", 1), ("all_reduce_fp16_ef", 2),
                                              ("all_reduce_powersgd", 3)])
def test_compressed_presets(alias, compressor, inventories, clusters):
    s = builders.build_strategy(alias, inventories("mlp"), clusters["localhost"])
    assert {n.AllReduceSynchronizer.compressor for n in s.nodes} == {compressor}
    assert {n.AllReduceSynchronizer.powersgd_rank for n in s.nodes} == ({2} if compressor == 3 else {0})


def test_random_axis_is_seeded(inventories, clusters):
    inv, spec = inventories("transformer"), clusters["localhost"]

    def build(seed):
        return [n.partitioner for n in builders.get_builder("random_axis_ar", seed=seed).build(inv, spec).nodes]

    assert build(7) == build(7)
    assert len({tuple(build(seed)) for seed in range(5)}) > 1
    axes = {partition_axis(p)[0] for seed in range(5) for p in build(seed) if p}
    assert axes - {0}, "some variable should be split along a non-zero axis"


@pytest.mark.parametrize("model", EXAMPLE_MODELS)
def test_parallax_sparse_on_ps_dense_all_reduced(model, inventories, clusters):
    inv, spec = inventories(model), clusters["two_nodes"]
    s = builders.build_strategy("parallax", inv, spec)
    for n in s.nodes:
        kinds = {p.WhichOneof("synchronizer") for _, p in _leaves(type("S", (), {"nodes": [n]})())}
        assert kinds == ({"PSSynchronizer"} if inv.variable(n.var_name).sparse else {"AllReduceSynchronizer"})
    sparse = [n for n in s.nodes if inv.variable(n.var_name).sparse]
    assert sparse or not any(v.sparse for v in inv.variables)
    assert not any(p.PSSynchronizer.local_replication for n in sparse for p in (n.part_config or [n]))


def test_unknown_alias_lists_known_ones():
    with pytest.raises(BadInput, match=r"unknown builder 'pss'.*all_reduce, all_reduce_fp16"):
        builders.get_builder("pss")


def test_custom_builder_from_file(tmp_path, inventories, clusters):
    (tmp_path / "mine.py").write_text(
        "from space.builders import StrategyBuilder, AllReduce\n"
        "class Mine(StrategyBuilder):\n"
        "    def build(self, inventory, cluster):\n"
        "        return AllReduce(chunk_size=1).build(inventory, cluster)\n")
    s = builders.build_strategy(f"{tmp_path}/mine.py", inventories("mlp"), clusters["localhost"])
    assert s.nodes[-1].AllReduceSynchronizer.group == len(s.nodes) - 1
    s2 = builders.build_strategy(f"{tmp_path}/mine.py:Mine", inventories("mlp"), clusters["localhost"])
    assert [n.AllReduceSynchronizer.group for n in s2.nodes] == [n.AllReduceSynchronizer.group for n in s.nodes]


def test_custom_builder_from_module():
    assert isinstance(builders.get_builder("space.builders:Parallax"), builders.Parallax)


@pytest.mark.parametrize("ref,pattern", [("/no/such.py", "not found"), ("space.builders:Nope", "no attribute 'Nope'"),
                                         ("space.strategy:Strategy", "not a StrategyBuilder"),
                                         ("no_such_module_x:Y", "cannot import")])
def test_bad_custom_builder(ref, pattern):
    with pytest.raises(BadInput, match=pattern):
        builders.get_builder(ref)


def test_hierarchical_all_reduce_only_where_units_apply(inventories, clusters):
    """Racks of equal size: every all-reduced variable is hierarchical; one replica a node and no groups: the
    strategy is all_reduce's, to the byte (so a search seeds it once)."""
    inv = inventories("mlp")
    racks = ClusterSpec.from_dict({"nodes": [{"address": "10.0.0.1", "count": 2, "group": "a", "chief": True},
                                             {"address": "10.0.1.1", "count": 2, "group": "b"}]})
    s = builders.build_strategy("all_reduce_hierarchical", inv, racks)
    assert all(p.AllReduceSynchronizer.hierarchical for _, p in _leaves(s))
    spec = clusters["two_nodes"]
    flat, plain = (builders.build_strategy(a, inv, spec) for a in ("all_reduce_hierarchical", "all_reduce"))
    assert not any(p.AllReduceSynchronizer.hierarchical for _, p in _leaves(flat))
    assert [n.SerializeToString() for n in flat.nodes] == [n.SerializeToString() for n in plain.nodes]
