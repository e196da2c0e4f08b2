"""Properties over many strategies: monotonicity, agreement of the three scoring paths, builders, errors."""
from __future__ import annotations

import pathlib

import numpy as np
import pytest

from sim_helpers import cluster, dev, inventory, zero_cal
from simulator import Calibration, Choices, Scorer
from space.builders import aliases, build_strategy
from space.errors import BadInput, StrategyError
from space.inventory import Inventory
from space.strategy import Strategy, ar_node, ps_node

ALIASES = aliases()
INV = Inventory.synthetic([("emb", (20_000, 64)), ("w1", (512, 256)), ("b1", (256,)), ("w2", (256, 128)),
                           ("b2", (128,)), ("w3", (128, 10)), ("b3", (10,))], sparse=["emb"], flops_per_step=2e9)


def random_choices(k: int, nodes: int, seed: int) -> Choices:
    rng = np.random.default_rng(seed)
    shape = (k, len(INV.variables))
    return Choices(ps=rng.random(shape) < 0.5, server=rng.integers(0, nodes, shape),
                   shards=rng.integers(1, 4, shape), sync=rng.random(shape) < 0.8,
                   staleness=rng.integers(0, 2, shape), proxy=rng.random(shape) < 0.3,
                   group=rng.integers(0, 3, shape), compressor=rng.integers(0, 4, shape),
                   rank=rng.integers(1, 4, shape))


@pytest.mark.parametrize("alias", ALIASES)
def test_more_bandwidth_never_slower_for_builder(alias):
    slow, fast = cluster(3, "200mbit"), cluster(3, "1gbit")
    s = build_strategy(alias, INV, slow)
    t_slow = Scorer(INV, slow, Calibration.from_spec(slow)).predict(s).step_time_s
    t_fast = Scorer(INV, fast, Calibration.from_spec(fast)).predict(s).step_time_s
    assert t_fast <= t_slow and t_fast < t_slow  # every builder communicates, so strictly faster


@pytest.mark.parametrize("nodes", [2, 3])
def test_more_bandwidth_never_slower_for_random_strategies(nodes):
    slow, fast = cluster(nodes, "200mbit"), cluster(nodes, "1gbit")
    c = random_choices(400, nodes, seed=nodes)
    t_slow = Scorer(INV, slow, Calibration.from_spec(slow)).score_choices(c)
    t_fast = Scorer(INV, fast, Calibration.from_spec(fast)).score_choices(c)
    assert np.all(t_fast <= t_slow + 1e-12)


def test_one_slower_link_never_faster():
    base, slowed = cluster(3), cluster(3, links=[("198.18.0.2", "198.18.0.3", "50mbit")])
    c = random_choices(400, 3, seed=7)
    t_base = Scorer(INV, base, Calibration.from_spec(base)).score_choices(c)
    t_slowed = Scorer(INV, slowed, Calibration.from_spec(slowed)).score_choices(c)
    assert np.all(t_slowed >= t_base - 1e-12) and np.any(t_slowed > t_base)


@pytest.mark.parametrize("nodes", [2, 3])
def test_faster_alone_compute_never_slower_and_never_below_lockstep_compute(nodes):
    """Replicas that compute faster alone (shared CPUs) never make a step slower, and the step never drops below
    the lockstep compute that every synchronous step contains. A server staggers its replicas: the one beside it
    reads its variables in place and starts first, then the remote ones one after another, so with two nodes as
    with three some steps shorten."""
    spec = cluster(nodes)
    c = random_choices(400, nodes, seed=11 + nodes)
    cal = Calibration.from_spec(spec, step_time_s=0.05, model_hash=INV.model_hash)
    lockstep = Scorer(INV, spec, cal).score_choices(c, parts=True)
    shared = Scorer(INV, spec, cal.replace(alone_step_s=0.01)).score_choices(c, parts=True)
    assert np.all(shared["step"] <= lockstep["step"] + 1e-12)
    faster = np.sum(shared["step"] < lockstep["step"] - 1e-6)
    assert faster > 0
    assert np.all(shared["step"] >= shared["compute"] - 1e-12)


@pytest.mark.parametrize("moved", [1, 2, 3], ids=["1-of-4", "2-of-4", "3-of-4"])
def test_better_balance_never_slower(moved):
    spec = cluster(3)
    inv = inventory(*[(250, 1000)] * 4)
    scorer = Scorer(inv, spec, zero_cal(spec))
    piled = Strategy.build([ps_node(f"v{i}", dev(0)) for i in range(4)], spec.replicas)
    spread = Strategy.build([ps_node(f"v{i}", dev(1) if i < moved else dev(0)) for i in range(4)], spec.replicas)
    assert scorer.predict(spread).step_time_s < scorer.predict(piled).step_time_s


@pytest.mark.parametrize("alias", ALIASES)
def test_predict_score_many_and_module_predict_agree(alias):
    import simulator

    spec = cluster(3)
    cal = Calibration.from_spec(spec)
    s = build_strategy(alias, INV, spec)
    one = Scorer(INV, spec, cal).predict(s)
    assert Scorer(INV, spec, cal).score_many([s])[0] == pytest.approx(one.step_time_s)
    assert simulator.predict(s, INV, spec, cal).step_time_s == pytest.approx(one.step_time_s)
    assert one.step_time_s >= one.compute_s > 0


def test_choices_match_the_equivalent_strategies():
    spec = cluster(3)
    scorer = Scorer(INV, spec, Calibration.from_spec(spec))
    c = random_choices(20, 3, seed=3)
    c.shards = np.ones_like(c.shards)
    strategies = [Strategy.build([ps_node(v.name, dev(int(c.server[k, i])), sync=bool(c.sync[k, i]),
                                          staleness=int(c.staleness[k, i]), local_replication=bool(c.proxy[k, i]))
                                  if c.ps[k, i] else
                                  ar_node(v.name, group=int(c.group[k, i]), compressor=int(c.compressor[k, i]),
                                          powersgd_rank=int(c.rank[k, i]))
                                  for i, v in enumerate(INV.variables)], spec.replicas) for k in range(20)]
    np.testing.assert_allclose(scorer.score_choices(c), scorer.score_many(strategies))


def test_choices_shards_match_partitioned_strategy():
    from space.strategy import partitioned_node

    spec = cluster(3)
    scorer = Scorer(INV, spec, Calibration.from_spec(spec))
    V = len(INV.variables)
    c = Choices(ps=np.ones((1, V), bool), server=np.full((1, V), 1), shards=np.full((1, V), 2))
    nodes = [partitioned_node(v.name, v.shape, 0, [ps_node(v.name, dev(1)), ps_node(v.name, dev(2))])
             for v in INV.variables]
    assert scorer.score_choices(c)[0] == pytest.approx(scorer.predict(Strategy.build(nodes, spec.replicas))
                                                       .step_time_s)


@pytest.mark.parametrize("spread", [False, True])
def test_choices_with_more_shards_than_nodes_match_partitioned_strategy(spread):
    """Choice arrays (a column per variable, its shards counted per node) and the Strategy proto (a column per
    shard) score alike, also where the share of staggering lost depends on the busiest server's part of the load."""
    from space.strategy import partitioned_node

    spec = cluster(3)
    cal = Calibration.from_spec(spec).replace(ps_serial_fraction=1.0)
    if spread:
        cal = cal.replace(ps_spread_serial=0.2, ps_spread_busiest=0.34)
    scorer = Scorer(INV, spec, cal)
    V = len(INV.variables)
    c = Choices(ps=np.ones((1, V), bool), server=np.full((1, V), 1), shards=np.full((1, V), 5))
    nodes = [partitioned_node(v.name, v.shape, 0, [ps_node(v.name, dev((1 + i) % 3)) for i in range(5)])
             if v.shape[0] >= 5 else ps_node(v.name, dev(1)) for v in INV.variables]  # b3 has 10 rows
    step = scorer.predict(Strategy.build(nodes, spec.replicas)).step_time_s
    assert scorer.score_choices(c)[0] == pytest.approx(step)
    if spread:  # the spread share changes this layout's step, so that a path ignoring it would fail above
        assert step < Scorer(INV, spec, cal.replace(ps_spread_serial=None, ps_spread_busiest=None)
                             ).score_choices(c)[0] * (1 - 1e-4)


def test_choices_scored_in_chunks_match_one_pass(monkeypatch):
    import simulator._scorer as scorer_module

    spec = cluster(3)
    cal = Calibration.from_spec(spec, step_time_s=0.05, alone_step_s=0.01, model_hash=INV.model_hash)
    scorer = Scorer(INV, spec, cal.replace(ps_serial_fraction=0.5, update_s=0.004))
    c = random_choices(50, 3, seed=4)
    c.shards = np.random.default_rng(5).integers(1, 7, c.ps.shape)  # more shards than nodes too
    c.server, c.staleness = c.server[0], 1  # given once for every strategy
    one = scorer.score_choices(c, parts=True)
    monkeypatch.setattr(scorer_module, "CHUNK_CELLS", 1)  # 8 strategies per pass: 7 passes, the last one short
    chunked = scorer.score_choices(c, parts=True)
    assert one.keys() == chunked.keys() and one["step"].shape == (50,)
    for key in one:
        np.testing.assert_allclose(chunked[key], one[key], rtol=1e-12, err_msg=key)


def test_unknown_variable_is_a_strategy_error():
    spec = cluster(2)
    s = Strategy.build([ar_node("nope")], spec.replicas)
    with pytest.raises(StrategyError, match="unknown variable 'nope'"):
        Scorer(INV, spec, Calibration.from_spec(spec)).predict(s)


def test_missing_variable_is_a_strategy_error():
    spec = cluster(2)
    s = Strategy.build([ar_node(v.name) for v in INV.variables[:-1]], spec.replicas)
    with pytest.raises(StrategyError, match="configures 6 variables"):
        Scorer(INV, spec, Calibration.from_spec(spec)).predict(s)


def test_choices_of_the_wrong_shape_are_bad_input():
    spec = cluster(2)
    with pytest.raises(BadInput, match=r"must have shape \(K, 7\)"):
        Scorer(INV, spec, Calibration.from_spec(spec)).score_choices(Choices(ps=np.zeros((2, 3), bool)))


def test_choices_server_out_of_range_is_bad_input():
    spec = cluster(2)
    c = Choices(ps=np.ones((1, 7), bool), server=np.full((1, 7), 5))
    with pytest.raises(BadInput, match="0 <= server < 2"):
        Scorer(INV, spec, Calibration.from_spec(spec)).score_choices(c)


def test_import_leaves_tensorflow_out():
    import subprocess
    import sys

    code = "import sys, simulator; print('tensorflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=pathlib.Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "False"
