"""SIGTERM stops a command as Ctrl-C does, and a command that stopped early knows which of the two stopped it."""
from __future__ import annotations

import contextlib
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


class Deferred:
    """Ctrl-C and SIGTERM held until ``check()``. The first one is kept; a repeat is not raised either, since it
    could land in the very step the hold protects (the safe points are a trial apart: milliseconds)."""

    def __init__(self) -> None:
        self.pending: KeyboardInterrupt | None = None

    def _hold(self, signum, frame) -> None:
        if self.pending is not None:
            return
        if signum == signal.SIGTERM:
            _terminated.set()
            self.pending = Terminated()
        else:
            self.pending = KeyboardInterrupt()

    def check(self) -> None:
        """Raise the held interrupt, if any."""
        if self.pending is not None:
            raise self.pending


@contextlib.contextmanager
def deferred_interrupts():
    """Hold Ctrl-C and SIGTERM inside a library loop that cannot take them anywhere (Optuna's ``optimize``: an
    interrupt that lands while it records a trial surfaces as an ``UnboundLocalError`` of its own, not as the
    interrupt). The loop's body calls ``check()`` where stopping is safe; leaving the block raises what is still
    held. Outside the main thread, or where the handlers are not ours to replace, nothing is held."""
    deferred = Deferred()
    if threading.current_thread() is not threading.main_thread():
        yield deferred
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    # only replace handlers that stop the command: an ignored signal stays ignored
    held = [sig for sig, h in previous.items()
            if h is signal.default_int_handler or h is _raise_terminated]
    for sig in held:
        signal.signal(sig, deferred._hold)
    try:
        yield deferred
    finally:
        for sig in held:
            signal.signal(sig, previous[sig])
    deferred.check()
