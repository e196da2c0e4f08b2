"""``runners.profile.PhaseClock``: how a profiling run's wall time is split (the real runs are in transform/)."""
from __future__ import annotations

import time
import types

import pytest

from runners.profile import PHASES, PhaseClock, split_line


def test_first_calls_count_as_executors_and_a_wait_for_a_graph_ahead_as_its_own_phase():
    clock = PhaseClock()
    job = types.SimpleNamespace(first_calls_s={"init": 0.5})  # the session's call: before any phase of the job
    with clock.phase("warmup", job):
        time.sleep(0.002)
        job.first_calls_s["8 step(s) a call"] = 0.001  # what TrainingJob records of a call's first run
        clock.charged("ahead", lambda: time.sleep(0.003))()
    with clock.phase("timed", job):
        pass
    clock.begin("close")
    clock.end()
    p = clock.split()
    assert p["executors_by_call"] == {"8 step(s) a call": 0.001} and p["executors"] == 0.001
    assert p["ahead"] > 0 and p["warmup"] > 0 and p["graph"] == 0.0  # every phase present, run or not
    assert sum(p[k] for k in PHASES) == pytest.approx(p["total"], abs=1e-3)
    assert p["overhead"] == pytest.approx(p["total"] - p["warmup"] - p["timed"], abs=1e-3)
    assert "ahead" in split_line(p) and "8 step(s) a call 0.00" in split_line(p)
