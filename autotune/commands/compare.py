"""``autotune compare s1.pb s2.pb ... --model m.py --spec cluster.yml``: profile strategies side by side.

One cluster is started for all of them and the runs are interleaved (s1, s2, s3, then s2, s3, s1, ...),
``--repeats`` times.
"""
from __future__ import annotations

import pathlib

from autotune.commands import _common


def register(sub) -> None:
    p = sub.add_parser("compare", help="profile strategies side by side on the cluster (interleaved repeats)",
                       description=__doc__)
    p.add_argument("strategies", nargs="+", metavar="S.PB", help="strategy files; speedups are relative to the first")
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    _common.add_spec(p)
    p.add_argument("--repeats", type=_common.count(1), default=3, help="interleaved rounds over all strategies (3)")
    p.add_argument("--steps", type=_common.count(1), default=20, help="timed steps per strategy and repeat (20)")
    p.add_argument("--warmup", type=_common.count(0), default=5, help="untimed steps first, each time (5)")
    p.add_argument("--step-timeout", type=_common.positive_seconds, default=120.0, metavar="S",
                   help="cut a step after S seconds (> 0)")
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="write compare.csv, compare.md and compare.png here "
                        "(default: print only, plot to ./compare.png)")
    p.add_argument("--accept-unknown-hosts", action="store_true", help="accept SSH host keys not in known_hosts")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=run)


def run(args) -> int:
    import sys

    from autotune.report import compare_strategies
    from autotune.report._tables import to_markdown, to_text

    out = _common.writable_dir(args.output, "-o") if args.output else None

    result = compare_strategies(args.model, args.spec, args.strategies, repeats=args.repeats, steps=args.steps,
                                warmup=args.warmup, step_timeout_s=args.step_timeout,
                                accept_unknown_hosts=args.accept_unknown_hosts,
                                log=None if args.quiet else (lambda m: print(m, file=sys.stderr)))
    table = result.table()
    print(to_text(table))
    if out is not None:
        table.to_csv(out / "compare.csv", index=False)
        (out / "compare.md").write_text(to_markdown(table))
    plot = result.plot((out or pathlib.Path(".")) / "compare.png")
    print(f"wrote {plot}" + (f", {out / 'compare.csv'}, {out / 'compare.md'}" if out else ""))
    return 0
