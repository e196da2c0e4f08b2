"""A profiling run's overhead: what a candidate costs beyond its warm and timed steps, each run as it stands alone
(every run chooses its own steps per call, builds its graph when it starts) against the search's way (the first
run's steps per call given to the others, the next graph built while the servers build this run's executors).

    python benchmarks/profile_overhead.py [--model recommender] [--builders ps,ps_lb,all_reduce,parallax]
                                          [--repeats 2] [--out /tmp/bench-profile_overhead]

Both ways profile the same builders on one started loopback cluster (``examples/clusters/localhost.yml``), in
turns (alone, search, alone, search, ... ``--repeats`` passes of each), so that the machine's drift falls on both
alike. Each run's split (``runners.profile.PhaseClock``) goes to ``--out/runs.jsonl``; the table gives each way's
median and worst overhead and total per run, and the search's over alone's. The load average is printed before and
after: on a shared machine the numbers are that load's. Target: overhead <= 3 s per run for the examples.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import os
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def alone(traced, strategies, cluster, args) -> list[dict]:
    """Each run as ``autotune profile`` runs it: steps per call chosen, graph built at its start."""
    from runners.profile import profile_strategy

    return [profile_strategy(traced, s, cluster, steps=args.steps, warmup=args.warmup, within_s=10.0).phases_s
            for s in strategies]


def as_the_search(traced, strategies, cluster, args) -> list[dict]:
    """Each run as the search's profiler runs it: the first one's steps per call for the rest, the next graph built
    ahead in one background thread and joined before the warm steps."""
    from runners.profile import copies_ahead, profile_strategy
    from runners.transform import job_graph

    out, k = [], None
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        ahead = pool.submit(job_graph, traced, strategies[0], cluster, copies=copies_ahead(args.steps))
        for i, s in enumerate(strategies):
            graph, ahead = ahead, None
            if i + 1 < len(strategies):
                nxt = strategies[i + 1]
                ahead = pool.submit(job_graph, traced, nxt, cluster, copies=copies_ahead(args.steps, k))
            r = profile_strategy(traced, s, cluster, steps=args.steps, warmup=args.warmup, within_s=10.0,
                                 steps_per_call=k, graph=graph,
                                 settled=functools.partial(concurrent.futures.wait, [ahead] if ahead else []))
            k = k or (r.steps_per_call if r.mode == "lockstep" else None)
            out.append(r.phases_s)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="recommender", help="a name in examples/models/ (recommender)")
    p.add_argument("--builders", default="ps,ps_lb,all_reduce,parallax")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--out", default="/tmp/bench-profile_overhead")
    args = p.parse_args()
    from runners.cluster import start_cluster
    from space import format_table
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    spec = load_cluster(ROOT / "examples" / "clusters" / "localhost.yml")
    traced = trace_step(str(ROOT / "examples" / "models" / f"{args.model}.py"))
    inv = inventory_from_trace(traced)
    strategies = [build_strategy(b, inv, spec) for b in args.builders.split(",")]
    print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
    runs: dict[str, list[dict]] = {"alone": [], "search": []}
    with start_cluster(spec) as cluster, open(out / "runs.jsonl", "w") as fh:
        for r in range(args.repeats):
            for way, fn in (("alone", alone), ("search", as_the_search)):
                for b, split in zip(args.builders.split(","), fn(traced, strategies, cluster, args)):
                    runs[way].append(split)
                    fh.write(json.dumps({"way": way, "repeat": r, "builder": b, **split}) + "\n")
                    print(f"{way:6s} {b:12s} total {split['total']:.2f} s, overhead {split['overhead']:.2f} s",
                          flush=True)
    load = os.getloadavg()[0]

    def stat(way, key, f):
        return f([s[key] for s in runs[way]])

    rows = [{"way": way, "runs": len(runs[way]),
             **{f"{key}_{n}_s": f"{stat(way, key, f):.2f}" for key in ("overhead", "total")
                for n, f in (("median", statistics.median), ("max", max))}} for way in runs]
    print("\n" + format_table(rows))
    print(f"search / alone, median overhead: "
          f"{stat('search', 'overhead', statistics.median) / stat('alone', 'overhead', statistics.median):.2f}x; "
          f"load average after: {load:.1f} (numbers under that load); runs in {out / 'runs.jsonl'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
