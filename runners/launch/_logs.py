"""Where the servers' logs live: a folder per cluster start under the cache directory (``<cache>/server-logs``),
private to the user (the logs show the servers' ports and whatever the model printed), removed when the cluster
stops cleanly and kept when a start fails or a server dies, for the error message that names it. The folders
kept are pruned: the newest ``KEEP`` stay, and none older than ``MAX_AGE_S``; a folder whose driver process is
still running (its name holds the PID) is in use, and stays."""
from __future__ import annotations

import os
import pathlib
import shutil
import tempfile
import time

from space.model import default_cache_dir

PREFIX = "autotune-servers-"
KEEP = 20  # failed starts whose logs are kept
MAX_AGE_S = 7 * 24 * 3600
# on a remote node, as the shell there names it: its own cache dir, by the same rule as here
REMOTE_DIR = "${AUTOTUNE_CACHE_DIR:-$HOME/.cache/autotune}/server-logs"
REMOTE_PRUNE = "find . -maxdepth 1 -name 'autotune-*.log' -mtime +7 -delete"  # run inside it


def default_root() -> pathlib.Path:
    return default_cache_dir() / "server-logs"


def new_log_dir(root: str | os.PathLike | None = None) -> str:
    """A fresh private folder for one cluster start's logs, under ``root`` (default :func:`default_root`), after
    pruning the folders earlier starts kept there."""
    base = pathlib.Path(root) if root is not None else default_root()
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    prune(base)
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base)  # mode 0700 whatever the umask


def prune(root: pathlib.Path, keep: int = KEEP, now: float | None = None) -> list[pathlib.Path]:
    """Remove kept log folders beyond the newest ``keep`` (and all older than ``MAX_AGE_S``); returns them."""
    now = time.time() if now is None else now
    found = []
    for p in root.glob(f"{PREFIX}*"):
        pid = p.name[len(PREFIX):].split("-", 1)[0]
        if pid.isdigit() and os.path.exists(f"/proc/{pid}"):
            continue  # its cluster may still run
        try:
            found.append((p.stat().st_mtime, p))
        except OSError:
            continue
    found.sort(reverse=True)
    gone = [p for i, (mtime, p) in enumerate(found) if i >= keep or now - mtime > MAX_AGE_S]
    for p in gone:
        shutil.rmtree(p, ignore_errors=True)
    return gone


def remove_log_dir(directory: str, *, keep_logs: bool) -> None:
    """Remove a log folder a cluster start made; with ``keep_logs`` (a failed start, a dead server) only when it
    holds no file (SSH-only clusters log on their nodes, and an empty folder tells nobody anything)."""
    if not (keep_logs and any(files for _, _, files in os.walk(directory))):
        shutil.rmtree(directory, ignore_errors=True)
