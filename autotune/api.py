"""Python entry points for training scripts and job schedulers: what the CLI does, callable from code."""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import sys
from typing import Any, Callable, Iterable

from autotune._fits import memory_plan, predicted_beside_measured, refuse_misfit
from autotune._modes import output_modes
from autotune._configs import TrainConfig
from autotune.adapt import adaptive_train
from autotune.tuner._budget import parse_duration
from runners import _callbacks, _evaluate
from runners.cluster import start_cluster
from runners.profile import measured_steps_per_call, prepare
from runners.train import StepInfo, check_fits, load_checkpoint, train_strategy
from space.cluster import load_cluster
from space.errors import BadInput
from space.model import inventory_from_trace

__all__ = ["History", "SearchOutcome", "StepInfo", "TrainConfig", "search", "train"]


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
    steps_per_call: int = 1  # training steps per call: those the search measured the strategy at, or chosen
    evaluations: list[dict] = dataclasses.field(default_factory=list)  # {"step", "val_loss", "val_<metric>"...}
    adapt: list[dict] = dataclasses.field(default_factory=list)  # ``adapt=True``: every decision (train.json's)
    memory: list[dict] = dataclasses.field(default_factory=list)  # per node: predicted and measured bytes at the peak


def train(model: str | os.PathLike, spec: str | os.PathLike, strategy: str | os.PathLike, steps: int, *,
          callbacks: Iterable = (), log: Callable[[str], None] | None = None, config: TrainConfig | None = None,
          **options) -> History:
    """Train ``model`` with the strategy file ``strategy`` on the cluster of ``spec`` until ``steps`` steps in all.

    Args:
        callbacks: callables, each called with a :class:`StepInfo` after every step (an exception it raises stops
            the job), and Keras callbacks (``keras.callbacks.Callback``): ``on_train_batch_end`` after every step,
            ``on_epoch_end`` after every evaluation with its ``val_*`` results (``EarlyStopping`` stops the job),
            ``on_train_begin``/``on_train_end`` (``runners._callbacks`` says which are refused).
        log: receives the job's lines (default: stderr).
        config, options: the job's options, a :class:`TrainConfig` and/or its fields as keywords (a keyword
            overrides ``config``'s field); ``autotune train --help`` describes each. Among them:

            - ``checkpoint``: directory of the checkpoints (``ckpt-<step>/``), every ``save_every`` steps and at
              the end; the last ``keep`` are kept. ``resume``: continue from the newest (its variables, optimizer
              slots, step and data position), under this strategy or another.
            - ``eval_every``: every that many steps and at the end, the validation loss and a compiled model's
              metrics on ``val_dataset_fn(0, 1)`` (``eval_steps`` batches of it, default all), on the chief's
              replica; logged, written to TensorBoard and ``<checkpoint>/train.json``, returned in ``evaluations``.
            - ``logdir``: TensorBoard scalars (default ``<checkpoint>/logs`` when checkpointing), every
              ``log_every`` steps.
            - ``steps_per_call``: training steps per ``Session.run`` (0: those the search measured the strategy at,
              where a search on this cluster chose it, else chosen after the first steps); the callbacks of a
              call's steps are called after it, and checkpoints fall between calls.
            - ``adapt``: watch the step time and, on a lasting change, measure the links again, refit the cost model
              and rank the search's candidates again (``strategy`` in a search's output directory: its
              ``best.pb``); switch at a checkpoint where another is predicted faster by more than the switch costs,
              and back if it measures slower. Needs ``checkpoint``. Every decision goes to ``train.json``, the log
              and ``adapt`` in the result (docs/adapt.md).
            - ``ignore_memory``: start the strategy even where the memory model says it needs more than a node's
              ``memory:`` (or ``gpu_memory:``) in the spec.

    What it writes is never writable by others, whatever the umask (``autotune._modes``); a checkpoint it cannot
    read is named on stderr and the one before it resumed.
    Raises:
        BadInput: a file, option or checkpoint is wrong (checked before any server starts).
        RunError: the job failed: a server died, a step timed out, the loss became NaN or infinite
            (``runners.train.NonFiniteLoss``; the last good checkpoint stays).
    """
    cfg = TrainConfig.of({**(dataclasses.asdict(config) if config is not None else {}), **options})
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise BadInput(f"`steps >= 1` must hold, but got {steps!r}")
    with output_modes():
        return _train(model, spec, strategy, steps, cfg, callbacks=callbacks, log=log)


def _train(model, spec, strategy, steps: int, cfg: TrainConfig, *, callbacks, log) -> History:
    checkpoint, logdir = cfg.checkpoint, cfg.logdir
    if checkpoint is not None:
        checkpoint = pathlib.Path(checkpoint)
        if checkpoint.exists() and not checkpoint.is_dir():
            raise BadInput(f"--checkpoint {checkpoint} is a file, not a directory",
                           hint="give --checkpoint a directory (new or existing)")
    start = load_checkpoint(checkpoint, warn=lambda m: print(m, file=sys.stderr)) if cfg.resume else None
    if logdir is None and checkpoint is not None:
        logdir = checkpoint / "logs"
    traced, strat, cluster_spec = prepare(str(model), str(spec), str(strategy))
    inventory = inventory_from_trace(traced)
    if not cfg.ignore_memory:  # before any server starts: a plan that cannot fit fails late and takes the node too
        refuse_misfit(inventory, cluster_spec, strat, str(strategy))
    if start is not None:
        check_fits(start, traced)
    callbacks = list(callbacks)
    _callbacks.split(callbacks)  # checked before any server starts, as the evaluation is
    _evaluate.check(traced, cfg.eval_every, cfg.eval_steps)
    options = dict(save_every=cfg.save_every, keep=cfg.keep, resume_from=start, step_timeout_s=cfg.step_timeout_s,
                   log=log, callbacks=callbacks, logdir=str(logdir) if logdir else None, log_every=cfg.log_every,
                   steps_per_call=cfg.steps_per_call or measured_steps_per_call(strat, cluster_spec) or 0,
                   eval_every=cfg.eval_every, eval_steps=cfg.eval_steps)
    decisions: list = []
    if cfg.adapt:
        from autotune.adapt.replanning import open_replanner, outside_search  # Optuna: only where a job adapts

        if note := outside_search(strategy):
            print(f"note: {note}", file=sys.stderr, flush=True)
    with start_cluster(cluster_spec, accept_unknown_hosts=cfg.accept_unknown_hosts) as cluster:
        if cfg.adapt:
            say = log or (lambda m: print(m, file=sys.stderr))
            planner = open_replanner(inventory, cluster_spec, strategy, say=say)
            result, decisions = adaptive_train(traced, strat, cluster, planner, steps=steps,
                                               checkpoint_dir=str(checkpoint), label=pathlib.Path(strategy).name,
                                               **options)
        else:
            result = train_strategy(traced, strat, cluster, steps=steps,
                                    checkpoint_dir=str(checkpoint) if checkpoint is not None else None, **options)
    return History(steps=result.steps, start_step=result.start_step, losses=result.losses,
                   step_times_s=result.step_times_s, seconds=result.seconds, checkpoint=result.checkpoint,
                   checkpoints=result.checkpoints, steps_per_call=result.steps_per_call,
                   evaluations=result.evaluations, adapt=[d.to_dict() for d in decisions],
                   memory=predicted_beside_measured(memory_plan(inventory, cluster_spec, strat),
                                                    result.peak_memory))


@dataclasses.dataclass
class SearchOutcome:
    """What :func:`search` found: the winner's strategy file, the table of what was compared, the rounds, the report."""

    winner: str  # its label: a builder's alias or "trial N"
    winner_path: pathlib.Path  # best.pb: pass it to :func:`train`
    lossy: bool  # the winner compresses gradients: training is close to, not equal to, single-device training
    table: Any  # pandas DataFrame: the builders and the candidates, fastest measured first (the report's table)
    rounds: list[dict]  # per profiling round: predicted vs measured (MAPE, Kendall tau), why it stopped
    families: list[dict]  # per synchronizer family: measured, or why not
    output: pathlib.Path  # the search's output directory
    report: list[pathlib.Path]  # the search's tables and figures (``autotune report`` adds the strategy map)
    summary: dict  # summary.json


def search(model: str | os.PathLike, spec: str | os.PathLike, output: str | os.PathLike | None = None, *,
           budget: float | str | None = None, trials: int = 2000, max_profiles: int = 10, lossless: bool = False,
           calibrate: bool = True, resume: bool = False, seed: int | None = None, progress: bool = False,
           log: Callable[[str], None] | None = None, **options) -> SearchOutcome:
    """Search the best strategy of ``model`` on the cluster of ``spec``, as ``autotune search`` does, and write its
    output directory (default ``runs/<model>-<cluster fingerprint>``).

    Args:
        budget: bound the whole search, calibration included: seconds, or a duration such as ``"3m"``.
        trials, max_profiles, lossless, calibrate, resume, seed: as the command's options.
        progress: print progress to stderr; ``log`` receives the search's messages (default: none).
        options: any other field of :class:`autotune.tuner.SearchConfig` (``top_k``, ``steps``, ``storage``, ...).
    Raises:
        BadInput: a file or option is wrong (checked before any server starts).
        RunError: every profiled candidate failed.
    """
    from autotune.report import candidates_table, load_output_dir
    from autotune.tuner import SearchConfig, run_search

    fields = {f.name for f in dataclasses.fields(SearchConfig)} - {"model", "spec", "output"}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise BadInput(f"search() has no option {unknown[0]!r}", hint=f"options: {', '.join(sorted(fields))}")
    if isinstance(budget, str):
        try:
            budget = parse_duration(budget)
        except ValueError as e:
            raise BadInput(f"budget: {e}") from None
    if output is None:
        output = pathlib.Path("runs") / f"{pathlib.Path(model).stem}-{load_cluster(spec).fingerprint[:8]}"
    cfg = SearchConfig(model=str(model), spec=str(spec), output=pathlib.Path(output), trials=trials,
                       max_profiles=max_profiles, lossless=lossless, calibrate=calibrate, resume=resume, seed=seed,
                       budget_s=budget, **options)
    with output_modes():
        result = run_search(cfg, progress=progress, out=log or (lambda _m: None), show=log or (lambda _m: None))
    summary = json.loads((cfg.output / "summary.json").read_text())
    files = sorted(p for p in cfg.output.iterdir() if p.suffix in (".png", ".csv", ".json"))
    return SearchOutcome(winner=result.winner.label, winner_path=cfg.output / "best.pb", lossy=result.winner.lossy,
                         table=candidates_table(load_output_dir(cfg.output)), rounds=result.rounds,
                         families=result.families, output=cfg.output, report=files, summary=summary)
