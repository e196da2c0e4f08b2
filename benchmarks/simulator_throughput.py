"""Throughput of the simulator: strategies scored per second, one at a time and vectorised.

Run: python3 benchmarks/simulator_throughput.py [--variables 200] [--batch 5000] [--nodes 3]
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import simulator  # noqa: E402
from space.cluster import ClusterSpec  # noqa: E402
from space.inventory import Inventory  # noqa: E402
from space.strategy import Strategy, ar_node, partitioned_node, ps_node  # noqa: E402


def make_model(num_vars: int, seed: int = 0) -> Inventory:
    """A synthetic model: conv/dense kernels with their biases, and two embedding tables."""
    rng = np.random.default_rng(seed)
    shapes, sparse = [("embedding_a", (50_000, 64)), ("embedding_b", (20_000, 32))], ["embedding_a", "embedding_b"]
    while len(shapes) < num_vars:
        i = len(shapes)
        width = int(rng.choice([64, 128, 256, 512]))
        shapes.append((f"layer{i}/kernel", (3, 3, width // 2, width) if i % 3 else (width, width)))
        if len(shapes) < num_vars:
            shapes.append((f"layer{i}/bias", (width,)))
    return Inventory.synthetic(shapes, sparse=sparse, batch_size=256, flops_per_step=5e10)


def make_cluster(nodes: int) -> ClusterSpec:
    return ClusterSpec.from_dict({"nodes": [{"address": f"198.18.0.{i + 1}", "chief": i == 0,
                                             "network_bandwidth": "200mbit"} for i in range(nodes)]})


def random_choices(inv: Inventory, nodes: int, k: int, seed: int = 1, max_shards: int | None = None
                   ) -> simulator.Choices:
    """K random strategies as choice arrays; a PS variable in 1 to ``max_shards`` shards (default: the nodes)."""
    rng = np.random.default_rng(seed)
    shape = (k, len(inv.variables))
    return simulator.Choices(ps=rng.random(shape) < 0.5, server=rng.integers(0, nodes, shape),
                             shards=rng.integers(1, min(max_shards or nodes, nodes) + 1, shape),
                             sync=rng.random(shape) < 0.9,
                             staleness=rng.integers(0, 2, shape), proxy=rng.random(shape) < 0.3,
                             group=rng.integers(0, 8, shape), compressor=rng.integers(0, 4, shape),
                             rank=rng.integers(1, 5, shape))


def random_strategy(inv: Inventory, cluster: ClusterSpec, rng: np.random.Generator,
                    max_shards: int | None = None) -> Strategy:
    """A random strategy; a PS variable in 1 to ``max_shards`` shards (default: the nodes) where it has the rows."""
    devices, nodes = cluster.ps_devices, []
    most = min(max_shards or len(devices), len(devices))
    for v in inv.variables:
        if rng.random() < 0.5:
            shards = int(rng.integers(1, most + 1)) if v.shape and v.shape[0] >= most else 1
            parts = [ps_node(v.name, devices[int(rng.integers(len(devices)))]) for _ in range(shards)]
            nodes.append(parts[0] if shards == 1 else partitioned_node(v.name, v.shape, 0, parts))
        else:
            nodes.append(ar_node(v.name, group=int(rng.integers(8)), compressor=int(rng.integers(4)),
                                 powersgd_rank=int(rng.integers(1, 5))))
    return Strategy.build(nodes, cluster.replicas)


def rate(fn, count: int, repeat: int = 5) -> tuple[float, float]:
    """Best of ``repeat`` runs: (strategies per wall-clock second, per CPU second of this process).

    The CPU rate is what the code costs when the 2 shared cores are busy with other work.
    """
    wall = cpu = float("inf")
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall, cpu = min(wall, time.perf_counter() - t0), min(cpu, time.process_time() - c0)
    return count / wall, count / max(cpu, 1e-9)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variables", type=int, default=200)
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--strategies", type=int, default=300, help="Strategy objects for the proto paths")
    ap.add_argument("--nodes", type=int, default=3)
    args = ap.parse_args(argv)

    inv, cluster = make_model(args.variables), make_cluster(args.nodes)
    scorer = simulator.Scorer(inv, cluster, simulator.Calibration.from_spec(cluster))
    rng = np.random.default_rng(2)
    strategies = [random_strategy(inv, cluster, rng) for _ in range(args.strategies)]
    choices = random_choices(inv, args.nodes, args.batch)
    rows = [("Scorer.predict(strategy), one at a time", rate(lambda: [scorer.predict(s) for s in strategies],
                                                            len(strategies))),
            ("Scorer.score_many(strategies)", rate(lambda: scorer.score_many(strategies), len(strategies))),
            ("Scorer.score_choices(choices), vectorised", rate(lambda: scorer.score_choices(choices), args.batch))]
    # a testbed's calibration: the replicas share CPUs, so the staggered chains are computed a second time
    shared = simulator.Scorer(inv, cluster, simulator.Calibration.from_spec(
        cluster, step_time_s=0.05, alone_step_s=0.01, model_hash=inv.model_hash))
    rows.append(("  the same, replicas sharing CPUs", rate(lambda: shared.score_choices(choices), args.batch)))
    # and PS steps losing part of their staggering (every testbed calibration with --model): the unstaggered step
    serial = simulator.Scorer(inv, cluster, shared.calibration.replace(ps_serial_fraction=0.5))
    rows.append(("  the same, PS steps losing staggering", rate(lambda: serial.score_choices(choices), args.batch)))
    # and the optimizer updates' share of the lockstep step measured (every calibration with --model): each
    # strategy's work
    update = simulator.Scorer(inv, cluster, serial.calibration.replace(update_share=0.4))
    rows.append(("  the same, updates per copy", rate(lambda: update.score_choices(choices), args.batch)))
    # and a share of its own for the staggering lost where the PS load is spread (a calibration that timed ps_lb):
    # each strategy's busiest server
    spread = simulator.Scorer(inv, cluster, update.calibration.replace(ps_spread_serial=0.2, ps_spread_busiest=0.4))
    rows.append(("  the same, PS load spread", rate(lambda: spread.score_choices(choices), args.batch)))
    print(f"model: {len(inv.variables)} variables, {inv.total_bytes / 1e6:.1f} MB; cluster: {args.nodes} nodes; "
          f"batch {args.batch}")
    print(f"{'path':44s} {'strategies/s (wall)':>20s} {'per CPU s':>12s}")
    for name, (wall, cpu) in rows:
        print(f"{name:44s} {wall:20,.0f} {cpu:12,.0f}")


if __name__ == "__main__":
    main()
