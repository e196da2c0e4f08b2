"""Backend overhead: a 1-replica strategy through the backend vs the plain single-process TF step.

    python benchmarks/backend_overhead.py [--models mlp,cnn,...] [--steps 50 --warmup 10 --rounds 5]

Plain: ``tf.function`` (loss, gradients, Keras optimizer) on this process's CPU, batches from
``dataset_fn(0, 1)``. Backend: the ``all_reduce`` builder's strategy reduced to the chief's replica, run as
training and ``profile`` run it on the local cluster (graph built by the transform, over gRPC): one step per
``Session.run``, and the steps per call ``TrainingJob.choose_steps_per_call`` picks after the warm-up (each
sample a call's seconds over its steps). The three take turns in ``--rounds`` rounds of ``--steps`` samples each,
so that the machine's drift falls on all of them alike; each is the median of its samples. Target ratio <= 1.05.
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


def plain_step_runner(traced, warmup: int):
    """A function of n -> the seconds of n plain steps, after ``warmup`` steps."""
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

    def run(n: int) -> list[float]:
        times = []
        for _ in range(n):
            batch = next(it)
            t0 = time.perf_counter()
            step(batch).numpy()
            times.append(time.perf_counter() - t0)
        return times

    run(warmup)
    return run


def backend_runner(job, steps_per_call: int):
    """A function of n -> n samples of ``job`` at ``steps_per_call`` steps per call (each a call over its steps)."""
    def run(n: int) -> list[float]:
        job.set_steps_per_call(steps_per_call)
        return job.run(n * job.steps_per_call)[::job.steps_per_call]

    return run


def measure(traced, strategy, cluster, steps: int, warmup: int, rounds: int) -> dict:
    """Median seconds of the plain step, the backend at one step per call and at the steps per call it chooses."""
    from runners.transform import TrainingJob

    with TrainingJob(traced, strategy, cluster) as job:
        warm = job.run(warmup)
        k = job.choose_steps_per_call(statistics.median(warm[1:] or warm))
        runners = {"plain": plain_step_runner(traced, warmup), "one": backend_runner(job, 1),
                   "auto": backend_runner(job, k)}
        runners["auto"](1)  # the first call of k steps builds its executors
        samples: dict[str, list[float]] = {name: [] for name in runners}
        for r in range(rounds):
            order = list(runners)[r % 3:] + list(runners)[:r % 3]
            for name in order:
                samples[name] += runners[name](steps)
    return {"k": k, **{name: statistics.median(xs) for name, xs in samples.items()}}


def main(argv=None) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from runners.cluster import start_cluster
    from space import format_table
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step
    from space.strategy import Strategy

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,cnn,recommender,transformer,dlrm")
    p.add_argument("--spec", default=str(ROOT / "examples" / "clusters" / "localhost.yml"))
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    spec = load_cluster(args.spec)
    rows = []
    with start_cluster(spec) as cluster:
        for model in args.models.split(","):
            traced = trace_step(ROOT / "examples" / "models" / f"{model}.py")
            inv = inventory_from_trace(traced)
            full = build_strategy("all_reduce", inv, spec)
            one = Strategy.build(full.nodes, [spec.chief.cpu_devices[0]], builder="all_reduce (1 replica)")
            m = measure(traced, one, cluster, args.steps, args.warmup, args.rounds)
            rows.append({"model": model, "plain TF step (ms)": f"{m['plain'] * 1e3:.2f}",
                         "1 step per call (ms)": f"{m['one'] * 1e3:.2f}", "ratio, 1": f"{m['one'] / m['plain']:.3f}",
                         "k (steps per call)": m["k"], "k steps per call (ms)": f"{m['auto'] * 1e3:.2f}",
                         "ratio, k": f"{m['auto'] / m['plain']:.3f}"})
            print(rows[-1], file=sys.stderr, flush=True)
    print(f"median of {args.rounds} x {args.steps} samples after {args.warmup} warm-up; target ratio <= 1.05")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
