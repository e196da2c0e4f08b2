"""Modes of what a command writes, whatever the umask it was started with: files at most 0644 and folders at most
0755 (others may read, never write: a world-writable strategy or study is anyone's to change); a stricter umask
stays. What is private is made so explicitly where it is written: the servers' logs 0600 in 0700 folders
(``runners.launch._logs``), the testbed's keys and state (``runners.testbed``)."""
from __future__ import annotations

import contextlib
import os

NO_WRITE_BY_OTHERS = 0o022


@contextlib.contextmanager
def output_modes():
    """Within the block, nothing is created writable by group or others (the umask is widened, then restored)."""
    previous = os.umask(NO_WRITE_BY_OTHERS)
    os.umask(previous | NO_WRITE_BY_OTHERS)
    try:
        yield
    finally:
        os.umask(previous)
