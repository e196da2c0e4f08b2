"""The ``autotune`` command line. Each sub-command lives in ``autotune/commands/<name>.py``.

Exit codes: 0 ok, 1 the work failed, 2 bad input (one line ``error: what, where; hint: ...``), 130 interrupted
(Ctrl-C), 143 terminated (SIGTERM, as a scheduler or ``timeout`` stops a job). Both stop as Ctrl-C does: the servers
started are stopped by PID and what was measured is kept.
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from typing import Sequence

from autotune._quiet import quiet_runtime
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
    _terminated.clear()
    installed, previous = _stop_on_sigterm()
    try:
        with quiet_runtime(not args.debug):
            return int(args.func(args) or 0)
    except AutotuneError as e:
        if args.debug:
            raise
        print(f"error: {e}", file=sys.stderr)
        return e.exit_code
    except Terminated:
        print("terminated (SIGTERM)", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader left (`| head`): nothing more to say, and nobody to say it to
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    finally:
        if installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread: whatever cleans up after Ctrl-C (``finally``, ``except
    BaseException``) cleans up after it too."""


_terminated = threading.Event()


def _raise_terminated(signum, frame) -> None:
    _terminated.set()
    raise Terminated()


def interrupted_code() -> int:
    """The exit code of a command that stopped early and kept its work: 143 after SIGTERM, else 130 (Ctrl-C)."""
    return 143 if _terminated.is_set() else 130


def _stop_on_sigterm():
    """Make SIGTERM stop the command as Ctrl-C does (by default it ends the process at once: no ``finally`` runs,
    so an owned log directory, a half-written report and the servers' clean stop would be lost). Returns whether
    it did (not outside the main thread, where signals cannot be set) and the handler it replaced."""
    if threading.current_thread() is not threading.main_thread():
        return False, None
    return True, signal.signal(signal.SIGTERM, _raise_terminated)
