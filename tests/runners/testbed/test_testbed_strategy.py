"""A strategy runs on the emulated testbed through SSH, and PS vs all-reduce differ as the bandwidth predicts."""
from __future__ import annotations

import json

import pytest

from autotune.cli import main

pytestmark = [pytest.mark.netns, pytest.mark.ssh, pytest.mark.slow]

MODEL = "examples/models/recommender.py"


def _profile(capsys, spec, strategy) -> dict:
    assert main(["profile", "--model", MODEL, "--spec", spec, "--strategy", strategy, "--steps", "3", "--warmup", "1",
                 "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_ps_and_all_reduce_on_the_testbed(testbed, tmp_path, capsys):
    from space.cluster import load_cluster
    from space.model import load_inventory

    spec = f"{testbed['dir']}/cluster.yml"
    cluster = load_cluster(spec)
    assert all(n.ssh_config for n in cluster.nodes) and not cluster.is_local  # launched over SSH
    for alias in ("ps", "all_reduce"):
        assert main(["build", "--builder", alias, "--model", MODEL, "--spec", spec,
                     "-o", str(tmp_path / f"{alias}.pb")]) == 0
    from space.strategy import Strategy

    dense = Strategy.load(tmp_path / "all_reduce.pb")  # the tables densified and all-reduced: the ring's bytes
    for node in dense.nodes:
        node.AllReduceSynchronizer.gather_sparse = False
    dense.save(tmp_path / "all_reduce.pb")
    capsys.readouterr()
    ps = _profile(capsys, spec, str(tmp_path / "ps.pb"))
    ar = _profile(capsys, spec, str(tmp_path / "all_reduce.pb"))
    inv = load_inventory(MODEL)
    n = len(cluster.nodes)
    slowest = min(node.network_bandwidth_gbit for node in cluster.nodes) * 1e9
    ring_s = 2 * (n - 1) / n * inv.total_bytes * 8 / slowest  # the ring's wire time through the slowest NIC
    assert ar["median_s"] >= 0.8 * ring_s, (ar["median_s"], ring_s)
    # PS with remote gathers moves only the touched rows: far less than the ring's dense tables
    assert ps["bytes_per_step"] < 0.1 * ar["bytes_per_step"]
    assert ps["median_s"] < ar["median_s"] / 3, (ps["median_s"], ar["median_s"])
