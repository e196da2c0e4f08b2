"""Run a real training job with a strategy: periodic checkpoints, resume, a stop on a non-finite loss, metrics.

A checkpoint is strategy-free: every variable, every piece of state and every optimizer slot, whole (gathered
from shards, PS placements and all-reduced copies), by the strategy's variable names, so a job resumes from it
under the same strategy or another. ``<DIR>/ckpt-<step>/`` holds

- ``variables.npz``: ``trainable/<name>``, ``state/<name>``, ``slot/<name>/<slot>`` (numpy; any tool reads it);
- ``model.weights.h5`` for a Keras model (``model.load_weights``), a ``tf.train.Checkpoint(model=...)`` for a
  ``tf.Module``: the single-device model, as its own library saves it;
- ``checkpoint.json``: the step, the batches each replica's pipeline has served, the loss, the strategy's id.

Each is written under a temporary name and renamed into place; ``<DIR>/train.json`` names the latest and holds
the evaluations so far; the last ``keep`` are kept. :func:`load_checkpoint` reads one back, :func:`keras_optimizer`
rebuilds the Keras optimizer with its slots, for evaluation or fine-tuning on one device.
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
import zipfile
import zlib
from typing import Callable, Iterable

import numpy as np

from runners import _callbacks, _evaluate
from runners.transform import TrainingJob
from runners._peak_memory import PeakWatch
from runners.transform._graph import Start
from runners.transform._optimizer import ALIASES, Optimizer
from space.errors import BadInput, RunError

CHECKPOINT_PREFIX = "ckpt-"
PROBE_STEPS = 5  # one-step calls that time the step before the steps per call are chosen


@dataclasses.dataclass
class StepInfo:
    """What a callback of :func:`train_strategy` is told after each step."""

    step: int  # steps done in all (a resumed job counts the checkpoint's)
    loss: float
    step_time_s: float
    examples_per_s: float
    learning_rate: float = 0.0  # of the update that made this step


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
    evaluations: list[dict] = dataclasses.field(default_factory=list)  # {"step", "val_loss", "val_<metric>"...}
    steps_per_call: int = 1  # the steps each call ran (where the steps filled a call)
    peak_memory: dict = dataclasses.field(default_factory=dict)  # node -> runners._peak_memory.TaskPeak's data


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
        return Start(values=self.values, state=self.state, slots=self.slots, batches_done=self.batches_done)


def train_strategy(traced, strategy, cluster, *, steps: int, checkpoint_dir: str | None = None, save_every: int = 0,
                   keep: int = 3, resume_from: Checkpoint | None = None, step_timeout_s: float = 120.0,
                   log: Callable[[str], None] | None = None, callbacks: Iterable = (),
                   logdir: str | None = None, log_every: int = 10, steps_per_call: int = 0, eval_every: int = 0,
                   eval_steps: int | None = None, on_build: Callable[[str], None] | None = None,
                   stop: Callable[[], bool] | None = None) -> TrainResult:
    """Train until ``steps`` steps in all are done (from ``resume_from``'s step, else 0) on a running cluster.

    With ``checkpoint_dir``, a checkpoint every ``save_every`` steps (0: at the end only) and at the end. A NaN or
    infinite loss raises :class:`NonFiniteLoss` naming the step and the last good checkpoint. With ``logdir``,
    TensorBoard scalars (loss, learning rate, step time, examples/s, bytes moved per step by node) every
    ``log_every`` steps. ``eval_every``: the validation loss and compiled metrics every that many steps and at the
    end (``runners._evaluate``; ``eval_steps`` batches of ``val_dataset_fn(0, 1)``, default all), logged, written to
    TensorBoard and to ``train.json``. ``callbacks``: plain callables told each step's :class:`StepInfo`, and Keras
    callbacks (``runners._callbacks``). ``steps_per_call`` steps run in each ``Session.run`` (0: chosen after the
    first steps, so that the call's own cost is a small share of a call); the losses, NaN checks and callbacks of a
    call's steps come after the call, and a call never spans a checkpoint or an evaluation. ``stop``: asked after
    every call; once it says True the job ends there, with a checkpoint (as a Keras callback's stop does).
    """
    start_step = resume_from.step if resume_from is not None else 0
    for name, value in (("steps_per_call", steps_per_call), ("eval_every", eval_every)):
        if value < 0:
            raise BadInput(f"`{name} >= 0` must hold, but got {value}", hint="0 chooses it" if name[0] == "s" else "")
    if steps < start_step:
        raise BadInput(f"--steps {steps} is fewer than the {start_step} steps the checkpoint has done",
                       hint="give the steps in all, the checkpoint's included")
    _evaluate.check(traced, eval_every, eval_steps)
    plain, hooks = _callbacks.split(callbacks)
    run = _Run(traced, strategy, steps, start_step, resume_from, log, plain,
               _callbacks.KerasHooks(hooks, traced.model, steps), checkpoint_dir, keep, stop)
    watch = PeakWatch.begin(cluster)
    with TrainingJob(traced, strategy, cluster, step_timeout_s=step_timeout_s, evaluation=bool(eval_every),
                     on_build=on_build or log,
                     start=resume_from.start() if resume_from is not None else None) as job:
        run.job = job
        watch.split()
        run.metrics = _Metrics(logdir, log_every, job.graph.bytes_per_step, job.graph.bytes_by_node) \
            if logdir else None
        evaluate = _evaluate.Evaluator(traced, job, eval_steps) if eval_every else None
        try:
            run.hooks.begin()
            run.loop(save_every, eval_every, evaluate, steps_per_call)
            peaks = watch.read()  # the steps' peak: fetching the values below passes them through the chief
            values, state = job.values()
        finally:
            if run.metrics:
                run.metrics.close()
    run.hooks.end(run.logs())
    return TrainResult(steps=run.done, losses=run.losses, step_times_s=run.times, seconds=time.perf_counter() - run.t0,
                       checkpoint=run.saved[-1] if run.saved else None, values=values, state=state,
                       start_step=start_step, checkpoints=run.saved, evaluations=run.evaluations,
                       steps_per_call=run.job.steps_per_call, peak_memory=peaks)


class _Run:
    """The driver's side of one training job: each step's loss, the callbacks, evaluations and checkpoints."""

    def __init__(self, traced, strategy, steps: int, start_step: int, resume_from, log, plain: list, hooks,
                 checkpoint_dir: str | None, keep: int, stop: Callable[[], bool] | None = None) -> None:
        self.traced, self.strategy, self.steps, self.start_step = traced, strategy, steps, start_step
        self.resume_from, self.log, self.plain, self.hooks, self.keep = resume_from, log, plain, hooks, keep
        self.out = pathlib.Path(checkpoint_dir) if checkpoint_dir else None
        self.optimizer = Optimizer(traced.optimizer, getattr(traced, "keras_optimizer", None))
        self.losses: list[float] = []
        self.times: list[float] = []
        self.saved: list[str] = []
        self.evaluations = _evaluations_before(self.out, start_step) if resume_from is not None else []
        self.done, self.t0 = start_step, time.perf_counter()
        self.job = self.metrics = None
        self.asked = stop or (lambda: False)

    @property
    def stopping(self) -> bool:
        """A Keras callback or the caller's ``stop`` ended the job."""
        return self.hooks.stop or self.asked()

    def logs(self) -> dict:
        logs = {"loss": self.losses[-1]} if self.losses else {}
        logs["learning_rate"] = self.optimizer.learning_rate_at(max(self.done, 1))
        return logs

    def on_step(self, _s: int, dt: float, loss: float) -> None:
        done = self.start_step + len(self.losses) + 1
        if not math.isfinite(loss):
            last = self.saved[-1] if self.saved else (str(self.resume_from.path) if self.resume_from else "none")
            raise NonFiniteLoss(f"the loss is {loss} at step {done}: training stopped; the last good "
                                f"checkpoint is {last}", hint="lower the learning rate or check the inputs")
        self.losses.append(loss)
        self.times.append(dt)
        lr = self.optimizer.learning_rate_at(done)
        info = StepInfo(done, loss, dt, self.job.graph.global_batch / dt if dt > 0 else 0.0, lr)
        if self.metrics:
            self.metrics.add(info)
        for cb in self.plain:
            cb(info)
        self.hooks.step(done, {"loss": loss, "learning_rate": lr})
        steps = self.steps
        if self.log and (done == self.start_step + 1 or done % max(1, steps // 10) == 0 or done == steps):
            self.log(f"step {done}/{steps}  loss {loss:.5f}  {dt * 1e3:.1f} ms")

    def loop(self, save_every: int, eval_every: int, evaluate, steps_per_call: int) -> None:
        """Steps in calls up to the next checkpoint or evaluation, then those, until the steps are done or a
        callback stops the job."""
        job, stop = self.job, (lambda: self.stopping)
        chosen = steps_per_call > 0 and job.set_steps_per_call(steps_per_call)
        step_s = None
        while self.done < self.steps and not self.stopping:
            target = min([self.steps] + [(self.done // k + 1) * k for k in (save_every, eval_every) if k])
            left = target - self.done
            if not chosen and step_s is None:  # one-step calls time the step (the first builds the executors)
                first = job.run(min(PROBE_STEPS, left), on_step=self.on_step, until=stop)
                step_s, left = statistics.median(first[1:] or first), left - len(first)
            if not chosen and left >= job.PROBE_CALLS * job.probe_length() and not self.stopping:
                chosen = job.choose_steps_per_call(step_s, on_step=self.on_step)  # room for its probe calls
            remaining = target - self.start_step - len(self.losses)
            if remaining > 0 and not self.stopping:
                job.run(remaining, on_step=self.on_step, until=stop)
            self.done = self.start_step + len(self.losses)
            if evaluate is not None and (self.done % eval_every == 0 or self.done == self.steps or self.stopping):
                self.evaluated(evaluate(self.done))  # a callback may stop the job on its results
            last = self.done == self.steps or self.stopping
            if self.out is not None and ((save_every and self.done % save_every == 0) or last):
                self.checkpoint()

    def evaluated(self, ev) -> None:
        self.evaluations = [e for e in self.evaluations if e["step"] < ev.step] + [ev.to_dict()]
        if self.log:
            self.log(ev.line())
        if self.metrics:
            self.metrics.scalars(ev.metrics, ev.step)
        if self.out is not None:
            update_index(self.out, evaluations=self.evaluations)
        self.hooks.epoch_end({**self.logs(), **ev.metrics})

    def checkpoint(self) -> None:
        values, state, slots = self.job.snapshot()
        path = save_checkpoint(self.traced, self.out, self.done, values, state, slots,
                               [self.done] * self.job.graph.num_towers, strategy=self.strategy,
                               loss=self.losses[-1] if self.losses else None, keep=self.keep,
                               evaluations=self.evaluations)
        self.saved.append(str(path))


def _evaluations_before(out: pathlib.Path | None, step: int) -> list[dict]:
    """The evaluations a resumed job's earlier runs recorded in ``train.json``, up to the step it resumes at."""
    try:
        index = json.loads((out / "train.json").read_text()) if out is not None else {}
    except (OSError, ValueError):
        return []
    return [e for e in index.get("evaluations", []) if isinstance(e, dict) and e.get("step", step + 1) <= step]


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
        scalars = {"loss": last.loss, "learning_rate": last.learning_rate, "step_time_ms": mean_s * 1e3,
                   "examples_per_s": sum(i.examples_per_s for i in self.window) / len(self.window),
                   "bytes_per_step/all_nodes": self.bytes_per_step,
                   **{f"bytes_per_step/{node}": b for node, b in sorted(self.bytes_by_node.items())}}
        self.window = []
        self.scalars(scalars, last.step)

    def scalars(self, values: dict, step: int) -> None:
        """Write ``values`` (tag -> number) at ``step`` now (an evaluation's results)."""
        with self.writer.as_default():
            for tag, value in values.items():
                self._scalar(tag, value, step)
        self.writer.flush()

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


def write_scalars(logdir: str, values: dict, step: int) -> None:
    """``values`` (tag -> number) at ``step`` in ``logdir``, as a job writes its own scalars; with a writer of its
    own, for what happens between the job's steps (``train --adapt``'s decisions)."""
    metrics = _Metrics(logdir, 1, 0.0, {})
    try:
        metrics.scalars(values, step)
    finally:
        metrics.close()


KEPT_KEYS = ("adapt",)  # train.json entries written by others (``train --adapt``): a checkpoint keeps them


def save_checkpoint(traced, directory: str | os.PathLike, step: int, values: dict, state: dict, slots: dict,
                    batches_done: list[int], *, strategy=None, loss: float | None = None,
                    keep: int = 3, evaluations: list[dict] | None = None) -> pathlib.Path:
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
    if evaluations:
        index["evaluations"] = evaluations
    previous = json.loads((out / "train.json").read_text()) if (out / "train.json").is_file() else {}
    _write_index(out, {**{k: previous[k] for k in KEPT_KEYS if k in previous}, **index})
    for old in checkpoints(out)[:-max(1, keep)]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def update_index(out: str | os.PathLike, **entries) -> None:
    """Set ``entries`` in ``<out>/train.json``, keeping its other entries (the evaluations so far, ``train
    --adapt``'s decisions beside the latest checkpoint): every writer of the file goes through here."""
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    index = out / "train.json"
    _write_index(out, {**(json.loads(index.read_text()) if index.is_file() else {}), **entries})


def _write_index(out: pathlib.Path, index: dict) -> None:
    """``<out>/train.json``, atomically: the latest checkpoint and the evaluations so far."""
    (out / "train.json.tmp").write_text(json.dumps(index, indent=1) + "\n")
    os.replace(out / "train.json.tmp", out / "train.json")


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
    """The Keras optimizer of the model, built on its trainable variables, with the checkpoint's slots and step
    count: the single-device continuation of the job (``traced``: the model's ``space.model.TracedStep``)."""
    opt = Optimizer(traced.optimizer, getattr(traced, "keras_optimizer", None)).keras()
    variables = list(getattr(traced.model, "trainable_variables", traced.trainable))
    opt.build(variables)
    by_name = {v.name: v for v in opt.variables}
    for model_var, name in zip(variables, traced.names):
        slots = {ALIASES.get(k, k): v for k, v in checkpoint.slots.get(name, {}).items()}
        for slot, value in slots.items():
            target = by_name.get(f"{_reference_name(model_var)}_{slot}")
            if target is not None:
                target.assign(value)
    first = {ALIASES.get(k, k): v for k, v in checkpoint.slots.get(traced.names[0], {}).items()} \
        if traced.names else {}
    opt.iterations.assign(int(first.get("iterations", checkpoint.step)))
    if "u_product" in first and hasattr(opt, "_u_product"):
        opt._u_product.assign(first["u_product"])  # noqa: SLF001 - Nadam's running product has no public setter
    return opt


def _reference_name(variable) -> str:
    """The prefix Keras gives the optimizer slots of ``variable`` (``add_variable_from_reference``)."""
    if hasattr(variable, "path"):
        return variable.path.replace("/", "_")
    return str(variable.name).replace("/", "_").replace(":", "_")
