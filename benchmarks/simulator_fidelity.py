"""Simulator fidelity on the emulated testbed (issue 5's targets: Kendall tau >= 0.85, MAPE <= 10%).

Brings up a testbed (3 hosts at 200mbit by default; needs root) unless ``--spec`` names a running cluster, then per
model runs ``autotune calibrate --model`` and ``autotune validate-simulator --fit-residual`` and prints one row
per model: fidelity on all strategies, and before/after the residual on the held-out ones. The testbed is
removed at the end (``--keep`` leaves it up).

    python benchmarks/simulator_fidelity.py --models mlp,recommender --strategies 30

``--reuse DIR`` skips the testbed: it predicts the strategies saved by an earlier run (``DIR/<model>/``) again
with the current simulator and the calibrations cached in ``DIR/cache`` (or ``--cache-dir``), e.g. after a cost
model change; ``--spec`` must then name the spec those calibrations were measured for (default DIR's testbed).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _cli(*args: str) -> None:
    cmd = [sys.executable, "-m", "autotune", *args]
    print("$ autotune " + " ".join(args), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,recommender", help="example models (examples/models/<name>.py)")
    p.add_argument("--strategies", type=int, default=30)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--holdout", type=float, default=0.3)
    p.add_argument("--spec", default=None, help="use this cluster instead of bringing up a testbed")
    p.add_argument("--hosts", type=int, default=3)
    p.add_argument("--bandwidth", default="200mbit")
    p.add_argument("--prefix", default="calfid")
    p.add_argument("--subnet", default="198.18.7.0/24")
    p.add_argument("--keep", action="store_true", help="leave the testbed up")
    p.add_argument("--sizes", default="512k,2m,4m", help="calibration message sizes")
    p.add_argument("--cache-dir", default=None, help="calibration/inventory cache (default: a fresh one in --out)")
    p.add_argument("--out", default="runs/simulator_fidelity", help="output directory")
    p.add_argument("--reuse", default=None, metavar="DIR",
                   help="re-predict the measurements of an earlier run's output directory (no testbed, no profiling)")
    args = p.parse_args(argv)

    out = (ROOT / args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.reuse:
        return _reuse(args, out)
    cache = pathlib.Path(args.cache_dir or out / "cache").resolve()
    testbed_dir = None
    spec = args.spec
    if spec is None:
        testbed_dir = str(out / f"testbed-{args.prefix}")
        _cli("testbed", "up", "--hosts", str(args.hosts), "--bandwidth", args.bandwidth, "--prefix", args.prefix,
             "--subnet", args.subnet, "--dir", testbed_dir)
        spec = os.path.join(testbed_dir, "cluster.yml")
    results = {}
    try:
        for name in args.models.split(","):
            model = str(ROOT / "examples" / "models" / f"{name}.py")
            t0 = time.monotonic()
            _cli("calibrate", "--spec", spec, "--model", model, "--sizes", args.sizes, "--cache-dir", str(cache),
                 "--output", str(out / f"{name}-calibration.json"))
            _cli("validate-simulator", "--model", model, "--spec", spec, "--strategies", str(args.strategies),
                 "--seed", str(args.seed), "--steps", str(args.steps), "--warmup", str(args.warmup), "--fit-residual",
                 "--holdout", str(args.holdout), "--cache-dir", str(cache), "-o", str(out / name))
            results[name] = json.loads((out / name / "summary.json").read_text())
            results[name]["wall_s"] = time.monotonic() - t0
    finally:
        if testbed_dir and not args.keep:
            _cli("testbed", "down", "--dir", testbed_dir)

    _print(results, out)
    return 0


def _reuse(args, out: pathlib.Path) -> int:
    src = pathlib.Path(args.reuse).resolve()
    cache = pathlib.Path(args.cache_dir or src / "cache").resolve()
    spec = args.spec or str(src / f"testbed-{args.prefix}" / "cluster.yml")
    results = {}
    for name in args.models.split(","):
        t0 = time.monotonic()
        _cli("validate-simulator", "--model", str(ROOT / "examples" / "models" / f"{name}.py"), "--spec", spec,
             "--reuse", str(src / name), "--fit-residual", "--holdout", str(args.holdout), "--seed", str(args.seed),
             "--cache-dir", str(cache), "-o", str(out / name))
        results[name] = json.loads((out / name / "summary.json").read_text())
        results[name]["wall_s"] = time.monotonic() - t0
    _print(results, out)
    return 0


def _print(results: dict, out: pathlib.Path) -> None:
    def fmt(m):
        return f"{m['kendall_tau']:>6.3f} {m['mape']:>7.1%} {m['top1_regret']:>7.1%} {int(m['n']):>3}"

    head = f"{'tau':>6} {'MAPE':>7} {'regret':>7} {'n':>3}"
    print(f"\n{'model':<13}| all strategies {'':>12}| held-out, raw {'':>13}| held-out, residual {'':>8}| wall")
    print(f"{'':<13}| {head} | {head} | {head} |")
    for name, r in results.items():
        print(f"{name:<13}| {fmt(r['metrics'])} | {fmt(r['holdout_before'])} | {fmt(r['holdout_after'])} | "
              f"{r['wall_s']:.0f} s")
    print("\ntargets: Kendall tau >= 0.85, MAPE <= 10% (issue 5); outputs in", out)
    (out / "fidelity.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
