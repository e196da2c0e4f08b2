"""Probe jobs that fit the memory model's per-job terms: the runtime's bytes on every server (a floor and a cost per
graph op) and the chief's as the master (a cost per graph op and a share of the initial values it relays), by least
squares over what each probe's servers grew by beyond the plan's own parts (``simulator.fit_job_memory``).

    python benchmarks/memory_probes.py [--spec cluster.yml] [--calibration cal.json] [--steps 5]
                                       [--out /tmp/bench-memory-probes]

The probes are synthetic (dense stacks of a few bytes and many ops, and a few large matrices), none of the models
``memory_fit.py`` compares against, so the comparison tests the fit rather than repeats it. Measured like
``memory_fit.py``: a cluster of its own per probe, warmed by a job of a model of a few bytes, glibc trimming. Prints
the fitted constants (the ``Calibration`` fields) and one JSON line a probe to ``<out>/memory_probes.jsonl``; with
``--calibration``, stores them in that calibration of the spec (which must exist and be the spec's).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# (name, layers, width, input width): ops grow with the layers, initial values with the widths
PROBES = [("stack2", 2, 8, 8), ("stack20", 20, 8, 8), ("stack40", 40, 8, 8), ("stack80", 80, 8, 8),
          ("wide", 2, 2048, 2048), ("wider", 2, 2048, 6144), ("wide_deep", 12, 1024, 4096),
          ("mid", 30, 256, 1024)]
PROBE = """import numpy as np, tensorflow as tf, keras
BATCH = 4
def build_model():
    return keras.Sequential([keras.Input(({inp},))] + [keras.layers.Dense({width}) for _ in range({layers})]
                            + [keras.layers.Dense(1)])
def loss_fn(model, batch):
    return tf.reduce_mean(model(batch))
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(np.ones((16, {inp}), "float32")).repeat().batch(BATCH)
"""


def measure(spec, path: pathlib.Path, steps: int, tiny) -> dict:
    """One probe on a cluster of its own: per node, the plan's bytes without the per-job terms, and measured."""
    from runners.cluster import start_cluster
    from runners.profile import profile_strategy
    from simulator import Calibration, Scorer
    from space.builders import build_strategy
    from space.model import inventory_from_trace, trace_step

    traced = trace_step(path)
    inventory = inventory_from_trace(traced)
    strategy = build_strategy("ps", inventory, spec)
    with start_cluster(spec) as cluster:
        profile_strategy(tiny, build_strategy("ps", inventory_from_trace(tiny), spec), cluster, steps=2, warmup=1,
                         steps_per_call=1)
        result = profile_strategy(traced, strategy, cluster, steps=steps, warmup=2, steps_per_call=1)
    bare = Calibration.from_spec(spec, job_bytes=0.0, job_bytes_per_op=0.0, master_bytes_per_op=0.0,
                                 master_initial_share=0.0)
    plan = Scorer(inventory, spec, bare).memory(strategy)
    variables = sum(v.bytes for v in inventory.variables + inventory.state)
    return {"probe": path.stem, "ops": inventory.graph_ops, "initial_bytes": variables,
            "nodes": [{"node": n.address, "chief": s.chief, "plan": n.total,
                       "measured": result.peak_memory[n.address]["grown"]}
                      for n, s in zip(plan.nodes, spec.nodes) if n.address in result.peak_memory]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spec", default=str(ROOT / "examples" / "clusters" / "localhost.yml"))
    ap.add_argument("--calibration", help="a calibration of the spec to store the fitted terms in")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--out", default="/tmp/bench-memory-probes")
    args = ap.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from memory_fit import TINY, TRIMMED
    from simulator import Calibration, fit_job_memory
    from space.cluster import load_cluster
    from space.errors import BadInput
    from space.model import trace_step

    os.environ.update(TRIMMED)
    try:
        spec = load_cluster(args.spec)
        # a missing or stale calibration fails here, before the probes run
        stored = Calibration.load(args.calibration, spec) if args.calibration else None
    except BadInput as e:
        print(f"error: {e.line()}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tiny.py").write_text(TINY)
    tiny = trace_step(out / "tiny.py")
    rows = []
    with open(out / "memory_probes.jsonl", "w") as log:
        for name, layers, width, inp in PROBES:
            path = out / f"{name}.py"
            path.write_text(PROBE.format(layers=int(layers), width=int(width), inp=int(inp)))
            rows.append(measure(spec, path, args.steps, tiny))
            log.write(json.dumps(rows[-1]) + "\n")
            log.flush()
    for r in rows:
        for n in r["nodes"]:
            print(f"{r['probe']:10} ops {r['ops']:5} initial {r['initial_bytes'] / 1e6:7.1f} MB  {n['node']}"
                  f"{' (chief)' if n['chief'] else ''}: plan {n['plan'] / 1e6:6.1f} MB, measured "
                  f"{n['measured'] / 1e6:6.1f} MB")
    fitted = fit_job_memory(rows)
    print(json.dumps(fitted, indent=1))
    if stored is not None:
        print(f"stored in {stored.replace(**fitted).save(args.calibration)}")
    print(f"load average {os.getloadavg()[0]:.1f} (under load: others run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
