"""SIGTERM stops a command as Ctrl-C does, and a command that stopped early knows which of the two stopped it."""
from __future__ import annotations

import signal
import threading


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


def stop_on_sigterm():
    """Make SIGTERM stop the command as Ctrl-C does (by default it ends the process at once: no ``finally`` runs,
    so an owned log directory, a half-written report and the servers' clean stop would be lost). Returns whether
    it did (not outside the main thread, where signals cannot be set) and the handler it replaced."""
    _terminated.clear()
    if threading.current_thread() is not threading.main_thread():
        return False, None
    return True, signal.signal(signal.SIGTERM, _raise_terminated)
