"""Time the simulated stage per method: the sampler (Optuna's TPE) for every candidate, or its first ones and a local
search through the cost model for the rest (``autotune search --simulated sampler|local``).

Run: python3 benchmarks/simulated_stage.py [--models mlp zoo/keras_lstm ...] [--spec CLUSTER.yml]
     [--large-models mlp dlrm] [--nodes 64] [--candidates 2000] [--seconds 10] [--seeds 0]
     [--out /tmp/bench-simulated_stage]

Cases: each of ``--models`` (a bundled example's name, ``zoo/<name>`` for ``examples/zoo``, or a model file) on
``--spec``, and each of ``--large-models`` on a cluster of ``--nodes`` nodes in 8 racks, written to ``--out`` from
``examples/clusters/racks_256.yml`` with fewer nodes per rack (8 GPUs a node, a ``hierarchical`` choice: the compact
space). Each case runs both methods twice with one seed: to ``--candidates`` candidates (equal candidates), and for
``--seconds`` (equal wall time). Simulate only, uncalibrated (the spec's nominal values), in the search's own space
(``make_space``: reduced above 16 variables, synchronous PS); no cluster is reached, so no TF servers start. Rates are
per wall second and per CPU second of this process (what the method costs where the 2 shared cores are busy). The
table goes to stdout and ``table.txt``; each run's summary (with its best-so-far trajectory) to ``runs/*.json`` and
its records to ``journals/*.jsonl`` under ``--out``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import optuna  # noqa: E402
import yaml  # noqa: E402

from autotune.tuner import _study  # noqa: E402
from autotune.tuner._journal import Journal  # noqa: E402
from autotune.tuner._pipeline import make_space  # noqa: E402
from autotune.tuner._progress import Progress  # noqa: E402
from autotune.tuner._simulated import simulate  # noqa: E402
from autotune.tuner._types import SIMULATED, SearchConfig  # noqa: E402
from simulator import Calibration, Scorer  # noqa: E402
from space import format_table  # noqa: E402
from space.cluster import load_cluster  # noqa: E402
from space.model import load_inventory  # noqa: E402

MODELS = ("mlp", "cnn", "recommender", "transformer", "dlrm", "zoo/keras_lstm", "zoo/shared_embedding",
          "zoo/ftrl_wide")
LARGE_MODELS = ("mlp", "recommender", "dlrm")
UNBOUNDED = 10**9  # candidates of a run bounded by time alone


@dataclasses.dataclass
class Case:
    model: str
    cluster_name: str
    space: object
    scorer: Scorer
    dists: dict


def model_path(name: str) -> pathlib.Path:
    if name.startswith("zoo/"):
        return ROOT / "examples" / "zoo" / f"{name[4:]}.py"
    path = pathlib.Path(name)
    return path if path.suffix == ".py" else ROOT / "examples" / "models" / f"{name}.py"


def racks_spec(nodes: int, out: pathlib.Path) -> pathlib.Path:
    """racks_256.yml with ``nodes`` nodes in its 8 racks (a multiple of 8), written under ``out``."""
    spec = yaml.safe_load((ROOT / "examples" / "clusters" / "racks_256.yml").read_text())
    racks = len(spec["nodes"])
    if nodes % racks:
        raise SystemExit(f"--nodes must be a multiple of {racks} (the racks of racks_256.yml), got {nodes}")
    for entry in spec["nodes"]:
        entry["count"] = nodes // racks
    path = out / f"racks_{nodes}.yml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def case(model: str, spec: pathlib.Path, cache_dir: str) -> Case:
    inventory, cluster = load_inventory(model_path(model), cache_dir=cache_dir), load_cluster(spec)
    space = make_space(inventory, cluster)
    return Case(model, spec.stem, space, Scorer(inventory, cluster, Calibration.from_spec(cluster)),
                _study.distributions(space))


def run(c: Case, method: str, seed: int, candidates: int | None, seconds: float | None, out: pathlib.Path) -> dict:
    """One simulated stage, bounded by ``candidates`` or by ``seconds``; its row, its JSON written under ``out``."""
    budget = f"{candidates} cand." if candidates else f"{seconds:g} s"
    name = f"{c.model.replace('/', '-')}-{c.cluster_name}-{method}-{'n' if candidates else 't'}-s{seed}"
    cfg = SearchConfig(model=c.model, spec=c.cluster_name, output=out, trials=candidates or UNBOUNDED,
                       time_budget_s=seconds, seed=seed, simulated=method)
    journal = Journal(out / "journals" / f"{name}.jsonl")
    journal.path.unlink(missing_ok=True)
    wall, cpu = time.monotonic(), time.process_time()
    stage = simulate(c.space, c.scorer, c.dists, journal, cfg, multi=False, progress=Progress(False, print))
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    trajectory, best = [], float("inf")
    for r in stage.records:
        if r["state"] == "complete" and r["predicted_s"] < best:
            best = r["predicted_s"]
            trajectory.append([r["number"] + 1, round(r["t"] - stage.records[0]["t"], 3), round(best * 1e3, 4)])
    row = {"method": method, "model": c.model, "cluster": c.cluster_name, "budget": budget, "wall_s": f"{wall:.1f}",
           "candidates": stage.finished, "per_s": f"{stage.finished / wall:.0f}",
           "per_cpu_s": f"{stage.finished / max(cpu, 1e-9):.0f}", "best_ms": f"{stage.best_s * 1e3:.3f}"}
    raw = {**row, "wall_s": wall, "cpu_s": cpu, "best_s": stage.best_s, "pruned": stage.pruned, "seed": seed,
           "space": c.space.describe()["mode"], "param_names": len(c.dists), "trajectory": trajectory,
           "methods": {m: sum(r.get("method") == m for r in stage.records) for m in ("tpe", "local")},
           "load_average": os.getloadavg()}
    (out / "runs").mkdir(parents=True, exist_ok=True)
    (out / "runs" / f"{name}.json").write_text(json.dumps(raw, indent=1))
    return row


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs="*", default=list(MODELS), help="on --spec (a name, zoo/<name>, or a file)")
    ap.add_argument("--spec", type=pathlib.Path, default=ROOT / "examples" / "clusters" / "heterogeneous.yml")
    ap.add_argument("--large-models", nargs="*", default=list(LARGE_MODELS), help="on the --nodes cluster")
    ap.add_argument("--nodes", type=int, default=64, help="nodes of the large cluster (8 racks)")
    ap.add_argument("--candidates", type=int, default=2000, help="the equal-candidates runs' count (0: none)")
    ap.add_argument("--seconds", type=float, default=10.0, help="the equal-time runs' seconds (0: none)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--methods", nargs="+", default=list(SIMULATED), choices=SIMULATED)
    ap.add_argument("--cache-dir", default=None, help="inventory cache (default: under --out)")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("/tmp/bench-simulated_stage"))
    args = ap.parse_args(argv)
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    args.out.mkdir(parents=True, exist_ok=True)
    cache_dir = args.cache_dir or str(args.out / "cache")
    load = os.getloadavg()[0]
    cases = [(m, args.spec) for m in args.models]
    if args.large_models:
        cases += [(m, racks_spec(args.nodes, args.out)) for m in args.large_models]
    rows = []
    for model, spec in cases:
        c = case(model, spec, cache_dir)
        for seed in args.seeds:
            for candidates, seconds in ((args.candidates, None), (None, args.seconds)):
                if not (candidates or seconds):
                    continue
                for method in args.methods:
                    rows.append(run(c, method, seed, candidates, seconds, args.out))
                    print(f"{model} on {c.cluster_name}, {method}, {rows[-1]['budget']}: {rows[-1]['wall_s']} s, "
                          f"best {rows[-1]['best_ms']} ms", file=sys.stderr, flush=True)
    columns = ["method", "model", "cluster", "budget", "wall_s", "candidates", "per_s", "per_cpu_s", "best_ms"]
    text = (f"load average (1 min) before: {load:.1f}, after: {os.getloadavg()[0]:.1f}; seeds {args.seeds}\n"
            + format_table(rows, columns))
    print(text)
    (args.out / "table.txt").write_text(text + "\n")
    print(f"wrote {args.out / 'table.txt'}; each run's summary under {args.out / 'runs'}")


if __name__ == "__main__":
    main()
