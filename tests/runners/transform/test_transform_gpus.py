"""GPU replicas without a GPU: the graph built for a node's ``gpus:`` puts one tower on each GPU, its pipeline and
variables with it, and all-reduces between GPUs by NCCL (CPU towers use the ring). Built only, never run."""
from __future__ import annotations

import pytest

from space.builders import build_strategy
from space.cluster import ClusterSpec


def _device_of(device: str) -> str:
    address, kind, index = device.split(":")
    return f"/job:worker/replica:0/task:{int(address.rsplit('.', 1)[1]) - 1}/device:{kind}:{index}"


@pytest.fixture(scope="module")
def gpu_spec():
    return ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True, "gpus": [0, 1]},
                                            {"address": "127.0.0.2", "gpus": [0, 1]}]})


@pytest.mark.parametrize("alias,hint", [("all_reduce", "nccl"), ("ps", None)])
def test_every_gpu_is_a_tower(alias, hint, gpu_spec, traced):
    from runners.transform import build_train_graph

    t, inv = traced("mlp")
    strategy = build_strategy(alias, inv, gpu_spec)
    assert strategy.replicas == ["127.0.0.1:GPU:0", "127.0.0.1:GPU:1", "127.0.0.2:GPU:0", "127.0.0.2:GPU:1"]
    g = build_train_graph(t, strategy, _device_of, key_base=1 << 20)
    assert g.num_towers == 4
    ops = g.graph.get_operations()
    for r, device in enumerate(["task:0/device:GPU:0", "task:0/device:GPU:1", "task:1/device:GPU:0",
                                "task:1/device:GPU:1"]):
        matmuls = [op for op in ops if op.name.startswith(f"tower{r}/") and op.type == "MatMul"]
        assert matmuls and all(device in op.device for op in matmuls)
        iterators = [op for op in ops if op.name.startswith(f"input{r}/") and op.type == "IteratorGetNext"]
        assert iterators and all(device in op.device for op in iterators)
    collectives = [op for op in ops if op.type.startswith("CollectiveReduce")]
    if hint is None:
        assert not collectives
    else:
        assert collectives and {op.get_attr("communication_hint").decode() for op in collectives} == {hint}
