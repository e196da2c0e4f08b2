"""A node's memory in the cluster spec: its units, its defaults (the machine's for loopback nodes, the allocation's
under Slurm), the reserve for TensorFlow's own, and one line for a bad value."""
from __future__ import annotations

import pytest
import yaml

from space import _node_memory, slurm
from space._node_memory import TF_RESERVE_BYTES
from space._units import format_bytes, parse_memory_bytes
from space.cluster import ClusterSpec, load_cluster
from space.errors import SpecError

REMOTE = {"nodes": [{"address": "10.1.0.1", "chief": True}, {"address": "10.1.0.2"}]}
LOOP = {"nodes": [{"address": "127.0.0.1", "chief": True}, {"address": "127.0.0.2"}]}


@pytest.mark.parametrize("value, expected", [
    ("4GB", 4 * 10**9), ("512MiB", 512 * 2**20), ("1.5 GiB", int(1.5 * 2**30)), (16, 16 * 10**9),
    (0.5, 5 * 10**8), ("2000000000B", 2 * 10**9), ("64gb", 64 * 10**9), ("3", 3 * 10**9)])
def test_memory_units(value, expected):
    assert parse_memory_bytes(value) == expected


@pytest.mark.parametrize("value, match", [
    ("4G", "unknown memory unit 'g'"), ("lots", "expected memory"), (0, "> 0"), (True, "expected an amount"),
    (17179869184, "plain numbers are GB"), ("-1GB", "expected memory")])
def test_bad_memory_values(value, match):
    with pytest.raises(ValueError, match=match):
        parse_memory_bytes(value)


def test_format_bytes():
    assert [format_bytes(x) for x in (5.2e9, 6.4e8, 12e3, 12)] == ["5.2 GB", "640 MB", "12 kB", "12 B"]


def test_remote_nodes_without_memory_are_unknown():
    spec = ClusterSpec.from_dict(REMOTE)
    assert [n.memory_bytes for n in spec.nodes] == [None, None]
    assert spec.nodes[0].memory_budget_bytes is None


def test_given_memory_less_tensorflows_reserve_is_the_budget():
    spec = ClusterSpec.from_dict({"nodes": [{"address": "10.1.0.1", "chief": True, "memory": "4GB",
                                             "gpu_memory": "16GiB", "count": 2}]})
    assert [n.memory_budget_bytes for n in spec.nodes] == [4 * 10**9 - TF_RESERVE_BYTES] * 2
    assert spec.nodes[1].gpu_memory_bytes == 16 * 2**30


def test_loopback_nodes_share_the_machines_available_memory(monkeypatch):
    monkeypatch.setattr(_node_memory, "machine_memory_bytes", lambda: 10 * 10**9)
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True, "memory": "2GB"},
                                            {"address": "127.0.0.2"}, {"address": "127.0.0.3"}]})
    assert [n.memory_bytes for n in spec.nodes] == [2 * 10**9, 4 * 10**9, 4 * 10**9]
    assert [n.memory_measured for n in spec.nodes] == [False, True, True]


def test_the_machines_memory_is_read():
    assert _node_memory.machine_memory_bytes() > 0  # /proc/meminfo on Linux, else sysconf


def test_memory_is_kept_by_to_dict_but_not_in_the_fingerprint(monkeypatch):
    monkeypatch.setattr(_node_memory, "machine_memory_bytes", lambda: 8 * 10**9)
    plain = ClusterSpec.from_dict(REMOTE)
    sized = ClusterSpec.from_dict({"nodes": [{**REMOTE["nodes"][0], "memory": "4GB"}, REMOTE["nodes"][1]]})
    assert sized.fingerprint == plain.fingerprint  # the calibration and the study stay found
    assert ClusterSpec.from_dict(sized.to_dict()).nodes[0].memory_bytes == 4 * 10**9
    loop = ClusterSpec.from_dict(LOOP)
    assert "memory" not in loop.to_dict()["nodes"][0]  # the machine's share is re-read, not written down
    monkeypatch.setattr(_node_memory, "machine_memory_bytes", lambda: 2 * 10**9)
    assert ClusterSpec.from_dict(LOOP).fingerprint == loop.fingerprint


@pytest.mark.parametrize("node, match", [
    ({"memory": "lots"}, r"bad `nodes\[0\] \(10.1.0.1\).memory`: expected memory"),
    ({"memory": "300MB"}, r"`nodes\[0\] \(10.1.0.1\).memory` is 300 MB, not more than the 500 MB"),
    ({"gpu_memory": "16G"}, r"bad `nodes\[0\] \(10.1.0.1\).gpu_memory`: unknown memory unit"),
    ({"memory": [4]}, r"`nodes\[0\] \(10.1.0.1\).memory`: expected memory")])
def test_bad_memory_is_one_line_naming_the_node(node, match, tmp_path):
    path = tmp_path / "cluster.yml"
    path.write_text(yaml.safe_dump({"nodes": [{"address": "10.1.0.1", "chief": True, **node}]}))
    with pytest.raises(SpecError, match=match) as info:
        load_cluster(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def _env(**extra) -> dict[str, str]:
    return {"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": "h[0-1]", **extra}


@pytest.mark.parametrize("env, expected", [
    ({"SLURM_MEM_PER_NODE": "4096"}, [4096 * 2**20] * 2),
    ({"SLURM_MEM_PER_CPU": "1000", "SLURM_JOB_CPUS_PER_NODE": "4,2"}, [4000 * 2**20, 2000 * 2**20]),
    ({"SLURM_MEM_PER_NODE": "0"}, [None, None]),  # --mem=0: all of the node's, which Slurm does not say
    ({}, [None, None])])
def test_slurm_memory_comes_from_the_allocation(env, expected, monkeypatch):
    for key, value in _env(**env).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(slurm, "scontrol_addresses", lambda names: {})
    assert [n.memory_bytes for n in load_cluster("slurm").nodes] == expected


def test_a_slurm_spec_files_memory_wins_over_the_allocations():
    data = slurm.spec_data({"launcher": "slurm", "slurm": {"memory": "2GB"}}, "c.yml",
                           env=_env(SLURM_MEM_PER_NODE="4096"), addresses=lambda names: {})
    assert [n.memory_bytes for n in ClusterSpec.from_dict(data).nodes] == [2 * 10**9] * 2


def test_a_bad_slurm_memory_is_refused_in_one_line():
    with pytest.raises(SpecError, match="SLURM_MEM_PER_NODE '4G' is not a number of MiB"):
        slurm.allocation_nodes(_env(SLURM_MEM_PER_NODE="4G"), addresses=lambda names: {})
