"""``autotune report DIR`` or ``autotune report --storage URL --study NAME``: tables and four figures of a search."""
from __future__ import annotations

import pathlib

from autotune.commands import _common
from space.errors import BadInput


def register(sub) -> None:
    p = sub.add_parser("report", help="tables and figures of a search (its output directory or its study)",
                       description=__doc__)
    p.add_argument("output_dir", nargs="?", metavar="DIR", help="output directory of `autotune search -o DIR`")
    p.add_argument("--storage", default=None, metavar="URL", help="Optuna storage of the study (instead of DIR)")
    p.add_argument("--study", default=None, metavar="NAME", help="study name (with --storage)")
    p.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="where to write the report (default: DIR/report, or ./report-<study> for a study)")
    p.add_argument("--model", default=None, metavar="M.PY",
                   help="model file, when the path the search recorded does not resolve from here")
    p.add_argument("--spec", default=None, metavar="CLUSTER.YML", help="cluster spec, likewise")
    p.add_argument("--cache-dir", default=None, metavar="DIR", help="inventory cache (default as for search)")
    p.add_argument("--all", action="store_true", help="print every trial (default: the 10 fastest)")
    p.set_defaults(func=run)


def run(args) -> int:
    from autotune import report
    from autotune.report._tables import to_text

    if args.output_dir and (args.storage or args.study):
        raise BadInput("give either DIR or --storage URL --study NAME, not both",
                       hint="`autotune report runs/x` or "
                            "`autotune report --storage sqlite:///runs/x/study.db --study NAME`")
    if args.output_dir:
        run_ = report.load_output_dir(args.output_dir)
        out = pathlib.Path(args.output or pathlib.Path(args.output_dir) / "report")
    elif args.storage and args.study:
        run_ = report.load_from_study(args.storage, args.study)
        out = pathlib.Path(args.output or f"report-{args.study}")
    else:
        raise BadInput("nothing to report on", hint="give a search output DIR, or --storage URL and --study NAME")
    _common.writable_dir(out, "-o" if args.output else "the report directory")
    inventory, cluster, warnings = report.model_context(run_, args.model, args.spec, args.cache_dir)
    report.complete_from_model(run_, inventory, cluster, warnings)
    rep = report.write_report(run_, out, inventory)
    print(f"report of {run_.source}: winner {run_.winner}"
          + (f", lower bound {run_.lower_bound_s * 1e3:.3f} ms" if run_.lower_bound_s else ""))
    print("\nstrategies (builders and search candidates; * = winner):")
    print(to_text(rep.candidates))
    trials = rep.trials if args.all else rep.trials.sort_values(["predicted_ms", "trial"]).head(10)
    print(f"\ntrials: {len(rep.trials)}" + ("" if args.all else " (the 10 fastest predicted; --all for every one)"))
    print(to_text(trials))
    if rep.parts:
        print("\nstep by part, predicted vs measured (from a trace where --trace-top traced it):")
        print(rep.parts)
    for w in warnings + rep.warnings:
        print(f"note: {w}")
    print(f"\nwrote {len(rep.files)} files to {out}: " + ", ".join(f.name for f in rep.files))
    return 0
