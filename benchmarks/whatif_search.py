"""Time a what-if search (``autotune search --simulate-only``) on a large cluster for each example model.

Run: python3 benchmarks/whatif_search.py [--nodes 256 | --spec cluster.yml] [--models mlp cnn ...]
     [--trials N] [--out runs/bench-whatif_search]

Without ``--spec`` the cluster is ``--nodes`` alike nodes at 25 Gbit/s, flat, written to ``--out``/cluster.yml
(addresses that need not exist: a simulate-only search never reaches them). Each search runs as its own
``autotune search`` process with the search's defaults (``--trials`` only when given) and writes its output
directory and log under ``--out``. The table: wall seconds of the whole command, simulated trials, the space the
search drew from and the parameters one trial asked at most, the winner and the best builder as predicted, and
the lower bound.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from space import format_table  # noqa: E402

MODELS = ("mlp", "cnn", "recommender", "transformer", "dlrm")


def flat_spec(nodes: int) -> str:
    """A cluster.yml of ``nodes`` alike nodes, the first the chief."""
    lines = ["nodes:"]
    for i in range(nodes):
        lines += [f"  - address: 10.0.{i // 250}.{i % 250 + 1}", f"    hostname: n{i:03d}",
                  "    network_bandwidth: 25gbit"] + (["    chief: true"] if i == 0 else [])
    return "\n".join(lines) + "\n"


def run(model: str, spec: pathlib.Path, out: pathlib.Path, trials: int | None) -> dict:
    """One search, timed as a whole command; its row of the table."""
    target = out / model
    cmd = [sys.executable, "-m", "autotune", "search", "--simulate-only", "--model",
           str(ROOT / "examples" / "models" / f"{model}.py"), "--spec", str(spec), "-o", str(target)]
    if trials is not None:
        cmd += ["--trials", str(trials)]
    if target.exists():  # a run of its own each time: no study left to resume or to refuse
        import shutil

        shutil.rmtree(target)
    started = time.monotonic()
    with open(out / f"{model}.log", "w") as log:
        code = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT).returncode
    wall = time.monotonic() - started
    if code != 0:
        return {"model": model, "wall_s": f"{wall:.0f}", "winner": f"failed (exit {code}, see {model}.log)"}
    summary = json.loads((target / "summary.json").read_text())
    built = [r for r in summary["rows"] if not r["strategy"].startswith("trial ")]
    best = min(built, key=lambda r: float(r["predicted_ms"]), default=None)
    records = [json.loads(line) for line in (target / "simulated.jsonl").read_text().splitlines()]
    asked = max((len(r["params"]) for r in records), default=0)
    return {"model": model, "trials": summary["simulated_trials"], "wall_s": f"{wall:.0f}",
            "space": summary["space"]["mode"],
            "max_params": asked, "winner": summary["winner"],
            "winner_ms": f"{summary['winner_predicted_s'] * 1e3:.2f}",
            "best_builder": best["strategy"].rstrip(" *") if best else "-",
            "builder_ms": best["predicted_ms"] if best else "-",
            "lower_bound_ms": f"{summary['lower_bound_s'] * 1e3:.2f}"}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    ap.add_argument("--nodes", type=int, default=256, help="nodes of the flat cluster written when --spec is not given")
    ap.add_argument("--spec", type=pathlib.Path, default=None, help="cluster.yml to search on instead")
    ap.add_argument("--trials", type=int, default=None, help="simulated trials (default: the search's own)")
    ap.add_argument("--out", type=pathlib.Path, default=ROOT / "runs" / "bench-whatif_search")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    spec = args.spec
    if spec is None:
        spec = args.out / "cluster.yml"
        spec.write_text(flat_spec(args.nodes))
    rows = []
    for model in args.models:
        rows.append(run(model, spec.resolve(), args.out.resolve(), args.trials))
        print(f"{model}: {rows[-1]['wall_s']} s", file=sys.stderr, flush=True)
    columns = ["model", "trials", "wall_s", "space", "max_params", "winner", "winner_ms", "best_builder", "builder_ms",
               "lower_bound_ms"]
    text = f"what-if search on {spec}\n" + format_table(rows, columns)
    print(text)
    (args.out / "table.txt").write_text(text + "\n")
    print(f"wrote {args.out / 'table.txt'}; each search's output and log under {args.out}")


if __name__ == "__main__":
    main()
