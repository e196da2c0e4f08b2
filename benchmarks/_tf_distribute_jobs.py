"""One contender's training run for ``benchmarks/vs_tf_distribute.py``, in a process of its own.

    python _tf_distribute_jobs.py mwms  --model M --tf-config JSON --steps N --warmup W --threads T --out F
    python _tf_distribute_jobs.py server --tf-config JSON --threads T                 # a PS or worker server
    python _tf_distribute_jobs.py pss   --model M --tf-config JSON --steps N --warmup W --threads T --out F
    python _tf_distribute_jobs.py autotune --model M --spec S --strategy P --steps N --warmup W --out F

Each run trains the model's own ``dataset_fn``, ``loss_fn`` and optimizer, per-replica batch as the model gives it,
and writes ``{"step_times_s": [...], "global_batch": B}`` (timed steps only; autotune's also ``"steps_per_call"``)
to ``--out``.
"""
from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _tf(threads: int):
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(threads)
    return tf


def _model(path: str):
    from runners.transform._optimizer import Optimizer
    from space.model import import_model_file, optimizer_config

    module = import_model_file(path)
    return module, Optimizer(optimizer_config(module, path))


def _batch_size(module) -> int:
    import tensorflow as tf

    first = next(iter(module.dataset_fn(0, 1)))
    return int(tf.nest.flatten(first)[0].shape[0])


def mwms(args) -> dict:
    """MultiWorkerMirroredStrategy, ring all-reduce: this process is one worker (one replica) of the cluster."""
    os.environ["TF_CONFIG"] = args.tf_config
    tf = _tf(args.threads)
    ring = tf.distribute.experimental.CommunicationImplementation.RING
    strategy = tf.distribute.MultiWorkerMirroredStrategy(
        communication_options=tf.distribute.experimental.CommunicationOptions(implementation=ring))
    module, optimizer = _model(args.model)
    with strategy.scope():
        model = module.build_model()
        opt = optimizer.keras()
        opt.build(model.trainable_variables)
    data = strategy.distribute_datasets_from_function(
        lambda ctx: module.dataset_fn(ctx.input_pipeline_id, ctx.num_input_pipelines).repeat())
    it = iter(data)
    replicas = strategy.num_replicas_in_sync

    @tf.function
    def step(iterator):
        def one(batch):
            with tf.GradientTape() as tape:
                loss = module.loss_fn(model, batch) / replicas  # Keras sums the replicas' gradients
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return strategy.reduce("SUM", strategy.run(one, args=(next(iterator),)), axis=None)

    times = []
    for s in range(args.warmup + args.steps):
        t0 = time.perf_counter()
        float(step(it))
        if s >= args.warmup:
            times.append(time.perf_counter() - t0)
    return {"step_times_s": times, "global_batch": _batch_size(module) * replicas}


def server(args) -> None:
    """A PS or worker server of ParameterServerStrategy's cluster, serving until killed."""
    tf = _tf(args.threads)
    config = json.loads(args.tf_config)
    task = config["task"]
    tf.distribute.Server(tf.train.ClusterSpec(config["cluster"]), job_name=task["type"], task_index=task["index"],
                         protocol="grpc", start=True).join()


def pss(args) -> dict:
    """ParameterServerStrategy (the TF2 coordinator): every variable on the PS tasks, each worker stepping
    asynchronously; a step time here is the wall time per *global* step (every worker's batch once)."""
    os.environ["TF_CONFIG"] = args.tf_config
    tf = _tf(args.threads)
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)
    module, optimizer = _model(args.model)
    workers = len(json.loads(args.tf_config)["cluster"]["worker"])
    with strategy.scope():
        model = module.build_model()
        opt = optimizer.keras()
        opt.build(model.trainable_variables)

    data = strategy.distribute_datasets_from_function(
        lambda ctx: module.dataset_fn(ctx.input_pipeline_id, max(ctx.num_input_pipelines, 1)).repeat())
    it = iter(coordinator.create_per_worker_dataset(data))

    @tf.function
    def step(iterator):
        def one(batch):
            with tf.GradientTape() as tape:
                loss = module.loss_fn(model, batch)
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        return strategy.run(one, args=(next(iterator),))

    for _ in range(args.warmup * workers):
        coordinator.schedule(step, args=(it,))
    coordinator.join()
    times = []
    for _ in range(args.steps):  # one global step: every worker's batch once
        t0 = time.perf_counter()
        for _ in range(workers):
            coordinator.schedule(step, args=(it,))
        coordinator.join()
        times.append(time.perf_counter() - t0)
    return {"step_times_s": times, "global_batch": _batch_size(module) * workers}


class _Enough(Exception):
    """Raised by the step callback once the timed steps are in: it ends the training run."""


def steady_steps(times: list[float], warmup: int) -> tuple[list[float], list[int]]:
    """The steps of ``times`` (``autotune.train``'s, in order) past the first ``warmup``, less every call that was
    the first of its number of steps, as MWMS's warm-up leaves out the steps that trace its function: such a call
    builds its executors on the servers (seconds, with many steps to a call). Also the steps of each call timed.

    A call's steps are each told its seconds over its steps, so a run of equal times is one call. The last run is
    left out: more of its call's steps may follow.
    """
    calls = [len(list(run)) for _, run in itertools.groupby(times)][:-1]
    seen: set[int] = set()
    out, timed, done = [], [], 0
    for n in calls:
        if n in seen and done + n > warmup:
            out += times[max(done, warmup):done + n]
            timed.append(n)
        seen.add(n)
        done += n
    return out, timed


def autotune_job(args) -> dict:
    """autotune's strategy file, run by ``autotune.train`` (what ``autotune train`` runs) until ``--steps`` steady
    steps (:func:`steady_steps`) are timed past the warm-up and the calls that choose the steps per call."""
    import autotune
    from runners.train import PROBE_STEPS
    from runners.transform import TrainingJob as Job

    times: list[float] = []
    probes = PROBE_STEPS + Job.PROBE_CALLS * Job.PROBE_AT_CAP  # the calls that choose the steps per call (at the cap)
    warmup = max(args.warmup, probes)

    def record(info) -> None:
        times.append(info.step_time_s)
        if len(steady_steps(times, warmup)[0]) >= args.steps:
            raise _Enough

    # room for the first call of k steps and the call after the last one timed
    room = probes + 3 * Job.MAX_STEPS_PER_CALL
    with contextlib.suppress(_Enough):
        autotune.train(args.model, args.spec, args.strategy, args.warmup + args.steps + room, callbacks=[record])
    steady, calls = steady_steps(times, warmup)
    return {"step_times_s": steady[:args.steps], "global_batch": None,
            "steps_per_call": max(calls, key=calls.count) if calls else None}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("role", choices=["mwms", "server", "pss", "autotune"])
    p.add_argument("--model")
    p.add_argument("--spec")
    p.add_argument("--strategy")
    p.add_argument("--tf-config")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--out")
    args = p.parse_args()
    if args.role == "server":
        server(args)
        return 0
    run = {"mwms": mwms, "pss": pss, "autotune": autotune_job}[args.role]
    try:
        result = run(args)
    except Exception as e:  # noqa: BLE001 - the table says which contender could not run, and why
        lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
        result = {"error": f"{type(e).__name__}: {lines[-1][:300] if lines else ''}"}  # TF's last line says what
    pathlib.Path(args.out).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
