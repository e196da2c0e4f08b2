"""The cluster spec: examples parse, device naming, bandwidths, and one clear message per bad spec."""
from __future__ import annotations

import sys

import pytest
import yaml

from testpaths import CLUSTERS, EXAMPLE_CLUSTERS
from space import parse_bandwidth_gbit
from space.cluster import ClusterSpec, load_cluster, parse_device
from space.errors import SpecError

TWO = {"nodes": [{"address": "10.1.0.1", "chief": True, "ssh_config": "g"}, {"address": "10.1.0.2", "ssh_config": "g"}],
       "ssh": {"g": {"username": "me"}}}


@pytest.mark.parametrize("name", EXAMPLE_CLUSTERS)
def test_examples_parse(name):
    spec = load_cluster(CLUSTERS / f"{name}.yml")
    assert spec.chief in spec.nodes
    assert all(d.endswith(":CPU:0") for d in spec.replicas)


def test_local_cluster_devices():
    spec = load_cluster(CLUSTERS / "localhost.yml")
    assert spec.is_local
    assert spec.replicas == ["127.0.0.1:CPU:0", "127.0.0.2:CPU:0"]
    assert spec.node_of("127.0.0.2:CPU:0").address == "127.0.0.2"


def test_heterogeneous_bandwidths():
    spec = load_cluster(CLUSTERS / "heterogeneous.yml")
    assert spec.bandwidth_gbit("198.18.0.1", "198.18.0.2") == 1.0  # the slower NIC
    assert spec.bandwidth_gbit("host2", "host1") == pytest.approx(0.2)  # link override, either direction
    assert spec.node("host2").workdir == "/tmp/autotune"
    assert spec.node("host0").cpu_devices == ["198.18.0.1:CPU:0", "198.18.0.1:CPU:1"]


def test_gpus_are_replicas():
    spec = ClusterSpec.from_dict({"nodes": [{"address": "10.0.0.1", "gpus": [0, 1], "chief": True}]})
    assert spec.replicas == ["10.0.0.1:GPU:0", "10.0.0.1:GPU:1"]
    assert spec.ps_devices == ["10.0.0.1:CPU:0"]


def test_single_node_is_chief_and_fingerprint_ignores_formatting():
    a = ClusterSpec.from_dict({"nodes": [{"address": "localhost"}]})
    b = ClusterSpec.from_dict({"nodes": [{"address": "localhost", "chief": True, "network_bandwidth": "1gbit"}]})
    assert a.chief.address == "localhost" and a.fingerprint == b.fingerprint
    c = ClusterSpec.from_dict({"nodes": [{"address": "localhost", "network_bandwidth": 2}]})
    assert c.fingerprint != a.fingerprint


def test_thread_pools_parse_and_change_the_fingerprint_only_when_set():
    plain = ClusterSpec.from_dict({"nodes": [{"address": "localhost"}]})
    zero = ClusterSpec.from_dict({"nodes": [{"address": "localhost", "intra_op_threads": 0}]})
    one = ClusterSpec.from_dict({"nodes": [{"address": "localhost", "intra_op_threads": 1, "inter_op_threads": 2}]})
    assert (plain.nodes[0].intra_op_threads, one.nodes[0].intra_op_threads, one.nodes[0].inter_op_threads) == (0, 1, 2)
    assert plain.fingerprint == zero.fingerprint != one.fingerprint
    assert ClusterSpec.from_dict(one.to_dict()).nodes == one.nodes  # round trip


@pytest.mark.parametrize("value,gbit", [(1, 1.0), (2.5, 2.5), ("200mbit", 0.2), ("10Gbps", 10.0), ("1gbit/s", 1.0),
                                        ("500 kbit", 0.0005)])
def test_bandwidth_units(value, gbit):
    assert parse_bandwidth_gbit(value) == pytest.approx(gbit)


def _with(**changes):
    import copy

    d = copy.deepcopy(TWO)
    for path, value in changes.items():
        target = d
        keys = path.split("__")
        for k in keys[:-1]:
            target = target[int(k)] if k.isdigit() else target[k]
        target[keys[-1] if not keys[-1].isdigit() else int(keys[-1])] = value
    return d


BAD = {
    "empty_nodes": ({"nodes": []}, r"`nodes` must be a non-empty list"),
    "no_nodes_key": ({"ssh": {}}, r"`nodes` must be a non-empty list"),
    "not_mapping": (["a"], r"must be a mapping"),
    "no_chief": (_with(nodes__0__chief=False), r"no node is marked `chief: true`"),
    "two_chiefs": (_with(nodes__1__chief=True), r"2 nodes are marked chief \(10.1.0.1, 10.1.0.2\)"),
    "duplicate_address": (_with(nodes__1__address="10.1.0.1"), r"duplicate address '10.1.0.1' in nodes\[1\]"),
    "undefined_ssh_group": (_with(nodes__1__ssh_config="nope"),
                            r"undefined ssh group 'nope' in nodes\[1\] \(10.1.0.2\)"),
    "unknown_node_key": (_with(nodes__1__adress="x"), r"unknown key 'adress' in nodes\[1\] \(10.1.0.2\)"),
    "unknown_top_key": (_with(node=[]), r"unknown key 'node' in the cluster spec"),
    "unknown_ssh_key": (_with(ssh__g__user="x"), r"unknown key 'user' in ssh group 'g'"),
    "wrong_type_chief": (_with(nodes__0__chief="yes"), r"`nodes\[0\] \(10.1.0.1\).chief` must be true or false"),
    "wrong_type_cpus": (_with(nodes__1__cpus="0"), r"`nodes\[1\] \(10.1.0.2\).cpus` must be a list"),
    "wrong_type_port": (_with(ssh__g__port="22"), r"`ssh.g.port` must be an integer"),
    "bad_bandwidth": (_with(nodes__0__network_bandwidth="fast"), r"bad `network_bandwidth` in nodes\[0\] \(10.1.0.1\)"),
    "negative_bandwidth": (_with(nodes__0__network_bandwidth=-1), r"bandwidth must be > 0"),
    "missing_address": (_with(nodes__1={"chief": False}), r"`address` is required .* in nodes\[1\]"),
    "loopback_mixed": (_with(nodes__1__address="127.0.0.1"),
                       r"loopback node '127.0.0.1' mixed with remote node '10.1.0.1'"),
    "link_unknown_node": (_with(links=[{"from": "10.1.0.1", "to": "10.9.9.9", "bandwidth": 1}]),
                          r"`links\[0\].to` = '10.9.9.9' is not a node"),
    "missing_username": (_with(ssh__g={"port": 22}), r"`ssh.g.username` is required"),
    "negative_threads": (_with(nodes__1__intra_op_threads=-1),
                         r"`nodes\[1\] \(10.1.0.2\).intra_op_threads` must be an integer in 0..1024"),
    "a_billion_threads": (_with(nodes__1__inter_op_threads=10**9),
                          r"`nodes\[1\] \(10.1.0.2\).inter_op_threads` must be an integer in 0..1024"),
    "wrong_type_threads": (_with(nodes__0__inter_op_threads="2"),
                           r"`nodes\[0\] \(10.1.0.1\).inter_op_threads` must be an integer in 0..1024"),
    "cpu_device_no_server_makes": (_with(nodes__1__cpus=[0, 999]),
                                   r"`nodes\[1\] \(10.1.0.2\).cpus` names CPU device 999, but a node's server makes "
                                   r"at most 64"),
    "ipv6_address": (_with(nodes__1__address="fd00::2"), r"nodes\[1\] \(fd00::2\) has an IPv6 address"),
    "ipv6_loopback": (_with(nodes__0__address="::1", nodes__1__address="::2"),
                      r"nodes\[0\] \(::1\) has an IPv6 address"),
    "url_scheme": (_with(nodes__1__address="grpc://10.1.0.2"),
                   r"nodes\[1\] \(grpc://10.1.0.2\) has the URL scheme grpc://, which a node's address must not "
                   r"have.*hint: give the address without grpc://, e.g. address: 10.1.0.2$"),
    "url_scheme_and_port": (_with(nodes__1__address="grpc://10.1.0.2:2222"),
                            r"URL scheme grpc://.*e.g. address: 10.1.0.2$"),
    "host_and_port": (_with(nodes__1__address="10.1.0.2:2222"),
                      r"nodes\[1\] \(10.1.0.2:2222\) has a port, .*hint: give address: 10.1.0.2;"),
    "env_name_runs_shell": (_with(ssh__g__shared_envs={"A=1; touch /tmp/x; B": "1"}),
                            r"`ssh.g.shared_envs` has the name 'A=1; touch /tmp/x; B', which is not an environment "
                            r"variable name"),
    "env_name_starts_with_digit": (_with(ssh__g__shared_envs={"1X": "1"}), r"not an environment variable name"),
    "count_not_integer": (_with(nodes__1__count="4"), r"`nodes\[1\] \(10.1.0.2\).count` must be an integer"),
    "count_hostname_alike": (_with(nodes__1__count=2, nodes__1__hostname="h"), r"`hostname` of nodes\[1\] .* names 2"),
    "count_address_not_ip": (_with(nodes__1__count=2, nodes__1__address="box"),
                             r"neither an IP address nor a template"),
    "count_overlaps": (_with(nodes__0__count=2), r"duplicate address '10.1.0.2'"),
    "topology_without_groups": (_with(topology={"inter_group": {"bandwidth": "1gbit"}}),
                                r"node '10.1.0.1' has no `group`, but the topology sets bandwidths by group"),
    "topology_unknown_level": (_with(topology={"rack": {}}), r"unknown key 'rack' in topology"),
    "topology_bad_latency": (_with(topology={"intra_node": {"latency": "5 parsecs"}}),
                             r"bad `topology.intra_node.latency`: unknown time unit 'parsecs'"),
    "topology_bad_bandwidth": (_with(topology={"intra_node": {"bandwidth": 0}}),
                               r"bad `topology.intra_node.bandwidth`: bandwidth must be > 0"),
}


def test_count_expands_consecutive_addresses_and_templates():
    spec = ClusterSpec.from_dict({"nodes": [
        {"address": "10.0.0.254", "count": 3, "chief": True, "group": "a"},
        {"address": "node{i}", "hostname": "gpu{i}", "count": 2, "group": "b", "gpus": [0, 1]}]})
    assert [n.address for n in spec.nodes] == ["10.0.0.254", "10.0.0.255", "10.0.1.0", "node0", "node1"]
    assert [n.chief for n in spec.nodes] == [True, False, False, False, False]
    assert [n.hostname for n in spec.nodes][3:] == ["gpu0", "gpu1"]
    assert spec.groups == {"a": ("10.0.0.254", "10.0.0.255", "10.0.1.0"), "b": ("node0", "node1")}
    assert spec.replica_units() == [[0, 1, 2], [3, 4, 5, 6]]  # by group: one CPU replica a node, then 2 x 2 GPUs
    ungrouped = ClusterSpec.from_dict({"nodes": [{"address": "10.0.0.1", "count": 2, "chief": True, "gpus": [0, 1]}]})
    assert ungrouped.replica_units() == [[0, 1], [2, 3]]  # by node


def test_topology_caps_paths_and_changes_the_fingerprint_only_when_set():
    plain = {"nodes": [{"address": "10.0.0.1", "count": 2, "chief": True, "network_bandwidth": "10gbit"}]}
    grouped = {"topology": {"inter_group": {"bandwidth": "1gbit", "latency": "20us"},
                            "intra_group": {"bandwidth": "40gbit"}},
               "nodes": [{"address": "10.0.0.1", "group": "a", "chief": True, "network_bandwidth": "10gbit"},
                         {"address": "10.0.0.2", "group": "b", "network_bandwidth": "10gbit"},
                         {"address": "10.0.0.3", "group": "b", "network_bandwidth": "10gbit"}]}
    spec = ClusterSpec.from_dict(grouped)
    assert spec.bandwidth_gbit("10.0.0.1", "10.0.0.2") == 1.0  # across groups: the topology's cap
    assert spec.bandwidth_gbit("10.0.0.2", "10.0.0.3") == 10.0  # inside: the NICs, slower than the switch
    assert spec.topology.inter_group.latency_s == pytest.approx(2e-5)
    assert ClusterSpec.from_dict(spec.to_dict()).fingerprint == spec.fingerprint
    with_topology = ClusterSpec.from_dict(plain | {"topology": {"intra_node": {"bandwidth": 100}}})
    assert with_topology.fingerprint != ClusterSpec.from_dict(plain).fingerprint
    assert "topology" not in ClusterSpec.from_dict(plain).to_dict()


@pytest.mark.parametrize("value, seconds", [(2e-5, 2e-5), ("20us", 2e-5), ("0.5 ms", 5e-4), ("1s", 1.0), (0, 0.0)])
def test_latency_units(value, seconds):
    from space._units import parse_duration_s

    assert parse_duration_s(value) == pytest.approx(seconds)


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_spec_names_field_and_node(case, tmp_path):
    data, pattern = BAD[case]
    path = tmp_path / "cluster.yml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(SpecError, match=pattern) as info:
        load_cluster(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("case", ["no_chief", "unknown_node_key"])
def test_bad_spec_cli_exits_2_with_one_line(case, tmp_path, capsys):
    from autotune.cli import main

    path = tmp_path / "cluster.yml"
    path.write_text(yaml.safe_dump(BAD[case][0]))
    assert main(["build", "--builder", "ps", "--model", "m.py", "--spec", str(path), "-o", str(tmp_path / "s.pb")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def test_invalid_yaml_names_line(tmp_path):
    path = tmp_path / "cluster.yml"
    path.write_text("nodes:\n  - address: [1\n")
    with pytest.raises(SpecError, match=r"not valid YAML .*cluster.yml:\d+"):
        load_cluster(path)


def test_missing_file():
    with pytest.raises(SpecError, match="cluster spec not found"):
        load_cluster("/nonexistent/cluster.yml")


@pytest.mark.parametrize("device", ["10.0.0.1:CPU", "10.0.0.1:TPU:0", ":CPU:0", "h:CPU:x"])
def test_bad_device_names(device):
    with pytest.raises(ValueError):
        parse_device(device)


def test_space_and_simulator_do_not_import_tensorflow():
    import subprocess

    code = "import sys, space, space.builders, space.validate\n" \
           "import importlib.util\n" \
           "if importlib.util.find_spec('simulator'): import simulator\n" \
           "assert 'tensorflow' not in sys.modules, sorted(m for m in sys.modules if 'tensorflow' in m)[:3]"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=CLUSTERS.parent.parent)
