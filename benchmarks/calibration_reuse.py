"""A search's quick calibration with the cluster's probes cached from another model's calibration, against none.

    python benchmarks/calibration_reuse.py [--spec examples/clusters/localhost.yml] [--first mlp] [--second cnn]
                                           [--repeats 1] [--out /tmp/bench-calib]

Each repeat runs, each in its own process and in this order: the first model's quick calibration with nothing
cached (a cache of its own); the second model's in that cache, where it finds the first one's cluster probes and
measures only its model's steps; the second model's with nothing cached (the cost the cache saves it). Each is what a
search runs before its simulated stage (``autotune.tuner._pipeline._scorer``, ``QUICK_CALIBRATION``). The table
gives the calibration's seconds and where they went, read from its progress lines: to the first probe (tracing the
model, starting the servers), the cluster probes, the model's part: its update probe and building and warming its
anchor jobs, then timing them in turns, closing them and fitting and storing the calibration. Target: the second
model's calibration with the cluster cached <= 20 s. The calibrations go under ``--out``.
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


def one(model: str, spec: str, cache: str) -> dict:
    """Run a search's calibration step for ``model`` with ``cache``; its seconds, by phase."""
    from autotune.tuner import _pipeline
    from autotune.tuner._types import SearchConfig
    from space.cluster import load_cluster
    from space.model import load_inventory

    cluster, inventory = load_cluster(spec), load_inventory(model, cache_dir=cache)
    lines: list[tuple[float, str]] = []
    started = time.monotonic()

    def note(m: str) -> None:
        lines.append((time.monotonic() - started, m))

    timing: dict = {}
    cfg = SearchConfig(model=model, spec=spec, output=pathlib.Path(cache) / "run", cache_dir=cache)
    _pipeline._scorer(inventory, cluster, cfg, note, note, self_calibrate=True, progress=note, timing=timing)
    total = timing["calibration_s"]
    probe = next((t for t, m in lines if m.startswith("link ")), None)
    model_at = next(t for t, m in lines if m.startswith("optimizer update"))
    timed = next((t for t, m in lines if m.startswith("model steps, round 1/")), model_at)
    return {"total_s": total, "before_s": probe if probe is not None else model_at,
            "probes_s": model_at - probe if probe is not None else 0.0, "build_s": timed - model_at,
            "turns_s": total - timed,
            "reused": any(m.startswith("reusing the cluster's calibration") for _, m in lines)}


def run_one(model: str, spec: str, cache: pathlib.Path) -> dict:
    """``one`` in its own process (each pays its own TensorFlow start, as a search does)."""
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, __file__, "--one", model, "--spec", spec, "--cache", str(cache)],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", default=str(ROOT / "examples" / "clusters" / "localhost.yml"))
    ap.add_argument("--first", default="mlp")
    ap.add_argument("--second", default="cnn")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--out", default="/tmp/bench-calib")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one(args.one, args.spec, args.cache)))
        return
    model = lambda name: str(ROOT / "examples" / "models" / f"{name}.py")  # noqa: E731
    out = pathlib.Path(args.out) / time.strftime("%Y%m%d-%H%M%S")
    rows, load = [], os.getloadavg()[0]
    for r in range(args.repeats):
        shared = out / f"r{r}-shared"
        rows.append((args.first, "nothing", run_one(model(args.first), args.spec, shared)))
        rows.append((args.second, f"{args.first}'s cluster probes", run_one(model(args.second), args.spec, shared)))
        rows.append((args.second, "nothing", run_one(model(args.second), args.spec, out / f"r{r}-alone")))
    print(f"load average (1 min) before: {load:.1f}, after: {os.getloadavg()[0]:.1f}; calibrations in {out}\n")
    print("| model | cached | reused | calibration | before probes | cluster probes | model: build + warm | "
          "model: turns, close, fit |")
    print("|---|---|---|---|---|---|---|---|")
    for name, cached, t in rows:
        print(f"| {name} | {cached} | {'yes' if t['reused'] else 'no'} | {t['total_s']:.1f} s | {t['before_s']:.1f} s "
              f"| {t['probes_s']:.1f} s | {t['build_s']:.1f} s | {t['turns_s']:.1f} s |")
    for r in range(args.repeats):
        _, warm, cold = (t for _, _, t in rows[3 * r:3 * r + 3])
        print(f"\n{args.second}, cluster cached over nothing cached: {warm['total_s'] / cold['total_s']:.2f}"
              f" ({warm['total_s']:.1f} s / {cold['total_s']:.1f} s)")


if __name__ == "__main__":
    main()
