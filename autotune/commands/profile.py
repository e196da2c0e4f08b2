"""``autotune profile --model m.py --spec cluster.yml --strategy s.pb``: real step time of a strategy."""
from __future__ import annotations

import contextlib
import sys

from autotune._quiet import stdout_to_stderr
from autotune.commands import _common
from runners.profile import profile_files


def register(sub) -> None:
    p = sub.add_parser("profile", help="run a strategy on the cluster and measure its step time",
                       description=__doc__)
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    _common.add_spec(p)
    p.add_argument("--strategy", required=True, metavar="S.PB", help="strategy file (.pb or .pbtxt)")
    p.add_argument("--steps", type=_common.count(1), default=20,
                   help="timed samples, each a call of --steps-per-call steps over its steps (default 20)")
    p.add_argument("--warmup", type=_common.count(0), default=5, help="untimed one-step calls first (default 5)")
    p.add_argument("--steps-per-call", type=_common.count(0), default=0, metavar="K",
                   help="training steps per Session.run (0: as training runs it: those the search measured the "
                        "strategy at, else chosen after the warm-up)")
    p.add_argument("--step-timeout", type=_common.positive_seconds, default=120.0, metavar="S",
                   help="cut a step after S seconds (> 0)")
    p.add_argument("--trace", default=None, metavar="DIR",
                   help="after the timed samples, trace a few steps on every task: write their Chrome trace "
                        "(<strategy id>.trace.json) and a summary per task and link there (default: no trace)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.trace is not None:
        _common.writable_dir(args.trace, "--trace")
    with stdout_to_stderr() if args.json else contextlib.nullcontext():  # the model's prints spoil no JSON
        result = profile_files(args.model, args.spec, args.strategy, steps=args.steps, warmup=args.warmup,
                               step_timeout_s=args.step_timeout, steps_per_call=args.steps_per_call or None,
                               on_build=lambda m: print(f"note: {m}", file=sys.stderr, flush=True),
                               trace_dir=args.trace)
    if args.json:
        _common.print_json(result.to_dict())
    else:
        print(result.summary())
    return 0
