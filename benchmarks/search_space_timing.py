"""Time ``SearchSpace.suggest`` (+ decode) per trial on a synthetic model, per sampler and space mode.

    python benchmarks/search_space_timing.py --variables 200 --trials 300 --sampler tpe

The objective is a cheap stand-in for the simulator (busiest PS bytes + all-reduce bytes), so the time
measured is Optuna's sampling plus the space's decoding, not a model of training.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

import optuna  # noqa: E402

from space.cluster import ClusterSpec  # noqa: E402
from space.inventory import Inventory  # noqa: E402
from space.search_space import SearchSpace  # noqa: E402


def synthetic_model(n: int) -> Inventory:
    """``n`` variables shaped like a deep MLP with a few embedding tables (kernels, biases, tables)."""
    shapes, sparse = [], []
    for i in range(n):
        if i % 25 == 0:
            shapes.append((f"emb{i}:0", (5000 + 37 * i, 64)))
            sparse.append(f"emb{i}:0")
        elif i % 2:
            shapes.append((f"dense{i}/kernel:0", (128 + i % 7, 256)))
        else:
            shapes.append((f"dense{i}/bias:0", (256,)))
    return Inventory.synthetic(shapes, sparse=sparse)


def toy_cost(strategy, inventory: Inventory) -> float:
    sizes = {v.name: v.bytes for v in inventory.variables}
    ps, ar = {}, 0.0
    for n in strategy.nodes:
        leaves = list(n.part_config) if n.partitioner else [n]
        for leaf in leaves:
            b = sizes[n.var_name] / len(leaves)
            if leaf.WhichOneof("synchronizer") == "PSSynchronizer":
                d = leaf.PSSynchronizer.reduction_destination
                ps[d] = ps.get(d, 0.0) + b
            else:
                ar += b * (0.5 if leaf.AllReduceSynchronizer.compressor else 1.0)
    return max(ps.values(), default=0.0) + ar


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variables", type=int, default=200)
    ap.add_argument("--trials", type=int, default=300)
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--sampler", choices=["tpe", "tpe-multivariate", "random"], default="tpe")
    ap.add_argument("--mode", choices=["full", "reduced"], default="full")
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    inv = synthetic_model(args.variables)
    cluster = ClusterSpec.from_dict({"nodes": [{"address": f"127.0.0.{i + 1}", "chief": i == 0}
                                               for i in range(args.nodes)]})
    space = SearchSpace(inv, cluster, reduced=args.mode == "reduced")
    sampler = {"tpe": lambda: optuna.samplers.TPESampler(seed=0),
               "tpe-multivariate": lambda: optuna.samplers.TPESampler(seed=0, multivariate=True, group=True),
               "random": lambda: optuna.samplers.RandomSampler(seed=0)}[args.sampler]()
    study = optuna.create_study(sampler=sampler)
    space.enqueue_builders(study)
    times = []
    for _ in range(args.trials):
        trial = study.ask()
        t0 = time.perf_counter()
        strategy = space.suggest(trial)
        times.append(time.perf_counter() - t0)
        study.tell(trial, toy_cost(strategy, inv))
    last = times[-min(100, len(times)):]
    print(f"{args.mode} space, {args.variables} variables, {space.describe()['param_names']} parameter names, "
          f"{len(study.trials[-1].params)} asked in the last trial; {args.sampler}, {args.trials} trials: "
          f"mean {sum(times) / len(times) * 1e3:.1f} ms/trial, last {len(last)} trials "
          f"{sum(last) / len(last) * 1e3:.1f} ms/trial, total {sum(times):.1f} s")


if __name__ == "__main__":
    main()
