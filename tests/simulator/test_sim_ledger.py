"""The ledger's bytes per link and direction, by hand: what each synchronizer sends where, the ring's chunks as
TensorFlow cuts them (``space.wire``), and the engine charging what the ledger counts. The backend's graphs are
held to the same ledger in ``tests/runners/transform/test_transform_ledger.py``."""
from __future__ import annotations

import dataclasses

import pytest

from sim_helpers import ADDR, BW, cluster, dev, inventory, zero_cal
from simulator import Scorer
from space import wire
from space.cluster import ClusterSpec
from space.inventory import VariableInfo
from space.strategy import Strategy, ar_node, partitioned_node, ps_node

A, B, C = ADDR


def ledger(inv, spec, nodes, replicas=None, cal=None) -> dict:
    return Scorer(inv, spec, cal or zero_cal(spec)).ledger(Strategy.build(nodes, replicas or spec.replicas))


# ---- the ring's chunks (space.wire) -------------------------------------------------------------------------
def test_a_chunk_is_rounded_up_past_the_alignment():
    assert wire.ALIGN_BYTES == 64  # TensorFlow's own compile flags: -DEIGEN_MAX_ALIGN_BYTES=64
    assert wire.chunk_elements(100, 4, 3) == 48  # 34 floats = 136 B, up to 192 B
    assert wire.chunk_elements(64, 4, 4) == 32  # 16 floats = 64 B, a whole multiple: one more, 128 B


def test_each_hop_sends_twice_the_tensor_less_two_chunks():
    """100 floats over 3 ranks: chunks of 48, 48 and 4; rank r sends all but chunk r + 1, then all but r + 2."""
    assert wire.ring_reduce_sent(100, 4, 3) == [4 * (200 - 48 - 4), 4 * (200 - 4 - 48), 4 * (200 - 48 - 48)]


@pytest.mark.parametrize("elements,n", [(1_000_003, 3), (5, 4), (4096, 8), (7, 2)], ids=str)
def test_a_ring_sends_2_n_minus_1_times_the_tensor_in_all(elements, n):
    sent = wire.ring_reduce_sent(elements, 4, n)
    assert sum(sent) == 2 * (n - 1) * elements * 4
    assert max(sent) - min(sent) <= 2 * wire.chunk_elements(elements, 4, n) * 4


def test_tensorflow_ranks_tasks_by_name():
    devices = [f"/job:worker/replica:0/task:{t}/device:CPU:0" for t in (2, 10, 1)]
    assert sorted(devices, key=wire.rank_key) == [devices[2], devices[1], devices[0]]


def test_a_gather_and_an_all_to_all_send_as_their_algorithms_do():
    assert wire.sends("gather", [A, B, C], 10, 4) == {(A, B): 80, (B, C): 80, (C, A): 80}
    assert wire.sends("all_to_all", [A, A, B], 12, 4) == {(A, B): 32, (B, A): 32}


# ---- parameter servers --------------------------------------------------------------------------------------
def test_every_remote_replica_pushes_and_pulls_a_ps_variable():
    spec = cluster(3)
    got = ledger(inventory((1000, 250)), spec, [ps_node("v0", dev(0))])
    assert got == {(B, A): 1e6, (C, A): 1e6, (A, B): 1e6, (A, C): 1e6}


def test_shards_go_to_their_servers():
    spec = cluster(3)
    parts = partitioned_node("v0", (999, 1000), 0, [ps_node("v0", dev(i)) for i in range(3)])
    third = 333 * 1000 * 4
    got = ledger(inventory((999, 1000)), spec, [parts])
    assert got == {(a, b): 2 * third for a in ADDR for b in ADDR if a != b}


def test_a_synchronous_proxy_is_refreshed_once_per_node_an_asynchronous_one_per_replica():
    spec = cluster(2, cpus=[1, 2])
    replicas = [dev(0), dev(1, 0), dev(1, 1)]
    inv = inventory((1000, 250))
    sync = ledger(inv, spec, [ps_node("v0", dev(0), local_replication=True)], replicas)
    asynchronous = ledger(inv, spec, [ps_node("v0", dev(0), local_replication=True, sync=False)], replicas)
    assert sync == {(B, A): 2e6, (A, B): 1e6}  # two replicas push; node B's proxy is refreshed once
    assert asynchronous == {(B, A): 2e6, (A, B): 2e6}  # each tower's update refreshes its node's proxy


def _table(gathers):
    v = VariableInfo("v0", (100_000, 64), "float32", sparse=True, gather_rows=32, gathers=gathers)
    return dataclasses.replace(inventory((1,)), variables=(v,))


@pytest.mark.parametrize("gathers,pushed", [(1, 32 * 256), (2, 32 * 260), (None, 32 * 260)],
                         ids=["one_lookup", "two_lookups", "unknown"])
def test_a_gathered_table_sends_its_ids_then_its_rows(gathers, pushed):
    """The replica sends its 32 ids (int32) and gets the rows back; the gradient of a table's one lookup has the ids
    that lookup sent, so its push is rows alone; two lookups' gradient carries its own ids."""
    spec = cluster(2)
    got = ledger(_table(gathers), spec, [ps_node("v0", dev(0))])
    assert got == {(B, A): 32 * 4 + pushed, (A, B): 32 * 256}


def test_a_proxied_table_is_refreshed_whole_and_pushed_with_its_ids():
    spec = cluster(2)
    got = ledger(_table(1), spec, [ps_node("v0", dev(0), local_replication=True)])
    assert got == {(B, A): 32 * 260, (A, B): 100_000 * 256}


# ---- all-reduce ---------------------------------------------------------------------------------------------
def test_a_ring_goes_from_each_node_to_the_next():
    spec = cluster(3)
    got = ledger(inventory((25,)), spec, [ar_node("v0")])
    sent = wire.ring_reduce_sent(25, 4, 3)
    assert got == {(A, B): sent[0], (B, C): sent[1], (C, A): sent[2]}


def test_a_fused_group_is_one_ring_and_fp16_halves_it():
    spec = cluster(2)
    inv = inventory((10, 10), (30,))
    fused = ledger(inv, spec, [ar_node("v0", group=0), ar_node("v1", group=0)])
    half = ledger(inv, spec, [ar_node(v, group=0, compressor="HorovodCompressor") for v in ("v0", "v1")])
    assert fused == {(A, B): 130 * 4, (B, A): 130 * 4}
    assert half == {(A, B): 130 * 2, (B, A): 130 * 2}


def test_powersgd_sends_its_factors_no_wider_than_the_matrix():
    """Rank 4 on a 100 x 3 matrix: P is 100 x 3 and Q 3 x 3, each all-reduced; a 100 x 1 column goes whole."""
    spec = cluster(2)
    inv = inventory((100, 3), (100, 1))
    got = ledger(inv, spec, [ar_node("v0", compressor="PowerSGDCompressor", powersgd_rank=4),
                             ar_node("v1", compressor="PowerSGDCompressor", powersgd_rank=4)])
    assert got == {(A, B): (300 + 9 + 100) * 4, (B, A): (300 + 9 + 100) * 4}


def test_a_gathered_gradient_sends_every_replicas_ids_and_rows_around_the_ring():
    spec = cluster(3)
    got = ledger(_table(1), spec, [ar_node("v0", gather_sparse=True)])
    hop = 2 * 32 * (256 + 4)  # the other two replicas' rows and ids
    assert got == {(A, B): hop, (B, C): hop, (C, A): hop}


def test_a_hierarchical_all_reduce_exchanges_inside_racks_then_rings_across():
    """Two racks of two nodes, 10 floats padded to 10: inside each rack an all-to-all of 5-float chunks, across
    the racks a ring of each chunk between the nodes of one position, inside each rack an all-gather."""
    spec = ClusterSpec.from_dict({"nodes": [{"address": "198.18.0.1", "chief": True, "count": 2, "group": "a"},
                                            {"address": "198.18.0.3", "count": 2, "group": "b"}]})
    n = ["198.18.0.1", "198.18.0.2", "198.18.0.3", "198.18.0.4"]
    got = ledger(inventory((10,)), spec, [ar_node("v0", hierarchical=True)])
    inside = {(n[0], n[1]): 40, (n[1], n[0]): 40, (n[2], n[3]): 40, (n[3], n[2]): 40}  # 20 B each way, twice
    across = {(n[0], n[2]): 20, (n[2], n[0]): 20, (n[1], n[3]): 20, (n[3], n[1]): 20}
    assert got == {k: inside.get(k, 0) + across.get(k, 0) for k in set(inside) | set(across)}


# ---- what every step moves, and the engine charging it --------------------------------------------------------
def _with_state(inv, *state):
    return dataclasses.replace(inv, state=tuple(VariableInfo(f"s{i}", shape, dtype, trainable=False)
                                                for i, (shape, dtype) in enumerate(state)))


def test_the_state_goes_out_once_per_node_and_its_floats_come_back_per_tower():
    spec = cluster(2, cpus=[1, 2])
    replicas = [dev(0), dev(1, 0), dev(1, 1)]
    inv = _with_state(inventory((10,)), ((16,), "float32"), ((2,), "int64"))
    lockstep = ledger(inv, spec, [ar_node("v0")], replicas)
    ring = wire.sends("reduce", [A, B, B], 10, 4)
    assert lockstep == {(A, B): ring[(A, B)] + 64 + 16, (B, A): ring[(B, A)] + 2 * 64}
    towers = ledger(inv, spec, [ps_node("v0", dev(0), sync=False)], replicas)
    assert towers == {(A, B): 2 * (40 + 80), (B, A): 2 * (40 + 80)}  # each tower reads and writes all of it


def test_the_engine_charges_the_state_it_counts():
    spec = cluster(2)
    inv = inventory((10,))
    big = _with_state(inv, ((2_500_000,), "float32"))  # 10 MB each way
    nodes = [ar_node("v0")]
    plain, stateful = (Scorer(x, spec, zero_cal(spec)).predict(Strategy.build(nodes, spec.replicas))
                       for x in (inv, big))
    assert stateful.busiest_resource_s == pytest.approx(plain.busiest_resource_s + 10e6 / BW)
    assert stateful.wire_bytes == pytest.approx(plain.wire_bytes + 20e6)


@pytest.mark.parametrize("nodes", [[ps_node("v0", dev(0)), ps_node("v1", dev(1))],
                                   [ar_node("v0"), ps_node("v1", dev(0), local_replication=True)],
                                   [ar_node("v0", compressor="HorovodCompressor"), ar_node("v1")]],
                         ids=["ps", "proxy_and_ring", "fp16"])
def test_the_ledger_adds_up_to_the_predicted_wire_bytes(nodes):
    spec = cluster(2)
    inv = inventory((256, 64), (64,))
    s = Strategy.build(nodes, spec.replicas)
    scorer = Scorer(inv, spec, zero_cal(spec))
    assert sum(scorer.ledger(s).values()) == pytest.approx(scorer.predict(s).wire_bytes)
