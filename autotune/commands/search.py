"""``autotune search --model m.py --spec cluster.yml``: find the best strategy and write it with a report."""
from __future__ import annotations

import pathlib
import sys

from autotune._signals import interrupted_code
from autotune._options import add_options, values
from autotune.commands import _common
from autotune.tuner._types import SearchConfig
from space.cluster import load_cluster


def register(sub) -> None:
    p = sub.add_parser("search", help="search the best strategy (simulated, then profiled on the cluster)",
                       description=__doc__)
    _common.add_model(p)
    _common.add_spec(p)
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="output directory (default: runs/<model>-<cluster fingerprint>)")
    add_options(p, SearchConfig)
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def run(args) -> int:
    from autotune.tuner import SearchConfig, run_search

    output = args.output
    if output is not None:
        _common.writable_dir(output, "-o")
    if output is None:
        output = pathlib.Path("runs") / f"{pathlib.Path(args.model).stem}-{load_cluster(args.spec).fingerprint[:8]}"
    cfg = SearchConfig(model=args.model, spec=args.spec, output=output, cache_dir=args.cache_dir,
                       **values(args, SearchConfig))
    result = run_search(cfg, progress=not args.quiet)
    if not result.interrupted:
        return 0
    print(f"interrupted: {result.simulated} simulated trials and {result.profiled} profiling runs kept in "
          f"{result.output}; continue with the same command and --resume", file=sys.stderr)
    return interrupted_code()
