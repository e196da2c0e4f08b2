"""The ``autotune`` command line. Each sub-command lives in ``autotune/commands/<name>.py``.

Exit codes: 0 ok, 1 the work failed, 2 bad input (one line ``error: what, where; hint: ...``), 130 interrupted
(Ctrl-C), 143 terminated (SIGTERM, as a scheduler or ``timeout`` stops a job). Both stop as Ctrl-C does: the servers
started are stopped by PID and what was measured is kept.
"""
from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import os
import re
import signal
import sys
import threading
from typing import Sequence

from autotune import __version__
from autotune._modes import output_modes
from autotune._quiet import quiet_runtime
from autotune._signals import Terminated, stop_on_sigterm
from autotune.commands import COMMANDS
from space.errors import AutotuneError, BadInput


def _machine_refused(error: BaseException) -> str | None:
    """What the machine refused, when ``error`` or an error it was raised from is an ``OSError`` or a database's
    report of a full disk; else None."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError):
            return f"{e.strerror or e}" + (f": {e.filename}" if e.filename else "")
        if "disk is full" in str(e) or "No space left on device" in str(e):
            return "No space left on device (writing the study's database)"
        e = e.__cause__ or e.__context__
    return None


class _Parser(argparse.ArgumentParser):
    """Usage mistakes are one line like every other bad input (argparse prints the whole usage first)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # A value that starts with a minus and a digit (--budget -5m) is the option's value, so its type can name it
        # and say what is wrong; argparse's own pattern takes only plain numbers, and anything else for an option,
        # which leaves "expected one argument". No option of ours starts with a minus and a digit.
        self._negative_number_matcher = re.compile(r"-\.?\d")

    def error(self, message: str):
        self.exit(2, f"error: {message}; hint: {self.prog} --help\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="autotune", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"autotune {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(sub)
    return parser


# the command-line arguments that name files a command reads, and how the user wrote them
_INPUT_FILES = {"model": "--model", "spec": "--spec", "strategy": "the strategy file",
                "strategies": "the strategy file", "calibration": "--calibration"}


def _check_inputs(args: argparse.Namespace) -> None:
    """Each file the command line names for reading can be read, before any work: one the user may not read
    would otherwise fail deep inside, as if the work itself had failed. (A missing file, or a directory, is
    left to the command, which says what it wanted there.) A ``--cache-dir`` that is a file is refused too."""
    for attr, option in _INPUT_FILES.items():
        value = getattr(args, attr, None)
        for path in value if isinstance(value, list) else [value]:
            if not isinstance(path, str) or not os.path.isfile(path):
                continue
            try:
                with open(path, "rb"):
                    pass
            except OSError as e:
                raise BadInput(f"cannot read {option} {path}: {e.strerror or e}",
                               hint="make the file readable by this user (chmod u+r), or run as its owner") from None
    cache = getattr(args, "cache_dir", None)
    if isinstance(cache, str) and os.path.exists(cache) and not os.path.isdir(cache):
        # the cache is written quietly where it can be: a file in its place would be passed over without a word
        raise BadInput(f"--cache-dir {cache} is a file, not a directory",
                       hint="give --cache-dir a directory (new or existing), or leave it out for $AUTOTUNE_CACHE_DIR "
                            "or ~/.cache/autotune")


def _end_despite_stray_threads(code: int) -> None:
    """End the process now when threads the command did not start would keep it alive (a model file that starts
    a non-daemon thread on import): the interpreter would wait for them forever before its exit handlers run.
    Those handlers (stopping any cluster still open among them) run here first."""
    stray = [t for t in threading.enumerate()
             if t is not threading.main_thread() and not t.daemon and t.is_alive()]
    if not stray:
        return
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code (also used in-process by the tests). Called without ``argv`` it is
    the program itself, which ends when the command does."""
    code = _main(argv)
    if argv is None:
        _end_despite_stray_threads(code)
    return code


def _main(argv: Sequence[str] | None) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # TensorFlow's C++ start-up chatter, before TF loads
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: 2 for usage errors, 0 for --help
        return int(e.code or 0)
    logging.basicConfig(level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    installed, previous = stop_on_sigterm()
    try:
        with quiet_runtime(not args.debug), output_modes():
            _check_inputs(args)
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
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as e:  # the machine refused: a full disk, a file gone from under us
        if args.debug:
            raise
        where = f": {e.filename}" if e.filename else ""
        print(f"error: {e.strerror or e}{where}; what was written before is kept", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - a bug of ours still ends in one line; --debug shows where
        if args.debug:
            raise
        refused = _machine_refused(e)  # a library's wrapper around a full disk, say (SQLite under Optuna)
        if refused:
            print(f"error: {refused}; what was written before is kept", file=sys.stderr)
            return 1
        first = (str(e).strip().splitlines() or [""])[0][:300]
        print(f"error: {type(e).__name__}: {first}; hint: rerun with --debug for the traceback", file=sys.stderr)
        return 1
    finally:
        if installed:
            signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
