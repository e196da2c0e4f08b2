"""Hierarchical all-reduce. Built only: every set of member devices gets its own group key, a node's GPUs reduce
inside the node first, and units with and without the hierarchy are not fused. On real servers, four nodes in two
racks (loopback addresses, each rack a unit of two replicas): training equals single-device training, and where the
replicas' units differ in size the flat ring runs."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from space.builders import build_strategy
from space.cluster import ClusterSpec
from space.strategy import Compressor, Strategy, ar_node
from space.validate import validate

from testpaths import STEPS

EXACT = 1e-5  # as in test_transform_correctness.py
FP16 = 1e-2
RACKS = {"nodes": [{"address": "127.0.0.1", "chief": True, "count": 2, "group": "a"},
                   {"address": "127.0.0.3", "count": 2, "group": "b"}]}
GPU_NODES = {"nodes": [{"address": "127.0.0.1", "chief": True, "gpus": [0, 1]},
                       {"address": "127.0.0.2", "gpus": [0, 1]}]}
FP16_UNITS = {"recommender/hidden/kernel:0": "HorovodCompressor", "recommender/score/kernel:0": "HorovodCompressorEF"}


@pytest.fixture(scope="module")
def spec():
    """Shadows the conftest's spec: the module's one cluster is the two racks."""
    return ClusterSpec.from_dict(RACKS)


def _strategy(inv, spec, replicas=None, compressed=None) -> Strategy:
    """``all_reduce_hierarchical``: the recommender's tables all-gathered (flat), its dense variables fused into one
    hierarchical group of 4225 elements (padded to the unit size); ``compressed``: variable -> compressor, each
    variable in a group of its own."""
    compressed = compressed or {}
    nodes = build_strategy("all_reduce_hierarchical", inv, spec).nodes
    for k, node in enumerate(nodes):
        if node.var_name in compressed:
            node.AllReduceSynchronizer.compressor = Compressor.Value(compressed[node.var_name])
            node.AllReduceSynchronizer.group = 1 + k
    return Strategy.build(nodes, replicas or spec.replicas)


class Collective(NamedTuple):
    type: str
    group_size: int
    group_key: int
    device: str
    dtype: str
    hint: str
    name: str


def _collectives(graph) -> list[Collective]:
    from tensorflow.python.framework import tensor_util

    def const(t) -> int:
        return int(tensor_util.MakeNdarray(t.op.get_attr("value")))

    return [Collective(op.type, const(op.inputs[1]), const(op.inputs[2]), op.device, op.inputs[0].dtype.name,
                       op.get_attr("communication_hint").decode(), op.name) for op in graph.get_operations()
            if op.type.startswith("Collective")]


def _assert_one_key_per_member_set(collectives: list[Collective]) -> None:
    members: dict[int, set] = {}
    sizes: dict[int, set] = {}
    for c in collectives:
        members.setdefault(c.group_key, set()).add(c.device)
        sizes.setdefault(c.group_key, set()).add(c.group_size)
    assert all(sizes[k] == {len(members[k])} for k in members), (sizes, members)
    assert len({frozenset(m) for m in members.values()}) == len(members), members


def _device_of(device: str) -> str:
    address, kind, index = device.split(":")
    return f"/job:worker/replica:0/task:{int(address.rsplit('.', 1)[1]) - 1}/device:{kind}:{index}"


def _build(t, strategy, spec):
    from runners.transform import build_train_graph

    return build_train_graph(t, strategy, _device_of, key_base=1 << 20,
                             replica_units=spec.replica_units(strategy.replicas))


def test_gpus_of_a_node_reduce_inside_it_first(traced):
    """Two nodes of two GPUs, every variable hierarchical: each node is a unit; its GPUs exchange chunks and gather
    them inside the node (NCCL), GPU j of one node all-reduces chunk j with GPU j of the other: the network carries
    2 (U - 1)/U of S/n per tower, a third of the flat ring's 2 (N - 1)/N of S."""
    t, inv = traced("mlp")
    spec = ClusterSpec.from_dict(GPU_NODES)
    strategy = Strategy.build([ar_node(v.name, hierarchical=True) for v in inv.variables], spec.replicas)
    g = _build(t, strategy, spec)
    collectives = _collectives(g.graph)
    _assert_one_key_per_member_set(collectives)
    assert {c.hint for c in collectives} == {"nccl"}
    assert sorted(c.type for c in collectives) == ["CollectiveAllToAllV2"] * 4 + ["CollectiveGatherV2"] * 4 + \
        ["CollectiveReduceV2"] * 4
    members: dict[tuple, set] = {}
    for c in collectives:
        members.setdefault((c.type == "CollectiveReduceV2", c.group_key), set()).add(c.device.split("/task:")[1])
    inside = [sorted(m) for (across, _), m in members.items() if not across]
    across = [sorted(m) for (across, _), m in members.items() if across]
    assert sorted(inside) == [["0/device:GPU:0", "0/device:GPU:1"], ["1/device:GPU:0", "1/device:GPU:1"]]
    assert sorted(across) == [["0/device:GPU:0", "1/device:GPU:0"], ["0/device:GPU:1", "1/device:GPU:1"]]
    size = sum(v.num_elements for v in inv.variables)
    assert g.bytes_per_step == pytest.approx(4 * 2 * (2 - 1) / 2 * size / 2 * 4)


def test_units_with_and_without_hierarchy_are_fused_apart(spec, traced):
    t, inv = traced("mlp")
    nodes = [ar_node(v.name, hierarchical=k % 2 == 0) for k, v in enumerate(inv.variables)]
    g = _build(t, Strategy.build(nodes, spec.replicas), spec)
    collectives = _collectives(g.graph)
    _assert_one_key_per_member_set(collectives)
    reduces = sorted(c.group_size for c in collectives if c.type == "CollectiveReduceV2")
    assert reduces == [2, 2, 2, 2, 4, 4, 4, 4]  # one hierarchical group across the racks, one flat ring
    assert sum(c.type == "CollectiveAllToAllV2" for c in collectives) == 4


def test_powersgd_factors_go_through_the_hierarchy(spec, traced):
    """PowerSGD's P and Q all-reduces of the kernels and the biases' uncompressed one: three hierarchical groups."""
    t, inv = traced("mlp")
    nodes = [ar_node(v.name, compressor="PowerSGDCompressor", powersgd_rank=2, hierarchical=True)
             for v in inv.variables]
    collectives = _collectives(_build(t, Strategy.build(nodes, spec.replicas), spec).graph)
    assert sum(c.type == "CollectiveAllToAllV2" for c in collectives) == 3 * 4
    assert {c.group_size for c in collectives} == {2}


def _rel_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12))


def _assert_trains_as_one_device(t, strategy, cluster, tol: float, split: bool = False) -> list[Collective]:
    """Train ``strategy`` STEPS steps (``split``: one step, then the rest in one call) against single-device
    training; returns the graph's collectives."""
    from runners.transform import TrainingJob, reference_train

    ref_vars, _, ref_losses = reference_train(t, len(strategy.replicas), STEPS)
    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        losses: list[float] = []
        job.run(1 if split else STEPS, on_step=lambda _s, _dt, loss: losses.append(loss))
        if split:
            job.set_steps_per_call(STEPS - 1)
            job.run(STEPS - 1, on_step=lambda _s, _dt, loss: losses.append(loss))
        got, _ = job.values()
        collectives = _collectives(job.graph.graph)
    errors = {n: _rel_err(got[n], ref_vars[n]) for n in ref_vars}
    worst = max(errors, key=errors.get)
    assert errors[worst] <= tol, f"{worst}: relative error {errors[worst]:.3g} > {tol}"
    assert losses[0] == pytest.approx(ref_losses[0], rel=1e-5)  # same batches, same start
    return collectives


@pytest.mark.slow
@pytest.mark.parametrize("compressed,tol", [(None, EXACT), (FP16_UNITS, FP16)], ids=["fp32", "fp16"])
def test_equals_single_device(compressed, tol, cluster, spec, traced):
    """Per fused group, each tower: one all-to-all and one all-gather in its rack, one all-reduce across the racks;
    fp16 groups keep fp16 through all three. The fp32 run takes its last steps in one call (copies of the step)."""
    t, inv = traced("recommender")
    strategy = _strategy(inv, spec, compressed=compressed)
    validate(strategy, inv, spec)
    collectives = _assert_trains_as_one_device(t, strategy, cluster, tol, split=compressed is None)
    first = [c for c in collectives if not c.name.startswith("step")]  # not the step's copies
    dtypes = sorted(c.dtype for c in first if c.type == "CollectiveAllToAllV2")
    assert dtypes == ["float16"] * 4 * len(compressed or {}) + ["float32"] * 4
    assert {c.group_size for c in collectives if c.type == "CollectiveReduceV2"} == {2}  # across the two racks
    _assert_one_key_per_member_set(collectives)


@pytest.mark.slow
def test_units_of_different_sizes_run_the_flat_ring(cluster, spec, traced):
    """Three replicas, two of rack a and one of rack b: the strategy asks for the hierarchy, the flat ring runs."""
    t, inv = traced("recommender")
    strategy = _strategy(inv, spec, replicas=spec.replicas[:3])
    collectives = _assert_trains_as_one_device(t, strategy, cluster, EXACT)
    assert sorted({(c.type, c.group_size) for c in collectives}) == [("CollectiveGatherV2", 3),
                                                                      ("CollectiveReduceV2", 3)]
