"""``autotune dashboard RUN_DIR``: serve optuna-dashboard on a search's study, read-only, until Ctrl-C."""
from __future__ import annotations

import argparse
import sys

from autotune._signals import interrupted_code


def port(text: str) -> int:
    """A TCP port number, 0 (any free one) to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (0: any free one), but got {text!r}")
    return value


def add_server_options(p, prefix: str = "") -> None:
    """--host, --port, --allow-writes (``prefix`` names them within another command: --dashboard-port, ...)."""
    p.add_argument(f"--{prefix}host", default="127.0.0.1", metavar="ADDR",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument(f"--{prefix}port", type=port, default=8080, metavar="N", help="port (default 8080; 0: any free)")
    p.add_argument(f"--{prefix}allow-writes", action="store_true",
                   help="let the page change the study (notes, user attributes, deleting); read-only by default")


def register(sub) -> None:
    p = sub.add_parser("dashboard", help="serve optuna-dashboard on a search's study (read-only)",
                       description=__doc__)
    p.add_argument("run_dir", metavar="RUN_DIR", help="the output directory of `autotune search`")
    add_server_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from autotune.dashboard import check_study, locate, open_dashboard
    from autotune.dashboard._server import require_dashboard

    ref = locate(args.run_dir)
    require_dashboard()
    check_study(ref)
    board = open_dashboard(ref.storage, ref.name, host=args.host, port=args.port, allow_writes=args.allow_writes)
    print(f"dashboard of study {ref.name!r} ({'read-write' if args.allow_writes else 'read-only'}): {board.url}",
          flush=True)
    print("Ctrl-C stops it", file=sys.stderr, flush=True)
    try:
        board.serve_forever()
    except KeyboardInterrupt:
        print("dashboard stopped", file=sys.stderr)
        return interrupted_code()
    finally:
        board.stop()
    return 0
