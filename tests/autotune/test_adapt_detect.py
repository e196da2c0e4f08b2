"""The change detector of ``train --adapt``, and the decisions of its watch, on step times drawn here: a noisy
stable job never fires it; a lasting change of 20% or more does, within a few blocks; no single slow step does."""
from __future__ import annotations

import math
import random
import types

import pytest

from autotune.adapt import ChangeDetector, Plan, Ranked, Watch
from autotune.adapt._job import Segment
from space.strategy import Strategy


def _steps(seed: int, n: int, *, base: float = 0.05, sigma: float = 0.08, spikes: float = 0.03,
           change_at: int | None = None, ratio: float = 1.0) -> list[float]:
    """Log-normal step times with occasional 1.5-6x spikes (garbage collections, another process's burst)."""
    r = random.Random(seed)
    out = []
    for i in range(n):
        x = base * math.exp(r.gauss(0, sigma)) * (ratio if change_at is not None and i >= change_at else 1.0)
        out.append(x * r.uniform(1.5, 6.0) if r.random() < spikes else x)
    return out


def _first_fire(detector: ChangeDetector, steps: list[float]):
    for i, x in enumerate(steps):
        if (c := detector.add(x)) is not None:
            return i, c
    return None, None


@pytest.mark.parametrize("sigma", [0.02, 0.08, 0.2])
def test_a_stable_noisy_job_never_fires_it(sigma):
    fired = [seed for seed in range(200) if _first_fire(ChangeDetector(), _steps(seed, 500, sigma=sigma))[0]]
    assert fired == []


@pytest.mark.parametrize("ratio", [1.25, 1.5, 3.0, 0.7])
def test_a_lasting_change_fires_it_within_a_few_blocks_and_is_measured(ratio):
    delays, ratios = [], []
    for seed in range(50):
        at, change = _first_fire(ChangeDetector(), _steps(seed, 800, change_at=300, ratio=ratio))
        assert at is not None and at >= 300, (seed, at)
        delays.append(at - 300)
        ratios.append(change.ratio)
        assert change.since_step >= 300 - 16  # the block across the change, at most one before it
    assert max(delays) <= 80
    assert all(abs(r / ratio - 1) < 0.12 for r in ratios), ratios


def test_no_one_step_fires_it_however_slow():
    steps = _steps(1, 400, sigma=0.03, spikes=0.0)
    for i in range(200, 400, 9):  # one step in nine 100x slower: one per block at most
        steps[i] *= 100
    assert _first_fire(ChangeDetector(), steps)[0] is None


def test_calls_of_eight_equal_steps_read_as_one_sample():
    calls = _steps(3, 80, sigma=0.1, spikes=0.0)
    assert _first_fire(ChangeDetector(), [x for x in calls for _ in range(8)])[0] is None


def test_warmup_steps_are_not_the_reference():
    steps = [5.0] * 16 + _steps(2, 400, spikes=0.0)  # the executors' build and the probes: slow, then steady
    d = ChangeDetector(warmup=16)
    assert _first_fire(d, steps)[0] is None and abs(d.reference_s / 0.05 - 1) < 0.05


class _Planner:
    """A scripted re-planner: proposes ``best`` at ``predicted_s``; counts its calls."""

    def __init__(self, best: Strategy, predicted_s: float) -> None:
        self.best, self.predicted_s, self.calls, self.rejected = best, predicted_s, [], set()

    def replan(self, current, measured_s, cluster):
        self.calls.append(measured_s)
        return Plan(links_gbit={}, current_predicted_s=measured_s, factor=1.0,
                    ranked=(Ranked("other", self.best, self.predicted_s),))


def _strategy(var: str) -> Strategy:
    from space.strategy import ps_node

    return Strategy.build([ps_node(var, "127.0.0.1:CPU:0")], ["127.0.0.1:CPU:0"])


def _watch(planner, steps: int = 10_000, previous=None):
    decisions = []
    w = Watch(Segment("current", _strategy("a"), previous), planner, None, steps, lambda _m: None, decisions.append)
    return w, decisions


def _feed(w: Watch, times: list[float]) -> None:
    for i, t in enumerate(times):
        w(types.SimpleNamespace(step=i + 1, step_time_s=t))
        if w.stop():
            return


def test_a_change_with_a_faster_candidate_switches_and_records_why():
    planner = _Planner(_strategy("b"), 0.06)
    w, decisions = _watch(planner)
    _feed(w, _steps(4, 600, spikes=0.0, change_at=300, ratio=2.0))
    assert w.stop() and w.next.label == "other" and w.next.previous[0] == "current"
    assert len(planner.calls) == 1 and abs(planner.calls[0] / 0.1 - 1) < 0.1
    (d,) = decisions
    assert d.event == "switch" and d.weighed.predicted_gain_s > d.weighed.switch_cost_s >= 0
    assert d.weighed.change.after_s > 1.8 * d.weighed.change.before_s


@pytest.mark.parametrize("predicted_s, steps", [(0.098, 10_000), (0.06, 320)],
                         ids=["not-faster-enough", "too-few-steps-left"])
def test_a_change_without_a_gain_worth_its_cost_stays_and_takes_the_new_level(predicted_s, steps):
    planner = _Planner(_strategy("b"), predicted_s)
    w, decisions = _watch(planner, steps=steps)
    w.build_s = 30.0 if steps < 1000 else 0.0
    _feed(w, _steps(5, 900, spikes=0.0, change_at=300, ratio=2.0))
    assert not w.stop() and [d.event for d in decisions] == ["stay"]
    assert abs(w.detector.reference_s / 0.1 - 1) < 0.1  # the new level is the reference: no second alarm


def test_a_switch_that_measures_slower_than_what_it_replaced_goes_back():
    before = _strategy("a")
    w, decisions = _watch(_Planner(before, 0.01), previous=("ps", before, 0.05))
    _feed(w, _steps(6, 200, spikes=0.0, base=0.07))
    assert w.stop() and w.next.label == "ps" and [d.event for d in decisions] == ["back"]
    assert "current" in w.planner.rejected


def test_a_switch_that_measures_faster_stays():
    before = _strategy("a")
    w, decisions = _watch(_Planner(before, 0.01), previous=("ps", before, 0.05))
    _feed(w, _steps(7, 200, spikes=0.0, base=0.03))
    assert not w.stop() and [d.event for d in decisions] == ["checked"]


def test_adapt_without_a_checkpoint_directory_is_refused_in_one_line(run, tmp_path):
    from testpaths import CLUSTERS, MODELS

    strategy = tmp_path / "s.pb"
    strategy.write_bytes(b"")
    code, out, err = run("train", "--model", MODELS / "mlp.py", "--spec", CLUSTERS / "localhost.yml", "--strategy",
                         strategy, "--steps", "10", "--adapt")
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "--adapt needs a checkpoint directory" in err and "--checkpoint DIR" in err


class _Fails:
    rejected: set = set()

    def replan(self, current, measured_s, cluster):
        raise ValueError("no candidate decodes")


def test_a_failed_replanning_keeps_the_job_and_its_strategy():
    w, decisions = _watch(_Fails())
    _feed(w, _steps(8, 600, spikes=0.0, change_at=300, ratio=2.0))
    assert not w.stop() and [d.event for d in decisions] == ["failed"]
    assert "ValueError: no candidate decodes" in decisions[0].error
