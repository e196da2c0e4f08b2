"""The roofline lower bound and the distance of predictions to it."""
from __future__ import annotations

import numpy as np
import pytest

from sim_helpers import BW, cluster, dev, inventory, zero_cal
from simulator import Calibration, Scorer, distance, lower_bound
from space.builders import aliases, build_strategy
from space.inventory import Inventory
from space.strategy import Strategy, ar_node, ps_node


@pytest.mark.parametrize("nodes,factor", [(2, 1.0), (3, 4 / 3)], ids=["two", "three"])
def test_lower_bound_two_n_minus_one_over_n(nodes, factor):
    b = lower_bound(inventory((10_000, 1000)), cluster(nodes))
    assert b.comm_s == pytest.approx(factor * 40e6 / BW) and b.compute_s == 0 and b.step_s == b.comm_s


def test_lower_bound_with_a_server_only_node():
    spec = cluster(3)
    b = lower_bound(inventory((10_000, 1000)), spec, replicas=[dev(0)])
    assert b.nodes == 1 and b.extra_servers == 2 and b.comm_s == 0


def test_byteps_bound_with_extra_servers():
    spec = cluster(3)
    b = lower_bound(inventory((10_000, 1000)), spec, replicas=[dev(0), dev(1)])
    # n = 2, k = 1: 2n(n-1) / (n^2 + kn - 2k) = 4 / 4
    assert (b.nodes, b.extra_servers) == (2, 1) and b.comm_s == pytest.approx(40e6 / BW)


def test_sparse_gradient_counts_rows_touched():
    b = lower_bound(inventory((100_000, 64), sparse=["v0"], gather_rows=32), cluster(2))
    assert b.comm_s == pytest.approx(32 * 256 / BW)


def test_replicas_sharing_cpus_bound_the_step_by_one_replica_alone():
    # their lockstep step holds every replica's optimizer update, which a parameter server does once
    spec = cluster(2)
    inv = inventory((10_000, 1000))
    cal = Calibration.from_spec(spec, step_time_s=0.017, model_hash=inv.model_hash)
    assert lower_bound(inv, spec, cal).compute_s == pytest.approx(0.017)
    shared = cal.replace(alone_step_s=0.0055)
    assert lower_bound(inv, spec, shared).compute_s == pytest.approx(0.0055)
    assert lower_bound(inv, spec, cal.replace(alone_step_s=0.02)).compute_s == pytest.approx(0.017)


def test_with_the_update_measured_the_bound_stays_below_an_all_ps_step():
    """Lockstep 17 ms, one replica alone 5.5 ms of which 3.4 ms is the optimizer update (the recommender's
    calibration): with every variable updated once, on servers, two replicas compute 17 * (5.5 - 1.7) / 5.5 =
    11.7 ms in lockstep, above one replica alone, which stays the floor. Where the lockstep step is only 1.2x
    one replica alone, the all-PS step computes below it (1.2 * 3.8 / 5.5 of it), and that is the floor."""
    spec = cluster(2)
    inv = inventory((10_000, 1000))
    cal = Calibration.from_spec(spec, step_time_s=0.017, alone_step_s=0.0055, update_s=0.0034,
                                model_hash=inv.model_hash)
    assert lower_bound(inv, spec, cal).compute_s == pytest.approx(0.0055)
    close = cal.replace(step_time_s=1.2 * 0.0055)
    bound = lower_bound(inv, spec, close)
    assert bound.compute_s == pytest.approx(1.2 * (0.0055 - 0.0017))
    step = Scorer(inv, spec, close).predict(Strategy.build([ps_node("v0", dev(0))], spec.replicas))
    assert step.compute_s >= bound.compute_s - 1e-12 and step.step_time_s >= bound.step_s


def test_roofline_with_compute_and_wire_bytes():
    spec = cluster(2)
    inv = inventory((10_000, 1000), flops=2e9)
    b = lower_bound(inv, spec, Calibration.from_spec(spec, compute_flops_per_s=1e9), wire_bytes=20e6)
    assert (b.compute_s, b.step_s, b.ceiling_s) == pytest.approx((2.0, 2.0, 2.0 + 40e6 / BW))
    assert b.comm_wire_s == pytest.approx(20e6 / BW)


def test_distance_of_an_ideal_all_reduce_is_zero():
    spec = cluster(2)
    inv = inventory((10_000, 1000))
    p = Scorer(inv, spec, zero_cal(spec)).predict(Strategy.build([ar_node("v0")], spec.replicas))
    d = distance(p, lower_bound(inv, spec, zero_cal(spec)))
    assert d.gap == pytest.approx(0.0) and d.eta == pytest.approx(1.0)


def test_distance_of_a_float():
    spec = cluster(2)
    d = distance(2 * 1.6, lower_bound(inventory((10_000, 1000)), spec))
    assert d.gap == pytest.approx(1.0) and d.eta is None


UNCOMPRESSED = [a for a in aliases() if "fp16" not in a and "powersgd" not in a]  # compression may beat T_lb(S)


@pytest.mark.parametrize("alias", UNCOMPRESSED)
def test_no_uncompressed_builder_beats_the_bound(alias):
    spec = cluster(3)
    inv = Inventory.synthetic([("emb", (20_000, 64)), ("w", (512, 256)), ("b", (256,))], sparse=["emb"],
                              flops_per_step=1e9)
    cal = Calibration.from_spec(spec)
    p = Scorer(inv, spec, cal).predict(build_strategy(alias, inv, spec))
    bound = lower_bound(inv, spec, cal)
    assert p.step_time_s >= bound.step_s and np.isfinite(distance(p, bound).gap)
