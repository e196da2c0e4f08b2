"""Replicas that share CPUs (nodes emulated on one machine): a replica alone computes faster than in lockstep, a
server's staggering lets PS replicas compute at that rate, and a synchronous PS variable is updated once where
all-reduce updates every replica's copy. Hand-computed step times (bandwidth 200 Mbit/s = 25 MB/s)."""
from __future__ import annotations

import dataclasses

import pytest

from sim_helpers import BW, cluster, dev, inventory, predict, zero_cal
from space.strategy import ar_node, ps_node


def _shared_cpus(spec, lockstep: float, alone: float | None):
    return zero_cal(spec, step_time_s=lockstep, alone_step_s=alone, model_hash="test-model")


def test_replicas_sharing_cpus_hide_the_middle_transfers_under_compute():
    """Nodes emulated on one machine share its CPUs: three replicas computing at once take 1.0 s, one alone
    0.4 s. The server's pulls and pushes stagger the replicas, so on the two chains (the replica beside the server
    reading in place, then every push; every pull, then the last push) each replica computes alone: 0.4 + 2 L/B
    and 0.4 + 3 L/B = 0.88 s; but all three computations still need the lockstep 1.0 s between the first start
    (at once, beside the server) and the last push: 1.0 + L/B = 1.16 s, not 1.0 + 3 L/B = 1.48 s.
    Measured on the 3-host testbed, where one replica alone is 2.5-5x faster than in lockstep: `ps` and `ps_lb`
    ran 13-28% below the lockstep model on cnn, recommender and transformer (runs/fid3)."""
    spec = cluster(3)
    inv = inventory((1000, 1000))
    nodes = [ps_node("v0", dev(0))]
    lb = 4e6 / BW
    assert predict(inv, spec, nodes, _shared_cpus(spec, 1.0, None)).step_time_s == pytest.approx(1.0 + 3 * lb)
    assert predict(inv, spec, nodes, _shared_cpus(spec, 1.0, 0.4)).step_time_s == pytest.approx(1.0 + lb)
    # where the network dominates, the chains do: 0.4 + 3 L/B = 0.88 s > 0.5 + L/B = 0.66 s
    assert predict(inv, spec, nodes, _shared_cpus(spec, 0.5, 0.4)).step_time_s == pytest.approx(0.4 + 3 * lb)
    # separate machines (alone as fast as lockstep, or slower: noise) keep the lockstep model
    assert predict(inv, spec, nodes, _shared_cpus(spec, 1.0, 1.2)).step_time_s == pytest.approx(1.0 + 3 * lb)


def test_replicas_sharing_cpus_put_every_tensors_rpc_work_on_the_shared_cpus():
    """The probe times tiny tensors moved from one task to another. On separate machines the two ends work in
    parallel, so each end's NIC resource carries the whole time: three of the four transfers' RPCs on the critical
    path (test_per_rpc_overhead_paid_per_tensor_at_the_server). Nodes emulated on one machine share its CPUs: the
    probe's time is both ends' work, on the cores every other pair of nodes uses too, so it goes on one resource,
    the shared CPUs, in parallel with the NICs' bytes (here the network dominates: 0.2 + 3 L/B, the RPCs hidden)."""
    spec = cluster(3)
    inv = inventory((1000, 1000))
    nodes = [ps_node("v0", dev(0))]
    lb, rpc = 4e6 / BW, 1e-3
    shared = zero_cal(spec, step_time_s=0.5, alone_step_s=0.2, model_hash="test-model", rpc_overhead_s=rpc)
    step = predict(inv, spec, nodes, shared)
    assert step.step_time_s == pytest.approx(0.2 + 3 * lb)
    # the busiest resource is the server's send, two pulls (its receive: two pushes); the shared CPUs carry the two
    # remote replicas' pulls and pushes, four moves at the probe's time each, 4 ms
    assert step.busiest_resource_s == pytest.approx(2 * lb)
    apart = shared.replace(alone_step_s=None)
    assert predict(inv, spec, nodes, apart).step_time_s == pytest.approx(0.5 + 3 * lb + 3 * rpc)
    # separate machines whose slowest replica lags one alone by 10% (not sharing: the whole time at each end)
    straggler = shared.replace(alone_step_s=0.45)
    assert predict(inv, spec, nodes, straggler).step_time_s == pytest.approx(0.45 + 3 * lb + 3 * rpc)


@pytest.mark.parametrize("servers", [1, 3])
def test_replicas_sharing_cpus_do_the_rpc_work_of_tensors_spread_over_servers_no_faster(servers):
    """Nine tiny tensors on one server, or three on each of three: every tensor is pushed by two remote replicas
    and pulled by two, 36 moves of 1 ms on the shared CPUs either way. On separate machines each end's NIC
    resource carries its own moves: 18 ms at the one server's send (and its receive), spread 12 ms at each node's
    receive (six pushes into its server, six pulls from the other two). Half the probe's time at each end, the NICs
    in parallel, predicted the transformer's steps 0.03-0.14 ms fast per PS tensor on twelve fidelity runs and, on
    three, 0.05-0.10 ms slow per tensor on the busiest server: with one resource, their mean MAPE went from 9.0% to
    8.6%, the worst run's tau from 0.783 to 0.824."""
    spec = cluster(3)
    inv = inventory(*[(1,)] * 9)
    nodes = [ps_node(f"v{i}", dev(i % servers)) for i in range(9)]
    rpc = 1e-3
    shared = zero_cal(spec, step_time_s=0.5, alone_step_s=0.2, model_hash="test-model", rpc_overhead_s=rpc)
    assert predict(inv, spec, nodes, shared).busiest_resource_s == pytest.approx(36 * rpc, rel=1e-3)
    apart = shared.replace(alone_step_s=None)
    assert predict(inv, spec, nodes, apart).busiest_resource_s == pytest.approx({1: 18, 3: 12}[servers] * rpc, rel=1e-3)


@pytest.mark.parametrize("placement,copies", [("ar", 3), ("ps", 1), ("half", 2)])
def test_replicas_sharing_cpus_update_a_ps_variable_once_and_an_all_reduced_one_per_replica(placement, copies):
    """The lockstep step (1.0 s) is three replicas each applying the optimizer to its own copy of every variable;
    one replica alone takes 0.4 s, of which the update is 0.3 s. A synchronous PS variable is updated once, on
    its server, so an all-PS step computes 0.1 + 0.3 / 3 of one replica's 0.4 s, scaled to lockstep: 0.5 s; two
    equal variables, one on each, 0.1 + 0.2 = 0.3 of 0.4: 0.75 s. All-reduce keeps every copy: 1.0 s. The
    recommender's 4 MB of tables under Adam took 2.7-3.4 ms to update in a 5.7-6.1 ms step alone; with this term
    its 30 strategies of runs/fid12 and fid18 were predicted with MAPE 3.6% instead of 7.3 and 7.4%."""
    spec = cluster(3)
    inv = inventory((1000, 1000), (1000, 1000))
    nodes = {"ar": [ar_node("v0"), ar_node("v1")], "ps": [ps_node("v0", dev(0)), ps_node("v1", dev(1))],
             "half": [ar_node("v0"), ps_node("v1", dev(0))]}[placement]
    cal = zero_cal(spec, step_time_s=1.0, alone_step_s=0.4, model_hash="test-model")
    compute = 1.0 * (0.4 - 0.3 + copies * 0.3 / 3) / 0.4
    assert predict(inv, spec, nodes, cal.replace(update_s=0.3)).compute_s == pytest.approx(compute)
    assert predict(inv, spec, nodes, cal).compute_s == pytest.approx(1.0)  # not measured: no update term
    # on separate machines a replica alone is no faster than in lockstep: the updates run in parallel, unchanged
    apart = cal.replace(alone_step_s=1.0, update_s=0.3)
    assert predict(inv, spec, nodes, apart).compute_s == pytest.approx(1.0)


@pytest.mark.parametrize("placement,copies", [("ar", 3), ("ps", 1), ("half", 2)])
def test_the_updates_share_measured_in_the_lockstep_step_sets_what_a_ps_step_saves(placement, copies):
    """The updates' share of the lockstep step measured in it (calibrate: with and without them), 0.6: an all-PS
    step of three replicas computes 1 - 0.6 + 0.6 / 3 = 0.6 s of the 1.0 s, half on servers 0.8 s, all-reduce
    1.0 s. It wins over the probe's update (0.3 s of 0.4 alone would say 0.75). On three emulated nodes the
    recommender's Adam updates took 43% of that step, and the probe's one update 22% of one replica alone."""
    spec = cluster(3)
    inv = inventory((1000, 1000), (1000, 1000))
    nodes = {"ar": [ar_node("v0"), ar_node("v1")], "ps": [ps_node("v0", dev(0)), ps_node("v1", dev(1))],
             "half": [ar_node("v0"), ps_node("v1", dev(0))]}[placement]
    cal = zero_cal(spec, step_time_s=1.0, alone_step_s=0.4, model_hash="test-model", update_s=0.3, update_share=0.6)
    assert predict(inv, spec, nodes, cal).compute_s == pytest.approx(1.0 - 0.6 * (1 - copies / 3))
    assert predict(inv, spec, nodes, cal.replace(update_share=0.0)).compute_s == pytest.approx(1.0)


def test_the_update_of_a_sparse_table_under_sgd_counts_the_rows_touched():
    """Plain SGD scatters a sparse gradient into the rows a step touches; momentum and Adam densify it (Keras'
    semantics), so they update every row. A 1000-row table touching 100 rows beside a dense 100-row matrix of
    the same width: under SGD the table is half the update work, under Adam 1000/1100 of it."""
    spec = cluster(3)
    cal = zero_cal(spec, step_time_s=1.0, alone_step_s=0.4, model_hash="test-model", update_s=0.3)
    nodes = [ps_node("v0", dev(0)), ar_node("v1")]  # the table updated once, the matrix by every replica
    for optimizer, table_share in (("sgd", 0.5), ("adam", 1000 / 1100)):
        inv = inventory((1000, 64), (100, 64), sparse=["v0"], gather_rows=100)
        inv = dataclasses.replace(inv, optimizer={"name": optimizer})
        copies = table_share * 1 + (1 - table_share) * 3
        expected = (0.4 - 0.3 + copies * 0.3 / 3) / 0.4
        assert predict(inv, spec, nodes, cal).compute_s == pytest.approx(expected), optimizer


def test_replicas_sharing_cpus_change_nothing_for_all_reduce():
    """All-reduce keeps the replicas in lockstep: nothing staggers them, so they compute at the lockstep rate."""
    spec = cluster(3)
    nodes = [ar_node("v0")]
    inv = inventory((1000, 1000))
    lockstep = predict(inv, spec, nodes, _shared_cpus(spec, 1.0, None)).step_time_s
    assert predict(inv, spec, nodes, _shared_cpus(spec, 1.0, 0.4)).step_time_s == pytest.approx(lockstep)
    assert lockstep == pytest.approx(1.0 + 4 / 3 * 4e6 / BW)
