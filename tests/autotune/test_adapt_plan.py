"""Re-planning without a cluster: the search's candidates found through its summary, the search's own local search
on the refitted model, and the decisions' records (``train.json``'s ``adapt``)."""
from __future__ import annotations

import json

import pytest

from testpaths import CLUSTERS, MODELS


@pytest.fixture(scope="module")
def mlp():
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    return inventory_from_trace(trace_step(MODELS / "mlp.py")), load_cluster(CLUSTERS / "localhost.yml")


def test_the_replanner_takes_the_searchs_measured_strategies_by_their_labels(tmp_path, mlp):
    from autotune.adapt.replanning import open_replanner
    from space.builders import build_strategy

    inv, spec = mlp
    (tmp_path / "measured").mkdir()
    build_strategy("uneven_ps", inv, spec).save(tmp_path / "measured" / "01-odd name.pb")
    (tmp_path / "summary.json").write_text(json.dumps(
        {"measured": [{"strategy": "trial 7", "file": "measured/01-odd name.pb"}]}))
    build_strategy("ps", inv, spec).save(tmp_path / "best.pb")
    planner = open_replanner(inv, spec, tmp_path / "best.pb", cache_dir=str(tmp_path / "cache"), say=lambda _m: None)
    labels = [label for label, *_ in planner.pool]
    assert "trial 7" in labels and "odd name" not in " ".join(labels)
    plan = planner.plan(build_strategy("ps", inv, spec), 0.01, [])
    assert [r.predicted_s for r in plan.ranked] == sorted(r.predicted_s for r in plan.ranked)
    assert any(r.label.startswith("re-planned") for r in plan.ranked)
    assert plan.best is plan.ranked[0] and plan.to_dict()["candidates"][0]["strategy"] == plan.best.label


def test_refine_climbs_from_its_starts_and_repeats_itself_on_a_seed(mlp):
    from autotune.tuner import make_space, refine
    from simulator import Calibration, Scorer

    inv, spec = mlp
    space, scorer = make_space(inv, spec), Scorer(inv, spec, Calibration.from_spec(spec))
    starts = [params for _, params in space.builder_params()]
    first = refine(space, scorer, starts, candidates=60, seed=3)
    again = refine(space, scorer, starts, candidates=60, seed=3)
    assert 0 < len(first) <= 60
    assert [(p, t) for p, _, t in first] == [(p, t) for p, _, t in again]
    seen = {repr(sorted(p.items())) for p in starts}
    assert not any(repr(sorted(p.items())) in seen for p, _, _ in first)  # neighbours, never a start again
    assert all(t == pytest.approx(scorer.predict(s).step_time_s) for _, s, t in first)
    assert refine(space, scorer, [], candidates=60, seed=3) == []  # nothing to climb from


def test_a_decision_writes_the_fields_of_its_event():
    from autotune.adapt import Change
    from autotune.adapt._types import Checked, Decision, Plan, Ranked, Weighed

    change = Change(step=40, before_s=0.010, after_s=0.020, since_step=24)
    plan = Plan(links_gbit={"a|*": 1.23456}, current_predicted_s=0.02, factor=1.5,
                ranked=(Ranked("all_reduce", None, 0.012), Ranked("ps", None, 0.03)), seconds=2.345)
    weighed = Weighed(change=change, plan=plan, remaining_steps=60, predicted_gain_s=0.48, switch_cost_s=0.3,
                      replanning_s=2.3)
    switch = Decision(40, "switch", "ps", weighed=weighed).to_dict()
    assert switch["change"] == {"since_step": 24, "before_ms": 10.0, "after_ms": 20.0}
    assert (switch["best"], switch["best_predicted_ms"], switch["strategy"]) == ("all_reduce", 12.0, "ps")
    assert switch["plan"]["candidates"][1] == {"strategy": "ps", "predicted_ms": 30.0}
    assert switch["plan"]["links_gbit"] == {"a|*": 1.2346}
    back = Decision(72, "back", "all_reduce", checked=Checked(0.03, "ps", 0.02))
    assert back.to_dict() == {"step": 72, "event": "back", "strategy": "all_reduce", "measured_ms": 30.0,
                              "replaced": "ps", "replaced_ms": 20.0}
    assert back.scalars() == {"adapt/switched": 1.0, "adapt/switched_to_measured_ms": 30.0}
    failed = Decision(9, "failed", "ps", error="ValueError: x").to_dict()
    assert failed == {"step": 9, "event": "failed", "strategy": "ps", "error": "ValueError: x"}
    with pytest.raises(ValueError, match="event"):
        Decision(1, "maybe", "ps")


def test_train_json_keeps_what_other_writers_set(tmp_path):
    from runners.train import update_index

    update_index(tmp_path / "c", evaluations=[{"step": 1}])
    update_index(tmp_path / "c", adapt=[{"step": 1, "event": "stay"}])
    update_index(tmp_path / "c", evaluations=[{"step": 1}, {"step": 2}])
    assert json.loads((tmp_path / "c" / "train.json").read_text()) == {
        "evaluations": [{"step": 1}, {"step": 2}], "adapt": [{"step": 1, "event": "stay"}]}
    assert not (tmp_path / "c" / "train.json.tmp").exists()
