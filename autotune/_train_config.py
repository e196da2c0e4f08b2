"""What a training job may be asked, declared once: ``autotune train``'s options and :func:`autotune.api.train`'s
keywords are both this dataclass's fields (``autotune._options``)."""
from __future__ import annotations

import dataclasses

from autotune._options import count, option, positive_seconds
from space.errors import BadInput


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """A training job's options (``autotune train --help`` gives each one's help)."""

    checkpoint: str | None = option(
        None, "write checkpoints here: DIR/ckpt-<step>/ with variables.npz (every variable and optimizer slot) and "
              "the single-device model's weights (model.weights.h5 for Keras models)", metavar="DIR")
    save_every: int = option(0, "a checkpoint every N steps (0: at the end)", type=count(0), metavar="N")
    keep: int = option(3, "keep the last K checkpoints (3)", type=count(1), metavar="K")
    resume: bool = option(False, "continue from the newest checkpoint in --checkpoint DIR: variables, slots, step, "
                                 "data")
    logdir: str | None = option(
        None, "TensorBoard scalars (default: DIR/logs of --checkpoint): loss, learning rate, step time, examples/s, "
              "bytes, validation results", metavar="DIR")
    log_every: int = option(10, "average the scalars over N steps (10)", type=count(1), metavar="N")
    step_timeout_s: float = option(120.0, "cut a step after S seconds (> 0)", flag="--step-timeout",
                                   type=positive_seconds, metavar="S")
    steps_per_call: int = option(
        0, "training steps per Session.run (0: those the search measured the strategy at, else chosen so that a "
           "call's own cost is ~2%% of it)", type=count(0), metavar="K")
    eval_every: int = option(
        0, "every N steps and at the end: the validation loss and the compiled metrics on val_dataset_fn(0, 1), on "
           "the chief (terminal, train.json, TensorBoard)", type=count(0), metavar="N")
    eval_steps: int | None = option(None, "evaluate on the first K validation batches (default: all of them)",
                                    type=count(1), metavar="K")
    adapt: bool = option(
        False, "re-plan on a lasting change of the step time: the links measured again, the search's candidates "
               "ranked again; switch strategy at a checkpoint where it pays (needs --checkpoint; the search's "
               "candidates where --strategy is in its output directory, else the classic builders; docs/adapt.md)")
    accept_unknown_hosts: bool = option(False, "accept SSH host keys not in known_hosts")
    ignore_memory: bool = option(False, "start the strategy even where it needs more memory than the spec gives a "
                                        "node")

    def __post_init__(self) -> None:
        """The checks the command line makes while it reads the options, for a job configured in code."""
        for name, low in (("save_every", 0), ("keep", 1), ("log_every", 1), ("steps_per_call", 0),
                          ("eval_every", 0), ("eval_steps", 1)):
            value = getattr(self, name)
            if value is None and name == "eval_steps":
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise BadInput(f"`{name} >= {low}` must hold, but got {value!r}")
        if not (isinstance(self.step_timeout_s, (int, float)) and self.step_timeout_s > 0):
            raise BadInput(f"`step_timeout_s > 0` must hold, but got {self.step_timeout_s!r}")
        if self.resume and self.checkpoint is None:
            raise BadInput("resume needs the checkpoint directory to resume from", hint="give --checkpoint DIR")
        if self.adapt and self.checkpoint is None:
            raise BadInput("--adapt needs a checkpoint directory: a switch of strategy resumes from a checkpoint",
                           hint="give --checkpoint DIR")

    @classmethod
    def of(cls, options: dict) -> TrainConfig:
        """The configuration of keyword ``options`` (:func:`autotune.api.train`'s): an unknown one is named."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(options) - names)
        if unknown:
            raise BadInput(f"train() got an unknown option {unknown[0]!r}",
                           hint=f"the options are {', '.join(sorted(names))}")
        return cls(**options)
