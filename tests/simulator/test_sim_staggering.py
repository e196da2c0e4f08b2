"""The staggering a synchronous PS step loses (hand-computed step times, bandwidth 200 Mbit/s = 25 MB/s): the
calibrated share of the way from the staggered step to every pull, the lockstep compute, then every push, however
the step's PS bytes are split into tensors."""
from __future__ import annotations

import pytest

from sim_helpers import BW, cluster, dev, inventory, predict, zero_cal
from space.strategy import ar_node, partitioned_node, ps_node


@pytest.mark.parametrize("share", [0.0, 0.25, 1.0])
def test_ps_serial_fraction_moves_a_ps_step_toward_every_pull_then_every_push(share):
    """``ps_serial_fraction`` adds back that share of the way from the staggered step (3 L/B: both pulls, then
    the last push) to the unstaggered one (both pulls, then both pushes: 4 L/B); all-reduce is untouched."""
    spec = cluster(3)
    inv = inventory((1000, 1000))
    lb = 4e6 / BW
    cal = zero_cal(spec, ps_serial_fraction=share)
    assert predict(inv, spec, [ps_node("v0", dev(0))], cal).step_time_s == pytest.approx((3 + share) * lb)
    assert predict(inv, spec, [ar_node("v0")], cal).step_time_s == pytest.approx(4 / 3 * lb)
    # with shared CPUs the staggered step is the lockstep compute from the first start (the replica beside the
    # server, at once) to the last push, 1.0 + L/B; the unstaggered one computes in lockstep: 1.0 + 4 L/B
    shared = zero_cal(spec, step_time_s=1.0, alone_step_s=0.4, model_hash="test-model", ps_serial_fraction=share)
    step = predict(inv, spec, [ps_node("v0", dev(0))], shared).step_time_s
    assert step == pytest.approx(1.0 + lb + share * 3 * lb)


@pytest.mark.parametrize("layout", ["whole", "two_shards", "four_shards", "one_to_three", "sparse_in_four"])
def test_a_step_loses_the_share_however_its_ps_bytes_are_split_into_tensors(layout):
    """``ps_serial_fraction`` is the share of the way a step with its PS load on one server loses, whether one
    tensor holds its PS bytes or many do: one variable whole, 3 L/B -> 4 L/B at share 1, and the same in two or four
    shards on that server; two variables of 1 and 3 units, 12 -> 16 units; a sparse table (gathered rows) in four
    shards, its rows' transfers likewise. Scaling the share by the largest tensor's part of the PS bytes (1/2, 1/4,
    3/4) misses the 3-host testbed: the transformer's embedding on one server, its dense variables all-reduced,
    measured 47-53 ms whole or in 2 to 16 shards, where that scaling predicted 57 ms whole and 48-51 ms split
    (``test_sim_measured_steps.py``, the sparse shards)."""
    spec = cluster(3)
    lb = 4e6 / BW

    def shards(name, shape, k):
        return partitioned_node(name, shape, 0, [ps_node(name, dev(0))] * k)

    sparse = inventory((1000, 1000), sparse=("v0",), gather_rows=500)
    inv, nodes, units = {
        "whole": (inventory((1000, 1000)), [ps_node("v0", dev(0))], 1.0),
        "two_shards": (inventory((1000, 1000)), [shards("v0", (1000, 1000), 2)], 1.0),
        "four_shards": (inventory((1000, 1000)), [shards("v0", (1000, 1000), 4)], 1.0),
        "one_to_three": (inventory((1000, 1000), (1000, 3000)), [ps_node("v0", dev(0)), ps_node("v1", dev(0))],
                         4.0),
        # 500 rows pulled (2 MB) and pushed with their int32 ids (2.002 MB): 3 transfers of 2.002 MB staggered,
        # one of 2 MB more unstaggered
        "sparse_in_four": (sparse, [shards("v0", (1000, 1000), 4)], None),
    }[layout]
    steps = [predict(inv, spec, nodes, zero_cal(spec, ps_serial_fraction=s)).step_time_s for s in (0.0, 0.5, 1.0)]
    if units is None:
        push, pull = 500 * (4000 + 4) / BW, 500 * 4000 / BW
        staggered, unstaggered = 2 * pull + push, 2 * pull + 2 * push
    else:
        staggered, unstaggered = 3 * units * lb, 4 * units * lb
    assert steps[0] == pytest.approx(staggered)
    assert steps[1] == pytest.approx(staggered + 0.5 * (unstaggered - staggered))
    assert steps[2] == pytest.approx(unstaggered)


def test_a_synchronous_proxy_is_refreshed_at_the_end_of_the_step_and_loses_its_share_of_that_way():
    """v0 (L/B a transfer) and v1 (3 L/B) on one server, at ``ps_serial_fraction`` 0 and 1. Both pulled: all of the
    way from the staggered 12 L/B to the unstaggered 16 L/B. With v1 proxied its refresh reaches every node at once
    at the end of the step: the unstaggered step is 14 L/B (v0's two pulls before the lockstep start, and v1's
    refresh after its pushes)."""
    spec = cluster(3)
    lb = 4e6 / BW
    inv = inventory((1000, 1000), (1000, 3000))
    for proxied, lost in ((False, 4.0), (True, 2.0)):
        nodes = [ps_node("v0", dev(0)), ps_node("v1", dev(0), local_replication=proxied)]
        steps = [predict(inv, spec, nodes, zero_cal(spec, ps_serial_fraction=s)).step_time_s for s in (0.0, 1.0)]
        assert steps[0] == pytest.approx(12 * lb)
        assert steps[1] == pytest.approx((12 + lost) * lb)


def test_the_spread_of_a_steps_load_is_read_from_the_bytes_its_replicas_pull():
    """v0 (1 unit) on the first server, v1 (3 units) on the second, with the share lost where the load is spread
    as ``ps_lb`` spreads it (0, the busiest server holding half of it) calibrated apart from one server's (1). Both
    pulled, the busiest server holds 3/4 of the load: half of the way from 0 to 1. With v1 proxied (refreshed on
    every node at once, not pulled) the replicas pull from the first server only: the step loses the share of a
    step on one server, as if no spread share were calibrated."""
    spec = cluster(3)
    inv = inventory((1000, 1000), (1000, 3000))
    spread = {"ps_serial_fraction": 1.0, "ps_spread_serial": 0.0, "ps_spread_busiest": 0.5}
    for proxied in (False, True):
        nodes = [ps_node("v0", dev(0)), ps_node("v1", dev(1), local_replication=proxied)]
        step = {share: predict(inv, spec, nodes, zero_cal(spec, ps_serial_fraction=share)).step_time_s
                for share in (0.0, 0.5, 1.0)}
        assert step[1.0] > step[0.0] * 1.05  # the layout loses staggering, so that a wrong share would show
        expected = step[1.0] if proxied else step[0.5]
        assert predict(inv, spec, nodes, zero_cal(spec, **spread)).step_time_s == pytest.approx(expected)
