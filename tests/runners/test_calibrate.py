"""``autotune calibrate``: measurements -> Calibration without TensorFlow, then (slow) on real servers: the local
2-node cluster (a file the search finds) and a tc-shaped testbed link (bandwidth near the tc rate)."""
from __future__ import annotations

import dataclasses
import os
import pathlib
import sys
import types

import pytest

from autotune.cli import main
from runners.calibrate import LinkFit, Measurements, to_calibration
from testsupport import netns_forbidden

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "models" / "mlp.py"
LOCAL = ROOT / "examples" / "clusters" / "localhost.yml"
MIB = 2**20


def _measurements(gbit_by_pair: dict[tuple[str, str], float], n: int) -> Measurements:
    links = []
    for (a, b), g in gbit_by_pair.items():
        secs = [0.001 + s / (g * 1e9 / 8) for s in (MIB, 4 * MIB)]
        links.append(LinkFit(a, b, [MIB, 4 * MIB], secs, 0.001, latency_s=5e-5, bandwidth_gbit=g))
    ring = min(gbit_by_pair.values()) * 1e9 / 8
    ar = [0.003 + 2 * (n - 1) / n * s / (0.5 * ring) for s in (MIB, 4 * MIB)]  # half the ideal ring bandwidth
    return Measurements(links=links, allreduce_sizes=[MIB, 4 * MIB], allreduce_s=ar, allreduce_tiny_s=0.003,
                        allreduce_base_s=0.001, rpc_tensors=101, rpc_s=0.011, rpc_one_s=0.001, reduce_s_per_byte=0.0,
                        cast_s_per_byte=1e-10, step_single_s=0.01, nosync_step_s=0.02)


# ---- pure conversion ------------------------------------------------------------------------------------

def test_to_calibration_derives_every_constant(clusters):
    spec = clusters["localhost"]
    a, b = (n.address for n in spec.nodes)
    m = _measurements({(a, b): 2.0, (b, a): 2.0}, 2)
    inv = types.SimpleNamespace(model_hash="abc123", flops_per_step=1e9)
    cal = to_calibration(m, spec, inv)
    assert cal.node_bandwidth_gbit == {a: 2.0, b: 2.0} and cal.link_bandwidth_gbit == {}
    assert cal.latency_s == pytest.approx(5e-5)
    assert cal.collective_bandwidth_factor == pytest.approx(0.5)
    assert cal.collective_overhead_s == pytest.approx(0.002 - 2 * 5e-5)
    assert cal.rpc_overhead_s == pytest.approx(1e-4)
    assert cal.step_time_s == 0.02 and cal.model_hash == "abc123"  # the unsynchronized lockstep step's compute
    assert cal.alone_step_s == m.step_single_s  # and one replica's with the CPUs to itself
    assert cal.update_s is None  # the update probe did not run
    with_update = to_calibration(dataclasses.replace(m, update_s=0.004), spec, inv)
    assert with_update.update_s == 0.004 and with_update.replace(update_s=None) == cal.replace(
        created_at=with_update.created_at)
    assert to_calibration(dataclasses.replace(m, update_s=0.5), spec, inv).update_s == m.step_single_s  # at most
    # the lockstep step without the updates: they take the rest of its compute (spanning the nodes cancels)
    assert cal.update_share is None
    assert to_calibration(dataclasses.replace(m, nosync_noupdate_s=0.012), spec, inv).update_share == pytest.approx(0.4)
    assert to_calibration(dataclasses.replace(m, nosync_noupdate_s=0.021), spec, inv).update_share == 0.0  # noise
    assert cal.compute_flops_per_s == pytest.approx(1e11)
    cal.check(spec, "abc123")


def test_latency_collective_and_step_overheads_from_the_difference_probes(clusters):
    """Latency from a long minus a short chain of dependent messages (not a remote minus a local read, which
    also pays for involving another task: 0.75-1.3 ms on the testbed); per-collective overhead from many tiny
    all-reduces minus one; the step overhead from a run on every task minus one on a single task."""

    spec = clusters["localhost"]
    a, b = (n.address for n in spec.nodes)
    m = dataclasses.replace(_measurements({(a, b): 2.0, (b, a): 2.0}, 2), chain_hops=(2, 22),
                            chain_s={f"{a}|{b}": (0.002, 0.004)}, collectives=16, collectives_many_s=0.0085,
                            collectives_one_s=0.001, run_all_tasks_s=0.003, run_one_task_s=0.001)
    cal = to_calibration(m, spec)
    assert cal.latency_s == pytest.approx(1e-4) and cal.link_latency_s == {f"{a}|{b}": pytest.approx(1e-4)}
    assert cal.collective_overhead_s == pytest.approx(5e-4)
    assert cal.step_overhead_s == pytest.approx(0.002)
    # the unsynchronized step spans the nodes too: its compute is what is left without that fixed cost ...
    inv = types.SimpleNamespace(model_hash="abc123", flops_per_step=1e9)
    assert to_calibration(m, spec, inv).step_time_s == pytest.approx(0.018)
    # ... and never below one replica alone
    assert to_calibration(dataclasses.replace(m, nosync_step_s=0.0105), spec, inv).step_time_s == 0.01


def test_powersgd_constants_from_a_small_and_a_large_probe():
    from runners import calibrate as c

    fixed, per_flop = 3e-4, 2e-11
    small = c.PSGD_SMALL_COUNT * (fixed + per_flop * c.powersgd_flops(*c.PSGD_SMALL))
    large = c.PSGD_LARGE_COUNT * (fixed + per_flop * c.powersgd_flops(*c.PSGD_LARGE))
    got = c.powersgd_constants(small, large)
    assert got["powersgd_matrix_s"] == pytest.approx(fixed) and got["powersgd_s_per_flop"] == pytest.approx(per_flop)


def test_powersgd_per_matrix_cost_from_the_models_powersgd_step(clusters, inventories):
    """The mlp's `all_reduce_powersgd` step measured 2 ms per compressed matrix above the prediction without a
    per-matrix cost: the calibration charges 2 ms per matrix, and then predicts that step exactly."""

    from runners._calibration_data import powersgd_matrix_from_step
    from simulator import Scorer
    from space.builders import build_strategy

    spec, inv = clusters["localhost"], inventories("mlp")
    base = to_calibration(_measurements({(n.address, m.address): 2.0 for n in spec.nodes for m in spec.nodes
                                         if n is not m}, 2), spec, inv)
    strategy = build_strategy("all_reduce_powersgd", inv, spec)
    zero = base.replace(powersgd_matrix_s=0.0)
    assert base.powersgd_matrix_s == 0.0  # no probe in these measurements
    p0 = Scorer(inv, spec, zero).predict(strategy).raw_step_time_s
    matrices = sum(len(v.shape) >= 2 and min(v.shape[0], v.num_elements // v.shape[0]) > 1 for v in inv.variables)
    assert matrices == 3
    assert powersgd_matrix_from_step(zero, inv, spec, p0 + matrices * 2e-3) == pytest.approx(2e-3)
    assert powersgd_matrix_from_step(zero.replace(powersgd_matrix_s=1e-5), inv, spec, p0 - 1e-3) == 1e-5  # never lower
    m = dataclasses.replace(_measurements({(n.address, m.address): 2.0 for n in spec.nodes for m in spec.nodes
                                           if n is not m}, 2), anchors_s={"powersgd": p0 + matrices * 2e-3})
    cal = to_calibration(m, spec, inv)
    assert cal.powersgd_matrix_s == pytest.approx(2e-3)
    assert Scorer(inv, spec, cal).predict(strategy).raw_step_time_s == pytest.approx(p0 + matrices * 2e-3)


def test_anchor_pairs_recover_the_piece_and_collective_costs(clusters, inventories):
    """Anchor steps generated by a calibration with known per-piece and per-matrix costs: the conversion recovers
    each from its pair's difference, whatever the shared compute. The per-collective cost is the measured
    difference over the extra collectives (the mlp's group per variable launches 6 for the fused step's 1)."""

    from runners.calibrate import anchor_strategies
    from simulator import Scorer

    spec, inv = clusters["localhost"], inventories("mlp")
    m = _measurements({(n.address, o.address): 2.0 for n in spec.nodes for o in spec.nodes if n is not o}, 2)
    base = to_calibration(m, spec, inv)
    true = base.replace(collective_overhead_s=1.2e-3, ar_piece_s=1e-3, ps_piece_s=5e-4, powersgd_matrix_s=1.5e-3)
    strategies = anchor_strategies(inv, spec)
    assert set(strategies) == {"all_reduce", "ar_split", "ar_groups", "ps", "ps_split", "ps_lb",
                               "powersgd"}
    anchors = {k: Scorer(inv, spec, true).predict(s).raw_step_time_s for k, s in strategies.items()}
    anchors["ar_groups"] = anchors["all_reduce"] + 5 * 1.2e-3
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors), spec, inv)
    for field in ("ar_piece_s", "ps_piece_s", "powersgd_matrix_s"):
        assert getattr(cal, field) == pytest.approx(getattr(true, field), rel=1e-4), field
    assert cal.collective_overhead_s == pytest.approx(1.2e-3)
    # a pair measured faster than predicted with no cost charges nothing (never negative); a piece pair that
    # resolves nothing takes the other's cost where that one resolved it
    anchors["ar_split"], anchors["ar_groups"] = anchors["all_reduce"] - 1e-3, anchors["all_reduce"] - 1e-3
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors), spec, inv)
    assert cal.collective_overhead_s == 0.0 and cal.ar_piece_s == pytest.approx(5e-4, rel=1e-4)
    anchors["ps_split"] = anchors["ps"]
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors), spec, inv)
    assert cal.ar_piece_s == 0.0 and cal.ps_piece_s == 0.0


def test_a_piece_pair_that_resolves_nothing_takes_the_other_pairs_cost(clusters, inventories):
    """Anchor steps generated with 1 ms per all-reduced shard and 0.5 ms per PS shard. A ``ps_split`` step no
    slower than ``ps`` resolves nothing (the mlp's, three times in twelve calibrations): the PS shard takes the
    all-reduced shard's 1 ms, not 0. With calibrate's rounds kept, the pair's standard error decides: rounds whose
    difference swings by twice its size leave it unresolved, steady ones keep its own 0.5 ms. The table says
    which, with two standard errors. An all-reduced pair that resolves nothing takes the PS shard's cost alike
    (the recommender's, twice in eight calibrations)."""

    from runners._calibration_data import RESOLVED_SE, format_table, pair_difference
    from runners.calibrate import anchor_strategies
    from simulator import Scorer

    spec, inv = clusters["localhost"], inventories("mlp")
    m = _measurements({(n.address, o.address): 2.0 for n in spec.nodes for o in spec.nodes if n is not o}, 2)
    true = to_calibration(m, spec, inv).replace(ar_piece_s=1e-3, ps_piece_s=5e-4)
    strategies = anchor_strategies(inv, spec)
    anchors = {k: Scorer(inv, spec, true).predict(strategies[k]).raw_step_time_s
               for k in ("all_reduce", "ar_split", "ps", "ps_split")}
    gap = anchors["ps_split"] - anchors["ps"]
    assert gap > 0
    assert to_calibration(dataclasses.replace(m, anchors_s=anchors), spec, inv).ps_piece_s == pytest.approx(5e-4,
                                                                                                         rel=1e-4)
    for faster in (0.0, 1e-3):
        flat = dict(anchors, ps_split=anchors["ps"] - faster)
        cal = to_calibration(dataclasses.replace(m, anchors_s=flat), spec, inv)
        assert cal.ar_piece_s == pytest.approx(1e-3, rel=1e-4)
        assert cal.ps_piece_s == cal.ar_piece_s
        assert "against ps, not resolved: a PS shard takes an all-reduced shard's cost" in format_table(
            dataclasses.replace(m, anchors_s=flat), cal)

    def rounds(step: float, wobble: float) -> list[float]:
        return [step + wobble * (-1) ** k for k in range(10)]

    steady = {k: rounds(t, 1e-4) for k, t in anchors.items()}
    noisy = dict(steady, ps_split=rounds(anchors["ps_split"], 2 * gap))  # the difference swings by twice its size
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors, anchor_rounds_s=steady), spec, inv)
    difference, se = pair_difference(cal, "ps_split", "ps")
    assert difference == pytest.approx(gap) and se == pytest.approx(0.0, abs=1e-12)
    assert cal.ps_piece_s == pytest.approx(5e-4, rel=1e-4)
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors, anchor_rounds_s=noisy), spec, inv)
    difference, se = pair_difference(cal, "ps_split", "ps")
    assert RESOLVED_SE * se > difference > 0
    assert cal.ps_piece_s == cal.ar_piece_s == pytest.approx(1e-3, rel=1e-4)
    table = format_table(dataclasses.replace(m, anchors_s=anchors, anchor_rounds_s=noisy), cal)
    assert f"{gap * 1e3:+.2f} ± {RESOLVED_SE * se * 1e3:.2f} ms against ps, not resolved" in table
    assert "against all_reduce, not resolved" not in table  # the all-reduced pair stands out
    # the other way round: an all-reduced pair lost in its noise takes the PS shard's cost
    flat = dict(anchors, ar_split=anchors["all_reduce"])
    cal = to_calibration(dataclasses.replace(m, anchors_s=flat), spec, inv)
    assert cal.ar_piece_s == cal.ps_piece_s == pytest.approx(5e-4, rel=1e-4)
    assert "against all_reduce, not resolved: an all-reduced shard takes a PS shard's cost" in format_table(
        dataclasses.replace(m, anchors_s=flat), cal)


def test_the_all_reduce_factor_is_read_again_from_the_fused_all_reduce_step(clusters, inventories):
    """The bare probe says half the link (0.5); anchor steps generated with 0.8: the conversion reads 0.8 from the
    fused all-reduce step (after the per-collective cost, which it depends on) and predicts that step."""

    from runners.calibrate import anchor_strategies
    from simulator import Scorer

    spec, inv = clusters["localhost"], inventories("mlp")
    m = _measurements({(n.address, o.address): 2.0 for n in spec.nodes for o in spec.nodes if n is not o}, 2)
    assert to_calibration(m, spec, inv).collective_bandwidth_factor == pytest.approx(0.5)
    true = to_calibration(m, spec, inv).replace(collective_bandwidth_factor=0.8, collective_overhead_s=1.5e-3)
    strategies = anchor_strategies(inv, spec)
    anchors = {"all_reduce": Scorer(inv, spec, true).predict(strategies["all_reduce"]).raw_step_time_s}
    anchors["ar_groups"] = anchors["all_reduce"] + 5 * 1.5e-3  # the mlp's 6 collectives against 1
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors), spec, inv)
    assert cal.collective_overhead_s == pytest.approx(1.5e-3)
    assert cal.collective_bandwidth_factor == pytest.approx(0.8, rel=1e-4)
    assert Scorer(inv, spec, cal).predict(strategies["all_reduce"]).raw_step_time_s == pytest.approx(
        anchors["all_reduce"], abs=1e-6)
    # a step slower than any factor up to the probe's floor can explain keeps the floor, never a factor <= 0
    slow = to_calibration(dataclasses.replace(m, anchors_s={"all_reduce": 10.0}), spec, inv)
    assert slow.collective_bandwidth_factor == pytest.approx(0.05)
    # without the all-reduce step, the probe's factor stays
    only = to_calibration(dataclasses.replace(m, anchors_s={"ps": anchors["all_reduce"]}), spec, inv)
    assert only.collective_bandwidth_factor == pytest.approx(0.5)


def test_the_ps_step_sets_how_much_staggering_ps_steps_lose(clusters, inventories):
    """Anchor steps generated with ps_serial_fraction 0.4 on the 3-node spec: the conversion reads 0.4 from the
    `ps` step and predicts it; a `ps` step faster than the staggered model keeps 0, a slower one than the
    unstaggered keeps 1 (a share, never beyond)."""

    from runners.calibrate import anchor_strategies
    from simulator import Scorer

    spec, inv = clusters["heterogeneous"], inventories("mlp")
    m = _measurements({(n.address, o.address): 0.2 for n in spec.nodes for o in spec.nodes if n is not o}, 3)
    base = to_calibration(m, spec, inv)
    assert base.ps_serial_fraction == 0.0
    ps = anchor_strategies(inv, spec)["ps"]
    step = lambda share: Scorer(inv, spec, base.replace(ps_serial_fraction=share)).predict(ps).raw_step_time_s  # noqa: E731
    assert step(1.0) > step(0.0) * 1.05  # the spec's links make the difference visible
    for measured, share in ((step(0.4), 0.4), (step(0.0) * 0.9, 0.0), (step(1.0) * 1.1, 1.0)):
        cal = to_calibration(dataclasses.replace(m, anchors_s={"ps": measured}), spec, inv)
        assert cal.ps_serial_fraction == pytest.approx(share, abs=1e-4), measured
    cal = to_calibration(dataclasses.replace(m, anchors_s={"ps": step(0.4)}), spec, inv)
    assert Scorer(inv, spec, cal).predict(ps).raw_step_time_s == pytest.approx(step(0.4), rel=1e-6)


def test_anchor_fit_names_the_anchor_steps_the_cost_model_cannot_reach(clusters, inventories):
    """Anchor steps a calibration generated: the costs derived from them predict every one (nothing named). A `ps`
    step slower than the unstaggered model (the share stops at 1) stays predicted fast, and the table says by how
    much, under the step's own line."""
    from runners.calibrate import anchor_fit, anchor_misfits, anchor_strategies, format_table
    from simulator import Scorer

    spec, inv = clusters["heterogeneous"], inventories("mlp")
    m = _measurements({(n.address, o.address): 0.2 for n in spec.nodes for o in spec.nodes if n is not o}, 3)
    true = to_calibration(m, spec, inv).replace(ps_serial_fraction=0.4, ar_piece_s=1e-3, ps_piece_s=5e-4)
    strategies = anchor_strategies(inv, spec)
    anchors = {k: Scorer(inv, spec, true).predict(strategies[k]).raw_step_time_s for k in ("all_reduce", "ps")}
    m = dataclasses.replace(m, anchors_s=anchors)
    cal = to_calibration(m, spec, inv)
    fit = anchor_fit(cal, inv, spec)
    assert set(fit) == {"all_reduce", "ps"}
    for name, (measured, predicted) in fit.items():
        assert measured == anchors[name] and predicted == pytest.approx(measured, rel=1e-3), name
    assert anchor_misfits(fit) == []
    table = format_table(m, cal, fit)
    assert f"(the cost model: {fit['ps'][1] * 1e3:.2f} ms)" in table and "misses" not in table

    unstaggered = Scorer(inv, spec, true.replace(ps_serial_fraction=1.0)).predict(strategies["ps"]).raw_step_time_s
    slow = dataclasses.replace(m, anchors_s={**anchors, "ps": 1.25 * unstaggered})
    cal = to_calibration(slow, spec, inv)
    assert cal.ps_serial_fraction == 1.0
    fit = anchor_fit(cal, inv, spec)
    assert fit["ps"][1] == pytest.approx(unstaggered, rel=1e-3)
    assert anchor_misfits(fit) == ["ps -20%"]  # 1 / 1.25 - 1
    assert "the cost model misses 1 of its own anchor steps by more than 5% (predicted over measured): ps -20%" \
        in format_table(slow, cal, fit)
    assert anchor_fit(cal.replace(anchors_s={}), inv, spec) == {}


def test_the_split_ps_step_sets_the_cost_of_a_ps_piece(clusters, inventories):
    """Anchor steps generated with ps_serial_fraction 0.4 and a PS shard costing 0.3 ms (an all-reduced one 1 ms):
    the conversion reads the share from the `ps` step and the PS shard's cost from the `ps_split` step less the
    `ps` step, both with the share lost alike (cost model 4: the split step loses as much as the whole one). A
    model that loses no staggering reads the shard's cost the same way."""
    from runners.calibrate import anchor_strategies
    from simulator import Scorer

    spec, inv = clusters["heterogeneous"], inventories("mlp")
    m = _measurements({(n.address, o.address): 0.2 for n in spec.nodes for o in spec.nodes if n is not o}, 3)
    true = to_calibration(m, spec, inv).replace(ps_serial_fraction=0.4, ar_piece_s=1e-3, ps_piece_s=3e-4)
    strategies = anchor_strategies(inv, spec)
    step = lambda name, **kw: Scorer(inv, spec, true.replace(**kw)).predict(strategies[name]).raw_step_time_s
    assert step("ps_split") > step("ps_split", ps_piece_s=0.0) + 2e-3  # the pieces show in the step
    anchors = {name: step(name) for name in ("all_reduce", "ar_split", "ps", "ps_split")}
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors), spec, inv)
    assert cal.ps_serial_fraction == pytest.approx(0.4, abs=1e-4)
    assert cal.ar_piece_s == pytest.approx(1e-3, rel=1e-3)
    assert cal.ps_piece_s == pytest.approx(3e-4, rel=1e-3)
    flat = dict(anchors, ps=step("ps", ps_serial_fraction=0.0),
                ps_split=step("ps_split", ps_serial_fraction=0.0, ps_piece_s=2e-3))
    cal = to_calibration(dataclasses.replace(m, anchors_s=flat), spec, inv)
    assert cal.ps_serial_fraction == 0.0
    assert cal.ps_piece_s == pytest.approx(2e-3, rel=1e-3)


def test_the_ps_lb_step_sets_the_staggering_a_spread_ps_step_loses(clusters, inventories):
    """Anchor steps generated with ps_serial_fraction 0.4 (all on one server) and 0.1 where the load is spread as
    ``ps_lb`` spreads it: the conversion reads 0.1 and the busiest server's share from the `ps_lb` step, and the
    `ps` step is unchanged by it. A `ps_lb` step slower than the one-server share explains keeps that share (spread
    never loses more); a model that loses no staggering sets nothing."""

    from runners.calibrate import anchor_strategies
    from simulator import Scorer

    spec, inv = clusters["heterogeneous"], inventories("mlp")
    m = _measurements({(n.address, o.address): 0.2 for n in spec.nodes for o in spec.nodes if n is not o}, 3)
    base = to_calibration(m, spec, inv).replace(ps_serial_fraction=0.4, ar_piece_s=1e-3, ps_piece_s=1e-3)
    strategies = anchor_strategies(inv, spec)
    loads = Scorer(inv, spec, base).predict(strategies["ps_lb"]).server_load_bytes
    busiest = max(loads.values()) / sum(loads.values())
    assert 0 < busiest < 1 and len(loads) > 1
    true = base.replace(ps_spread_serial=0.1, ps_spread_busiest=busiest)
    step = lambda name, **kw: Scorer(inv, spec, true.replace(**kw)).predict(strategies[name]).raw_step_time_s
    unspread = dict(ps_spread_serial=None, ps_spread_busiest=None)
    assert step("ps_lb") < step("ps_lb", **unspread) - 1e-3  # the spread share matters to the spread step
    assert step("ps") == step("ps", **unspread)  # and not to the one with all its load on one server
    shares = [step("ps_lb", ps_spread_serial=x) for x in (0.0, 0.1, 0.2, 0.4)]
    assert shares == sorted(shares) and shares[0] < shares[-1]  # losing more staggering is never faster
    anchors = {name: step(name) for name in ("all_reduce", "ar_split", "ps", "ps_split", "ps_lb")}
    cal = to_calibration(dataclasses.replace(m, anchors_s=anchors), spec, inv)
    assert cal.ps_serial_fraction == pytest.approx(0.4, abs=1e-4)
    assert cal.ps_spread_serial == pytest.approx(0.1, abs=1e-3)
    assert cal.ps_spread_busiest == pytest.approx(busiest)
    slow = dict(anchors, ps_lb=step("ps_lb", **unspread) + 5e-3)
    cal = to_calibration(dataclasses.replace(m, anchors_s=slow), spec, inv)
    assert cal.ps_spread_serial == cal.ps_serial_fraction
    flat = dict(anchors, ps=step("ps", ps_serial_fraction=0.0, **unspread))
    cal = to_calibration(dataclasses.replace(m, anchors_s=flat), spec, inv)
    assert cal.ps_serial_fraction == 0.0 and cal.ps_spread_serial is None and cal.ps_spread_busiest is None


def test_the_turns_rounds_split_a_jobs_steps_as_take_turns_ran_them():
    """20 steps in 10 rounds: 2 a round; 7 in 3: 3, 2, 2 (the first rounds take the rest); rounds beyond the steps
    are dropped. A job's times read back as each round's mean step, in the order the rounds ran."""
    from runners.profile import round_means, turn_chunks

    assert turn_chunks(20, 10) == [2] * 10 and turn_chunks(7, 3) == [3, 2, 2] and turn_chunks(2, 10) == [1, 1]
    assert round_means([1.0, 3.0, 2.0, 2.0, 4.0, 6.0, 8.0], [3, 2, 2]) == [2.0, 3.0, 7.0]


def test_solve_cost_crossing_flat_and_unreachable():
    from runners._calibration_data import solve_cost

    assert solve_cost(lambda x: 0.01 + 3 * x, 0.016) == pytest.approx(2e-3, abs=1e-7)
    # hidden up to 2.5 ms, then 5 per ms: 3 ms is the first value predicting the measurement
    hidden = lambda x: -1e-3 + 5 * max(x - 2.5e-3, 0.0)  # noqa: E731
    assert solve_cost(hidden, 1.5e-3) == pytest.approx(3e-3, abs=1e-7)
    # a measurement inside the flat part cannot tell the values apart: the prior (the probe's value) stays
    assert solve_cost(hidden, -1e-3, prior=1.7e-3) == pytest.approx(1.7e-3)
    # below every prediction: the closest, nearest the prior
    assert solve_cost(lambda x: 0.01 + x, 0.005, prior=0.0) == 0.0


def test_only_a_clearly_slower_link_gets_its_own_entry():
    from space.cluster import ClusterSpec

    spec = ClusterSpec.from_dict({"nodes": [{"address": f"127.0.0.{i}", "chief": i == 1} for i in (1, 2, 3)]})
    a, b, c = (n.address for n in spec.nodes)
    m = _measurements({(a, b): 1.0, (b, a): 1.0, (a, c): 0.98, (c, a): 1.0, (b, c): 0.5, (c, b): 0.5}, 3)
    cal = to_calibration(m, spec)
    assert cal.link_bandwidth_gbit == {f"{b}|{c}": 0.5}
    assert cal.node_bandwidth_gbit[c] == 1.0 and cal.step_time_s is None


@pytest.mark.parametrize("text,expected", [("256k,1m", [256 * 1024, MIB]), ("4m, 64KiB", [64 * 1024, 4 * MIB]),
                                           ("1000,2000b", [1000, 2000])])
def test_parse_sizes(text, expected):
    from autotune.commands.calibrate import parse_sizes

    assert parse_sizes(text) == expected


@pytest.mark.parametrize("text", ["1m", "1m,1m", "1x,2m", "0,1m"])
def test_bad_sizes_exit_2(text, capsys):
    assert main(["calibrate", "--spec", str(LOCAL), "--sizes", text]) == 2
    assert "--sizes" in capsys.readouterr().err


def test_bad_spec_exits_2_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yml"
    bad.write_text("nodes: [{address: 127.0.0.1, bogus: 1}]\n")
    assert main(["calibrate", "--spec", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")


@pytest.mark.slow
def test_unreachable_host_exits_2_naming_it(tmp_path, capsys):
    spec = tmp_path / "unreachable.yml"
    spec.write_text("nodes:\n  - {address: 127.0.0.1, chief: true, ssh_config: g}\n"
                    "ssh:\n  g: {username: root, port: 1}\n")  # nothing listens on port 1
    assert main(["calibrate", "--spec", str(spec), "--cache-dir", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "127.0.0.1" in err and err.startswith("error:")


# ---- real servers ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_calibrate_local_cluster_writes_a_file_search_finds(tmp_path, capsys):
    from autotune.search._pipeline import _find_calibration
    from simulator import Calibration
    from space.cluster import load_cluster
    from space.model import load_inventory

    out = tmp_path / "copy.json"
    code = main(["calibrate", "--spec", str(LOCAL), "--model", str(MLP), "--sizes", "64k,1m", "--repeats", "2",
                 "--rpc-tensors", "20", "--steps", "2", "--warmup", "1", "--cache-dir", str(tmp_path),
                 "--output", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "calibrate: link 127.0.0.1 -> 127.0.0.2" in captured.err and "all-reduce bandwidth factor" in captured.out
    spec, inv = load_cluster(LOCAL), load_inventory(MLP, cache_dir=tmp_path)
    found = _find_calibration(spec, inv, types.SimpleNamespace(cache_dir=str(tmp_path)))
    assert found is not None and found.model_hash == inv.model_hash and found.step_time_s > 0
    assert set(found.node_bandwidth_gbit) == {"127.0.0.1", "127.0.0.2"}
    assert "model step, powersgd" in captured.out and found.powersgd_matrix_s >= 0
    assert "model step, ar_split" in captured.out and found.ar_piece_s >= 0 and found.ps_piece_s >= 0
    # each anchor's mean step per round of the turns (2 steps x 2 passes: 4 rounds of one), for its pair's spread
    assert set(found.anchor_rounds_s) == set(found.anchors_s)
    for name, rounds in found.anchor_rounds_s.items():
        assert len(rounds) == 4 and min(rounds) <= found.anchors_s[name] <= max(rounds), name
    assert " ms against ps" in captured.out and " ms against all_reduce" in captured.out
    # the SGD update of the mlp's 235k parameters on one node: measured, and part of one replica's step
    assert "optimizer update on one node: sgd on 6 variable(s)" in captured.err
    assert 0 < found.update_s <= found.alone_step_s and "optimizer update, every variable once" in captured.out
    # and what the updates take of the lockstep step, timed in it
    assert "model step, noupdate" in captured.err and "the same, no update applied" in captured.out
    assert 0 <= found.update_share <= 1
    assert Calibration.load(out, cluster=spec).to_dict() == found.to_dict()


@pytest.mark.slow
@pytest.mark.netns
@pytest.mark.ssh
def test_shaped_link_bandwidth_is_near_the_tc_rate(tmp_path, capsys):
    reason = netns_forbidden()
    if reason:
        pytest.skip(reason)
    import runners.testbed as tb
    from simulator import Calibration

    plan = tb.make_plan(2, "200mbit", prefix=f"cal{os.getpid() % 100000}"[:10],
                        subnet=f"198.19.{(os.getpid() * 7 + 3) % 250}.0/24", directory=str(tmp_path / "tb"),
                        python=sys.executable)
    try:
        tb.up(plan)
        out = tmp_path / "cal.json"
        code = main(["calibrate", "--spec", str(tmp_path / "tb" / "cluster.yml"), "--sizes", "512k,4m",
                     "--repeats", "5", "--rpc-tensors", "20", "--cache-dir", str(tmp_path), "--output", str(out),
                     "--quiet"])
        assert code == 0, capsys.readouterr().err
    finally:
        tb.down(plan["dir"])
    cal = Calibration.load(out)
    for address, gbit in cal.node_bandwidth_gbit.items():
        assert gbit == pytest.approx(0.2, rel=0.15), address  # TCP/IP headers cost ~4% of the tc rate


class _FlatTimes:
    """Stands in for the probe's timing (``Prober._timed``) to test what link() does with what it measures."""

    def __init__(self, *answers: dict):
        self.answers, self.repeats = list(answers), []

    def __call__(self, graph, fetches, repeats=None):
        self.repeats.append(repeats)
        return self.answers.pop(0)


def _prober(monkeypatch, timer, said):
    from runners.calibrate import Prober
    from space.cluster import load_cluster

    cluster = types.SimpleNamespace(spec=load_cluster(LOCAL))
    p = Prober(cluster, repeats=2, progress=said.append)
    monkeypatch.setattr(p, "_timed", timer)
    return p


def _declared_bandwidth() -> float:
    from space.cluster import load_cluster

    spec = load_cluster(LOCAL)
    return spec.bandwidth_gbit(spec.nodes[0].address, spec.nodes[1].address)


@pytest.mark.parametrize("second, source, expect_gbit", [
    ({65536: 4.0e-3, 1048576: 4.8e-3, "tiny": 3.9e-3, "base": 3.8e-3}, None, 8 * (1048576 - 65536) / 0.8e-3 / 1e9),
    ({65536: 4.3e-3, 1048576: 4.2e-3, "tiny": 4.0e-3, "base": 3.8e-3}, "its largest message",
     8 * 1048576 / 0.2e-3 / 1e9),
    ({65536: 4.3e-3, 1048576: 4.2e-3, "tiny": 4.5e-3, "base": 3.8e-3}, "the cluster spec", None),
], ids=["resolved-with-more-runs", "lower-bound-from-largest", "declared-in-spec"])
def test_link_whose_time_does_not_grow_with_size_is_timed_again_then_bounded(monkeypatch, second, source,
                                                                             expect_gbit):
    """On a fast link (loopback) a noisy 1 MiB message can come back faster than a 64 KiB one: calibrate times
    it again with more runs, and if it is still flat takes a stated bound instead of stopping with a traceback."""
    flat = {65536: 4.35e-3, 1048576: 4.02e-3, "tiny": 3.9e-3, "base": 3.8e-3}  # as measured when this failed
    timer, said = _FlatTimes(flat, second), []
    fit = _prober(monkeypatch, timer, said).link(0, 1, [65536, 1048576])
    assert timer.repeats == [None, 8]  # the prober's own runs, then four times as many
    assert "time did not grow with message size (4.35, 4.02 ms); again with 8 runs" in said[0]
    assert fit.seconds == [second[65536], second[1048576]]
    expected = _declared_bandwidth() if expect_gbit is None else expect_gbit
    assert fit.bandwidth_gbit == pytest.approx(expected, rel=1e-6)
    if source is None:
        assert len(said) == 1
    else:
        assert len(said) == 2 and f"still flat; bandwidth taken from {source}" in said[1]
