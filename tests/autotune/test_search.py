"""`autotune search`: determinism, pruning, resume after an interrupt, outputs, a shared study."""
from __future__ import annotations

import dataclasses

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import optuna
import pandas as pd
import pytest

from autotune.cli import main
from autotune.tuner import Measurement, SearchConfig, run_search
from testpaths import CLUSTERS, MODELS, ROOT
from space.strategy import Strategy

MODEL = str(MODELS / "recommender.py")
SPEC = str(CLUSTERS / "localhost.yml")


def _records(out):
    return [json.loads(line) for line in (out / "simulated.jsonl").read_text().splitlines()]


def _search(out, cache_dir, *extra):
    return main(["search", "--model", MODEL, "--spec", SPEC, "-o", str(out), "--cache-dir", str(cache_dir),
                 "--simulate-only", "--quiet", "--reduced", "yes", *extra])


def test_simulate_only_writes_outputs(tmp_path, cache_dir, capsys):
    assert _search(tmp_path / "o", cache_dir, "--trials", "60") == 0
    out = tmp_path / "o"
    for name in ("best.pb", "best.pbtxt", "trials.csv", "summary.json", "simulated.jsonl", "study.db",
                 "step_times.png", "convergence.png"):
        assert (out / name).is_file(), name
    best = Strategy.load(out / "best.pb")
    summary = json.loads((out / "summary.json").read_text())
    records = _records(out)
    assert len(records) == 60 == len(pd.read_csv(out / "trials.csv"))
    done = [r["predicted_s"] for r in records if r["state"] == "complete"]
    assert best.proto.provenance.predicted_step_time_s == pytest.approx(min(done))
    assert best.proto.provenance.lower_bound_s == pytest.approx(summary["lower_bound_s"])
    assert summary["lower_bound_s"] > 0
    assert any(r["builders"] for r in records[:20]), "the classic builders are the first trials"
    text = capsys.readouterr().out
    assert "autotune train --model" in text and "parallax" in text


def test_same_seed_same_trials(tmp_path, cache_dir):
    for name in ("a", "b"):
        assert _search(tmp_path / name, cache_dir, "--trials", "40", "--seed", "3") == 0
    strip = lambda rs: [(r["params"], r["predicted_s"], r["state"]) for r in rs]  # noqa: E731
    assert strip(_records(tmp_path / "a")) == strip(_records(tmp_path / "b"))
    assert _search(tmp_path / "c", cache_dir, "--trials", "40", "--seed", "4") == 0
    assert strip(_records(tmp_path / "c")) != strip(_records(tmp_path / "a"))


def test_pruning_prunes_only_far_worse_candidates(tmp_path, cache_dir):
    assert _search(tmp_path / "o", cache_dir, "--trials", "80", "--prune-ratio", "1.5") == 0
    records = _records(tmp_path / "o")
    pruned = [r for r in records if r["state"] == "pruned"]
    assert pruned, "some candidates should be pruned"
    best_before = float("inf")
    for r in records:
        if r["state"] == "pruned":
            assert r["predicted_s"] > 1.5 * best_before and not r["builders"]
        else:
            best_before = min(best_before, r["predicted_s"])


def test_existing_study_needs_resume(tmp_path, cache_dir, capsys):
    assert _search(tmp_path / "o", cache_dir, "--trials", "30") == 0
    capsys.readouterr()
    assert _search(tmp_path / "o", cache_dir, "--trials", "30") == 2
    assert "already has trials" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("stop, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["ctrl-c", "sigterm"])
def test_interrupted_search_resumes(tmp_path, cache_dir, stop, code):
    out = tmp_path / "o"
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "autotune", "search", "--model", MODEL, "--spec", SPEC, "-o", str(out),
           "--simulate-only", "--quiet", "--reduced", "yes", "--trials", "100000"]
    # a job started in the background of a non-interactive shell inherits SIGINT ignored: give the child Ctrl-C back
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (out / "simulated.jsonl").is_file() and len((out / "simulated.jsonl").read_text().splitlines()) >= 40:
                break
            time.sleep(0.2)
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err
    before = _records(out)
    assert len(before) >= 40 and (out / "best.pb").is_file(), "an interrupted search keeps its trials and a winner"
    total = len(before) + 30
    assert main(["search", "--model", MODEL, "--spec", SPEC, "-o", str(out), "--cache-dir", str(cache_dir),
                 "--simulate-only", "--quiet", "--reduced", "yes", "--trials", str(total), "--resume"]) == 0
    after = _records(out)
    assert len(after) == total and after[:len(before)] == before
    assert sum(bool(r["builders"]) for r in after) == sum(bool(r["builders"]) for r in before), "builders run once"


class _NoCluster:
    """A stand-in for the cluster, to test the logic around profiling: a subclass's ``profile`` measures."""

    def __init__(self, inventory, cluster, cfg):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


class CountingProfiler(_NoCluster):
    """Which candidates are profiled, and what is recorded."""

    calls: list = []

    def profile(self, strategy):
        CountingProfiler.calls.append(strategy.proto.id)
        t = 0.01 + 0.001 * len(strategy.to_bytes()) % 7
        return Measurement(t, t * 0.9, t * 1.1, 640 / t)


def test_profiling_stage_records_into_a_shared_study(tmp_path, cache_dir):
    CountingProfiler.calls = []
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    cfg = dict(model=MODEL, spec=SPEC, trials=60, top_k=3, builders_to_profile=5, storage=url, study_name="shared",
               cache_dir=str(cache_dir), reduced=True, max_profiles=6, confirm=2, confirm_within=0.5, seed=0)
    first = run_search(SearchConfig(output=tmp_path / "a", **cfg), profiler_factory=CountingProfiler, progress=False)
    calls = CountingProfiler.calls
    assert first.profiled == len(calls) == 6  # 4 in the first round (3 top-k + close builders), 2 confirmations
    assert len(set(calls)) == 4 and all(calls.count(c) <= 2 for c in calls)
    study = optuna.load_study(study_name="shared", storage=url)
    profiled = [t for t in study.trials if t.user_attrs.get("stage") == "profiled"]
    confirmed = [t for t in study.trials if t.user_attrs.get("stage") == "confirmed"]
    assert len(profiled) == 4 and len(confirmed) == 2
    assert all(t.value == t.user_attrs["measured_s"] and "predicted_s" in t.user_attrs for t in profiled)
    assert all(t.user_attrs["runs"] == 2 and t.user_attrs["head_to_head_s"] > 0 for t in confirmed)
    # the two re-measured are the best of the first round and the best builder (a profiler without a head-to-head
    # measures them one at a time, in the reverse order)
    ranked = sorted(profiled, key=lambda t: t.value)
    best_builder = next(t for t in ranked if t.user_attrs["builders"])
    expected = [ranked[0]] + [best_builder if best_builder is not ranked[0] else ranked[1]]
    assert [t.user_attrs["strategy_hash"] for t in confirmed] == [t.user_attrs["strategy_hash"] for t in expected]
    assert first.winner.measured.median_s == min(t.value for t in profiled)
    # the winner still hashes to its study key after best.pb got its provenance (the stand-in's times tie a
    # trial with a builder here; the builder wins the tie)
    fastest = [t.user_attrs["strategy_hash"] for t in ranked if t.value == ranked[0].value]
    assert first.winner.strategy_hash in fastest
    # a second process on the same study (same seed: same candidates) reuses every measurement
    second = run_search(SearchConfig(output=tmp_path / "b", resume=True, **cfg), profiler_factory=CountingProfiler,
                        progress=False)
    assert second.profiled == 0 and len(CountingProfiler.calls) == 6
    assert second.winner.measured == first.winner.measured and second.winner.measured.runs == 2


class LuckyProfiler(_NoCluster):
    """Strategies in profiling order are truly 10, 10.5, 11, ... ms; the third one's first measurement is 10%
    low (it got lucky), every other measurement is exact: a winner's curse for a search that measures once."""

    calls: list = []

    @staticmethod
    def key(strategy):  # what the strategy does, without its id and provenance
        return b"".join(n.SerializeToString(deterministic=True) for n in strategy.nodes)

    def profile(self, strategy):
        key = self.key(strategy)
        order = list(dict.fromkeys(LuckyProfiler.calls))
        true = 0.010 + 0.0005 * (order.index(key) if key in order else len(order))
        lucky = len(order) == 2 and key not in order
        LuckyProfiler.calls.append(key)
        t = true * 0.9 if lucky else true
        return Measurement(t, t, t, 640 / t)


@pytest.mark.parametrize("confirm", [0, 2])
def test_confirmation_undoes_a_lucky_measurement(tmp_path, cache_dir, confirm):
    LuckyProfiler.calls = []
    cfg = SearchConfig(model=MODEL, spec=SPEC, output=tmp_path / "o", trials=40, top_k=4, builders_to_profile=4,
                       cache_dir=str(cache_dir), reduced=True, confirm=confirm)
    result = run_search(cfg, profiler_factory=LuckyProfiler, progress=False)
    first_round = list(dict.fromkeys(LuckyProfiler.calls))
    assert len(first_round) >= 4 and result.profiled == len(LuckyProfiler.calls) <= 10
    winner = first_round.index(LuckyProfiler.key(result.winner.strategy))
    if confirm:
        # the lucky one (9.9 ms once) and, within reach of it (25%: 10-12 ms), the best builder, else the runner-up
        # (10 ms), were re-measured, that one first; pooled, the lucky one is 10.45, and it loses
        builders = {LuckyProfiler.key(c.strategy) for c in result.candidates if c.builders}
        reach = [k for i, k in enumerate(first_round[:5]) if i != 2]
        second = next((k for k in reach if k in builders), first_round[0])
        assert builders & set(first_round)
        assert LuckyProfiler.calls[len(first_round):] == [second, first_round[2]]
        assert winner in (0, first_round.index(second))  # the fastest, or the confirmed builder the noise rule kept
        assert result.winner.measured.median_s == pytest.approx(0.010 + 0.0005 * winner)  # its true time
    else:
        assert len(LuckyProfiler.calls) == len(first_round)
        assert winner == 2 and result.winner.measured.median_s == pytest.approx(0.0099)


def test_choose_keeps_a_confirmed_winner_against_a_single_lucky_run():
    from autotune.tuner._measurement import choose, pooled

    class C:
        def __init__(self, name, *medians):
            self.name, self.builders = name, []
            m = [Measurement(x, x, x, 1 / x) for x in medians]
            self.measured = m[0] if len(m) == 1 else pooled(*m)

    confirmed, single, far = C("confirmed", 0.010, 0.0104), C("single", 0.0099), C("far", 0.008)
    assert confirmed.measured.runs == 2 and confirmed.measured.median_s == pytest.approx(0.0102)
    assert choose([confirmed, single], 0.1).name == "confirmed"  # a 3% better single run is within the noise
    assert choose([confirmed, single, far], 0.1).name == "far"  # a 22% better one is not
    assert choose([single, C("other", 0.0101)], 0.1).name == "single"  # nothing confirmed: the fastest
    # confirmed head to head: that comparison decides, not the pooled medians (whose runs saw different moments)
    x, y = C("x", 0.010, 0.013), C("y", 0.012, 0.0125)
    x.measured = dataclasses.replace(x.measured, head_to_head_s=0.013)
    y.measured = dataclasses.replace(y.measured, head_to_head_s=0.0125)
    assert x.measured.median_s < y.measured.median_s and choose([x, y], 0.25).name == "y"


def test_median_se_from_the_spread_of_the_steps():
    from autotune.tuner._measurement import median_se

    rng = np.random.default_rng(0)
    times = 0.020 + 0.002 * rng.standard_normal(400)
    assert median_se(times) == pytest.approx(1.2533 * 0.002 / 20, rel=0.15)
    assert median_se(list(times[:100]) + [5.0] * 3) < 2 * median_se(times[:100])  # a few very slow steps barely count
    assert median_se([0.01, 0.02, 0.03]) == 0.0


def test_a_mix_displaces_the_best_builder_only_beyond_the_head_to_heads_noise():
    from autotune.tuner._measurement import choose, decide

    class C:
        def __init__(self, label, builders, h2h, se):
            self.label, self.builders = label, builders
            self.measured = Measurement(h2h, h2h, h2h, 1 / h2h, runs=2, head_to_head_s=h2h, head_to_head_se_s=se)

    builder = C("all_reduce_powersgd", ["all_reduce_powersgd"], 0.0240, 0.0004)
    close, clear = C("trial 444", [], 0.0232, 0.0004), C("trial 9", [], 0.0200, 0.0004)
    # 3.3% faster, two standard errors of the difference are 2 x 0.57 ms = 4.7%: the builder stays
    winner, line = decide([close, builder], 0.25)
    assert winner is builder and "kept all_reduce_powersgd" in line and "trial 444 was 3.3% faster" in line
    assert choose([close, builder, clear], 0.25) is clear  # 17% faster: beyond the noise
    exact = C("trial 7", [], 0.0232, 0.0)
    assert choose([exact, C("b", ["ps"], 0.0240, 0.0)], 0.25) is exact  # steps' spread unknown: the fastest wins
    assert decide([builder, C("slower", [], 0.0250, 0.0004)], 0.25) == (builder, "")
    tie = C("trial 29", [], 0.0240, 0.0)
    assert choose([tie, C("ps_lb", ["ps_lb"], 0.0240, 0.0)], 0.25) is not tie  # a tie keeps the builder
    # the testbed's mlp: trial 444 5.4% faster than all_reduce_powersgd in the search's head-to-head, 2.5 standard
    # errors of its steps, then 5.4% slower when judged; one job's median moves ~2% between comparisons
    mix, psgd = C("trial 444", [], 0.02278, 0.00037), C("all_reduce_powersgd", ["psgd"], 0.02408, 0.00036)
    assert choose([mix, psgd], 0.25) is mix and choose([mix, psgd], 0.25, run_noise=0.02) is psgd
    assert choose([clear, builder], 0.25, run_noise=0.02) is clear


def test_contenders_put_the_best_builder_right_after_the_best():
    from autotune.tuner._measurement import contenders

    class C:
        def __init__(self, name, ms, builders=()):
            self.name, self.builders, self.measured = name, list(builders), Measurement(ms, ms, ms, 1 / ms)

    a, b, c, ps, far = C("a", 10.0), C("b", 10.5), C("c", 11.0), C("ps", 12.0, ["ps"]), C("far", 13.0, ["x"])
    assert [x.name for x in contenders([a, b, c, ps, far], 3, 0.25)] == ["a", "ps", "b"]
    assert [x.name for x in contenders([a, b, c, ps, far], 3, 0.1)] == ["a", "b", "c"]  # ps 20% off: outside
    assert [x.name for x in contenders([ps, a, b], 2, 0.25)] == ["a", "ps"]
    assert contenders([a, far], 3, 0.1) == [] and contenders([a, b], 1, 0.5) == []


class DriftProfiler(_NoCluster):
    """In profiling order the strategies are truly 10, 11, 12, ... ms, the builders 1.5 ms less; the builders'
    first runs hit a slow moment (+20%) and the machine is 30% slower by the confirmation."""

    calls: list = []
    together: list = []
    per_call: list = []

    @staticmethod
    def true_s(strategy):
        key = LuckyProfiler.key(strategy)
        order = list(dict.fromkeys(DriftProfiler.calls))
        t = 0.010 + 0.001 * (order.index(key) if key in order else len(order))
        return t - 0.0015 if strategy.proto.provenance.builder else t, key

    def profile(self, strategy):
        t, key = self.true_s(strategy)
        first = key not in DriftProfiler.calls
        DriftProfiler.calls.append(key)
        if first and strategy.proto.provenance.builder:
            t *= 1.2  # the builders' first runs hit a slow moment
        return Measurement(t, t, t, 640 / t, steps_per_call=self.steps_per_call(key))

    @staticmethod
    def steps_per_call(key) -> int:
        return 1 << (len(key) % 4)  # what the first run of each chose: 1, 2, 4 or 8

    def profile_together(self, strategies, steps_per_call=None):
        DriftProfiler.together.append(len(strategies))
        DriftProfiler.per_call.append((list(steps_per_call), [self.steps_per_call(self.true_s(s)[1])
                                                               for s in strategies]))
        out = []
        for s, k in zip(strategies, steps_per_call):
            t, key = self.true_s(s)
            DriftProfiler.calls.append(key)
            out.append(Measurement(t * 1.3, t * 1.3, t * 1.3, 640 / t, steps_per_call=k))
        return out


def test_confirmation_head_to_head_decides(tmp_path, cache_dir):
    DriftProfiler.calls, DriftProfiler.together, DriftProfiler.per_call = [], [], []
    cfg = SearchConfig(model=MODEL, spec=SPEC, output=tmp_path / "o", trials=40, top_k=4, builders_to_profile=4,
                       cache_dir=str(cache_dir), reduced=True, confirm=3, confirm_within=0.25)
    result = run_search(cfg, profiler_factory=DriftProfiler, progress=False)
    first_round = list(dict.fromkeys(DriftProfiler.calls))
    assert DriftProfiler.together == [3] and result.profiled == len(first_round) + 3 <= 10
    confirmed = [c for c in result.candidates if c.measured is not None and c.measured.runs == 2]
    assert len(confirmed) == 3 and any(c.builders for c in confirmed)
    # the head-to-head measurement keeps the true order, and it decides (a builder or not, as the order of the
    # first round made them)
    true = {c.trial: DriftProfiler.true_s(c.strategy)[0] for c in confirmed}
    assert result.winner.trial == min(true, key=true.get)
    assert result.winner.measured.head_to_head_s == pytest.approx(1.3 * min(true.values()))
    rows = json.loads((tmp_path / "o" / "summary.json").read_text())["rows"]
    decided = [r for r in rows if r["head_to_head_ms"] != "-"]
    assert len(decided) == 3
    assert min(decided, key=lambda r: float(r["head_to_head_ms"]))["strategy"].endswith(" *")
    # the head-to-head runs each contender at the steps per call of its first run, and the winner's file says which:
    # training runs what was measured
    asked, first_runs = DriftProfiler.per_call[0]
    assert asked == first_runs
    prov = Strategy.load(tmp_path / "o" / "best.pb").proto.provenance
    assert prov.steps_per_call == result.winner.measured.steps_per_call > 0
    # every measured candidate is kept as a file, fastest first, with its own steps per call
    files = sorted((tmp_path / "o" / "measured").glob("*.pb"))
    measured = sorted((c for c in result.candidates if c.measured), key=lambda c: c.measured.median_s)
    assert [f.name.split("-", 1)[1] for f in files] == [c.label.replace(" ", "_") + ".pb" for c in measured]
    assert [Strategy.load(f).proto.provenance.steps_per_call for f in files] == [
        c.measured.steps_per_call for c in measured]


def test_a_strategy_is_profiled_and_trained_at_the_steps_per_call_the_search_measured(clusters):
    from runners.profile import measured_steps_per_call

    spec = clusters["localhost"]
    s = Strategy()
    assert measured_steps_per_call(s, spec) is None  # not measured: chosen as usual
    s.proto.provenance.steps_per_call, s.proto.provenance.cluster_fingerprint = 4, spec.fingerprint
    assert measured_steps_per_call(s, spec) == 4
    s.proto.provenance.cluster_fingerprint = "another cluster"
    assert measured_steps_per_call(s, spec) is None


def test_pooled_takes_quantiles_of_every_step():
    from autotune.tuner._measurement import pooled

    a = Measurement(0.010, 0.009, 0.011, 100.0, 5.0, step_times_s=(0.009, 0.010, 0.011))
    b = Measurement(0.020, 0.019, 0.021, 50.0, 5.0, step_times_s=(0.019, 0.020, 0.021))
    p = pooled(a, b)
    assert p.runs == 2 and len(p.step_times_s) == 6
    assert p.median_s == pytest.approx(0.0150) and p.p10_s == pytest.approx(0.0095) and p.p90_s == pytest.approx(0.0205)
    assert p.examples_per_s == pytest.approx(100.0 * 0.010 / 0.015)  # the same global batch per pooled step


def test_study_of_another_model_is_refused(tmp_path, cache_dir, capsys):
    url = f"sqlite:///{tmp_path / 's.db'}"
    assert _search(tmp_path / "a", cache_dir, "--trials", "20", "--storage", url, "--study-name", "x") == 0
    capsys.readouterr()
    code = main(["search", "--model", str(MODELS / "mlp.py"), "--spec", SPEC, "-o", str(tmp_path / "b"),
                 "--cache-dir", str(cache_dir), "--simulate-only", "--quiet", "--trials", "20", "--storage", url,
                 "--study-name", "x", "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and "belongs to another model" in err and err.count("\n") == 1


def test_builders_close_to_the_best_are_profiled(tmp_path, cache_dir):
    CountingProfiler.calls = []
    # the first round alone (round_size 0): later rounds may add any builder the refitted model says could win
    cfg = SearchConfig(model=MODEL, spec=SPEC, output=tmp_path / "o", trials=40, top_k=0, builders_to_profile=10,
                       builder_band=1.5, cache_dir=str(cache_dir), reduced=True, max_profiles=20, round_size=0)
    result = run_search(cfg, profiler_factory=CountingProfiler, progress=False)
    builders = [c for c in result.candidates if c.builders]
    best = min(c.predicted_s for c in builders)
    close = {c.trial for c in builders if c.predicted_s <= 1.5 * best}
    measured = {c.trial for c in builders if c.measured}
    assert close <= measured
    # beyond them, only the best predicted member of a synchronizer family no close one stands for
    extra = [c for c in builders if c.trial in measured - close]
    representatives = {r["representative"] for r in result.families}
    assert all(c.label in representatives for c in extra)
    assert result.profiled == len(CountingProfiler.calls) >= 1


def test_first_round_takes_trials_and_builders_in_turn_and_leaves_room_to_confirm():
    from autotune.tuner._carried import first_round
    from autotune.tuner._measurement import confirm_reserve
    from autotune.tuner._types import Candidate

    def cand(trial, predicted, builders=()):
        return Candidate(params={}, strategy=None, predicted_s=predicted, builders=list(builders), trial=trial)

    trials = [cand(i, 0.001 * (i + 1)) for i in range(5)]
    built = [cand(10 + i, 0.0009 + 0.003 * i, [f"b{i}"]) for i in range(5)]  # the best builder is predicted 0.9 ms
    kept = first_round(trials + built, 4)
    assert [c.trial for c in kept] == [0, 10, 1, 11]  # trials and builders in turn, each by predicted time
    slow_builders = [cand(10 + i, 0.1 + i, [f"b{i}"]) for i in range(3)]
    assert [c.trial for c in first_round(trials + slow_builders, 3)] == [0, 10, 1]  # a builder even if slow
    assert first_round(trials, 8) == trials
    cfg = SearchConfig(model=MODEL, spec=SPEC, output="o")
    assert confirm_reserve(cfg) == 3 and cfg.max_profiles - confirm_reserve(cfg) == 7
    assert confirm_reserve(SearchConfig(model=MODEL, spec=SPEC, output="o", max_profiles=3)) == 0
    assert confirm_reserve(SearchConfig(model=MODEL, spec=SPEC, output="o", confirm=1)) == 0
    assert cfg.confirm_steps == 3 * cfg.steps  # the head-to-head decides within noise: more steps than a first run
    assert SearchConfig(model=MODEL, spec=SPEC, output="o", steps=4, confirm_steps=7).confirm_steps == 7


@pytest.mark.parametrize("flag,value", [("--max-profiles", "-1"), ("--confirm", "-2"), ("--confirm-within", "-0.1"),
                                        ("--steps", "0"), ("--confirm-steps", "0"), ("--run-noise", "1.5")])
def test_profiling_options_out_of_range_are_one_line(tmp_path, cache_dir, capsys, flag, value):
    assert _search(tmp_path / "o", cache_dir, "--trials", "5", flag, value) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and flag in err and value in err


def test_report_from_the_study_follows_the_confirmation(tmp_path, cache_dir):
    from autotune.report._source import load_from_study

    LuckyProfiler.calls = []
    cfg = SearchConfig(model=MODEL, spec=SPEC, output=tmp_path / "o", trials=40, top_k=4, builders_to_profile=4,
                       cache_dir=str(cache_dir), reduced=True)
    result = run_search(cfg, profiler_factory=LuckyProfiler, progress=False)
    run = load_from_study(result.storage, result.study_name)
    won = run.candidates[run.candidates["winner"]]
    assert len(won) == 1 and int(won["trial"].iloc[0]) == result.winner.trial
    # the study's table shows the pooled measurement of the confirmed ones, not their first run
    lucky = run.candidates[run.candidates["measured_s"].round(6) == 0.01045]
    assert len(lucky) == 1 and not bool(lucky["winner"].iloc[0])


@pytest.mark.parametrize("runner_s, spread, expected", [
    (0.012, 1e-5, "winner faster than the runner-up (trial 1) by 20.0%"),
    (0.0101, 2e-3, "a tie within noise: ps and trial 1 differ by 1.0%"),
    (0.008, 1e-5, "not sure: trial 1 measured 20.0% faster than the winner"),
])
def test_the_confidence_line_weighs_the_gap_to_the_runner_up_against_its_noise(runner_s, spread, expected):
    from autotune.tuner._measurement import confidence
    from autotune.tuner._types import Candidate

    rng = np.random.default_rng(0)

    def cand(label_builders, trial, median):
        steps = tuple(median + spread * rng.standard_normal(20))
        c = Candidate(params={}, strategy=None, predicted_s=median, builders=label_builders, trial=trial)
        c.measured = Measurement(float(np.median(steps)), min(steps), max(steps), 1.0, step_times_s=steps)
        return c

    winner, runner = cand(["ps"], 0, 0.010), cand([], 1, runner_s)
    runner.measured = dataclasses.replace(runner.measured, median_s=runner_s)
    winner.measured = dataclasses.replace(winner.measured, median_s=0.010)
    line = confidence([winner, runner], winner, run_noise=0.0)
    assert line.startswith(expected), line
    assert ("kept the simpler" in line) == line.startswith("a tie")  # a builder kept over a mix as fast
    assert ("autotune compare" in line) == line.startswith("not sure")
