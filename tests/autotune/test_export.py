"""``autotune export``: versioned JSON (round trip), one TF_CONFIG per node, and the note of what is dropped."""
from __future__ import annotations

import json

import pytest

from autotune.export import SCHEMA_VERSION, from_json, to_json, to_tf_config
from testpaths import CLUSTERS
from space import builders
from space.errors import BadInput




@pytest.fixture
def build(inventories, clusters, tmp_path):
    """``build(alias, model, cluster)`` -> (Strategy, path of its .pb)."""
    def _build(alias, model="recommender", cluster="localhost"):
        s = builders.build_strategy(alias, inventories(model), clusters[cluster])
        return s, s.save(tmp_path / f"{alias}-{model}-{cluster}.pb")
    return _build


@pytest.mark.parametrize("alias", ["ps", "ps_async", "ps_proxy", "parallax", "partitioned_ps", "all_reduce_fp16",
                                   "all_reduce_powersgd", "all_reduce_ring", "random_axis_ar"])
def test_json_round_trip(build, alias):
    strategy, _ = build(alias, "transformer")
    doc = json.loads(json.dumps(to_json(strategy)))
    assert from_json(doc) == strategy


def test_json_round_trips_the_hierarchical_all_reduce(inventories):
    from space.cluster import ClusterSpec

    racks = ClusterSpec.from_dict({"nodes": [{"address": "198.18.0.1", "chief": True, "count": 2, "group": "a"},
                                             {"address": "198.18.0.3", "count": 2, "group": "b"}]})
    strategy = builders.build_strategy("all_reduce_hierarchical", inventories("recommender"), racks)
    doc = json.loads(json.dumps(to_json(strategy)))
    assert [v.get("hierarchical") for v in doc["variables"]] == [True] * 6
    assert from_json(doc) == strategy
    assert any("hierarchical all-reduce" in line for line in to_tf_config(strategy).dropped)


def test_json_cli_writes_versioned_description(build, run, tmp_path):
    strategy, path = build("parallax")
    code, _, err = run("export", path, "--to", "json", "-o", tmp_path / "s.json")
    doc = json.loads((tmp_path / "s.json").read_text())
    assert code == 0 and "drops" not in err
    assert doc["format"] == "autotune-strategy" and doc["schema_version"] == SCHEMA_VERSION
    emb = next(v for v in doc["variables"] if v["name"] == "recommender/user_embedding/embeddings:0")
    assert emb["shards"] == 2 and emb["partition_axis"] == 0
    assert [p["destination"] for p in emb["parts"]] == ["127.0.0.1:CPU:0", "127.0.0.2:CPU:0"]
    dense = next(v for v in doc["variables"] if v["name"] == "recommender/hidden/kernel:0")
    assert dense == {"name": "recommender/hidden/kernel:0", "shards": 1, "synchronizer": "all_reduce", "group": 0,
                     "spec": "auto", "compressor": "none"}
    assert from_json(doc) == strategy


def test_json_of_another_schema_version_is_refused(build):
    doc = to_json(build("ps")[0]) | {"schema_version": SCHEMA_VERSION + 1}
    with pytest.raises(BadInput, match="schema_version 2 is not supported"):
        from_json(doc)


def test_tf_config_one_per_node_in_spec_order(build, clusters, run, tmp_path):
    _, path = build("ps_lb", cluster="heterogeneous")
    code, _, _ = run("export", path, "--to", "tf-config", "--spec", CLUSTERS / "heterogeneous.yml",
                     "--port", "2222,2223,2224", "-o", tmp_path / "tf.json")
    doc = json.loads((tmp_path / "tf.json").read_text())
    workers = ["198.18.0.1:2222", "198.18.0.2:2223", "198.18.0.3:2224"]
    assert code == 0 and doc["cluster"] == {"worker": workers} and doc["chief_task"] == 0
    assert [t["hostname"] for t in doc["tasks"]] == ["host0", "host1", "host2"]
    assert [json.loads(t["TF_CONFIG"]) for t in doc["tasks"]] == [
        {"cluster": {"worker": workers}, "task": {"type": "worker", "index": i}} for i in range(3)]


def test_tf_config_task_prints_one_value(build, run):
    _, path = build("ps")
    code, out, _ = run("export", path, "--to", "tf-config", "--spec", CLUSTERS / "localhost.yml", "--task", "1")
    assert code == 0
    assert json.loads(out) == {"cluster": {"worker": ["127.0.0.1:2222", "127.0.0.2:2222"]},
                               "task": {"type": "worker", "index": 1}}


def test_tf_config_without_spec_orders_by_first_use(build):
    strategy, _ = build("ps", cluster="two_nodes")
    doc = to_tf_config(strategy, ports=3000).document
    assert doc["cluster"]["worker"] == ["198.18.0.1:3000", "198.18.0.2:3000"] and doc["notes"]


def test_tf_config_of_a_strategy_for_another_cluster_is_exit_2(build, run):
    _, path = build("ps", cluster="two_nodes")
    code, _, err = run("export", path, "--to", "tf-config", "--spec", CLUSTERS / "localhost.yml")
    assert code == 2 and "198.18.0.1" in err and err.count("\n") == 1


def test_wrong_number_of_ports_is_exit_2(build, run):
    _, path = build("ps")
    code, _, err = run("export", path, "--to", "tf-config", "--spec", CLUSTERS / "localhost.yml", "--port", "1,2,3")
    assert code == 2 and "one port" in err


@pytest.mark.parametrize("alias, expected", [
    ("all_reduce_powersgd", "powersgd compression, PowerSGD rank 2: "),
    ("ps_async", "asynchronous PS updates, unbounded staleness: "),
    ("ps_proxy", "local replication (per-node PS proxies): "),
    ("partitioned_ps", "partitioning: recommender/user_embedding/embeddings into 2 shards along axis 0"),
    ("all_reduce_fp16_ef", "fp16_ef compression: "),
])
def test_tf_config_lists_what_it_drops(build, run, alias, expected):
    strategy, path = build(alias)
    code, _, err = run("export", path, "--to", "tf-config", "--spec", CLUSTERS / "localhost.yml")
    dropped = to_tf_config(strategy).dropped
    assert code == 0 and any(expected in line for line in dropped)
    assert "cannot express, and drops: per-variable synchronization of 6 variables" in err
    assert all(f"note: {line}" in err for line in dropped[1:])
    named = " ".join(dropped)
    assert all(n.var_name.removesuffix(":0") in named for n in strategy.proto.node_config)
