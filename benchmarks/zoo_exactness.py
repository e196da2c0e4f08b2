"""How exactly the backend trains each zoo model: 10 steps on two replicas of the loopback cluster under the
parameter-server builders (one PS, sharded unevenly over the PSs, partitioned evenly), all-reduce and mixed
(parallax), against single-device training (``runners.transform._reference``), and, for a compiled model, that
single-device training against ``model.fit`` itself.

    python benchmarks/zoo_exactness.py [--models a,b,...] [--builders a,b,...] [--steps 10]
                                       [--out runs/bench-zoo-exactness]

Each cell is the largest relative error max|a - b| / max|b| over the model's variables and its state (BatchNorm
statistics and the like; the target is 1e-5). Each job also sizes what one step sends between the nodes (the bytes
ledger, ``TrainGraph.bytes_per_step``), as training with logs does. A builder whose job fails is a FAIL cell, its
error listed under the table, and the other cells are still measured. The table goes to stdout and
``<out>/zoo_exactness.md``, one JSON line per model to ``<out>/zoo_exactness.jsonl``.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ZOO = ROOT / "examples" / "zoo"
BUILDERS = ("ps", "uneven_ps", "partitioned_ps", "all_reduce", "parallax")


def rel_err(a, b) -> float:
    import numpy as np

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12)) if b.size else 0.0


def worst(got: dict, want: dict) -> float:
    return max((rel_err(got[n], want[n]) for n in want), default=0.0)


def measure(name: str, cluster, spec, steps: int, builders=BUILDERS) -> dict:
    """The model's row: per builder its worst relative error (or None, its error under ``errors``) and the bytes
    its step sends, and ``model.fit``'s error for a compiled model."""
    from runners.transform._reference import reference_train
    from space.model import inventory_from_trace, trace_step

    path = ZOO / f"{name}.py"
    traced = trace_step(path)
    inventory = inventory_from_trace(traced)
    want = reference_train(traced, 2, steps)[:2]
    row = {"model": name, "idiom": _idiom(path), "errors": {}, "bytes_per_step": {}}
    for alias in builders:
        try:
            row[alias], row["bytes_per_step"][alias] = _train_error(traced, inventory, alias, cluster, spec, steps,
                                                                    want)
        except Exception as e:  # a failing builder is a result of the table: the others are still measured
            row[alias] = None
            row["errors"][alias] = f"{type(e).__name__}: {e}".splitlines()[0]
    if traced.compiled:
        one, _, _ = reference_train(traced, 1, steps)
        traced.model.fit(traced.module.dataset_fn(0, 1).repeat(), steps_per_epoch=steps, epochs=1, verbose=0,
                         shuffle=False)
        row["model.fit"] = worst({n: v.numpy() for n, v in zip(traced.names, traced.trainable)}, one)
    return row


def _train_error(traced, inventory, alias: str, cluster, spec, steps: int, want: tuple[dict, dict]):
    """(the worst relative error of the variables and state ``steps`` steps of ``alias``'s strategy train to, the
    bytes a step sends between the nodes): the ledger sized first, as training with logs does."""
    # imported here, as in measure: TensorFlow comes in after main() has quieted its logs
    from runners.transform import TrainingJob
    from space.builders import build_strategy

    with TrainingJob(traced, build_strategy(alias, inventory, spec), cluster, step_timeout_s=120) as job:
        sent = job.graph.bytes_per_step
        job.run(steps)
        got, state = job.values()
    return max(worst(got, want[0]), worst(state, want[1])), sent


def _idiom(path: pathlib.Path) -> str:
    doc = path.read_text().split('"""')[1]
    return " ".join(doc.split()).split(": ")[0].split(". ")[0]


def table(rows: list[dict], builders=BUILDERS) -> str:
    """The markdown table of ``rows``, then each failed job's error."""
    head = "| model | idiom | " + " | ".join(builders) + " | model.fit |\n|---|---|" + "---|" * (len(builders) + 1)
    lines = [head]
    for r in rows:
        cells = [f"{r[b]:.1e}" if r[b] is not None else "FAIL" for b in builders]
        cells.append(f"{r['model.fit']:.1e}" if "model.fit" in r else "-")
        lines.append(f"| {r['model']} | {r['idiom']} | " + " | ".join(cells) + " |")
    failed = [f"- {r['model']} under {b}: {e}" for r in rows for b, e in r["errors"].items()]
    return "\n".join(lines + (["", "Failed:"] + failed if failed else []))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="", help="comma-separated zoo models (default: all)")
    p.add_argument("--builders", default=",".join(BUILDERS), help=f"comma-separated builders ({','.join(BUILDERS)})")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--out", default=str(ROOT / "runs" / "bench-zoo-exactness"))
    args = p.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from runners.cluster import start_cluster
    from space.cluster import load_cluster

    names = args.models.split(",") if args.models else sorted(p.stem for p in ZOO.glob("*.py"))
    builders = tuple(args.builders.split(","))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    spec = load_cluster(ROOT / "examples" / "clusters" / "localhost.yml")
    rows = []
    t0 = time.perf_counter()
    with start_cluster(spec) as cluster, open(out / "zoo_exactness.jsonl", "w") as raw:
        for name in names:
            rows.append(measure(name, cluster, spec, args.steps, builders))
            raw.write(json.dumps(rows[-1]) + "\n")
            raw.flush()
    text = table(rows, builders)
    (out / "zoo_exactness.md").write_text(text + "\n")
    print(text)
    print(f"\n{len(rows)} models, {args.steps} steps, {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
