"""Hand-derived step times on clusters of 2 to 256 nodes, one replica each, 10 Gbit/s NICs: a ring all-reduce of one
big variable and a parameter server's incast. The expected numbers come from the formulas here, not from the
model; compute is tiny (a 1e3-FLOP step) and there is no residual."""
from __future__ import annotations

import pytest

from simulator import Calibration, Scorer
from space.cluster import ClusterSpec
from space.inventory import Inventory, VariableInfo
from space.strategy import Strategy, ar_node, ps_node

GBIT = 1e9 / 8
B = 10 * GBIT  # each NIC, each direction
SIZES = [2, 4, 16, 64, 256]


def _cluster(n: int) -> ClusterSpec:
    return ClusterSpec.from_dict({"nodes": [{"address": f"10.0.{i // 250}.{i % 250 + 1}", "chief": i == 0,
                                             "network_bandwidth": "10gbit"} for i in range(n)]})


def _inventory(*shapes) -> Inventory:
    variables = tuple(VariableInfo(name=f"v{i}", shape=s, dtype="float32") for i, s in enumerate(shapes))
    return Inventory(model_path="<test>", model_hash="test-model", variables=variables, flops_per_step=1e3,
                     batch_size=32)


@pytest.mark.parametrize("n", SIZES)
def test_ring_all_reduce_of_one_big_variable(n):
    """A ring all-reduce moves 2 (N - 1) / N x S over each node's NIC, reduces (N - 1) / N x S on each, pays the
    collective's fixed cost once and the ring's latency 2 (N - 1) alpha once (``ar_tail``)."""
    spec = _cluster(n)
    alpha, overhead, gamma = 1e-4, 5e-4, 2.5e-10
    cal = Calibration.from_spec(spec, latency_s=alpha, collective_overhead_s=overhead, reduce_s_per_byte=gamma,
                                step_overhead_s=0.0, barrier_overhead_s=0.0)
    inv = _inventory((4096, 4096))  # S = 64 MiB
    S = 4096 * 4096 * 4
    expected = 2 * (n - 1) / n * S / B + (n - 1) / n * S * gamma + overhead + 2 * (n - 1) * alpha
    step = Scorer(inv, spec, cal).predict(Strategy.build([ar_node("v0")], spec.replicas))
    assert step.step_time_s == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("n", SIZES)
def test_parameter_server_incast(n):
    """Every variable on node 0's server: the N - 1 remote replicas each push S bytes into its receive NIC,
    (N - 1) S / B, and pull S bytes out of its send NIC, the same. The replica beside the server reads in place;
    the server serves one pull at a time, so the last replica starts after N - 1 pulls and its push ends the step:
    N S / B (no latency, RPC or reduction costs here)."""
    spec = _cluster(n)
    cal = Calibration.from_spec(spec, latency_s=0.0, collective_overhead_s=0.0, rpc_overhead_s=0.0,
                                reduce_s_per_byte=0.0, cast_s_per_byte=0.0, step_overhead_s=0.0,
                                barrier_overhead_s=0.0)
    inv = _inventory((1000, 1000), (1000, 250), (500,))
    S = (1000 * 1000 + 1000 * 250 + 500) * 4
    server = spec.ps_devices[0]
    step = Scorer(inv, spec, cal).predict(Strategy.build([ps_node(v.name, server) for v in inv.variables],
                                                         spec.replicas))
    assert step.busiest_server == spec.nodes[0].address
    assert step.busiest_server_s == pytest.approx((n - 1) * S / B, rel=0.01)
    assert step.busiest_resource_s == pytest.approx((n - 1) * S / B, rel=0.01)
    assert step.step_time_s == pytest.approx(n * S / B, rel=0.01)
