"""``autotune compare s1.pb s2.pb ... --model m.py --spec cluster.yml``: profile strategies side by side.

One cluster is started for all of them and the runs are interleaved (s1, s2, s3, then s2, s3, s1, ...),
``--repeats`` times.
"""
from __future__ import annotations

import pathlib
import sys

from autotune._configs import CompareConfig
from autotune._options import add_options, values
from autotune.commands import _common


def register(sub) -> None:
    p = sub.add_parser("compare", help="profile strategies side by side on the cluster (interleaved repeats)",
                       description=__doc__)
    p.add_argument("strategies", nargs="+", metavar="S.PB", help="strategy files; speedups are relative to the first")
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    _common.add_spec(p)
    add_options(p, CompareConfig)
    p.set_defaults(func=run)


def run(args) -> int:
    from autotune.report import compare_strategies
    from autotune.report._tables import to_markdown, to_text

    cfg = CompareConfig(**values(args, CompareConfig))
    out = _common.writable_dir(cfg.output, "-o") if cfg.output else None
    result = compare_strategies(args.model, args.spec, args.strategies, repeats=cfg.repeats, steps=cfg.steps,
                                warmup=cfg.warmup, step_timeout_s=cfg.step_timeout_s,
                                accept_unknown_hosts=cfg.accept_unknown_hosts,
                                log=None if cfg.quiet else (lambda m: print(m, file=sys.stderr)))
    table = result.table()
    print(to_text(table))
    if out is not None:
        table.to_csv(out / "compare.csv", index=False)
        (out / "compare.md").write_text(to_markdown(table))
    plot = result.plot((out or pathlib.Path(".")) / "compare.png")
    print(f"wrote {plot}" + (f", {out / 'compare.csv'}, {out / 'compare.md'}" if out else ""))
    return 0
