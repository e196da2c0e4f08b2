"""Progress of a long stage on stderr: a bar on a terminal, a line every few seconds otherwise."""
from __future__ import annotations

import sys
import time
from typing import Callable


class Progress:
    def __init__(self, enabled: bool, say: Callable[[str], None], every_s: float = 5.0) -> None:
        self.enabled, self.say, self.every_s = enabled, say, every_s
        self._bar = None
        self._last = 0.0

    def start(self, total: int | None, desc: str) -> None:
        self.desc, self.total, self.n = desc, total, 0
        self._started = time.monotonic()
        if self.enabled and sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=desc, unit="trial", file=sys.stderr, leave=True)

    def update(self, n: int = 1, **postfix: str) -> None:
        self.n += n
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            if postfix:
                self._bar.set_postfix(postfix, refresh=False)
            return
        now = time.monotonic()
        if now - self._last >= self.every_s:
            self._last = now
            elapsed = now - self._started
            total = f"/{self.total}" if self.total else ""
            # the rate so far: a long stage says when it will end, as the terminal's bar does
            left = f" (about {(self.total - self.n) * elapsed / self.n:.0f} s left)" if self.total and self.n else ""
            extra = " ".join(f"{k}={v}" for k, v in postfix.items())
            self.say(f"{self.desc}: {self.n}{total} after {elapsed:.0f} s{left} {extra}".rstrip())

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
