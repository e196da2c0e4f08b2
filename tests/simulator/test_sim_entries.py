"""On clusters of nodes alike the Scorer encodes the PS loads as entries (one per server holding a shard) and the
entries' engine must predict what the dense one does, to rounding, on every chain: pushes, pulls, each node's
first replica's pulls and the synchronous proxies' refreshes after their unit's pushes."""
from __future__ import annotations

import numpy as np
import pytest

from sim_helpers import mixed_inventory
from simulator import Calibration, Choices, Scorer
from simulator._engine import evaluate
from simulator._engine_sparse import evaluate_entries
from simulator._scorer import ENTRY_MIN_NODES
from simulator._sparse import MaxTable
from space.cluster import ClusterSpec
from space.inventory import Inventory
from space.strategy import Strategy, ar_node, partitioned_node, ps_node


def _inventory(num_vars: int = 24) -> Inventory:
    return mixed_inventory(num_vars)


def _spec(nodes: int, bandwidth: str = "200mbit", links=()) -> ClusterSpec:
    return ClusterSpec.from_dict({"nodes": [{"address": f"198.18.0.{i + 1}", "chief": i == 0,
                                             "network_bandwidth": bandwidth} for i in range(nodes)],
                                  "links": [{"from": f"198.18.0.{a + 1}", "to": f"198.18.0.{b + 1}",
                                             "bandwidth": bw} for a, b, bw in links]})


CASES = {
    "two": (2, {}),
    "three": (3, {}),
    "three_rpc_prefetch": (3, dict(stale_prefetch=True, rpc_overhead_s=2e-4, ps_serial_fraction=0.3)),
    "five_no_reduce": (5, dict(reduce_s_per_byte=0.0, rpc_overhead_s=1e-4)),
    "five_spread": (5, dict(ps_serial_fraction=0.5, ps_spread_serial=0.2, ps_spread_busiest=0.4)),
    "twelve": (12, dict(rpc_overhead_s=5e-5, residual={"intercept": 1e-3, "compute": 1.0, "comm": 0.9,
                                                       "latency": 1.1})),
}


def _choices(scorer: Scorer, k: int, seed: int, most_shards: int) -> Choices:
    rng = np.random.default_rng(seed)
    M, shape = len(scorer.addresses), (k, len(scorer.inventory.variables))
    return Choices(ps=rng.random(shape) < 0.6, server=rng.integers(0, M, shape),
                   shards=rng.integers(1, most_shards + 1, shape), sync=rng.random(shape) < 0.8,
                   staleness=rng.integers(0, 2, shape), proxy=rng.random(shape) < 0.3,
                   group=rng.integers(0, 4, shape), compressor=rng.integers(0, 4, shape),
                   rank=rng.integers(1, 5, shape))


def _scorer(name: str) -> Scorer:
    nodes, overrides = CASES[name]
    spec = _spec(nodes)
    return Scorer(_inventory(), spec, Calibration.from_spec(spec, **overrides))


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("shards", ["few", "more_than_nodes"])
def test_entries_predict_what_the_dense_loads_do(name, shards):
    scorer = _scorer(name)
    M = len(scorer.addresses)
    choices = _choices(scorer, 48, 5, 2 if shards == "few" else M + 3)
    dense = evaluate(scorer.model, scorer.choices_batch(choices))
    sparse = evaluate_entries(scorer.model, scorer._entry_batch(choices))
    assert dense.keys() == sparse.keys()
    for key in dense:
        scale = np.abs(dense[key]).max(initial=0.0)
        np.testing.assert_allclose(sparse[key], dense[key], rtol=1e-9, atol=1e-12 * scale, err_msg=key)


def test_entries_score_every_proxy_and_staleness_alike():
    """All proxied and synchronous (the refreshes follow every push), then none on a server at all."""
    scorer = _scorer("five_spread")
    shape = (16, len(scorer.inventory.variables))
    rng = np.random.default_rng(9)
    for ps in (np.ones(shape, bool), np.zeros(shape, bool)):
        choices = Choices(ps=ps, server=rng.integers(0, 5, shape), shards=rng.integers(1, 4, shape),
                          proxy=np.ones(shape, bool))
        dense = evaluate(scorer.model, scorer.choices_batch(choices))["step"]
        sparse = evaluate_entries(scorer.model, scorer._entry_batch(choices))["step"]
        np.testing.assert_allclose(sparse, dense, rtol=1e-9)


@pytest.mark.parametrize("name,links,fits", [("alike", (), True), ("slow_link", ((0, 2, "50mbit"),), False)])
def test_scorer_takes_the_entries_where_the_nodes_are_alike(name, links, fits):
    spec = _spec(ENTRY_MIN_NODES, "1gbit", links)
    scorer = Scorer(_inventory(), spec, Calibration.from_spec(spec))
    assert scorer._sparse is fits
    choices = _choices(scorer, 20, 3, 3)
    strategies = [_strategy(scorer, np.random.default_rng(4)) for _ in range(3)]
    np.testing.assert_allclose(scorer.score_many(strategies), [scorer.predict(s).step_time_s for s in strategies])
    expected = evaluate(scorer.model, scorer.choices_batch(choices))["step"]
    np.testing.assert_allclose(scorer.score_choices(choices), expected, rtol=1e-9)


@pytest.mark.parametrize("V", [1, 2, 7, 16, 33])
def test_max_table_answers_every_range(V):
    A = np.random.default_rng(V).normal(size=(3, V))
    k, lo, hi = (x.ravel() for x in np.meshgrid(np.arange(3), np.arange(-1, V + 1), np.arange(-1, V + 1),
                                                 indexing="ij"))
    got = MaxTable(A).max(k, lo, hi)
    expected = [A[k[i], max(lo[i], 0):hi[i] + 1].max(initial=-np.inf) for i in range(k.size)]
    np.testing.assert_array_equal(got, expected)


def _strategy(scorer: Scorer, rng: np.random.Generator) -> Strategy:
    """PS (sync or async, stale, proxied) or all-reduce variables, a quarter of them partitioned with a
    synchronizer per shard."""
    devices, nodes = scorer.cluster.ps_devices, []

    def synchronizer(name: str):
        if rng.random() < 0.6:
            return ps_node(name, devices[int(rng.integers(len(devices)))], sync=bool(rng.random() < 0.75),
                           local_replication=bool(rng.random() < 0.3), staleness=int(rng.integers(0, 3)))
        return ar_node(name, group=int(rng.integers(3)), compressor=int(rng.integers(4)))

    for v in scorer.inventory.variables:
        shards = int(rng.integers(2, 5))
        if v.shape and v.shape[0] >= shards and rng.random() < 0.25:
            nodes.append(partitioned_node(v.name, v.shape, 0, [synchronizer(v.name) for _ in range(shards)]))
        else:
            nodes.append(synchronizer(v.name))
    return Strategy.build(nodes, scorer.replicas)


@pytest.mark.parametrize("name", CASES)
def test_entries_predict_strategies_with_their_detail(name):
    scorer, rng = _scorer(name), np.random.default_rng(7)
    strategies = [_strategy(scorer, rng) for _ in range(6)]
    for s in strategies:
        layout = scorer._layout(s)
        model = scorer._model_for(layout)
        dense = evaluate(model, scorer.encode([s], layout), detail=True)
        sparse = evaluate_entries(model, scorer.encode([s], layout, entries=True), detail=True)
        for key in dense:
            scale = np.abs(dense[key]).max(initial=0.0)
            np.testing.assert_allclose(sparse[key], dense[key], rtol=1e-9, atol=1e-12 * scale, err_msg=key)
    expected = [evaluate(scorer._model_for(scorer._layout(s)), scorer.encode([s], scorer._layout(s)))["step"][0]
                for s in strategies]
    np.testing.assert_allclose(scorer.score_many(strategies), expected, rtol=1e-9)
    np.testing.assert_allclose([scorer.predict(s).step_time_s for s in strategies], expected, rtol=1e-9)
