"""``train --adapt`` on real TensorFlow servers: switches of strategy at checkpoints lose and repeat no step (the final
variables and Adam slots are single-device training's), and the re-planner ranks the search's candidates again from
links it measures on the running cluster. The jobs share the module's cluster (``lent_localhost``), as the
segments of one job share theirs."""
from __future__ import annotations

import json

import numpy as np
import pytest

from testpaths import CLUSTERS, MODELS
from testsupport import worst_checkpoint_error

EXACT = 1e-5



class _Scripted:
    """A detector that fires at its ``fire_at``-th step (None: never) and reports ``reference_s`` once it has seen
    ``reference_after`` steps."""

    def __init__(self, fire_at=None, reference_s=None, reference_after=5) -> None:
        self.fire_at, self._reference, self.after = fire_at, reference_s, reference_after
        self.seen, self.change = 0, None

    @property
    def reference_s(self):
        return self._reference if self.seen >= self.after else None

    def add(self, seconds):
        from autotune.adapt import Change

        self.seen += 1
        if self.change is None and self.seen == self.fire_at:
            self.change = Change(step=self.seen, before_s=0.01, after_s=10.0, since_step=self.seen - 8)
            return self.change
        return None


class _Proposes:
    """A planner that proposes ``strategy`` as far faster than anything."""

    def __init__(self, label, strategy) -> None:
        self.label, self.strategy, self.rejected, self.calls = label, strategy, set(), 0

    def replan(self, current, measured_s, cluster):
        from autotune.adapt._types import Plan, Ranked

        self.calls += 1
        return Plan(links_gbit={}, current_predicted_s=measured_s, factor=1.0,
                    ranked=(Ranked(self.label, self.strategy, 1e-6),))


@pytest.mark.slow
def test_switches_and_a_switch_back_lose_no_step(tmp_path, lent_localhost):
    """The recommender (Adam, a sparse embedding) under ps; a change at its 36th step switches it to all_reduce,
    which measures slower than ps did and goes back to ps: three segments, two resumes, and after 60 steps every
    variable and optimizer slot equals single-device training's."""
    from autotune.adapt import adaptive_train
    from runners.cluster import start_cluster
    from runners.transform._optimizer import Optimizer
    from runners.transform._reference import reference_train
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    steps, model = 60, MODELS / "recommender.py"
    traced = trace_step(model)
    spec, inv = load_cluster(CLUSTERS / "localhost.yml"), inventory_from_trace(traced)
    ps, ar = build_strategy("ps", inv, spec), build_strategy("all_reduce", inv, spec)
    reference = Optimizer(traced.optimizer, traced.keras_optimizer).keras()
    want, _, losses = reference_train(traced, 2, steps, optimizer=reference)  # first: a checkpoint sets the model's
    # after the probes that choose the steps per call, which run to their end
    detectors = iter([_Scripted(fire_at=36), _Scripted(reference_s=100.0), _Scripted()])
    ckpt, lines = tmp_path / "ckpt", []
    with start_cluster(spec) as cluster:
        result, decisions = adaptive_train(traced, ps, cluster, _Proposes("all_reduce", ar), steps=steps,
                                           checkpoint_dir=str(ckpt), label="ps", log=lines.append,
                                           detector=lambda: next(detectors), keep=5, logdir=str(tmp_path / "logs"))
    assert [d.event for d in decisions] == ["switch", "back"]
    assert decisions[0].weighed.plan.best.label == "all_reduce" and decisions[1].checked.replaced == "ps"
    assert result.steps == steps and len(result.losses) == steps
    assert any("resuming at step" in line and "under all_reduce" in line for line in lines)
    assert any("resuming at step" in line and "under ps" in line for line in lines)
    index = json.loads((ckpt / "train.json").read_text())
    assert index["step"] == steps and [d["event"] for d in index["adapt"]] == ["switch", "back"]
    assert list((tmp_path / "logs" / "adapt").glob("events.out.tfevents.*"))  # the decisions, for TensorBoard
    worst, error = worst_checkpoint_error(ckpt, traced, want, reference)
    assert error <= EXACT, f"{worst}: relative error {error:.3g}"
    assert np.allclose(result.losses, losses, rtol=1e-4)


@pytest.mark.slow
def test_a_real_replanning_measures_the_links_and_the_job_goes_on(tmp_path, lent_localhost):
    """The re-planner of a strategy outside any search (the classic builders and a simulated round) times every
    link of the running cluster between two calls of the job, ranks the candidates on the refitted model, and the
    job reaches its last step whatever it decides: the probes' variables are freed without closing its session."""
    from autotune.adapt import adaptive_train
    from autotune.adapt._job import strategy_key
    from autotune.adapt.replanning import ROUND_TRIALS, open_replanner, outside_search
    from runners.cluster import start_cluster
    from space.builders import aliases, build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    traced = trace_step(MODELS / "mlp.py")
    spec, inv = load_cluster(CLUSTERS / "localhost.yml"), inventory_from_trace(traced)
    start = build_strategy("ps", inv, spec)
    start.save(tmp_path / "ps.pb")
    planner = open_replanner(inv, spec, tmp_path / "ps.pb", cache_dir=str(tmp_path / "cache"), say=lambda _m: None)
    assert "not in a search's output directory" in outside_search(tmp_path / "ps.pb")
    assert len(planner.pool) == len(aliases())  # every builder applies to the mlp on two nodes
    detectors = iter([_Scripted(fire_at=40), _Scripted(), _Scripted()])
    with start_cluster(spec) as cluster:
        result, decisions = adaptive_train(traced, start, cluster, planner, steps=80, label="ps",
                                           checkpoint_dir=str(tmp_path / "c"), detector=lambda: next(detectors))
    assert result.steps == 80 and len(result.losses) == 80
    plan = decisions[0].to_dict()["plan"]
    assert decisions[0].event in ("switch", "stay")
    assert set(plan["links_gbit"]) >= {"127.0.0.1|*", "127.0.0.2|*"} and min(plan["links_gbit"].values()) > 0
    assert 0.5 <= plan["factor"] <= 2.0 and len(plan["candidates"]) == 5
    predicted = [c["predicted_ms"] for c in plan["candidates"]]
    assert predicted == sorted(predicted)
    ranked = planner.plan(start, 0.01, [])  # the same candidates again: each strategy once, whatever its sources
    assert len({repr(strategy_key(r.strategy)) for r in ranked.ranked}) == len(ranked.ranked)
    assert decisions[0].to_dict()["best"] == plan["candidates"][0]["strategy"] == decisions[0].weighed.plan.best.label
    assert ROUND_TRIALS > 0 and plan["seconds"] > 0


@pytest.mark.slow
def test_a_stable_cluster_never_switches_the_best_strategy(tmp_path, run, monkeypatch, lent_localhost):
    """``autotune train --adapt`` on the loopback cluster, calibrated (links only), from the strategy its re-planner
    ranks best: 500 steps, and no switch; the line after training says so, and so does train.json."""
    from autotune.adapt.replanning import open_replanner
    from simulator import Scorer
    from space.cluster import load_cluster
    from space.model import load_inventory

    spec_path, model = CLUSTERS / "localhost.yml", MODELS / "mlp.py"
    cache = tmp_path / "cache"
    code, _, err = run("calibrate", "--spec", spec_path, "--sizes", "256k,1m", "--repeats", "3", "--rpc-tensors", "20",
                       "--cache-dir", cache, "--quiet")
    assert code == 0, err
    spec, inv = load_cluster(spec_path), load_inventory(model, cache_dir=cache)
    planner = open_replanner(inv, spec, tmp_path / "none.pb", cache_dir=str(cache), say=lambda _m: None)
    scorer = Scorer(inv, spec, planner.calibration)
    label, best = min(((label, s) for label, s, _ in planner.pool), key=lambda c: scorer.predict(c[1]).step_time_s)
    best.save(tmp_path / "best.pb")
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(cache))  # the job's re-planner finds the calibration there
    code, out, err = run("train", "--model", model, "--spec", spec_path, "--strategy", tmp_path / "best.pb",
                         "--steps", "500", "--checkpoint", tmp_path / "ckpt", "--adapt")
    assert code == 0, err
    assert "0 switch(es)" in out, (label, out, err)
    decisions = json.loads((tmp_path / "ckpt" / "train.json").read_text()).get("adapt", [])
    assert not [d for d in decisions if d["event"] in ("switch", "back")], decisions


def test_a_strategy_outside_a_search_is_noted_and_one_inside_is_not(tmp_path):
    """What re-planning ranks depends on where the strategy file is: the note says it before the job starts."""
    from autotune.adapt.replanning import outside_search, search_dir_of

    (tmp_path / "s.pb").write_bytes(b"")
    note = outside_search(tmp_path / "s.pb")
    assert "s.pb is not in a search's output directory" in note and "classic builders" in note
    (tmp_path / "summary.json").write_text("{}")
    assert outside_search(tmp_path / "s.pb") == "" and search_dir_of(tmp_path / "s.pb") == tmp_path.resolve()
