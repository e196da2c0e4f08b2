"""Quiet by default: what TensorFlow's C++ runtime and its Python loggers print is not the command's output.

TensorFlow writes its start-up lines (absl's "All log messages before absl::InitializeLog()", oneDNN's notice) to
file descriptor 2 from C++, before and regardless of ``TF_CPP_MIN_LOG_LEVEL``. A command therefore runs with
descriptor 2 pointed at ``/dev/null`` and Python's ``sys.stderr`` on a duplicate of the real one: the command's own
lines (progress, the one-line error) still reach the terminal, the runtime's do not. ``--debug`` shows everything.
"""
from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings

QUIET_LOGGERS = ("tensorflow", "absl", "keras", "h5py", "matplotlib", "paramiko")


@contextlib.contextmanager
def quiet_runtime(enabled: bool = True):
    """Within the block, native writes to descriptor 2 are dropped and noisy libraries log errors only."""
    if not enabled:
        yield
        return
    levels = {name: logging.getLogger(name).level for name in QUIET_LOGGERS}
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)
    original = sys.stderr
    try:
        real = original.fileno() == 2
    except (AttributeError, OSError, ValueError):  # a captured stream (tests): only descriptor 2 is redirected
        real = False
    original.flush()
    saved = os.dup(2)
    mine = None
    if real:
        mine = open(os.dup(saved), "w", buffering=1, encoding=getattr(original, "encoding", None) or "utf-8",
                    errors="backslashreplace")
        sys.stderr = mine
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # libraries' deprecation and usage notices
            yield
    finally:
        if mine is not None:
            mine.flush()
            if sys.stderr is mine:
                sys.stderr = original
            mine.close()
        os.dup2(saved, 2)
        os.close(saved)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)


@contextlib.contextmanager
def stdout_to_stderr():
    """Within the block, whatever prints to stdout (the user's model, a library) goes to stderr instead: stdout
    then carries only what the command writes after it, such as the JSON of ``inspect --json``."""
    sys.stdout.flush()
    original = sys.stdout
    try:
        real = original.fileno() == 1 and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):  # a captured stream (tests): the Python objects suffice
        real = False
    saved = os.dup(1) if real else -1
    if real:
        os.dup2(sys.stderr.fileno(), 1)
    sys.stdout = sys.stderr
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stdout = original
        if saved >= 0:
            os.dup2(saved, 1)
            os.close(saved)
