"""Small clusters, inventories and calibrations whose step times can be computed by hand."""
from __future__ import annotations

from space.cluster import ClusterSpec
from space.inventory import Inventory, VariableInfo
from simulator import Calibration, Scorer
from space.strategy import Strategy

BW = 200e6 / 8  # 200 Mbit/s in bytes per second
ADDR = ["198.18.0.1", "198.18.0.2", "198.18.0.3"]


def cluster(nodes: int = 2, bandwidth: str = "200mbit", links=(), cpus=None) -> ClusterSpec:
    """``nodes`` hosts, one CPU replica each (or ``cpus[i]`` CPUs), equal NICs unless ``links`` override."""
    return ClusterSpec.from_dict({
        "nodes": [{"address": ADDR[i], "chief": i == 0, "network_bandwidth": bandwidth,
                   "cpus": list(range(cpus[i])) if cpus else [0]} for i in range(nodes)],
        "links": [{"from": a, "to": b, "bandwidth": bw} for a, b, bw in links]})


def zero_cal(spec: ClusterSpec, **overrides) -> Calibration:
    """Bandwidth only: no latencies, overheads, reduction or cast costs, no per-job memory (overridable)."""
    base = dict(latency_s=0.0, collective_overhead_s=0.0, rpc_overhead_s=0.0, reduce_s_per_byte=0.0,
                cast_s_per_byte=0.0, job_bytes=0.0, job_bytes_per_op=0.0, master_bytes_per_op=0.0,
                master_initial_share=0.0)
    return Calibration.from_spec(spec, **{**base, **overrides})


def inventory(*shapes, sparse=(), flops: float = 0.0, gather_rows: int = 32) -> Inventory:
    """Variables v0, v1, ... of the given shapes (float32); ``sparse`` names gather ``gather_rows`` rows."""
    variables = tuple(VariableInfo(name=f"v{i}", shape=tuple(s), dtype="float32", sparse=f"v{i}" in sparse,
                                   gather_rows=gather_rows if f"v{i}" in sparse else None)
                      for i, s in enumerate(shapes))
    return Inventory(model_path="<test>", model_hash="test-model", variables=variables, flops_per_step=flops,
                     batch_size=gather_rows)


def dev(i: int, cpu: int = 0) -> str:
    return f"{ADDR[i]}:CPU:{cpu}"


def predict(inv, spec, nodes, cal=None, replicas=None):
    """The scorer's prediction of the strategy ``nodes`` (every replica of ``spec`` unless given)."""
    strategy = Strategy.build(nodes, replicas or spec.replicas)
    return Scorer(inv, spec, cal or zero_cal(spec)).predict(strategy)


def mixed_inventory(num_vars: int) -> Inventory:
    """Two sparse embedding tables, then conv and dense kernels with their biases: every kind of column the
    engines treat apart, in ``num_vars`` variables."""
    import numpy as np

    shapes = [("emb_a", (4000, 32)), ("emb_b", (1000, 16))]
    rng = np.random.default_rng(3)
    while len(shapes) < num_vars:
        width = int(rng.choice([16, 64, 256]))
        shapes.append((f"layer{len(shapes)}/kernel", (width, width) if len(shapes) % 2 else (3, 3, 8, width)))
        shapes.append((f"layer{len(shapes)}/bias", (width,)))
    return Inventory.synthetic(shapes, sparse=["emb_a", "emb_b"], batch_size=64, flops_per_step=2e9)
