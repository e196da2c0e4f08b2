"""``profile_strategy`` on a running cluster, as the search calls it: many trials, one set of servers."""
from __future__ import annotations

import pytest

from space.builders import build_strategy

pytestmark = pytest.mark.slow


def test_profile_many_trials_on_one_cluster(cluster, spec, traced):
    from runners.profile import profile_strategy

    t, inv = traced("mlp")
    results = [profile_strategy(t, build_strategy(a, inv, spec), cluster, steps=3, warmup=1)
               for a in ("all_reduce_fp16", "ps", "all_reduce")]  # reused servers, fresh collective keys
    for r in results:
        assert r.median_s > 0 and r.examples_per_s > 0 and len(r.step_times_s) == 3
    assert results[0].bytes_per_step < results[2].bytes_per_step  # fp16 halves the all-reduce traffic


def test_one_replica_moves_nothing(cluster, spec, traced):
    from runners.profile import profile_strategy
    from space.strategy import Strategy

    t, inv = traced("mlp")
    s = build_strategy("all_reduce", inv, spec)
    one = Strategy.build(s.nodes, spec.replicas[:1])
    r = profile_strategy(t, one, cluster, steps=2, warmup=1)
    assert r.num_replicas == 1 and r.global_batch == 32 and r.bytes_per_step == 0


def test_strategies_taking_turns_train_as_they_would_alone(cluster, spec, traced):
    """The head-to-head comparison keeps every job alive and steps them in turns: each still trains exactly as it
    does alone (own variables, own collective keys), and every one gets its timed steps."""
    from runners.profile import profile_strategy, profile_together

    t, inv = traced("mlp")
    strategies = [build_strategy(a, inv, spec) for a in ("all_reduce", "ps", "ps_lb")]
    together = profile_together(t, strategies, cluster, steps=5, warmup=1, rounds=3, steps_per_call=2)
    alone = [profile_strategy(t, s, cluster, steps=5, warmup=1, steps_per_call=2) for s in strategies]
    for a, b in zip(together, alone):
        assert len(a.step_times_s) == 5 and a.steps == 5 and a.median_s > 0
        assert a.final_loss == pytest.approx(b.final_loss, rel=1e-5)


def test_samples_of_several_steps_per_call(cluster, spec, traced):
    """With steps per call chosen (or given), each sample is one call's seconds over its steps; the job trains
    the warm-up, one call to build the executors, then every sample's steps."""
    from runners.profile import profile_strategy

    t, inv = traced("mlp")
    r = profile_strategy(t, build_strategy("all_reduce", inv, spec), cluster, steps=4, warmup=2, steps_per_call=3)
    assert r.steps_per_call == 3 and len(r.step_times_s) == 4 and r.p10_s <= r.median_s <= r.p90_s
    assert "4 calls of 3 steps" in r.summary()
    # warmed up at its given length: one kind of call built on the servers, no one-step call's executors
    assert len(r.phases_s["executors_by_call"]) == 1 and r.phases_s["executors"] > 0
    auto = profile_strategy(t, build_strategy("all_reduce", inv, spec), cluster, steps=4, warmup=3)
    assert auto.steps_per_call >= 1 and len(auto.step_times_s) == 4


def test_the_phases_of_a_run_add_up_to_its_wall_time(cluster, spec, traced):
    """The split a search prints and keeps: every phase timed, first calls counted as executors, and the
    overhead is what is neither a warm nor a timed step."""
    import time

    from runners.profile import PHASES, profile_strategy

    t, inv = traced("mlp")
    started = time.perf_counter()
    r = profile_strategy(t, build_strategy("ps", inv, spec), cluster, steps=3, warmup=2)
    wall = time.perf_counter() - started
    p = r.phases_s
    assert set(PHASES) <= set(p) and all(p[k] >= 0 for k in PHASES) and p["timed"] > 0 and p["graph"] > 0
    assert sum(p[k] for k in PHASES) == pytest.approx(p["total"], abs=1e-3) and p["total"] <= wall
    assert p["executors"] == pytest.approx(sum(p["executors_by_call"].values()), abs=1e-3)
    assert p["overhead"] == pytest.approx(p["total"] - p["timed"] - p["warmup"], abs=1e-3)


def test_a_step_too_slow_for_its_samples_gets_fewer(cluster, spec, traced):
    """Where the warm-up's steps say the samples asked for would take longer than allowed, fewer are timed, but
    never fewer than ``MIN_SAMPLES``; with room for all, all are, alone and taking turns."""
    from runners.profile import MIN_SAMPLES, profile_strategy, profile_together

    t, inv = traced("mlp")
    s = build_strategy("all_reduce", inv, spec)
    cut = profile_strategy(t, s, cluster, steps=12, warmup=2, steps_per_call=1, within_s=1e-6)
    assert len(cut.step_times_s) == cut.steps == MIN_SAMPLES < 12
    kept = profile_strategy(t, s, cluster, steps=12, warmup=2, steps_per_call=1, within_s=3600.0)
    assert len(kept.step_times_s) == kept.steps == 12
    both = profile_together(t, [s, build_strategy("ps", inv, spec)], cluster, steps=12, warmup=2, rounds=3,
                            steps_per_call=1, within_s=1e-6)
    assert [len(r.step_times_s) for r in both] == [MIN_SAMPLES] * 2
