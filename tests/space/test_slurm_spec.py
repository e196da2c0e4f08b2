"""A cluster spec from a Slurm allocation: host lists, per-node counts, GPUs, and refusals in one line."""
from __future__ import annotations

import os

import pytest

from space import slurm
from space.cluster import ClusterSpec, load_cluster
from space.errors import SpecError

HOSTLISTS = {
    "plain": ("node1", ["node1"]),
    "two names": ("a,b", ["a", "b"]),
    "range": ("h[1-3]", ["h1", "h2", "h3"]),
    "range and single": ("h[1-3,5],g07", ["h1", "h2", "h3", "h5", "g07"]),
    "zero padding": ("n[08-11]", ["n08", "n09", "n10", "n11"]),
    "padding wider than the numbers": ("n[001-003]", ["n001", "n002", "n003"]),
    "no padding past ten": ("n[9-11]", ["n9", "n10", "n11"]),
    "two brackets multiply": ("r[1-2]n[1-2]", ["r1n1", "r1n2", "r2n1", "r2n2"]),
    "suffix after a bracket": ("gpu[1-2]-ib", ["gpu1-ib", "gpu2-ib"]),
    "brackets in two items": ("a[1-2],b[09-10]", ["a1", "a2", "b09", "b10"]),
    "dots and underscores": ("node_1.cluster,node2.cluster", ["node_1.cluster", "node2.cluster"]),
    "spaces around items": (" h[1-2] , g1 ", ["h1", "h2", "g1"]),
    "single number in brackets": ("h[7]", ["h7"]),
}

MALFORMED = {
    "empty": "",
    "unclosed bracket": "h[1-3",
    "unopened bracket": "h1-3]",
    "nested brackets": "h[1-[2-3]]",
    "descending range": "h[5-3]",
    "letters in a range": "h[a-c]",
    "empty range": "h[]",
    "trailing comma": "h1,",
    "double comma": "h1,,h2",
    "open-ended range": "h[1-]",
    "space inside a name": "h 1",
}


@pytest.mark.parametrize("name", sorted(HOSTLISTS))
def test_hostlist_expands_as_slurm_does(name):
    text, expected = HOSTLISTS[name]
    assert slurm.expand_hostlist(text) == expected


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_hostlist_is_refused(name):
    with pytest.raises(SpecError) as e:
        slurm.expand_hostlist(MALFORMED[name])
    assert "SLURM_JOB_NODELIST" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("text,nodes,expected", [("2(x3),1", 4, [2, 2, 2, 1]), ("8", 1, [8]),
                                                 ("1(x2)", 2, [1, 1]), ("4,2(x2)", 3, [4, 2, 2])],
                         ids=["repeat then one", "one node", "repeat only", "one then repeat"])
def test_per_node_counts(text, nodes, expected):
    assert slurm.expand_counts(text, nodes, "SLURM_TASKS_PER_NODE") == expected


@pytest.mark.parametrize("text,nodes", [("2(x3)", 2), ("x", 1), ("2(3)", 1), ("", 1)],
                         ids=["too many", "not a number", "no x", "empty"])
def test_bad_per_node_counts_are_refused(text, nodes):
    with pytest.raises(SpecError, match="SLURM_TASKS_PER_NODE"):
        slurm.expand_counts(text, nodes, "SLURM_TASKS_PER_NODE")


@pytest.mark.parametrize("env,expected", [({"SLURM_STEP_GPUS": "2,3"}, 2), ({"SLURM_JOB_GPUS": "0"}, 1),
                                          ({"CUDA_VISIBLE_DEVICES": "0,1,2,3"}, 4),
                                          ({"SLURM_STEP_GPUS": "5", "CUDA_VISIBLE_DEVICES": "0,1"}, 1),
                                          ({"CUDA_VISIBLE_DEVICES": "NoDevFiles"}, 0), ({}, 0)],
                         ids=["step gpus", "job gpus", "cuda visible", "step before cuda", "no dev files", "none"])
def test_gpu_count(env, expected):
    assert slurm.gpu_count(env) == expected


def _env(**extra) -> dict[str, str]:
    return {"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": "h[0-2]", **extra}


def test_the_allocation_becomes_one_node_per_slurm_node():
    addresses = {"h0": "10.1.0.10", "h1": "10.1.0.11", "h2": "10.1.0.12"}
    nodes = slurm.allocation_nodes(_env(SLURM_JOB_CPUS_PER_NODE="4(x2),2", SLURM_STEP_GPUS="1,2"),
                                   addresses=lambda names: {n: addresses[n] for n in names})
    spec = ClusterSpec.from_dict({"nodes": nodes, "launcher": "slurm"})
    assert [(n.address, n.hostname, n.chief, n.intra_op_threads, n.gpus) for n in spec.nodes] == [
        ("10.1.0.10", "h0", True, 4, (0, 1)), ("10.1.0.11", "h1", False, 4, (0, 1)),
        ("10.1.0.12", "h2", False, 2, (0, 1))]
    assert spec.replicas == [f"10.1.0.1{i}:GPU:{g}" for i in range(3) for g in (0, 1)]


def test_tasks_times_cpus_per_task_when_the_job_gives_no_cpu_count():
    nodes = slurm.allocation_nodes(_env(SLURM_TASKS_PER_NODE="2(x3)", SLURM_CPUS_PER_TASK="3"),
                                   addresses=lambda names: {})
    assert [n["intra_op_threads"] for n in nodes] == [6, 6, 6]
    assert [n["address"] for n in nodes] == ["h0", "h1", "h2"] and "hostname" not in nodes[0]


def test_spec_slurm_reads_the_environment(monkeypatch):
    for key, value in _env(SLURM_JOB_CPUS_PER_NODE="1(x3)").items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(slurm, "scontrol_addresses", lambda names: {n: f"198.18.9.{11 + int(n[1:])}" for n in names})
    spec = load_cluster("slurm")
    assert spec.launcher == "slurm" and spec.source == slurm.SOURCE
    assert [n.address for n in spec.nodes] == ["198.18.9.11", "198.18.9.12", "198.18.9.13"]
    assert all(n.network_bandwidth_gbit == 1.0 for n in spec.nodes)
    again = load_cluster("slurm")  # another job on the same nodes: the same fingerprint finds the same calibration
    monkeypatch.setenv("SLURM_JOB_ID", "43")
    assert load_cluster("slurm").fingerprint == again.fingerprint == spec.fingerprint
    assert ClusterSpec.from_dict(spec.to_dict()).launcher == "slurm"


def test_a_spec_file_sets_what_every_node_of_the_allocation_gets(tmp_path, monkeypatch):
    for key, value in _env().items():
        monkeypatch.setenv(key, value)
    monkeypatch.setattr(slurm, "scontrol_addresses", lambda names: {})
    path = tmp_path / "c.yml"
    path.write_text("launcher: slurm\nslurm: {python: /opt/venv/bin/python, network_bandwidth: 25gbit, "
                    "srun_args: [--partition=gpu]}\n")
    spec = load_cluster(path)
    assert {(n.python, n.network_bandwidth_gbit) for n in spec.nodes} == {("/opt/venv/bin/python", 25.0)}
    assert spec.launcher_options == {"srun_args": ["--partition=gpu"]}


def test_a_spec_file_may_list_its_slurm_nodes(tmp_path):
    path = tmp_path / "c.yml"
    path.write_text("launcher: slurm\nnodes:\n- {address: 10.0.0.1, hostname: n1, chief: true}\n"
                    "- {address: 10.0.0.2, hostname: n2}\n")
    spec = load_cluster(path)  # no allocation needed to read it: only to start its servers
    assert spec.launcher == "slurm" and [n.hostname for n in spec.nodes] == ["n1", "n2"]


def test_specs_without_a_launcher_keep_their_fingerprint(clusters):
    spec = clusters["two_nodes"]
    assert "launcher" not in spec.to_dict() and spec.launcher is None


@pytest.mark.parametrize("text,match", [
    ("launcher: pbs\n", "unknown `launcher` 'pbs'"),
    ("launcher: slurm\nnodes: [{address: 10.0.0.1, ssh_config: lab}]\nssh: {lab: {username: u}}\n", "no `ssh`"),
    ("launcher: slurm\nslurm: {gpus: [0]}\n", "unknown key 'gpus' in `slurm`"),
    ("launcher: slurm\nslurm: {srun_args: --exclusive}\n", "srun_args"),
    ("launcher: external\nnodes: [{address: a}]\nexternal: {port: 0}\n", "external"),
], ids=["unknown launcher", "ssh groups", "unknown slurm key", "srun_args not a list", "external port 0"])
def test_bad_slurm_specs_are_refused(tmp_path, text, match):
    path = tmp_path / "c.yml"
    path.write_text(text)
    with pytest.raises(SpecError, match=match):
        load_cluster(path)


@pytest.mark.parametrize("env,match", [
    ({}, "no Slurm allocation here"),
    ({"SLURM_JOB_ID": "42"}, "SLURM_JOB_NODELIST is not set, though SLURM_JOB_ID is"),
    ({"SLURM_JOB_NODELIST": "h1"}, "SLURM_JOB_ID is not set, though SLURM_JOB_NODELIST is"),
    (_env(SLURM_JOB_NODELIST="h[1-"), "leaves a bracket open"),
    (_env(SLURM_JOB_ID="x1"), "is not a job number"),
    (_env(SLURM_JOB_NODELIST="h1,h1"), "names a node twice"),
    (_env(SLURM_JOB_CPUS_PER_NODE="1(x2)"), "gives 2 count"),
], ids=["no allocation", "a job without its nodes", "nodes without a job", "malformed nodelist", "bad job id",
        "a node twice", "counts for other nodes"])
def test_a_missing_or_malformed_allocation_is_refused_in_one_line(run, monkeypatch, env, match):
    for key in [k for k in os.environ if k.startswith("SLURM_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    code, out, err = run("calibrate", "--spec", "slurm")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and match in lines[0] and "hint: " in lines[0], err
