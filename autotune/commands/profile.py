"""``autotune profile --model m.py --spec cluster.yml --strategy s.pb``: real step time of a strategy."""
from __future__ import annotations

import contextlib
import sys

from autotune._configs import ProfileConfig
from autotune._fits import memory_lines, memory_plan, predicted_beside_measured
from autotune._options import add_options, values
from autotune._quiet import stdout_to_stderr
from autotune.commands import _common
from runners.profile import profile_files
from space.cluster import load_cluster
from space.model import load_inventory
from space.strategy import Strategy


def register(sub) -> None:
    p = sub.add_parser("profile", help="run a strategy on the cluster and measure its step time",
                       description=__doc__)
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    _common.add_spec(p)
    p.add_argument("--strategy", required=True, metavar="S.PB", help="strategy file (.pb or .pbtxt)")
    add_options(p, ProfileConfig)
    p.set_defaults(func=run)


def run(args) -> int:
    cfg = ProfileConfig(**values(args, ProfileConfig))
    if cfg.trace is not None:
        _common.writable_dir(cfg.trace, "--trace")
    with stdout_to_stderr() if cfg.json else contextlib.nullcontext():  # the model's prints spoil no JSON
        result = profile_files(args.model, args.spec, args.strategy, steps=cfg.steps, warmup=cfg.warmup,
                               step_timeout_s=cfg.step_timeout_s, steps_per_call=cfg.steps_per_call or None,
                               on_build=lambda m: print(f"note: {m}", file=sys.stderr, flush=True),
                               trace_dir=cfg.trace)
    memory = beside_prediction(args.model, args.spec, args.strategy, result.peak_memory)
    if cfg.json:
        _common.print_json({**result.to_dict(), "memory": memory})
    else:
        print(result.summary())
        if memory:
            print(memory_lines(memory))
    return 0


def beside_prediction(model: str, spec: str, strategy: str, peaks: dict) -> list[dict]:
    """Each node's predicted bytes (the memory model) beside those measured at the peak; [] without a measure."""
    if not peaks:
        return []
    plan = memory_plan(load_inventory(model), load_cluster(spec), Strategy.load(strategy))
    return predicted_beside_measured(plan, peaks)
