"""Recurrent models distributed: each one's step on two nodes against its step on one node and in plain TF.

    python benchmarks/recurrent_steps.py [--models keras_lstm,keras_gru,while_loop_variable,keras_sequential]
        [--builders ps,all_reduce,parallax] [--steps 30 --warmup 5 --rounds 3] [--most-steps-per-call K]
        [--out runs/bench-recurrent_steps]

A model is a zoo name (``examples/zoo/<name>.py``) or a path; ``keras_sequential``, a step without control flow,
shows what two nodes cost this machine's steps anyway. Plain: the ``tf.function`` step of
``backend_overhead.py`` in this process. One node: the ``ps`` builder on the spec's chief alone (one replica, its
variables on its own CPU). Two nodes: each builder on the whole spec (``--spec``, two loopback nodes by default),
one replica a node, each replica taking the batch the one-node replica takes. Every job runs the steps per call
``TrainingJob.choose_steps_per_call`` picks for it, as ``train`` does (each sample a call's seconds over its
steps); the jobs take turns in ``--rounds`` rounds of ``--steps`` samples so that the machine's drift falls on all
alike, and each is the median of its samples. Target: two nodes within 1.3x of one node. The samples of each model
go to ``--out``/<model>.json, the table to ``--out``/table.md.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

TARGET = 1.3


def model_path(name: str) -> pathlib.Path:
    path = pathlib.Path(name)
    return path if path.suffix == ".py" else ROOT / "examples" / "zoo" / f"{name}.py"


def one_node(spec):
    """``spec`` reduced to its chief."""
    from space.cluster import ClusterSpec

    data = spec.to_dict()
    data["nodes"] = [n for n in data["nodes"] if n["chief"]]
    data.pop("links", None)
    return ClusterSpec.from_dict(data, source=f"{spec.source} (chief only)")


def job_runner(job, warmup: int, most: int | None):
    """A function of n -> n samples of ``job`` at the steps per call it chooses after ``warmup`` steps (at most
    ``most``)."""
    warm = job.run(warmup)
    job.choose_steps_per_call(statistics.median(warm[1:] or warm), most=most)
    job.run(job.steps_per_call)  # the first call of its length builds the executors

    def run(n: int) -> list[float]:
        return job.run(n * job.steps_per_call)[::job.steps_per_call]

    return run


def measure(path, spec, cluster, builders: list[str], args) -> dict:
    """Samples (seconds) of the plain step, the one-node job and each builder's two-node job."""
    import contextlib

    from backend_overhead import plain_step_runner
    from runners.transform import TrainingJob
    from space.builders import build_strategy
    from space.model import inventory_from_trace, trace_step

    traced = trace_step(path)
    inv = inventory_from_trace(traced)
    strategies = {"one node": build_strategy("ps", inv, one_node(spec))}
    strategies.update({b: build_strategy(b, inv, spec) for b in builders})
    with contextlib.ExitStack() as stack:
        runners = {"plain": plain_step_runner(traced, args.warmup)}
        ks = {}
        for name, strategy in strategies.items():
            job = stack.enter_context(TrainingJob(traced, strategy, cluster))
            runners[name] = job_runner(job, args.warmup, args.most_steps_per_call)
            ks[name] = job.steps_per_call
        samples: dict[str, list[float]] = {name: [] for name in runners}
        names = list(runners)
        for r in range(args.rounds):
            for name in names[r % len(names):] + names[:r % len(names)]:
                samples[name] += runners[name](args.steps)
    return {"samples": samples, "steps_per_call": ks}


def rows_of(model: str, m: dict, builders: list[str]) -> list[dict]:
    med = {name: statistics.median(xs) for name, xs in m["samples"].items()}
    return [{"model": model, "builder": b, "plain TF (ms)": f"{med['plain'] * 1e3:.2f}",
             "one node (ms)": f"{med['one node'] * 1e3:.2f}", "two nodes (ms)": f"{med[b] * 1e3:.2f}",
             "two / one": f"{med[b] / med['one node']:.2f}", "two / plain": f"{med[b] / med['plain']:.2f}",
             "k": m["steps_per_call"][b]} for b in builders]


def main(argv=None) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from runners.cluster import start_cluster
    from space import format_table
    from space.cluster import load_cluster

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="keras_lstm,keras_gru,while_loop_variable,keras_sequential")
    p.add_argument("--builders", default="ps,all_reduce,parallax")
    p.add_argument("--spec", default=str(ROOT / "examples" / "clusters" / "localhost.yml"))
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--most-steps-per-call", type=int, default=None,
                   help="cap the steps per call (default: train's cap; 64 copies of a loop take minutes to build)")
    p.add_argument("--out", default=str(ROOT / "runs" / "bench-recurrent_steps"))
    args = p.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    spec = load_cluster(args.spec)
    builders = args.builders.split(",")
    rows = []
    with start_cluster(spec) as cluster:
        for model in args.models.split(","):
            m = measure(model_path(model), spec, cluster, builders, args)
            name = model_path(model).stem
            (out / f"{name}.json").write_text(json.dumps(m, indent=1))
            rows += rows_of(name, m, builders)
            print(format_table(rows[-len(builders):]), file=sys.stderr, flush=True)
    table = (f"median of {args.rounds} x {args.steps} samples after {args.warmup} warm-up steps; "
             f"target: two / one <= {TARGET}\n\n{format_table(rows)}")
    (out / "table.md").write_text(table + "\n")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
