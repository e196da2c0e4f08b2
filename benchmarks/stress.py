"""Short profile and train runs beside processes spinning on every core: does any run stall?

    python benchmarks/stress.py [--runs 30] [--hogs 2] [--out runs/bench-stress]

One loopback cluster (``examples/clusters/localhost.yml``) runs ``--runs`` jobs in turn: PS, all-reduce and mixed
strategies of the mlp and the recommender, alternately profiled (10 steps) and trained (20 steps), each with
``--hogs`` CPU-bound processes beside it (default: one per core). A run stalls when it raises or its watchdog
declares a step stuck; a slow first build only says "still building". The table gives each strategy's runs, the
longest run and how many said they were still building; every run's record goes to ``--out``/runs.json.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STRATEGIES = [("recommender", "ps"), ("mlp", "all_reduce"), ("recommender", "parallax"),
              ("recommender", "partitioned_ps"), ("mlp", "ps_lb"), ("mlp", "all_reduce_fp16")]


def one_run(kind: str, traced, strategy, cluster) -> tuple[bool, list[str], str]:
    from runners.profile import profile_strategy
    from runners.train import train_strategy

    said: list[str] = []
    try:
        if kind == "profile":
            profile_strategy(traced, strategy, cluster, steps=10, warmup=2, on_build=said.append)
        else:
            train_strategy(traced, strategy, cluster, steps=20, on_build=said.append)
    except Exception as e:  # noqa: BLE001 - a stall or failure is the measurement
        return False, said, f"{type(e).__name__}: {e}"
    return True, said, ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--hogs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/bench-stress"))
    args = ap.parse_args()
    from runners.cluster import start_cluster
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    spec = load_cluster(ROOT / "examples" / "clusters" / "localhost.yml")
    traces = {m: trace_step(ROOT / "examples" / "models" / f"{m}.py") for m in {m for m, _ in STRATEGIES}}
    records = []
    with start_cluster(spec, timeout_s=90) as cluster:
        for i in range(args.runs):
            model, alias = STRATEGIES[i % len(STRATEGIES)]
            kind = "profile" if (i // len(STRATEGIES)) % 2 == 0 else "train"
            t = traces[model]
            strategy = build_strategy(alias, inventory_from_trace(t), spec)
            hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
            start = time.perf_counter()
            try:
                ok, said, error = one_run(kind, t, strategy, cluster)
            finally:
                for p in hogs:
                    p.kill()
                for p in hogs:
                    p.wait()
            records.append({"run": i, "model": model, "builder": alias, "kind": kind, "ok": ok, "error": error,
                            "seconds": time.perf_counter() - start, "still_building": len(said)})
            print(f"run {i + 1}/{args.runs}: {model} {alias} {kind} {'ok' if ok else 'FAILED ' + error}"
                  f" in {records[-1]['seconds']:.1f} s", file=sys.stderr)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "runs.json").write_text(json.dumps(records, indent=1))
    print("| model | builder | runs | failed or stalled | longest run s | said still building |")
    print("|---|---|---|---|---|---|")
    for model, alias in STRATEGIES:
        rs = [r for r in records if (r["model"], r["builder"]) == (model, alias)]
        if rs:
            print(f"| {model} | {alias} | {len(rs)} | {sum(not r['ok'] for r in rs)} | "
                  f"{max(r['seconds'] for r in rs):.1f} | {sum(r['still_building'] > 0 for r in rs)} |")
    print(f"\n{sum(not r['ok'] for r in records)} of {len(records)} runs failed or stalled, "
          f"{args.hogs} CPU hog(s) beside each")


if __name__ == "__main__":
    main()
