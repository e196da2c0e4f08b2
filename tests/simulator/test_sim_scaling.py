"""The engine applies the network's coefficients through their structure (O(nodes) per variable); the dense
products it replaces (``engine_reference``) must predict the same, on choice arrays and on strategies of every
kind, for clusters with uneven NICs, slow links, shared CPUs, a node without replicas, racks whose traffic across
is capped, and many nodes."""
from __future__ import annotations

import numpy as np
import pytest

from sim_helpers import mixed_inventory
from simulator import Calibration, Choices, Scorer
from simulator._engine import evaluate
from engine_reference import reference_evaluate
from space.cluster import ClusterSpec
from space.inventory import Inventory
from space.strategy import Strategy, ar_node, partitioned_node, ps_node


def _inventory(num_vars: int = 16) -> Inventory:
    return mixed_inventory(num_vars)


def _spec(bandwidths, links=(), gpus=None) -> ClusterSpec:
    nodes = [{"address": f"198.18.0.{i + 1}", "chief": i == 0, "network_bandwidth": bw}
             | ({"gpus": list(range(gpus[i]))} if gpus and gpus[i] else {}) for i, bw in enumerate(bandwidths)]
    return ClusterSpec.from_dict({"nodes": nodes, "links": [
        {"from": f"198.18.0.{a + 1}", "to": f"198.18.0.{b + 1}", "bandwidth": bw} for a, b, bw in links]})


def _uniform():
    spec = _spec(["200mbit"] * 3)
    return spec, Calibration.from_spec(spec), None


def _per_host():
    spec = _spec(["100mbit", "1gbit", "400mbit"], gpus=[0, 2, 0])
    return spec, Calibration.from_spec(spec, stale_prefetch=True, rpc_overhead_s=2e-4), None


def _slow_link():
    spec = _spec(["1gbit"] * 4, links=[(0, 2, "100mbit")])
    return spec, Calibration.from_spec(spec, ps_serial_fraction=0.3), None


def _shared_cpus():
    spec = _spec(["200mbit"] * 3)
    cal = Calibration.from_spec(spec, step_time_s=0.05, alone_step_s=0.01, model_hash="synthetic",
                                ps_serial_fraction=0.5, update_share=0.4, ps_spread_serial=0.2, ps_spread_busiest=0.4,
                                rpc_overhead_s=1e-4)
    return spec, cal, None


def _shared_cpus_slow_links():
    spec = _spec(["1gbit", "1gbit", "500mbit"], links=[(0, 1, "100mbit"), (1, 2, "50mbit")])
    cal = Calibration.from_spec(spec, step_time_s=0.05, alone_step_s=0.01, model_hash="synthetic")
    return spec, cal, None


def _idle_node():
    spec = _spec(["200mbit", "400mbit", "1gbit"])
    return spec, Calibration.from_spec(spec), spec.replicas[:2]  # node 3 serves variables, runs no replica


def _sixteen():
    spec = _spec([["100mbit", "200mbit", "1gbit"][i % 3] for i in range(16)], gpus=[i % 3 for i in range(16)])
    residual = {"intercept": 1e-3, "compute": 1.0, "comm": 0.9, "latency": 1.1}
    return spec, Calibration.from_spec(spec, residual=residual), None


def _racks_spec(groups, bandwidths, gpus=None, inter="100mbit") -> ClusterSpec:
    nodes = [{"address": f"198.18.0.{i + 1}", "chief": i == 0, "network_bandwidth": bw, "group": f"r{g}"}
             | ({"gpus": list(range(gpus[i]))} if gpus and gpus[i] else {})
             for i, (g, bw) in enumerate(zip(groups, bandwidths))]
    return ClusterSpec.from_dict({"nodes": nodes, "topology": {"inter_group": {"bandwidth": inter},
                                                               "intra_group": {"latency": 1e-5}}})


def _racks():
    spec = _racks_spec([0, 0, 1, 1, 2, 2], ["1gbit"] * 6, gpus=[2, 2, 0, 2, 2, 0])
    return spec, Calibration.from_spec(spec, ps_serial_fraction=0.3), None


def _racks_uneven():
    spec = _racks_spec([0, 0, 0, 1, 1], ["1gbit", "400mbit", "1gbit", "200mbit", "1gbit"], inter="300mbit")
    return spec, Calibration.from_spec(spec, stale_prefetch=True), spec.replicas[:4]  # the last node only serves


def _racks_shared_cpus():
    spec = _racks_spec([0, 0, 1, 1], ["1gbit"] * 4)
    cal = Calibration.from_spec(spec, step_time_s=0.05, alone_step_s=0.01, model_hash="synthetic")
    return spec, cal, None


CLUSTERS = dict(uniform=_uniform, per_host=_per_host, slow_link=_slow_link, shared_cpus=_shared_cpus,
                shared_cpus_slow_links=_shared_cpus_slow_links, idle_node=_idle_node, sixteen=_sixteen,
                racks=_racks, racks_uneven=_racks_uneven, racks_shared_cpus=_racks_shared_cpus)


def _scorer(name: str) -> Scorer:
    spec, cal, replicas = CLUSTERS[name]()
    return Scorer(_inventory(), spec, cal, replicas)


def _assert_same(new: dict, ref: dict) -> None:
    assert new.keys() == ref.keys()
    for key in ref:
        r, n = np.asarray(ref[key], float), np.asarray(new[key], float)
        scale = np.abs(r).max(initial=0.0)
        np.testing.assert_allclose(n, r, rtol=1e-9, atol=1e-12 * scale, err_msg=key)


def _random_choices(scorer: Scorer, k: int, rng: np.random.Generator) -> Choices:
    M, shape = len(scorer.addresses), (k, len(scorer.inventory.variables))
    return Choices(ps=rng.random(shape) < 0.6, server=rng.integers(0, M, shape),
                   shards=rng.integers(1, M + 3, shape), sync=rng.random(shape) < 0.8,
                   staleness=rng.integers(0, 2, shape), proxy=rng.random(shape) < 0.3,
                   group=rng.integers(0, 4, shape), compressor=rng.integers(0, 4, shape),
                   rank=rng.integers(1, 5, shape), hier=rng.random(shape) < 0.3)


def _synchronizer(v, name: str, devices: list[str], rng: np.random.Generator):
    if rng.random() < 0.55:
        return ps_node(name, devices[int(rng.integers(len(devices)))], sync=bool(rng.random() < 0.75),
                       local_replication=bool(rng.random() < 0.3), staleness=int(rng.integers(0, 3)))
    return ar_node(name, group=int(rng.integers(3)), spec=int(rng.integers(3)), compressor=int(rng.integers(4)),
                   powersgd_rank=int(rng.integers(1, 5)), gather_sparse=bool(v.sparse and rng.random() < 0.5),
                   hierarchical=bool(rng.random() < 0.3))


def _random_strategy(scorer: Scorer, rng: np.random.Generator) -> Strategy:
    """PS (sync or async, stale, proxied) or all-reduce (groups, specs, compressors, PowerSGD ranks, gathered
    sparse gradients), a quarter of the variables partitioned with a synchronizer per shard."""
    devices, nodes = scorer.cluster.ps_devices, []
    for v in scorer.inventory.variables:
        shards = int(rng.integers(2, 5))
        axis = int(rng.integers(len(v.shape))) if v.shape else 0
        if v.shape and v.shape[axis] >= shards and rng.random() < 0.25:
            parts = [_synchronizer(v, v.name, devices, rng) for _ in range(shards)]
            nodes.append(partitioned_node(v.name, v.shape, axis, parts))
        else:
            nodes.append(_synchronizer(v, v.name, devices, rng))
    return Strategy.build(nodes, scorer.replicas)


@pytest.mark.parametrize("name", CLUSTERS)
def test_structured_evaluation_matches_the_dense_products_on_choices(name):
    scorer = _scorer(name)
    batch = scorer.choices_batch(_random_choices(scorer, 64, np.random.default_rng(5)))
    _assert_same(evaluate(scorer.model, batch, detail=True), reference_evaluate(scorer.model, batch, detail=True))


@pytest.mark.parametrize("name", CLUSTERS)
def test_structured_evaluation_matches_the_dense_products_on_strategies(name):
    scorer, rng = _scorer(name), np.random.default_rng(7)
    for _ in range(12):
        s = _random_strategy(scorer, rng)
        layout = scorer._layout(s)
        model, batch = scorer._model_for(layout), scorer.encode([s], layout)
        _assert_same(evaluate(model, batch, detail=True), reference_evaluate(model, batch, detail=True))


@pytest.mark.parametrize("name", CLUSTERS)
def test_structured_evaluation_matches_the_dense_products_on_many_strategies(name):
    """The batched path: strategies of one shard layout scored together."""
    scorer, rng = _scorer(name), np.random.default_rng(11)
    plain = []
    while len(plain) < 16:
        s = _random_strategy(scorer, rng)
        if not scorer._layout(s):
            plain.append(s)
    batch = scorer.encode(plain)
    _assert_same(evaluate(scorer.model, batch), reference_evaluate(scorer.model, batch))
