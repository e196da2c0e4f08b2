"""``--budget`` plans the profiling stage: what it buys (calibration, a measured member of every family, a
head-to-head of the top two), said in one line, and the first round in the order that buys it."""
from __future__ import annotations

import json

import pytest

from autotune.tuner import SearchConfig, run_search
from autotune.tuner._budget import OUTPUTS_S, plan
from test_search_loop import MODEL, SPEC, _TruthProfiler


@pytest.mark.parametrize("left_s, family_runs, head_to_head", [
    (OUTPUTS_S + 5 * 10.0 + 2 * 10.0 * 3 / 2, 5, True),  # exactly the least: every family and the head-to-head
    (OUTPUTS_S + 3 * 10.0 + 2 * 10.0 * 3 / 2, 3, True),  # short: the head-to-head kept, fewer families
    (OUTPUTS_S + 25.0, 2, False),  # shorter still: the first runs decide
])
def test_the_plan_says_what_the_budget_buys(left_s, family_runs, head_to_head):
    p = plan(left_s, families=5, run_s=10.0, confirm_s=2 * 10.0 * 3 / 2, calibrated=True)
    assert p["least_s"] == pytest.approx(OUTPUTS_S + 5 * 10.0 + 30.0)
    assert (p["family_runs"], p["head_to_head"]) == (family_runs, head_to_head)
    assert p["line"].startswith("below") == (family_runs < 5 or not head_to_head)
    assert ("no head-to-head" in p["line"]) == (not head_to_head)


def test_a_head_to_head_is_estimated_from_the_runs_overhead_and_steps():
    from autotune.tuner._budget import Budget

    b = Budget(600.0)
    assert b.confirm_s(2, 3.0) == pytest.approx(2 * 20.0 * 3 / 2)  # no run yet: half the first run's guess x 3
    b.run_s += [30.0, 8.0, 6.0]  # the first run chose the steps per call for all: the later ones pace the rest
    b.steps_s += [2.0, 2.0, 1.5]
    assert b.next_run_s() == 8.0
    assert b.confirm_s(2, 3.0) == pytest.approx(2 * ((8.0 - 2.0) + 2.0 * 3.0))


def test_a_budgeted_search_plans_its_first_round_families_first(tmp_path, cache_dir):
    _TruthProfiler.scorer, _TruthProfiler.calls = None, []
    cfg = SearchConfig(model=MODEL, spec=SPEC, output=tmp_path / "o", trials=60, top_k=4, builders_to_profile=2,
                       cache_dir=str(cache_dir), reduced=True, max_profiles=12, round_size=0, confirm=2, seed=0,
                       budget_s=3600.0)
    result = run_search(cfg, profiler_factory=_TruthProfiler, progress=False)
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    p = summary["budget"]["plan"]
    reps = {r["representative"] for r in result.families if r["representative"]}
    assert p["families"] == len(reps) >= 2
    assert p["family_runs"] == p["families"] and p["head_to_head"] and not p["line"].startswith("below")
    # after the model's two best guesses, every family's representative comes before any other candidate
    rest = [label in reps for label in result.rounds[0]["chosen"][2:]]
    assert rest == sorted(rest, reverse=True)
    assert summary["confidence"].startswith(("winner faster", "a tie within noise"))
