"""The GPU check behind ``scripts/gpu-check``: every step a user takes, on GPU replicas, one row each."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def run(argv: list[str], env: dict) -> tuple[int, str, str, float]:
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, *argv], capture_output=True, text=True, env=env, cwd=ROOT)
    lines = (p.stdout + p.stderr).strip().splitlines()
    return p.returncode, p.stdout, lines[-1] if lines else "", time.monotonic() - t0


def exactness(model: str, spec: str, steps: int = 3) -> int:
    """Train ``steps`` steps of all_reduce and ps on the spec's GPUs; compare with single-device training."""
    import numpy as np

    from runners.cluster import start_cluster
    from runners.transform import TrainingJob
    from runners.transform import reference_train
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    traced = trace_step(model)
    inventory, cluster_spec = inventory_from_trace(traced), load_cluster(spec)
    want, _, _ = reference_train(traced, len(cluster_spec.replicas), steps)
    worst = 0.0
    with start_cluster(cluster_spec) as cluster:
        for alias in ("all_reduce", "ps"):
            with TrainingJob(traced, build_strategy(alias, inventory, cluster_spec), cluster) as job:
                job.run(steps)
                got, _ = job.values()
            worst = max(worst, max(float(np.max(np.abs(got[n] - want[n])) / max(float(np.max(np.abs(want[n]))), 1e-12))
                                   for n in want))
    print(f"max relative error {worst:.2g} (all_reduce, ps)")
    return 0 if worst <= 1e-5 else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=str(ROOT / "examples" / "models" / "mlp.py"))
    parser.add_argument("--out", default=str(ROOT / "runs" / "gpu-check"), help="where runs go (not the repository)")
    parser.add_argument("--exactness", metavar="SPEC", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.exactness:
        return exactness(args.model, args.exactness)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUTOTUNE_CACHE_DIR": str(out / "cache")}
    code, stdout, last, _ = run(["-c", "import tensorflow as tf; print(len(tf.config.list_physical_devices('GPU')))"],
                                env)
    n = int(stdout.strip().splitlines()[-1]) if code == 0 and stdout.strip() else 0
    rows = [("GPUs seen by TensorFlow", "ok" if n else "FAILED", str(n) if code == 0 else last)]
    if not n:
        print_table(rows)
        return 1
    gpus = list(range(n))
    if n == 1:  # two replicas on one GPU, shown as two logical GPUs (runners/server_main.py)
        env["AUTOTUNE_LOGICAL_GPUS"] = "2"
        gpus = [0, 1]
    spec = out / "gpus.yml"
    spec.write_text(f"nodes:\n  - {{address: 127.0.0.1, chief: true, gpus: {gpus}}}\n")
    code, _, last, s = run(["-m", "autotune", "inspect", "--model", args.model], env)
    rows.append(("inspect", "ok" if code == 0 else "FAILED", f"{s:.1f} s" if code == 0 else last))
    from space.builders import aliases

    for alias in aliases():
        pb = out / f"{alias}.pb"
        code, _, last, _ = run(["-m", "autotune", "build", "--builder", alias, "--model", args.model, "--spec",
                                str(spec), "-o", str(pb)], env)
        if code == 0:
            code, stdout, last, _ = run(["-m", "autotune", "profile", "--model", args.model, "--spec", str(spec),
                                         "--strategy", str(pb), "--steps", "20", "--json"], env)
        if code == 0:
            r = json.loads(stdout)
            last = f"median {r['median_s'] * 1e3:.2f} ms, {r['examples_per_s']:.0f} examples/s"
        rows.append((f"profile {alias}", "ok" if code == 0 else "FAILED", last))
    code, _, last, _ = run([str(pathlib.Path(__file__)), "--model", args.model, "--exactness", str(spec)], env)
    rows.append(("train equals single-device (3 steps)", "ok" if code == 0 else "FAILED", last))
    code, _, last, s = run(["-m", "autotune", "search", "--model", args.model, "--spec", str(spec), "-o",
                            str(out / "search"), "--trials", "200", "--top-k", "2", "--max-profiles", "4", "--quiet"],
                           env)
    rows.append(("search --trials 200 --top-k 2", "ok" if code == 0 else "FAILED", f"{s:.0f} s; {last}"))
    print_table(rows)
    return 0 if all(r[1] == "ok" for r in rows) else 1


def print_table(rows) -> None:
    width = max(len(r[0]) for r in rows)
    print(f"{'check':{width}s}  result  detail")
    for name, result, detail in rows:
        print(f"{name:{width}s}  {result:6s}  {detail}")


if __name__ == "__main__":
    sys.exit(main())
