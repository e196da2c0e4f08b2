"""The ``autotune`` command line. Each sub-command lives in ``autotune/commands/<name>.py``.

Exit codes: 0 ok, 1 the work failed, 2 bad input (one line ``error: what, where; hint: ...``).
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Sequence

from space.errors import AutotuneError


def build_parser() -> argparse.ArgumentParser:
    from autotune import __version__
    from autotune.commands import COMMANDS

    parser = argparse.ArgumentParser(prog="autotune", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"autotune {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(sub)
    return parser



def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (also used in-process by the tests)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's C++ start-up chatter, before TF loads
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 2 for usage errors, 0 for --help
        return int(e.code or 0)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args.func(args) or 0)
    except AutotuneError as e:
        if args.debug:
            raise
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
