"""A noise-aware detector of a lasting change in a training job's step time.

Steps are read in blocks (``BLOCK`` steps, the median of each): a call of up to eight steps reports each of its steps
at the call's mean, and a block's median is deaf to a single slow step (a garbage collection, a checkpoint's write,
another process's burst). After ``warmup`` steps (the executors' build, the steps-per-call probes), ``reference``
blocks set the job's level: the median of their log step times, and their spread as a robust standard deviation
(1.4826 x the median absolute deviation), or the steps' own spread over the block's where that is larger (ten
blocks can look quieter than the job is), never below ``min_sigma``.

Then a two-sided CUSUM on the standardized log residual of each block: it adds what a block lies beyond half the
smallest change worth acting on (``min_change``, as a ratio of step times) and fires when the sum passes ``threshold``.
Each block adds at most ``cap``, so no one block fires it, however slow: at least ``threshold / cap`` blocks in a row
must lean the same way. A step time that moves by a ratio r fires it after about ``threshold / (|log r| / sigma -
k)`` blocks, and no later than ``threshold / cap`` for a large move.
"""
from __future__ import annotations

import dataclasses
import math
import statistics

MEDIAN_SE = 1.2533  # a median's standard error over a mean's, for normal samples
BLOCK = 8  # steps per sample: the largest steps per call a job chooses (``TrainingJob.choose_steps_per_call``)


@dataclasses.dataclass
class Change:
    """What the detector saw: the job's level before, the blocks since the sum began to rise, and their ratio."""

    step: int  # the step it fired at
    before_s: float  # the reference median step
    after_s: float  # the median step of the blocks that fired it
    since_step: int  # the first step of those blocks

    @property
    def ratio(self) -> float:
        return self.after_s / self.before_s

    def line(self) -> str:
        return (f"step time changed at step {self.since_step}: {self.before_s * 1e3:.2f} -> {self.after_s * 1e3:.2f} "
                f"ms ({self.ratio:.2f}x), seen at step {self.step}")


class ChangeDetector:
    """Feed it every step's seconds (:meth:`add`); :attr:`change` is set once a lasting change is seen."""

    def __init__(self, *, warmup: int = 16, reference: int = 10, min_change: float = 0.15, min_sigma: float = 0.03,
                 threshold: float = 10.0, cap: float = 2.0, block: int = BLOCK) -> None:
        if not (warmup >= 0 and reference >= 3 and min_change > 0 and min_sigma > 0 and threshold > cap > 0
                and block >= 1):
            raise ValueError("warmup >= 0, reference >= 3, min_change > 0, min_sigma > 0, threshold > cap > 0 and "
                             "block >= 1 must hold")
        self.warmup, self.reference, self.block = warmup, reference, block
        self.delta, self.min_sigma = math.log1p(min_change), min_sigma
        self.threshold, self.cap = threshold, cap
        self.seen = 0  # steps fed
        self._steps: list[float] = []  # the block being filled
        self._ref: list[float] = []  # the reference blocks' log medians
        self._ref_steps: list[float] = []  # and their steps' logs
        self.level: float | None = None  # the reference's log median step
        self.sigma: float | None = None
        self._sums = [0.0, 0.0]  # the CUSUMs of a slower and of a faster step
        self._runs: list[list[tuple[int, float]]] = [[], []]  # each sum's blocks since it left zero: (first step, log)
        self.change: Change | None = None

    @property
    def reference_s(self) -> float | None:
        """The job's reference step in seconds, once the reference blocks are in."""
        return math.exp(self.level) if self.level is not None else None

    def add(self, seconds: float) -> Change | None:
        """One step's seconds; returns the change when this step fires the detector (and keeps it in
        :attr:`change`: once fired it stays so)."""
        self.seen += 1
        if self.change is not None or self.seen <= self.warmup or not seconds > 0:
            return None
        self._steps.append(seconds)
        if len(self._steps) < self.block:
            return None
        steps, self._steps = self._steps, []
        value, first = math.log(statistics.median(steps)), self.seen - self.block + 1
        if self.level is None:
            self._ref.append(value)
            self._ref_steps += [math.log(x) for x in steps]
            if len(self._ref) == self.reference:
                self.level = statistics.median(self._ref)
                self.sigma = max(_robust_sd(self._ref), self.min_sigma,
                                 MEDIAN_SE * _robust_sd(self._ref_steps) / math.sqrt(self.block))
            return None
        return self._block(first, value)

    def _block(self, first: int, value: float) -> Change | None:
        z = (value - self.level) / self.sigma
        k = self.delta / 2 / self.sigma
        for side, lean in ((0, z), (1, -z)):
            self._sums[side] = max(0.0, self._sums[side] + min(lean - k, self.cap))
            self._runs[side] = self._runs[side] + [(first, value)] if self._sums[side] > 0 else []
        side = next((s for s in (0, 1) if self._sums[s] >= self.threshold), None)
        if side is None:
            return None
        run = self._runs[side]
        after = math.exp(statistics.median(v for _, v in run))
        self.change = Change(step=self.seen, before_s=self.reference_s, after_s=after, since_step=run[0][0])
        return self.change


def _robust_sd(values: list[float]) -> float:
    """1.4826 x the median absolute deviation: the standard deviation of normal samples, deaf to outliers."""
    centre = statistics.median(values)
    return 1.4826 * statistics.median(abs(v - centre) for v in values)
