"""Python entry points for training scripts and job schedulers: what the CLI does, callable from code."""
from __future__ import annotations

import dataclasses
import os
import pathlib
from typing import Callable, Iterable

from runners.train import StepInfo

__all__ = ["History", "StepInfo", "train"]


@dataclasses.dataclass
class History:
    """What :func:`train` did: the loss and step time of each step it ran, and the checkpoints it wrote."""

    steps: int  # steps done in all (a resumed job counts the checkpoint's)
    start_step: int  # where this run started (0, or the checkpoint it resumed from)
    losses: list[float]
    step_times_s: list[float]
    seconds: float
    checkpoint: str | None  # the latest checkpoint directory
    checkpoints: list[str]
    evaluations: list[dict] = dataclasses.field(default_factory=list)  # {"step", "val_loss", "val_<metric>"...}


def train(model: str | os.PathLike, spec: str | os.PathLike, strategy: str | os.PathLike, steps: int, *,
          checkpoint: str | os.PathLike | None = None, save_every: int = 0, keep: int = 3, resume: bool = False,
          callbacks: Iterable = (), logdir: str | os.PathLike | None = None,
          log_every: int = 10, step_timeout_s: float = 120.0, accept_unknown_hosts: bool = False,
          log: Callable[[str], None] | None = None, steps_per_call: int = 0, eval_every: int = 0,
          eval_steps: int | None = None) -> History:
    """Train ``model`` with the strategy file ``strategy`` on the cluster of ``spec`` until ``steps`` steps in all.

    Args:
        checkpoint: directory of the checkpoints (``ckpt-<step>/``), every ``save_every`` steps and at the end;
            the last ``keep`` are kept.
        resume: continue from the newest checkpoint in ``checkpoint`` (its variables, optimizer slots, step and
            data position), under this strategy or another.
        callbacks: callables, each called with a :class:`StepInfo` after every step (an exception it raises stops
            the job), and Keras callbacks (``keras.callbacks.Callback``): ``on_train_batch_end`` after every step,
            ``on_epoch_end`` after every evaluation with its ``val_*`` results (``EarlyStopping`` stops the job),
            ``on_train_begin``/``on_train_end`` (``runners._callbacks`` says which are refused).
        eval_every: every that many steps and at the end, the validation loss and a compiled model's metrics on
            ``val_dataset_fn(0, 1)`` (``eval_steps`` batches of it, default all), evaluated on the chief's replica;
            logged, written to TensorBoard and to ``<checkpoint>/train.json``, and returned in ``evaluations``.
        logdir: TensorBoard scalars (default ``<checkpoint>/logs`` when checkpointing), every ``log_every`` steps.
        steps_per_call: training steps per ``Session.run`` (0: chosen after the first steps); the callbacks of a
            call's steps are called after it, and checkpoints fall between calls.
    Raises:
        BadInput: a file, option or checkpoint is wrong (checked before any server starts).
        RunError: the job failed: a server died, a step timed out, the loss became NaN or infinite
            (``runners.train.NonFiniteLoss``; the last good checkpoint stays).
    """
    from runners import _callbacks, _evaluate
    from runners.cluster import start_cluster
    from runners.profile import prepare
    from runners.train import load_checkpoint, train_strategy
    from space.errors import BadInput

    for name, value, low in (("steps", steps, 1), ("save_every", save_every, 0), ("keep", keep, 1),
                             ("log_every", log_every, 1), ("steps_per_call", steps_per_call, 0),
                             ("eval_every", eval_every, 0), ("eval_steps", 1 if eval_steps is None else eval_steps, 1)):
        if not isinstance(value, int) or value < low:
            raise BadInput(f"`{name} >= {low}` must hold, but got {value!r}")
    if resume and checkpoint is None:
        raise BadInput("resume needs the checkpoint directory to resume from", hint="give --checkpoint DIR")
    if checkpoint is not None:
        checkpoint = pathlib.Path(checkpoint)
        if checkpoint.exists() and not checkpoint.is_dir():
            raise BadInput(f"--checkpoint {checkpoint} is a file, not a directory",
                           hint="give --checkpoint a directory (new or existing)")
    start = load_checkpoint(checkpoint) if resume else None
    if logdir is None and checkpoint is not None:
        logdir = checkpoint / "logs"
    traced, strat, cluster_spec = prepare(str(model), str(spec), str(strategy))
    callbacks = list(callbacks)
    _callbacks.split(callbacks)  # checked before any server starts, as the evaluation is
    _evaluate.check(traced, eval_every, eval_steps)
    with start_cluster(cluster_spec, accept_unknown_hosts=accept_unknown_hosts) as cluster:
        result = train_strategy(traced, strat, cluster, steps=steps,
                                checkpoint_dir=str(checkpoint) if checkpoint is not None else None,
                                save_every=save_every, keep=keep, resume_from=start, step_timeout_s=step_timeout_s,
                                log=log, callbacks=callbacks, logdir=str(logdir) if logdir else None,
                                log_every=log_every, steps_per_call=steps_per_call, eval_every=eval_every,
                                eval_steps=eval_steps)
    return History(steps=result.steps, start_step=result.start_step, losses=result.losses,
                   step_times_s=result.step_times_s, seconds=result.seconds, checkpoint=result.checkpoint,
                   checkpoints=result.checkpoints, evaluations=result.evaluations)
