"""Run a real training job with a strategy: periodic checkpoints, resume, a stop on a non-finite loss, metrics.

A checkpoint is strategy-free: every variable, every piece of state and every optimizer slot, whole (gathered
from shards, PS placements and all-reduced copies), by the strategy's variable names, so a job resumes from it
under the same strategy or another. ``<DIR>/ckpt-<step>/`` holds

- ``variables.npz``: ``trainable/<name>``, ``state/<name>``, ``slot/<name>/<slot>`` (numpy; any tool reads it);
- ``model.weights.h5`` for a Keras model (``model.load_weights``), a ``tf.train.Checkpoint(model=...)`` for a
  ``tf.Module``: the single-device model, as its own library saves it;
- ``checkpoint.json``: the step, the batches each replica's pipeline has served, the loss, the strategy's id.

Each is written under a temporary name and renamed into place; ``<DIR>/train.json`` names the latest; the last
``keep`` are kept. :func:`load_checkpoint` reads one back, :func:`keras_optimizer` rebuilds the Keras optimizer
with its slots, for evaluation or fine-tuning on one device.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import shutil
import statistics
import time
from typing import Callable, Iterable

import numpy as np

from space.errors import BadInput, RunError

CHECKPOINT_PREFIX = "ckpt-"
PROBE_STEPS = 5  # one-step calls that time the step before the steps per call are chosen
KERAS_SLOTS = {"adam": {"m": "_momentums", "v": "_velocities"}, "momentum": {"momentum": "momentums"}}


@dataclasses.dataclass
class StepInfo:
    """What a callback of :func:`train_strategy` is told after each step."""

    step: int  # steps done in all (a resumed job counts the checkpoint's)
    loss: float
    step_time_s: float
    examples_per_s: float


@dataclasses.dataclass
class TrainResult:
    steps: int  # steps done in all
    losses: list[float]  # of this run's steps
    step_times_s: list[float]
    seconds: float
    checkpoint: str | None  # the latest checkpoint directory
    values: dict
    state: dict
    start_step: int = 0
    checkpoints: list[str] = dataclasses.field(default_factory=list)
    steps_per_call: int = 1  # the steps each call ran (where the steps filled a call)


class NonFiniteLoss(RunError):
    """The loss became NaN or infinite: training stops (the variables it would save are already spoiled)."""


@dataclasses.dataclass
class Checkpoint:
    """One checkpoint read back (:func:`load_checkpoint`)."""

    path: pathlib.Path
    step: int
    values: dict
    state: dict
    slots: dict  # variable -> {slot: array}
    batches_done: list[int]
    meta: dict

    def start(self):
        """The ``runners.transform.Start`` a job resumes from."""
        from runners.transform._graph import Start

        return Start(values=self.values, state=self.state, slots=self.slots, batches_done=self.batches_done)


def train_strategy(traced, strategy, cluster, *, steps: int, checkpoint_dir: str | None = None, save_every: int = 0,
                   keep: int = 3, resume_from: Checkpoint | None = None, step_timeout_s: float = 120.0,
                   log: Callable[[str], None] | None = None, callbacks: Iterable[Callable[[StepInfo], None]] = (),
                   logdir: str | None = None, log_every: int = 10, steps_per_call: int = 0,
                   on_build: Callable[[str], None] | None = None) -> TrainResult:
    """Train until ``steps`` steps in all are done (from ``resume_from``'s step, else 0) on a running cluster.

    With ``checkpoint_dir``, a checkpoint every ``save_every`` steps (0: at the end only) and at the end. A NaN or
    infinite loss raises :class:`NonFiniteLoss` naming the step and the last good checkpoint. With ``logdir``,
    TensorBoard scalars (loss, step time, examples/s, bytes moved per step by node) every ``log_every`` steps.
    ``steps_per_call`` steps run in each ``Session.run`` (0: chosen after the first steps, so that the call's own
    cost is a small share of a call); the losses, NaN checks and callbacks of a call's steps come after the call,
    and a call never spans a checkpoint.
    """
    from runners.transform import TrainingJob

    start_step = resume_from.step if resume_from is not None else 0
    if steps_per_call < 0:
        raise BadInput(f"`steps_per_call >= 0` must hold, but got {steps_per_call}", hint="0 chooses it")
    if steps < start_step:
        raise BadInput(f"--steps {steps} is fewer than the {start_step} steps the checkpoint has done",
                       hint="give the steps in all, the checkpoint's included")
    out = pathlib.Path(checkpoint_dir) if checkpoint_dir else None
    losses: list[float] = []
    times: list[float] = []
    saved: list[str] = []
    callbacks = list(callbacks)
    t0 = time.perf_counter()
    with TrainingJob(traced, strategy, cluster, step_timeout_s=step_timeout_s, on_build=on_build or log,
                     start=resume_from.start() if resume_from is not None else None) as job:
        batch = job.graph.global_batch
        metrics = _Metrics(logdir, log_every, job.graph.bytes_per_step, job.graph.bytes_by_node) if logdir else None

        def on_step(_s: int, dt: float, loss: float) -> None:
            done = start_step + len(losses) + 1
            if not math.isfinite(loss):
                last = saved[-1] if saved else (str(resume_from.path) if resume_from else "none")
                raise NonFiniteLoss(f"the loss is {loss} at step {done}: training stopped; the last good "
                                    f"checkpoint is {last}", hint="lower the learning rate or check the inputs")
            losses.append(loss)
            times.append(dt)
            info = StepInfo(done, loss, dt, batch / dt if dt > 0 else 0.0)
            if metrics:
                metrics.add(info)
            for cb in callbacks:
                cb(info)
            if log and (done == start_step + 1 or done % max(1, steps // 10) == 0 or done == steps):
                log(f"step {done}/{steps}  loss {loss:.5f}  {dt * 1e3:.1f} ms")

        try:
            done = start_step
            chosen = steps_per_call > 0 and job.set_steps_per_call(steps_per_call)
            step_s = None
            while done < steps:
                chunk = left = min(save_every or steps, steps - done)
                if not chosen and step_s is None:  # one-step calls time the step (the first builds the executors)
                    first = job.run(min(PROBE_STEPS, left), on_step=on_step)
                    step_s, left = statistics.median(first[1:] or first), left - len(first)
                if not chosen and left >= job.PROBE_CALLS * job.probe_length():  # room for its probe calls
                    chosen = job.choose_steps_per_call(step_s, on_step=on_step)
                    left -= job.probe_steps
                job.run(left, on_step=on_step)
                done += chunk
                if out is not None and (save_every or done == steps):
                    values, state, slots = job.snapshot()
                    path = save_checkpoint(traced, out, done, values, state, slots, [done] * job.graph.num_towers,
                                           strategy=strategy, loss=losses[-1] if losses else None, keep=keep)
                    saved.append(str(path))
            values, state = job.values()
        finally:
            if metrics:
                metrics.close()
    return TrainResult(steps=steps, losses=losses, step_times_s=times, seconds=time.perf_counter() - t0,
                       checkpoint=saved[-1] if saved else None, values=values, state=state, start_step=start_step,
                       checkpoints=saved, steps_per_call=job.steps_per_call)


class _Metrics:
    """TensorBoard scalars written by the driver, averaged over ``every`` steps (a write per step would cost more
    than a small step)."""

    def __init__(self, logdir: str, every: int, bytes_per_step: float, bytes_by_node: dict) -> None:
        import tensorflow as tf

        self.tf = tf
        self.writer = tf.summary.create_file_writer(str(logdir))
        self.every, self.window = max(1, every), []
        self.bytes_per_step, self.bytes_by_node = bytes_per_step, bytes_by_node

    def add(self, info: StepInfo) -> None:
        self.window.append(info)
        if len(self.window) >= self.every:
            self.flush()

    def flush(self) -> None:
        if not self.window:
            return
        last = self.window[-1]
        mean_s = sum(i.step_time_s for i in self.window) / len(self.window)
        scalars = {"loss": last.loss, "step_time_ms": mean_s * 1e3,
                   "examples_per_s": sum(i.examples_per_s for i in self.window) / len(self.window),
                   "bytes_per_step/all_nodes": self.bytes_per_step,
                   **{f"bytes_per_step/{node}": b for node, b in sorted(self.bytes_by_node.items())}}
        with self.writer.as_default():
            for tag, value in scalars.items():
                self._scalar(tag, value, last.step)
        self.writer.flush()
        self.window = []

    def _scalar(self, tag: str, value: float, step: int) -> None:
        """A scalar as TensorBoard's scalars plugin reads it, written with TensorFlow's own summary op (the
        ``tf.summary.scalar`` shortcut lives in the tensorboard package, which TensorFlow does not install)."""
        tf = self.tf
        meta = tf.compat.v1.SummaryMetadata()
        meta.plugin_data.plugin_name = "scalars"
        tf.summary.write(tag, tf.constant(float(value), tf.float32), step=step, metadata=meta)

    def close(self) -> None:
        self.flush()
        self.writer.close()


def save_checkpoint(traced, directory: str | os.PathLike, step: int, values: dict, state: dict, slots: dict,
                    batches_done: list[int], *, strategy=None, loss: float | None = None,
                    keep: int = 3) -> pathlib.Path:
    """Write ``<directory>/ckpt-<step>/`` atomically, point ``train.json`` at it, keep the last ``keep``.

    The traced model's variables take the checkpoint's values (its library saves them from there)."""
    import tensorflow as tf

    out = pathlib.Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    name = f"{CHECKPOINT_PREFIX}{step:08d}"
    tmp = out / f".{name}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    arrays = {**{f"trainable/{n}": values[n] for n in traced.names},
              **{f"state/{n}": state[n] for n in traced.state_names},
              **{f"slot/{n}/{s}": v for n, by_slot in slots.items() for s, v in by_slot.items()}}
    np.savez(tmp / "variables.npz", **arrays)
    for v, n in zip(traced.trainable, traced.names):
        v.assign(values[n])
    for v, n in zip(traced.state, traced.state_names):
        v.assign(state[n])
    model = traced.model
    if hasattr(model, "save_weights") and hasattr(model, "load_weights"):
        weights = "model.weights.h5"
        model.save_weights(str(tmp / weights))
    else:
        weights = pathlib.Path(tf.train.Checkpoint(model=model).write(str(tmp / "model"))).name
    meta = {"step": step, "batches_done": list(batches_done), "loss": loss, "weights": weights,
            "model": traced.path, "optimizer": traced.optimizer,
            "strategy_id": strategy.proto.id if strategy is not None else None}
    (tmp / "checkpoint.json").write_text(json.dumps(meta, indent=1) + "\n")
    final = out / name
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    if strategy is not None:
        strategy.save(out / "strategy.pb")
    index = {"latest": name, "step": step, "model": traced.path, "weights": f"{name}/{weights}",
             "variables": f"{name}/variables.npz"}
    (out / "train.json.tmp").write_text(json.dumps(index, indent=1) + "\n")
    os.replace(out / "train.json.tmp", out / "train.json")
    for old in checkpoints(out)[:-max(1, keep)]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def checkpoints(directory: str | os.PathLike) -> list[pathlib.Path]:
    """The complete checkpoints in ``directory``, oldest first (a half-written one has its temporary name)."""
    d = pathlib.Path(directory)
    found = [p for p in d.glob(f"{CHECKPOINT_PREFIX}*") if p.is_dir() and (p / "checkpoint.json").is_file()]
    return sorted(found, key=lambda p: p.name)


def load_checkpoint(path: str | os.PathLike, warn: Callable[[str], None] | None = None) -> Checkpoint:
    """A checkpoint directory, or the newest readable checkpoint of a ``--checkpoint`` directory: one that cannot
    be read (a ``variables.npz`` a crash or a full disk truncated) is named to ``warn`` and the one before it taken."""
    p = pathlib.Path(path)
    if (p / "checkpoint.json").is_file():
        return _read_checkpoint(p)
    found = checkpoints(p) if p.is_dir() else []
    if not found:
        raise BadInput(f"no checkpoint in {p}", hint="train with --checkpoint DIR first, or drop --resume")
    for older, candidate in _newest_first(found):
        try:
            return _read_checkpoint(candidate)
        except BadInput as e:
            if older is None:
                raise
            if warn is not None:
                warn(f"note: {e.what}; resuming from the checkpoint before it, {older}")
    raise AssertionError("unreachable")


def _newest_first(found: list[pathlib.Path]):
    """(the checkpoint before it or None, checkpoint), newest first."""
    return reversed(list(zip([None] + found[:-1], found)))


def _read_checkpoint(p: pathlib.Path) -> Checkpoint:
    import zipfile
    import zlib

    try:
        meta = json.loads((p / "checkpoint.json").read_text())
        step = int(meta["step"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise BadInput(f"unreadable checkpoint file {p / 'checkpoint.json'}: {type(e).__name__}: {e}",
                       hint="resume from another checkpoint (the previous ones are kept)") from None
    try:
        with np.load(p / "variables.npz") as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        raise BadInput(f"unreadable checkpoint file {p / 'variables.npz'}: {type(e).__name__}: {e}",
                       hint="resume from another checkpoint (the previous ones are kept)") from None
    values, state, slots = {}, {}, {}
    for key, value in arrays.items():
        kind, _, rest = key.partition("/")
        if kind == "trainable":
            values[rest] = value
        elif kind == "state":
            state[rest] = value
        elif kind == "slot":
            var, _, slot = rest.rpartition("/")
            slots.setdefault(var, {})[slot] = value
    return Checkpoint(path=p, step=step, values=values, state=state, slots=slots,
                      batches_done=list(meta.get("batches_done") or [step]), meta=meta)


def check_fits(checkpoint: Checkpoint, traced) -> None:
    """Refuse a checkpoint of another model (other variables, or other shapes) before any server starts."""
    mine = {n: tuple(v.shape) for n, v in zip(traced.names + traced.state_names, traced.trainable + traced.state)}
    theirs = {n: tuple(a.shape) for n, a in {**checkpoint.values, **checkpoint.state}.items()}
    lacking = [n for n in mine if n not in theirs]
    unknown = [n for n in theirs if n not in mine]
    other = [n for n in mine if n in theirs and mine[n] != theirs[n]]
    if not (lacking or unknown or other):
        return
    why = (f"it lacks the variable {lacking[0]!r}" if lacking else f"it holds a variable {unknown[0]!r} the model "
           "lacks" if unknown else f"its {other[0]!r} is {list(theirs[other[0]])}, the model's {list(mine[other[0]])}")
    raise BadInput(f"the checkpoint {checkpoint.path} is of another model than {traced.path}: {why}",
                   hint="resume from a checkpoint this model wrote, or give --checkpoint a new directory")


def keras_optimizer(checkpoint: Checkpoint, traced):
    """The Keras optimizer of the model, built on its trainable variables, with the checkpoint's slots: the
    single-device continuation of the job (``traced``: the model's ``space.model.TracedStep``)."""
    from runners.transform._optimizer import Optimizer

    opt = Optimizer(traced.optimizer).keras()
    variables = list(getattr(traced.model, "trainable_variables", traced.trainable))
    opt.build(variables)
    names = KERAS_SLOTS.get(traced.optimizer.get("name", "sgd"), {})
    for i, name in enumerate(traced.names):
        for slot, attr in names.items():
            getattr(opt, attr)[i].assign(checkpoint.slots[name][slot])
    if traced.optimizer.get("name") == "adam" and traced.names:
        opt.iterations.assign(int(checkpoint.slots[traced.names[0]]["t"]))
    else:
        opt.iterations.assign(checkpoint.step)
    return opt
