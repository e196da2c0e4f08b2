"""Every classic builder's real step time on each example model, on the local 2-node cluster (one table).

    python benchmarks/builders_local.py [--models mlp,cnn,...] [--builders ps,...] [--steps 10 --warmup 3]

One set of servers for the whole table (trials reuse them with fresh collective keys, as a search does).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("CNN_DETERMINISTIC", "1")
    from runners.cluster import start_cluster
    from runners.profile import profile_strategy
    from space import format_table
    from space.builders import aliases, build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step
    from space.validate import validate

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,cnn,recommender,transformer")
    p.add_argument("--builders", default=",".join(aliases()))
    p.add_argument("--spec", default=str(ROOT / "examples" / "clusters" / "localhost.yml"))
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    args = p.parse_args(argv)
    spec = load_cluster(args.spec)
    rows = []
    with start_cluster(spec) as cluster:
        for model in args.models.split(","):
            traced = trace_step(ROOT / "examples" / "models" / f"{model}.py")
            inv = inventory_from_trace(traced)
            row = {"model": model}
            for alias in args.builders.split(","):
                strategy = build_strategy(alias, inv, spec)
                validate(strategy, inv, spec)
                try:
                    r = profile_strategy(traced, strategy, cluster, steps=args.steps, warmup=args.warmup)
                    row[alias] = f"{r.median_s * 1e3:.1f}"
                except Exception as e:  # noqa: BLE001 - a failing cell is reported, the table goes on
                    row[alias] = f"ERR {type(e).__name__}"
                print(f"{model:12s} {alias:22s} {row[alias]} ms", file=sys.stderr, flush=True)
            rows.append(row)
    print(f"median step time (ms), {len(spec.nodes)} nodes {', '.join(n.address for n in spec.nodes)}, "
          f"{args.steps} steps after {args.warmup} warm-up")
    cols = args.builders.split(",")
    for k in range(0, len(cols), 7):  # keep the table narrow enough to read
        print(format_table([{"model": r["model"], **{c: r[c] for c in cols[k:k + 7]}} for r in rows]))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
