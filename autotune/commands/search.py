"""``autotune search --model m.py --spec cluster.yml``: find the best strategy and write it with a report."""
from __future__ import annotations

import contextlib
import pathlib
import sys

from autotune._signals import interrupted_code
from autotune._options import add_options, values
from autotune.commands import _common
from autotune.commands.dashboard import add_server_options
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
    p.add_argument("--dashboard", action="store_true",
                   help="serve optuna-dashboard on the study while the search runs (needs optuna-dashboard)")
    add_server_options(p, prefix="dashboard-")
    p.set_defaults(func=run)


@contextlib.contextmanager
def _dashboard(args, cfg):
    """optuna-dashboard on the search's study, served from this process until the search ends (or nothing)."""
    if not args.dashboard:
        yield
        return
    from autotune.dashboard import open_dashboard
    from autotune.dashboard._server import require_dashboard
    from autotune.tuner._study import default_name, storage_url

    require_dashboard()  # before the output directory is made
    cfg.output.mkdir(parents=True, exist_ok=True)
    name = cfg.study_name or default_name(cfg.model, load_cluster(cfg.spec))
    board = open_dashboard(storage_url(cfg.storage, cfg.output), name, host=args.dashboard_host,
                           port=args.dashboard_port, allow_writes=args.dashboard_allow_writes).start()
    print(f"dashboard ({'read-write' if args.dashboard_allow_writes else 'read-only'}, while the search runs; "
          f"later: autotune dashboard {cfg.output}): {board.url}", file=sys.stderr, flush=True)
    try:
        yield
    finally:
        board.stop()


def run(args) -> int:
    from autotune.tuner import SearchConfig, run_search

    output = args.output
    if output is not None:
        _common.writable_dir(output, "-o")
    if output is None:
        output = pathlib.Path("runs") / f"{pathlib.Path(args.model).stem}-{load_cluster(args.spec).fingerprint[:8]}"
    cfg = SearchConfig(model=args.model, spec=args.spec, output=output, cache_dir=args.cache_dir,
                       **values(args, SearchConfig))
    with _dashboard(args, cfg):
        result = run_search(cfg, progress=not args.quiet)
    if not result.interrupted:
        return 0
    print(f"interrupted: {result.simulated} simulated trials and {result.profiled} profiling runs kept in "
          f"{result.output}; continue with the same command and --resume", file=sys.stderr)
    return interrupted_code()
