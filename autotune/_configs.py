"""The commands' options, each declared once as a field of the configuration the command fills
(``autotune._options`` makes the flags): ``autotune train``'s, which :func:`autotune.api.train` also takes as its
keywords, ``calibrate``'s, ``compare``'s and ``profile``'s. ``search`` and ``validate-simulator`` have theirs beside
their pipelines (``SearchConfig``, ``FidelityConfig``)."""
from __future__ import annotations

import dataclasses

import re

from autotune._options import count, option, positive_seconds
from space.errors import BadInput

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)
DEFAULT_SIZES = "256k,1m,4m"


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


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"256k,1m,4m"`` -> bytes (k/m/g are powers of 1024); at least two different sizes."""
    out = []
    for item in text.split(","):
        m = _SIZE.match(item)
        if not m:
            raise BadInput(f"`--sizes` items must be sizes such as 256k or 4m, but got {item.strip()!r}",
                           hint=f"e.g. --sizes {DEFAULT_SIZES}")
        scale = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30}[(m.group(2) or "")[:1].lower()]
        out.append(int(float(m.group(1)) * scale))
    if len(set(out)) < 2 or min(out) < 4:
        raise BadInput(f"`--sizes` needs at least two different sizes of at least 4 bytes, but got {text!r}",
                       hint=f"e.g. --sizes {DEFAULT_SIZES}")
    return tuple(sorted(set(out)))


@dataclasses.dataclass(frozen=True)
class CalibrateConfig:
    """``autotune calibrate``'s options (``--spec`` aside)."""

    model: str | None = option(None, "also measure this model's single-replica step", metavar="M.PY")
    cache_dir: str | None = option(
        None, "where calibrations are stored: DIR/calibration/ (default: $AUTOTUNE_CACHE_DIR or ~/.cache/autotune)",
        metavar="DIR")
    sizes: tuple[int, ...] = option(
        parse_sizes(DEFAULT_SIZES), f"message sizes per link and all-reduce (default {DEFAULT_SIZES}; k/m = KiB/MiB)",
        type=str, metavar="LIST", parse=parse_sizes, cli_default=DEFAULT_SIZES)
    repeats: int = option(5, "timed runs per probe, median taken (5)", type=count(1))
    rpc_tensors: int = option(200, "tiny tensors of the per-tensor overhead probe (200)", type=count(2))
    steps: int = option(20, "timed model steps (20)", type=count(1))
    warmup: int = option(3, "untimed model steps first (3)", type=count(0))
    output: str | None = option(None, "also write the calibration to FILE", metavar="FILE")
    accept_unknown_hosts: bool = option(False, "accept SSH host keys not in known_hosts")
    quiet: bool = option(False, "no progress lines on stderr")


@dataclasses.dataclass(frozen=True)
class CompareConfig:
    """``autotune compare``'s options (the strategies, ``--model`` and ``--spec`` aside)."""

    repeats: int = option(3, "interleaved rounds over all strategies (3)", type=count(1))
    steps: int = option(20, "timed steps per strategy and repeat (20)", type=count(1))
    warmup: int = option(5, "untimed steps first, each time (5)", type=count(0))
    step_timeout_s: float = option(120.0, "cut a step after S seconds (> 0)", flag="--step-timeout",
                                   type=positive_seconds, metavar="S")
    output: str | None = option(None, "write compare.csv, compare.md and compare.png here (default: print only, "
                                      "plot to ./compare.png)", flag=("-o", "--output"), metavar="DIR")
    accept_unknown_hosts: bool = option(False, "accept SSH host keys not in known_hosts")
    quiet: bool = option(False, "no progress lines")


@dataclasses.dataclass(frozen=True)
class ProfileConfig:
    """``autotune profile``'s options (``--model``, ``--spec`` and ``--strategy`` aside)."""

    steps: int = option(20, "timed samples, each a call of --steps-per-call steps over its steps (default 20)",
                        type=count(1))
    warmup: int = option(5, "untimed one-step calls first (default 5)", type=count(0))
    steps_per_call: int = option(
        0, "training steps per Session.run (0: as training runs it: those the search measured the strategy at, else "
           "chosen after the warm-up)", type=count(0), metavar="K")
    step_timeout_s: float = option(120.0, "cut a step after S seconds (> 0)", flag="--step-timeout",
                                   type=positive_seconds, metavar="S")
    trace: str | None = option(
        None, "after the timed samples, trace a few steps on every task: write their Chrome trace "
              "(<strategy id>.trace.json) and a summary per task and link there (default: no trace)", metavar="DIR")
    json: bool = option(False, "print the result as JSON")
