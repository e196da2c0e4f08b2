"""Backend overhead: a 1-replica strategy through the backend vs the plain single-process TF step.

    python benchmarks/backend_overhead.py [--models mlp,cnn,...] [--steps 50 --warmup 10]

Plain: ``tf.function`` (loss, gradients, Keras optimizer) on this process's CPU, batches from
``dataset_fn(0, 1)``. Backend: the ``all_reduce`` builder's strategy reduced to the chief's replica, run by
``profile_strategy`` on the local cluster (graph built by the transform, one ``Session.run`` per step over gRPC).
Target ratio <= 1.05.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def plain_step_times(traced, steps: int, warmup: int) -> list[float]:
    import tensorflow as tf

    from runners.transform import Optimizer

    model, module = traced.model, traced.module
    opt = Optimizer(traced.optimizer).keras()
    variables = list(model.trainable_variables)
    it = iter(module.dataset_fn(0, 1))

    @tf.function
    def step(batch):
        with tf.GradientTape() as tape:
            loss = module.loss_fn(model, batch)
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss

    times = []
    for i in range(warmup + steps):
        batch = next(it)
        t0 = time.perf_counter()
        step(batch).numpy()
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    return times


def main(argv=None) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from runners.cluster import start_cluster
    from runners.profile import profile_strategy
    from space import format_table
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step
    from space.strategy import Strategy

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,cnn,recommender,transformer")
    p.add_argument("--spec", default=str(ROOT / "examples" / "clusters" / "localhost.yml"))
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    args = p.parse_args(argv)
    spec = load_cluster(args.spec)
    rows = []
    with start_cluster(spec) as cluster:
        for model in args.models.split(","):
            traced = trace_step(ROOT / "examples" / "models" / f"{model}.py")
            inv = inventory_from_trace(traced)
            full = build_strategy("all_reduce", inv, spec)
            one = Strategy.build(full.nodes, [spec.chief.cpu_devices[0]], builder="all_reduce (1 replica)")
            backend = profile_strategy(traced, one, cluster, steps=args.steps, warmup=args.warmup).median_s
            plain = statistics.median(plain_step_times(traced, args.steps, args.warmup))
            rows.append({"model": model, "plain TF step (ms)": f"{plain * 1e3:.2f}",
                         "backend 1 replica (ms)": f"{backend * 1e3:.2f}", "ratio": f"{backend / plain:.3f}"})
            print(rows[-1], file=sys.stderr, flush=True)
    print(f"median of {args.steps} steps after {args.warmup} warm-up; target ratio <= 1.05")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
