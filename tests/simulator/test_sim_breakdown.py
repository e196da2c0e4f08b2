"""``Scorer.breakdown``: the predicted step by part adds up to the step, each link carries the ledger's bytes,
and a link is busy for its bytes at its bandwidth."""
from __future__ import annotations

import math

import pytest

from sim_helpers import ADDR, BW, cluster, dev, inventory, mixed_inventory, zero_cal
from simulator import Calibration, Scorer
from space.strategy import Strategy, ar_node, ps_node

A, B, C = ADDR

CASES = {
    "ps": lambda: [ps_node("v0", dev(0)), ps_node("v1", dev(1))],
    "all_reduce": lambda: [ar_node("v0"), ar_node("v1")],
    "mixed": lambda: [ps_node("v0", dev(2)), ar_node("v1")],
}


def _scored(case: str, cal_overrides: dict):
    spec = cluster(3)
    inv = inventory((1000, 250), (300, 10), flops=3e9)
    cal = Calibration.from_spec(spec, **cal_overrides) if cal_overrides else zero_cal(spec)
    scorer = Scorer(inv, spec, cal)
    strategy = Strategy.build(CASES[case](), spec.replicas)
    return scorer, strategy


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("overheads", [{}, {"latency_s": 2e-4, "collective_overhead_s": 1e-3}], ids=["bare", "fixed"])
def test_the_parts_add_up_to_the_predicted_step(case, overheads):
    scorer, strategy = _scored(case, overheads)
    got = scorer.breakdown(strategy)
    assert math.isclose(sum(got.parts.values()), scorer.predict(strategy).step_time_s, rel_tol=1e-9, abs_tol=1e-12)
    assert all(v >= 0 for k, v in got.parts.items() if k != "correction")


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_link_carries_the_ledgers_bytes(case):
    scorer, strategy = _scored(case, {})
    got = scorer.breakdown(strategy)
    assert {(p.src, p.dst): p.bytes for p in got.links} == scorer.ledger(strategy)


def test_a_link_is_busy_for_its_bytes_at_its_bandwidth():
    scorer, strategy = _scored("ps", {})
    got = scorer.breakdown(strategy).busiest_link
    assert got.seconds == pytest.approx(got.bytes / BW)
    assert got.seconds == max(p.seconds for p in scorer.breakdown(strategy).links)


def _links(spec) -> dict:
    scorer = Scorer(inventory((1000, 250)), spec, zero_cal(spec))
    return {(p.src, p.dst): p for p in scorer.breakdown(Strategy.build([ar_node("v0")], spec.replicas)).links}


def test_a_slower_link_is_busy_longer():
    slow, fast = _links(cluster(2, links=[(A, B, "50mbit")])), _links(cluster(2))
    assert slow[(A, B)].bytes == fast[(A, B)].bytes
    assert slow[(A, B)].seconds == pytest.approx(4 * fast[(A, B)].seconds)


def test_a_slower_tower_computes_longer():
    spec = cluster(2)
    cal = zero_cal(spec, device_speed={A: 0.5})
    scorer = Scorer(inventory((100, 10), flops=1e9), spec, cal)
    got = scorer.breakdown(Strategy.build([ar_node("v0")], spec.replicas))
    towers = {r.split(":")[0]: s for r, s in got.tower_compute_s.items()}
    assert towers[A] == pytest.approx(got.compute_s)
    assert towers[B] == pytest.approx(got.compute_s / 2)


def test_a_bigger_model_keeps_its_parts_adding_up():
    spec = cluster(3)
    inv = mixed_inventory(12)
    scorer = Scorer(inv, spec, Calibration.from_spec(spec))
    strategy = Strategy.build([ps_node(v.name, dev(i % 3)) for i, v in enumerate(inv.variables)], spec.replicas)
    got = scorer.breakdown(strategy)
    assert math.isclose(sum(got.parts.values()), got.step_s, rel_tol=1e-9)
    assert sum(p.bytes for p in got.links) == pytest.approx(sum(scorer.ledger(strategy).values()))
