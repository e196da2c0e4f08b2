"""The memory model against measured peaks: for each model and builder, each node's predicted bytes
(``Scorer.memory``) beside what its server grew by at its peak while the strategy trained (``runners._peak_memory``).

    python benchmarks/memory_fit.py [--quick] [--models a,b] [--builders ps,all_reduce] [--steps 5]
                                    [--out /tmp/bench-memory-fit]

Like with like: every job runs on a cluster of its own, started for it and warmed by one job of a model of a few bytes
(``TINY``), so that each server's resident set at the job's start is TensorFlow's own (the runtime, its thread pools,
kernels and gRPC channels, set up by the first job: what ``TF_RESERVE_BYTES`` stands for) and nothing of a model; the
measured bytes are the steps' peak above it, the model's part (the set-up's peak, when the initial values pass through
the chief, is kept beside it). The servers run with glibc told to hand freed memory back (``TRIMMED``), so that a
resident set is what a server holds, not what its allocator kept of freed buffers. Error % is (predicted - measured) /
measured of the node that holds the most. ``--quick`` (under 3 minutes) measures the bundled examples and four other
models under one builder. The table goes to stdout and ``<out>/memory_fit.md``, one JSON line a job to
``<out>/memory_fit.jsonl``.
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
EXAMPLES = ["models/mlp", "models/cnn", "models/dlrm", "models/recommender", "models/transformer", "big_table"]
OTHERS = ["zoo/keras_sequential", "zoo/adagrad_embeddings", "zoo/keras_lstm", "foreign/dcn", "foreign/neumf",
          "zoo/normalization_dropout", "zoo/shared_embedding", "zoo/ftrl_wide", "foreign/text_cnn",
          "foreign/toy_resnet", "foreign/two_tower_retrieval"]
QUICK_OTHERS = OTHERS[:4]
SPEC = ROOT / "examples" / "clusters" / "localhost.yml"
TRIMMED = {"MALLOC_TRIM_THRESHOLD_": "0", "MALLOC_MMAP_THRESHOLD_": "65536"}  # the servers inherit them
TINY = """import numpy as np, tensorflow as tf, keras
BATCH = 2
def build_model():
    return keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
def loss_fn(model, batch):
    return tf.reduce_mean(model(batch))
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(np.ones((8, 2), "float32")).repeat().batch(BATCH)
"""


def measure(model: str, alias: str, steps: int, tiny) -> dict:
    """One job on a cluster of its own: per node, predicted and measured bytes."""
    from autotune._fits import memory_plan, predicted_beside_measured
    from runners.cluster import start_cluster
    from runners.profile import profile_strategy
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    spec = load_cluster(SPEC)
    traced = trace_step(ROOT / "examples" / f"{model}.py")
    if model == "big_table":  # on its nodes of declared memory, the one way it fits: sharded
        spec, alias = load_cluster(ROOT / "examples" / "clusters" / "big_table.yml"), "partitioned_ps"
    inventory = inventory_from_trace(traced)
    strategy = build_strategy(alias, inventory, spec)
    with start_cluster(spec) as cluster:
        profile_strategy(tiny, build_strategy(alias, inventory_from_trace(tiny), spec), cluster, steps=2, warmup=1,
                         steps_per_call=1)
        result = profile_strategy(traced, strategy, cluster, steps=steps, warmup=2, steps_per_call=1)
    rows = predicted_beside_measured(memory_plan(inventory, spec, strategy), result.peak_memory)
    for r in rows:
        r["setup"] = result.peak_memory[r["node"]]["setup_grown"]
    return {"model": model, "builder": alias, "nodes": rows, "activations": inventory.activation_bytes}


def error_pct(row: dict) -> float | None:
    """The error of the node that holds the most (measured), in % of what it measured."""
    node = max(row["nodes"], key=lambda n: n["measured"], default=None)
    if node is None or node["measured"] <= 0:
        return None
    return 100.0 * (node["predicted"] - node["measured"]) / node["measured"]


def table(rows: list[dict]) -> str:
    lines = ["| model | strategy | task | predicted MB | measured MB | error % | set-up MB |",
             "|---|---|---|---:|---:|---:|---:|"]
    for r in rows:
        top = max(r["nodes"], key=lambda n: n["measured"], default=None)
        for n in r["nodes"]:
            err = 100.0 * (n["predicted"] - n["measured"]) / n["measured"] if n["measured"] > 0 else float("nan")
            mark = " *" if n is top else ""
            lines.append(f"| {r['model']} | {r['builder']} | {n['node']}{mark} | {n['predicted'] / 1e6:.1f} | "
                         f"{n['measured'] / 1e6:.1f} | {err:+.0f} | {n['setup'] / 1e6:.1f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the examples and four other models, one builder")
    ap.add_argument("--models", help="comma-separated, under examples/ (e.g. models/mlp,zoo/keras_lstm)")
    ap.add_argument("--builders", default=None, help="comma-separated builder aliases (default ps,all_reduce)")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--out", default="/tmp/bench-memory-fit")
    args = ap.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.update(TRIMMED)
    models = args.models.split(",") if args.models else EXAMPLES + (QUICK_OTHERS if args.quick else OTHERS)
    builders = (args.builders or ("ps" if args.quick else "ps,all_reduce")).split(",")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, t0 = [], time.perf_counter()
    (out / "tiny.py").write_text(TINY)
    from space.model import trace_step

    tiny = trace_step(out / "tiny.py")
    with open(out / "memory_fit.jsonl", "w") as log:
        for model in models:
            for alias in builders:
                row = measure(model, alias, args.steps, tiny)
                rows.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
    errors = [abs(e) for e in map(error_pct, rows) if e is not None]
    text = (table(rows) + f"\n\n* the node that holds the most. Within 20% on {sum(e <= 20 for e in errors)} of "
            f"{len(errors)} jobs (that node); median |error| {sorted(errors)[len(errors) // 2]:.0f}%. "
            f"{time.perf_counter() - t0:.0f} s, load average {os.getloadavg()[0]:.1f} (under load: others run).")
    print(text)
    (out / "memory_fit.md").write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
