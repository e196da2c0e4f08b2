"""An append-only JSON-lines record of finished simulated trials: cheap to write after every trial, so a crash
or Ctrl-C loses nothing, and ``--resume`` rebuilds the in-memory study from it.

(Optuna's RDB storage costs ~50-250 ms per trial with hundreds of parameters on this machine; the simulated stage
scores thousands of trials per minute, so it runs on an in-memory study and persists here instead.)
"""
from __future__ import annotations

import json
import os
import pathlib
from typing import Any, Iterator


class Journal:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = pathlib.Path(path)
        self._fh = None

    def append(self, record: dict[str, Any]) -> None:
        if self._fh is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = open(self.path, "a", buffering=1)  # line-buffered: each record reaches the OS at once
        self._fh.write(json.dumps(record, separators=(",", ":")) + "\n")

    def close(self) -> None:
        if self._fh is not None:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            self._fh = None

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete record; a torn last line (killed mid-write) is skipped."""
        if not self.path.is_file():
            return
        with open(self.path) as fh:
            for line in fh:
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue
