"""``autotune train --model m.py --spec cluster.yml --strategy s.pb --steps N [--checkpoint DIR --save-every K]``:
train with a strategy; checkpoints hold every variable and optimizer slot, and ``--resume`` continues from the
newest (under this strategy or another)."""
from __future__ import annotations

import sys
import time

from autotune._fits import memory_lines
from autotune._options import add_options, values
from autotune._configs import TrainConfig
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
    add_options(p, TrainConfig)
    p.set_defaults(func=run)


def run(args) -> int:
    cfg = TrainConfig(**values(args, TrainConfig))
    if cfg.checkpoint:
        _common.writable_dir(cfg.checkpoint, "--checkpoint")
    if cfg.logdir:
        _common.writable_dir(cfg.logdir, "--logdir")
    progress = Progress(args.steps)
    history = train(args.model, args.spec, args.strategy, args.steps, config=cfg, callbacks=[progress],
                    log=progress.log)
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
    if cfg.adapt:
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
