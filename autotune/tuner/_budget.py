"""A search's time budget (``--budget``): what each phase may still spend, and what the budget left unmeasured.

The budget bounds the whole search, calibration included. The phases that can stop early are given shares of what
is left when they start: the simulated stage a fixed share (its best trials come early; TPE's later trials refine),
each profiling run the time left less what writing the outputs needs, a run started only when the runs so far say
it fits (the first whenever time is left: with nothing measured a search has only predictions); the confirmation
only where its head-to-head fits.
"""
from __future__ import annotations

import argparse
import dataclasses
import re
import time

SIMULATED_SHARE = 0.15  # of the time left when the simulated stage starts
OUTPUTS_S = 8.0  # kept for writing the outputs and their figures (3-6 s on a loaded 2-core machine)
FIRST_RUN_S = 20.0  # a first profiling run's guess (the cluster's start, the trace, the run), before one is timed

CONTENDERS = 2  # a trustworthy answer's head-to-head: the top two

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}


def duration(text: str) -> float:
    """An argparse type: :func:`parse_duration`, its error the command line's."""
    try:
        return parse_duration(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parse_duration(text: str) -> float:
    """Seconds of ``"90"``, ``"90s"``, ``"3m"``, ``"1.5h"``; ValueError naming the text otherwise."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(s|m|min|h)?\s*", str(text))
    if not m or float(m.group(1)) <= 0:
        raise ValueError(f"a duration must be a positive number of seconds, or with s, m or h (90s, 3m, 1h), "
                         f"got {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2) or ""]


@dataclasses.dataclass
class Budget:
    """The search's deadline (``None``: no budget) and what it cost."""

    seconds: float | None
    started: float = dataclasses.field(default_factory=time.monotonic)
    run_s: list = dataclasses.field(default_factory=list)  # wall seconds of each profiling run so far
    notes: list = dataclasses.field(default_factory=list)  # what the budget cut, one line each
    plan: dict = dataclasses.field(default_factory=dict)  # what the profiling stage was planned to buy (plan())
    steps_s: list = dataclasses.field(default_factory=list)  # of each run, the seconds of its warm and timed steps

    def left(self) -> float:
        """Seconds left (infinite without a budget)."""
        if self.seconds is None:
            return float("inf")
        return self.seconds - (time.monotonic() - self.started)

    def share(self, fraction: float) -> float | None:
        """``fraction`` of the time left (``None`` without a budget)."""
        return None if self.seconds is None else max(0.0, fraction * (self.left() - OUTPUTS_S))

    def next_run_s(self) -> float:
        """What the next profiling run is expected to take: the slowest so far, or a guess before any. The first run
        chooses the steps per call every later one is measured at (its probe calls, three kinds of executors), so
        once there are later runs they pace the rest."""
        if not self.run_s:
            return FIRST_RUN_S
        return max(self.run_s[1:] or self.run_s)

    def confirm_s(self, contenders: int, factor: float) -> float:
        """What a head-to-head of ``contenders`` is expected to take, each with ``factor`` times a run's steps: each
        built and warmed as a run is (a run less its steps), and its steps; before a run's split is known, half a
        run times the factor each."""
        run = self.next_run_s()
        if not self.steps_s:
            return contenders * run * max(1.0, factor) / 2
        steps = max(self.steps_s[1:] or self.steps_s)
        return contenders * (max(run - steps, 0.0) + steps * max(1.0, factor))

    def fits(self, seconds: float) -> bool:
        return self.left() - OUTPUTS_S >= seconds

    def allows_run(self) -> bool:
        """Whether another profiling run fits: the first does whenever time is left (a search with nothing measured
        has only predictions to go by), the next ones when the slowest so far would."""
        return self.fits(self.next_run_s()) if self.run_s else self.fits(0.0)

    def cut(self, line: str) -> None:
        """Record that the budget cut something (said once each)."""
        if line not in self.notes:
            self.notes.append(line)

    def record(self) -> dict:
        return {"budget_s": self.seconds, "used_s": round(time.monotonic() - self.started, 2), "cut": self.notes,
                "plan": self.plan}


def plan(left_s: float, *, families: int, run_s: float, confirm_s: float, calibrated: bool) -> dict:
    """What the profiling stage can buy with ``left_s`` seconds, runs of ``run_s`` each: a trustworthy answer is a
    calibrated model, one measured member of each of ``families`` families and a head-to-head of the top two
    (``confirm_s``: :meth:`Budget.confirm_s` of ``CONTENDERS``). Returns the
    seconds it needs (``least_s``), the family runs and whether the head-to-head fit, and a line saying so; below
    the least, the line says what the budget buys instead: the head-to-head of two first runs, where it fits, before
    more families."""
    least = families * run_s + confirm_s + OUTPUTS_S
    room = max(0.0, left_s - OUTPUTS_S)
    head_to_head = room >= confirm_s + CONTENDERS * run_s  # before more families: two runs and their comparison
    runs = int((room - (confirm_s if head_to_head else 0.0)) // run_s) if run_s > 0 else families
    measured = min(families, runs)
    uncalibrated = "" if calibrated else "; uncalibrated: predictions use the spec's nominal values"
    if measured >= families and head_to_head:
        line = (f"the budget's {left_s:.0f} s left buy a measured member of each of the {families} families "
                f"(~{run_s:.0f} s a run) and a head-to-head of the top two (~{confirm_s:.0f} s){uncalibrated}")
    else:
        line = (f"below the ~{least:.0f} s a trustworthy answer needs (every family measured, a head-to-head of the "
                f"top two), the {left_s:.0f} s left buy {measured} of the {families} families' runs"
                f"{'' if head_to_head else ' and no head-to-head: the first runs decide'}{uncalibrated}")
    return {"left_s": round(left_s, 1), "least_s": round(least, 1), "family_runs": measured, "families": families,
            "head_to_head": head_to_head, "calibrated": calibrated, "line": line}
