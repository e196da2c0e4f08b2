"""``autotune validate-simulator --model m.py --spec cluster.yml --strategies N``: simulator vs the real cluster.

Profiles N strategies (the classic builders, then random samples of the space ``autotune search`` draws from, with
the same space options) on one started cluster in passes of head-to-head groups (``--together``), predicts each
with the stored calibration, and reports Kendall tau, MAPE and top-1 regret, and the measurement's own noise (one
pass against another), with a table, a CSV and a predicted-vs-measured plot. ``--fit-residual`` fits a correction
on a train split, stores it in the calibration file, and reports the fidelity before and after on the held-out
strategies.
"""
from __future__ import annotations

import sys

from autotune._options import add_options, values
from autotune.commands import _common
from autotune.fidelity._pipeline import FidelityConfig, run_fidelity


def register(sub) -> None:
    p = sub.add_parser("validate-simulator", help="compare the simulator's predictions with profiled step times",
                       description=__doc__)
    p.add_argument("--model", required=True, metavar="M.PY", help="model file")
    p.add_argument("--spec", required=True, metavar="CLUSTER.YML", help="cluster spec")
    add_options(p, FidelityConfig)
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.output:
        _common.writable_dir(args.output, "-o")
    say = (lambda _m: None) if args.quiet else (lambda m: print(f"validate: {m}", file=sys.stderr, flush=True))
    run_fidelity(FidelityConfig(model=args.model, spec=args.spec, **values(args, FidelityConfig)), say=say)
    return 0
