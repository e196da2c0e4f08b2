"""Hand-derived step times on two-level clusters: nodes in groups (racks) with a slower hop across groups, and
nodes of several GPUs. The expected numbers come from the formulas here, not from the model; compute is tiny and
there is no residual."""
from __future__ import annotations

import pytest

from simulator import Calibration, Scorer
from space.cluster import ClusterSpec
from space.inventory import Inventory, VariableInfo
from space.strategy import Strategy, ar_node

GBIT = 1e9 / 8
NIC, ACROSS, INSIDE_NODE = 10 * GBIT, 2.5 * GBIT, 300 * GBIT
ALPHA_IN, ALPHA_X, OVERHEAD, GAMMA = 2e-4, 1e-3, 5e-4, 2.5e-10
S = 4096 * 4096 * 4  # one 64 MiB variable


def _racks(nodes: int, groups: int, gpus: int = 0) -> ClusterSpec:
    per = nodes // groups
    return ClusterSpec.from_dict({
        "topology": {"intra_group": {"latency": ALPHA_IN}, "inter_group": {"bandwidth": "2.5gbit",
                                                                             "latency": ALPHA_X},
                     "intra_node": {"bandwidth": "300gbit"}},
        "nodes": [{"address": f"10.{g}.0.1", "count": per, "group": f"rack{g}", "chief": g == 0,
                   "network_bandwidth": "10gbit", "gpus": list(range(gpus))} for g in range(groups)]})


def _predict(spec: ClusterSpec, hierarchical: bool) -> float:
    cal = Calibration.from_spec(spec, latency_s=1.0, collective_overhead_s=OVERHEAD, reduce_s_per_byte=GAMMA,
                                step_overhead_s=0.0, barrier_overhead_s=0.0)  # latency: every link has its own
    inv = Inventory(model_path="<test>", model_hash="test-model", flops_per_step=1e3, batch_size=32,
                    variables=(VariableInfo(name="v0", shape=(4096, 4096), dtype="float32"),))
    strategy = Strategy.build([ar_node("v0", hierarchical=hierarchical)], spec.replicas)
    return Scorer(inv, spec, cal).predict(strategy).step_time_s


@pytest.mark.parametrize("nodes", [8, 16, 64, 256])
def test_flat_ring_across_racks_is_bound_by_the_hop_across(nodes):
    """The ring visits the racks in turn: its slowest hop is one across racks (2.5 Gbit/s, 40 us)."""
    N = nodes
    expected = 2 * (N - 1) / N * S / ACROSS + (N - 1) / N * S * GAMMA + OVERHEAD + 2 * (N - 1) * ALPHA_X
    assert _predict(_racks(nodes, 4), hierarchical=False) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("nodes", [8, 16, 64, 256])
def test_hierarchical_all_reduce_over_racks(nodes):
    """Four racks of n nodes: inside each rack an all-to-all of the chunks in one round and a ring all-gather
    ((n - 1)/n x S each at the NIC), n rings across the racks of S/n each (2 (U - 1)/U x S/n through each node's
    hop across), three collectives."""
    U, n = 4, nodes // 4
    inside = 2 * (n - 1) / n * S / NIC + (n - 1) / n * S * GAMMA + ALPHA_IN + (n - 1) * ALPHA_IN
    across = 2 * (U - 1) / U * S / n / ACROSS + (U - 1) / U * S / n * GAMMA + 2 * (U - 1) * ALPHA_X
    expected = inside + across + 3 * OVERHEAD
    predicted = _predict(_racks(nodes, 4), hierarchical=True)
    assert predicted == pytest.approx(expected, rel=0.01)
    assert predicted < _predict(_racks(nodes, 4), hierarchical=False)


@pytest.mark.parametrize("nodes", [2, 4, 32])
def test_gpus_of_a_node_reduce_inside_it_first(nodes):
    """Nodes of 8 GPUs without groups: the units are the nodes; inside a node at its own bandwidth, across nodes
    8 rings of S/8 share each node's NIC: 2 (U - 1)/U x S in all."""
    spec = ClusterSpec.from_dict({
        "topology": {"intra_node": {"bandwidth": "300gbit"}},
        "nodes": [{"address": "10.0.0.1", "count": nodes, "chief": True, "gpus": list(range(8)),
                   "network_bandwidth": "10gbit"}]})
    U, n = nodes, 8
    alpha = 1.0  # the calibration's latency between nodes
    inside = 2 * (n - 1) / n * S / INSIDE_NODE + (n - 1) / n * S * GAMMA
    across = 2 * (U - 1) / U * S / NIC + (U - 1) / U * S / n * GAMMA + 2 * (U - 1) * alpha
    assert _predict(spec, hierarchical=True) == pytest.approx(inside + across + 3 * OVERHEAD, rel=0.01)
    N = U * n
    flat = 2 * (N - 1) / N * S / NIC + (N - 1) / N * S * GAMMA + OVERHEAD + 2 * (N - 1) * alpha
    assert _predict(spec, hierarchical=False) == pytest.approx(flat, rel=0.01)


@pytest.mark.parametrize("nodes", [4, 16, 64])
def test_racks_of_gpu_nodes_exchange_over_the_nics(nodes):
    """Two racks of nodes with 2 GPUs each (n = nodes replicas per rack): in the all-to-all each node sends
    g (n - g)/n x S over its NIC, more than its GPUs' share beside it; the gather's ring and the rings across as
    above, g rings through each node's hop across."""
    U, g = 2, 2
    n = nodes // U * g
    inside = g * (n - g) / n * S / NIC + (n - 1) / n * S / NIC + (n - 1) / n * S * GAMMA + n * ALPHA_IN
    across = 2 * (U - 1) / U * g / n * S / ACROSS + (U - 1) / U * S / n * GAMMA + 2 * (U - 1) * ALPHA_X
    predicted = _predict(_racks(nodes, U, gpus=g), hierarchical=True)
    assert predicted == pytest.approx(inside + across + 3 * OVERHEAD, rel=0.01)


def test_units_of_different_sizes_run_the_flat_ring():
    spec = ClusterSpec.from_dict({
        "topology": {"inter_group": {"bandwidth": "2.5gbit", "latency": ALPHA_X}},
        "nodes": [{"address": "10.0.0.1", "count": 3, "group": "a", "chief": True, "network_bandwidth": "10gbit"},
                  {"address": "10.1.0.1", "count": 2, "group": "b", "network_bandwidth": "10gbit"}]})
    assert _predict(spec, hierarchical=True) == _predict(spec, hierarchical=False)


def test_bundled_racks_spec_plans_256_nodes_of_8_gpus():
    from pathlib import Path

    from space.cluster import load_cluster

    spec = load_cluster(Path(__file__).parents[2] / "examples" / "clusters" / "racks_256.yml")
    assert len(spec.nodes) == 256 and len(spec.replicas) == 2048 and len(spec.groups) == 8
    assert spec.bandwidth_gbit("10.0.0.1", "10.0.0.2") == 100 and spec.bandwidth_gbit("10.0.0.1", "10.0.1.1") == 25
    assert _predict(spec, hierarchical=True) < _predict(spec, hierarchical=False)


@pytest.mark.parametrize("nodes", [8, 16, 64, 256])
def test_parameter_server_incast_across_racks(nodes):
    """Every variable on the first node's server, four racks: the replicas of the three other racks push S bytes
    each through the server's share of its rack's uplinks, (N - N/4) S / 2.5 Gbit/s, more than its NIC's
    (N - 1) S / 10 Gbit/s; the pulls back go out the same way."""
    from space.strategy import ps_node

    spec = _racks(nodes, 4)
    cal = Calibration.from_spec(spec, latency_s=0.0, collective_overhead_s=0.0, rpc_overhead_s=0.0,
                                reduce_s_per_byte=0.0, step_overhead_s=0.0, barrier_overhead_s=0.0)
    inv = Inventory(model_path="<test>", model_hash="test-model", flops_per_step=1e3, batch_size=32,
                    variables=(VariableInfo(name="v0", shape=(1000, 1000), dtype="float32"),))
    size = 1000 * 1000 * 4
    step = Scorer(inv, spec, cal).predict(Strategy.build([ps_node("v0", spec.ps_devices[0])], spec.replicas))
    across = (nodes - nodes // 4) * size / ACROSS
    assert across > (nodes - 1) * size / NIC
    assert step.busiest_resource_s == pytest.approx(across, rel=0.01)
