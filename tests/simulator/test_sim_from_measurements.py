"""``simulator.to_calibration``: what ``autotune calibrate`` measured (the runners' plain ``Measurements``) -> a
Calibration, without TensorFlow: the per-link alpha-beta fits, the NICs and slower links, the all-reduce factor and
overheads, the difference probes, the PowerSGD constants, the model's steps. The anchor steps' costs are in
``test_sim_anchor_costs.py``."""
from __future__ import annotations

import dataclasses
import types

import pytest
from calibrate_helpers import MIB, measurements

from runners.calibrate import LinkTiming
from simulator import fit_link, powersgd_constants, powersgd_flops, to_calibration
from space.anchors import PSGD_LARGE, PSGD_LARGE_COUNT, PSGD_SMALL, PSGD_SMALL_COUNT


def test_a_link_is_fitted_from_its_sizes_or_takes_the_bound_its_probe_took():
    """Bandwidth from the slope of time against size; latency from a 4-byte message less the session's own cost,
    never below 0; a link whose time did not grow with size takes the probe's bound."""
    secs = [0.001 + s / (0.5e9 / 8) for s in (MIB, 4 * MIB)]
    fit = fit_link(LinkTiming("a", "b", [MIB, 4 * MIB], secs, base_s=0.001, tiny_s=0.0012))
    assert fit.bandwidth_gbit == pytest.approx(0.5) and fit.latency_s == pytest.approx(2e-4)
    assert (fit.src, fit.dst, fit.sizes, fit.seconds, fit.base_s) == ("a", "b", [MIB, 4 * MIB], secs, 0.001)
    flat = fit_link(LinkTiming("a", "b", [MIB, 4 * MIB], [0.002, 0.002], base_s=0.001, tiny_s=0.0009,
                               floor_gbit=7.0))
    assert flat.bandwidth_gbit == 7.0 and flat.latency_s == 0.0


def test_to_calibration_derives_every_constant(clusters):
    spec = clusters["localhost"]
    a, b = (n.address for n in spec.nodes)
    m = measurements({(a, b): 2.0, (b, a): 2.0}, 2)
    inv = types.SimpleNamespace(model_hash="abc123", flops_per_step=1e9)
    cal = to_calibration(m, spec, inv)
    assert cal.node_bandwidth_gbit == pytest.approx({a: 2.0, b: 2.0}) and cal.link_bandwidth_gbit == {}
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
    m = dataclasses.replace(measurements({(a, b): 2.0, (b, a): 2.0}, 2), chain_hops=(2, 22),
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


def test_the_step_overhead_is_a_calls_spread_over_the_steps_of_the_calls_calibrate_timed(clusters):
    """calibrate times the model's steps several to a call, as profile does: spanning the nodes costs a call once,
    so a step pays its share, and the unsynchronized step's compute is what is left without that share."""
    from autotune.calibration import format_table

    spec = clusters["localhost"]
    a, b = (n.address for n in spec.nodes)
    m = dataclasses.replace(measurements({(a, b): 2.0, (b, a): 2.0}, 2), run_all_tasks_s=0.003, run_one_task_s=0.001,
                            steps_per_call={"alone": 8, "nosync": 4, "noupdate": 4})
    inv = types.SimpleNamespace(model_hash="abc123", flops_per_step=1e9)
    cal = to_calibration(m, spec, inv)
    assert cal.step_overhead_s == pytest.approx(0.0005) and cal.step_time_s == pytest.approx(0.0195)
    table = format_table(m, cal)
    assert "10.00 ms (8 steps per call)" in table and "20.00 ms (4 steps per call) (compute 19.50 ms" in table


def test_powersgd_constants_from_a_small_and_a_large_probe():
    fixed, per_flop = 3e-4, 2e-11
    small = PSGD_SMALL_COUNT * (fixed + per_flop * powersgd_flops(*PSGD_SMALL))
    large = PSGD_LARGE_COUNT * (fixed + per_flop * powersgd_flops(*PSGD_LARGE))
    got = powersgd_constants(small, large)
    assert got["powersgd_matrix_s"] == pytest.approx(fixed) and got["powersgd_s_per_flop"] == pytest.approx(per_flop)


def test_only_a_clearly_slower_link_gets_its_own_entry():
    from space.cluster import ClusterSpec

    spec = ClusterSpec.from_dict({"nodes": [{"address": f"127.0.0.{i}", "chief": i == 1} for i in (1, 2, 3)]})
    a, b, c = (n.address for n in spec.nodes)
    m = measurements({(a, b): 1.0, (b, a): 1.0, (a, c): 0.98, (c, a): 1.0, (b, c): 0.5, (c, b): 0.5}, 3)
    cal = to_calibration(m, spec)
    assert cal.link_bandwidth_gbit == pytest.approx({f"{b}|{c}": 0.5})
    assert cal.node_bandwidth_gbit[c] == pytest.approx(1.0) and cal.step_time_s is None
