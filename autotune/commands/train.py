"""``autotune train --model m.py --spec cluster.yml --strategy s.pb --steps N [--checkpoint DIR --save-every K]``:
train with a strategy; checkpoints hold every variable and optimizer slot, and ``--resume`` continues from the
newest (under this strategy or another)."""
from __future__ import annotations

import sys
import time

from autotune._fits import memory_lines
from autotune.api import train
from autotune.commands import _common

PROGRESS_EVERY_S = 30.0


def register(sub) -> None:
    p = sub.add_parser("train", help="train with a strategy on the cluster, with checkpoints and resume",
                       description=__doc__)
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    _common.add_spec(p)
    p.add_argument("--strategy", required=True, metavar="S.PB", help="strategy file (.pb or .pbtxt)")
    p.add_argument("--steps", type=_common.count(1), required=True,
                   help="training steps in all (a resumed job counts its own)")
    p.add_argument("--checkpoint", default=None, metavar="DIR",
                   help="write checkpoints here: DIR/ckpt-<step>/ with variables.npz (every variable and optimizer "
                        "slot) and the single-device model's weights (model.weights.h5 for Keras models)")
    p.add_argument("--save-every", type=_common.count(0), default=0, metavar="N",
                   help="a checkpoint every N steps (0: at the end)")
    p.add_argument("--keep", type=_common.count(1), default=3, metavar="K", help="keep the last K checkpoints (3)")
    p.add_argument("--resume", action="store_true",
                   help="continue from the newest checkpoint in --checkpoint DIR: variables, slots, step, data")
    p.add_argument("--logdir", default=None, metavar="DIR",
                   help="TensorBoard scalars (default: DIR/logs of --checkpoint): loss, learning rate, step time, "
                        "examples/s, bytes, validation results")
    p.add_argument("--log-every", type=_common.count(1), default=10, metavar="N",
                   help="average the scalars over N steps (10)")
    p.add_argument("--step-timeout", type=_common.positive_seconds, default=120.0, metavar="S",
                   help="cut a step after S seconds (> 0)")
    p.add_argument("--steps-per-call", type=_common.count(0), default=0, metavar="K",
                   help="training steps per Session.run (0: those the search measured the strategy at, else "
                        "chosen so that a call's own cost is ~2%% of it)")
    p.add_argument("--eval-every", type=_common.count(0), default=0, metavar="N",
                   help="every N steps and at the end: the validation loss and the compiled metrics on "
                        "val_dataset_fn(0, 1), on the chief (terminal, train.json, TensorBoard)")
    p.add_argument("--eval-steps", type=_common.count(1), default=None, metavar="K",
                   help="evaluate on the first K validation batches (default: all of them)")
    p.add_argument("--adapt", action="store_true",
                   help="re-plan on a lasting change of the step time: the links measured again, the search's "
                        "candidates ranked again; switch strategy at a checkpoint where it pays (needs --checkpoint; "
                        "the search's candidates where --strategy is in its output directory, else the classic "
                        "builders; docs/adapt.md)")
    p.add_argument("--accept-unknown-hosts", action="store_true", help="accept SSH host keys not in known_hosts")
    p.add_argument("--ignore-memory", action="store_true",
                   help="start the strategy even where it needs more memory than the spec gives a node")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.checkpoint:
        _common.writable_dir(args.checkpoint, "--checkpoint")
    if args.logdir:
        _common.writable_dir(args.logdir, "--logdir")
    progress = Progress(args.steps)
    history = train(args.model, args.spec, args.strategy, args.steps, checkpoint=args.checkpoint,
                    save_every=args.save_every, keep=args.keep, resume=args.resume, logdir=args.logdir,
                    log_every=args.log_every, step_timeout_s=args.step_timeout, callbacks=[progress],
                    accept_unknown_hosts=args.accept_unknown_hosts, log=progress.log,
                    steps_per_call=args.steps_per_call, eval_every=args.eval_every, eval_steps=args.eval_steps,
                    adapt=args.adapt, ignore_memory=args.ignore_memory)
    if history.start_step >= history.steps:
        print(f"nothing to do: the checkpoint has done {history.start_step} of {history.steps} steps",
              file=sys.stderr)
        return 0
    last = f"final loss {history.losses[-1]:.5f}, " if history.losses else ""
    began = f" (resumed at step {history.start_step})" if history.start_step else ""
    print(f"trained to step {history.steps}{began} in {history.seconds:.2f} s "
          f"({history.steps_per_call} step(s) a call); {last}"
          + (f"checkpoint {history.checkpoint}" if history.checkpoint else "no checkpoint (--checkpoint DIR)"))
    if history.memory:
        print(memory_lines(history.memory))
    if args.adapt:
        switches = [d for d in history.adapt if d["event"] in ("switch", "back")]
        moves = "".join(f"; step {d['step']}: {d['event']} to {d.get('best') or d.get('replaced')}" for d in switches)
        print(f"adapt: {sum('change' in d for d in history.adapt)} change(s) seen, {len(switches)} switch(es)"
              + moves)
    return 0


class Progress:
    """A progress line at least every ``every_s`` seconds: the job's own lines come at each tenth of ``--steps``,
    which a long job may not reach for days."""

    def __init__(self, steps: int, every_s: float = PROGRESS_EVERY_S, clock=time.monotonic, out=print) -> None:
        self.steps, self.every_s, self.clock, self.out = steps, every_s, clock, out
        self.last = clock()

    def log(self, line: str) -> None:
        self.last = self.clock()
        self.out(line, flush=True)

    def __call__(self, info) -> None:
        if self.clock() - self.last >= self.every_s:
            self.log(f"step {info.step}/{self.steps}  loss {info.loss:.5f}  {info.step_time_s * 1e3:.1f} ms")
