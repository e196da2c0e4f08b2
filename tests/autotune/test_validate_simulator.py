"""The fidelity harness: metrics and the held-out residual fit without TensorFlow, the CLI's calibration checks,
and (slow) ``autotune validate-simulator`` end to end on the local 2-node cluster."""
from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from autotune import fidelity
from autotune.fidelity import _io as fidelity_io
from autotune.cli import main
from fidelity_support import LOCAL, MLP, mlp_local, rows as _rows


# ---- metrics and split ----------------------------------------------------------------------------------

def test_perfect_predictions_score_perfectly():
    r = fidelity.evaluate(_rows([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]))
    assert r.metrics["kendall_tau"] == pytest.approx(1.0)
    assert r.metrics["mape"] == pytest.approx(0.0)
    assert r.metrics["top1_regret"] == pytest.approx(0.0)


def test_reversed_order_has_negative_tau_and_regret():
    r = fidelity.evaluate(_rows([0.1, 0.2, 0.4], [0.4, 0.2, 0.1]))
    assert r.metrics["kendall_tau"] == pytest.approx(-1.0)
    assert r.metrics["top1_regret"] == pytest.approx(3.0)  # picked the 0.4 s strategy; best is 0.1 s


def test_failed_rows_are_left_out_of_the_metrics():
    rows = _rows([0.1, 0.2, 0.3], [0.1, 0.2, 0.3])
    rows[1].measured_s, rows[1].error = math.nan, "step hung"
    assert fidelity.evaluate(rows).metrics["n"] == 2


def test_fewer_than_two_measurements_is_an_error():
    rows = _rows([0.1, 0.2], [0.1, 0.2])
    rows[0].error = "boom"
    with pytest.raises(fidelity.AutotuneError, match="at least 2"):
        fidelity.evaluate(rows)


@pytest.mark.parametrize("n,fraction,held", [(10, 0.3, 3), (4, 0.3, 2), (5, 0.9, 3), (30, 0.5, 15)])
def test_holdout_size(n, fraction, held):
    mask = fidelity.split_holdout(n, fraction, seed=1)
    assert mask.sum() == held and (~mask).sum() >= 2


def test_holdout_is_deterministic_per_seed():
    assert (fidelity.split_holdout(20, 0.3, 5) == fidelity.split_holdout(20, 0.3, 5)).all()


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.1])
def test_holdout_fraction_out_of_range(fraction):
    with pytest.raises(fidelity.BadInput, match="holdout"):
        fidelity.split_holdout(10, fraction)


def test_residual_fit_repairs_a_systematic_error_on_held_out_rows():
    rng = np.random.default_rng(0)
    comm = rng.uniform(0.01, 0.2, 20)
    compute = np.full(20, 0.05)
    measured = 0.004 + compute + 1.8 * comm  # the simulator underestimates communication by 1.8x
    rows = _rows(measured, compute + comm, comm)
    r = fidelity.evaluate(rows, fit=True, holdout=0.3, seed=0)
    assert r.holdout_before["mape"] > 0.2
    assert r.holdout_after["mape"] < 0.05
    assert r.residual["comm"] == pytest.approx(1.8, rel=0.1)
    assert {row.split for row in rows} == {"train", "holdout"}


def test_report_lists_every_row_and_the_metrics(tmp_path):
    rows = _rows([0.1, 0.2, 0.3, 0.25, 0.15], [0.11, 0.19, 0.33, 0.2, 0.16])
    r = fidelity.evaluate(rows, fit=True, holdout=0.4)
    text = fidelity_io.format_report(r)
    assert all(f"s{i}" in text for i in range(5)) and "Kendall tau" in text and "after residual" in text
    written = fidelity_io.write_outputs(r, tmp_path / "out", title="t")
    assert {p.name for p in written} == {"rows.csv", "summary.json", "table.txt", "predicted_vs_measured.png"}
    with open(tmp_path / "out" / "rows.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 5
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert set(summary["metrics"]) == {"kendall_tau", "mape", "top1_regret", "top5_regret", "n"}


# ---- strategies and the harness loop (no TensorFlow: a fake profiler) --------------------------------------

def test_pick_strategies_gives_builders_then_distinct_random_samples(inventories, clusters):
    inv, spec = inventories("mlp"), clusters["localhost"]
    picked = fidelity.pick_strategies(inv, spec, 20, seed=3)
    keys = {fidelity.strategy_key(s) for _, s in picked}
    assert len(picked) == 20 and len(keys) == 20
    assert picked[0][0] == "all_reduce" and any(label.startswith("random") for label, _ in picked)


@pytest.mark.parametrize("allow_async", [False, True])
def test_pick_strategies_draws_from_the_search_space(inventories, clusters, allow_async):
    from autotune.tuner import make_space

    inv, spec = inventories("mlp"), clusters["two_nodes"]
    space = make_space(inv, spec, allow_async=allow_async)
    picked = fidelity.pick_strategies(inv, spec, 40, seed=0, space=space)
    labels = [label for label, _ in picked]
    asynchronous = [label for label, s in picked for n in s.nodes
                    for part in (n.part_config if n.partitioner else [n])
                    if part.WhichOneof("synchronizer") == "PSSynchronizer" and not part.PSSynchronizer.sync]
    assert ("ps_async" in labels) == allow_async  # a builder the space cannot express is left out
    assert bool(asynchronous) == allow_async


def test_pick_strategies_uses_the_reduced_space_above_16_variables(inventories, clusters):
    from autotune.tuner import make_space

    inv, spec = inventories("transformer"), clusters["two_nodes"]
    assert len(inv.variables) > 16 and make_space(inv, spec).reduced
    picked = fidelity.pick_strategies(inv, spec, 20, seed=0)
    reduced = make_space(inv, spec)
    for label, s in picked:
        assert reduced.decode(reduced.encode(s)) == s, label  # every pick is a point of the reduced space


@pytest.mark.parametrize("n,p,expected", [(4, 0, [0, 1, 2, 3]), (4, 1, [3, 2, 1, 0]), (4, 2, [1, 2, 3, 0]),
                                          (4, 3, [0, 3, 2, 1]), (1, 1, [0])])
def test_pass_order_alternates_direction_and_shifts(n, p, expected):
    assert fidelity.pass_order(n, p) == expected


def test_repeats_pool_the_passes_and_report_the_noise(inventories, clusters):
    scorer, picked = mlp_local(inventories, clusters, 6)
    calls: dict[str, int] = {}

    def profile(s):  # pass 1 measures the prediction, pass 2 the prediction x 1.2: the order never changes
        calls[s.proto.id] = calls.get(s.proto.id, 0) + 1
        base = scorer.predict(s).step_time_s * (1.2 if calls[s.proto.id] == 2 else 1.0)
        return [base * f for f in (0.9, 1.0, 1.1)]

    report = fidelity.run_validation(picked, scorer, profile, repeats=2)
    assert set(calls.values()) == {2}
    row = report.rows[0]
    first, second = row.repeats
    assert second == pytest.approx(1.2 * first)
    assert row.measured_s == pytest.approx((first * 1.1 + second * 0.9) / 2)  # median of the six pooled steps
    assert report.noise["kendall_tau"] == pytest.approx(1.0)
    assert report.noise["mape"] == pytest.approx(0.2)  # |second - first| / first
    assert "measurement noise" in fidelity_io.format_report(report)


def test_a_strategy_failing_in_one_pass_is_left_out_and_not_run_again(inventories, clusters):
    scorer, picked = mlp_local(inventories, clusters, 5)
    bad = picked[2][1].proto.id
    calls: list[str] = []

    def profile(s):
        calls.append(s.proto.id)
        if s.proto.id == bad and calls.count(bad) == 2:
            raise fidelity.AutotuneError("server 1 died")
        return [scorer.predict(s).step_time_s]

    report = fidelity.run_validation(picked, scorer, profile, repeats=3)
    assert calls.count(bad) == 2 and len(calls) == 5 * 3 - 1
    assert not report.rows[2].ok and "server 1 died" in report.rows[2].error
    assert report.metrics["n"] == 4 and report.noise["n"] == 4


def test_run_validation_with_a_fake_profiler(inventories, clusters):
    scorer, picked = mlp_local(inventories, clusters, 8)
    report = fidelity.run_validation(picked, scorer, lambda s: (1.5 * scorer.predict(s).step_time_s,) * 3,
                                     fit=True, holdout=0.5)
    assert report.metrics["kendall_tau"] == pytest.approx(1.0)
    assert report.metrics["mape"] == pytest.approx(1 / 3)
    assert report.holdout_after["mape"] < 0.05


def test_the_machine_speed_since_calibration_comes_from_the_anchor_steps_and_is_divided_out(inventories, clusters):
    """A shared machine 25% slower than when calibrate timed the `all_reduce` anchor: the report reads 1.25 from
    that strategy measured again, and with it divided out the predictions are exact (MAPE 20% before)."""
    from simulator import Scorer
    from space.anchors import anchor_strategies

    scorer, picked = mlp_local(inventories, clusters, 8)
    anchors = anchor_strategies(scorer.inventory, scorer.cluster)
    then = {"all_reduce": scorer.predict(anchors["all_reduce"]).step_time_s}
    calibrated = Scorer(scorer.inventory, scorer.cluster, scorer.calibration.replace(anchors_s=then))

    def slower(s):
        return (1.25 * scorer.predict(s).step_time_s,) * 3

    report = fidelity.run_validation(picked, scorer, slower)
    assert report.metrics["mape"] == pytest.approx(0.2)
    fidelity.since_calibration(report, picked, scorer)  # a calibration without anchor steps: nothing to say
    assert report.since_calibration is None
    fidelity.since_calibration(report, picked, calibrated)
    assert report.since_calibration == pytest.approx(1.25)
    assert report.metrics_at_calibration["mape"] == pytest.approx(0.0, abs=1e-9)
    assert "machine since calibrate: 1.250x" in fidelity_io.format_report(report)
    rest = [(label, s) for label, s in picked if label != "all_reduce"]
    report = fidelity.run_validation(rest, scorer, slower)
    fidelity.since_calibration(report, rest, calibrated)  # no strategy calibrate timed: nothing to say
    assert report.since_calibration is None and "since calibrate" not in fidelity_io.format_report(report)


# ---- CLI: calibration lookup ----------------------------------------------------------------------------

def test_missing_calibration_exits_2_and_says_to_calibrate(tmp_path, capsys):
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--strategies", "3",
                 "--cache-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "no calibration" in err and "autotune calibrate" in err
    assert len(err.strip().splitlines()) == 1


def test_stale_calibration_exits_2(tmp_path, capsys, clusters):
    from simulator import Calibration

    other = clusters["two_nodes"]
    stale = tmp_path / "cal.json"
    Calibration.from_spec(other).save(stale)
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--strategies", "3",
                 "--cache-dir", str(tmp_path), "--calibration", str(stale)])
    err = capsys.readouterr().err
    assert code == 2 and "stale" in err and "autotune calibrate" in err


def test_uncalibrated_with_fit_residual_is_refused(tmp_path, capsys):
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--strategies", "3",
                 "--cache-dir", str(tmp_path), "--uncalibrated", "--fit-residual"])
    assert code == 2 and "--uncalibrated" in capsys.readouterr().err


# ---- end to end on real servers -------------------------------------------------------------------------

@pytest.mark.slow
def test_validate_simulator_on_the_local_cluster(tmp_path, capsys, clusters):
    from simulator import Calibration, calibration_path
    from space.model import load_inventory

    inv = load_inventory(MLP, cache_dir=tmp_path)
    spec = clusters["localhost"]
    path = calibration_path(tmp_path / "calibration", spec, inv.model_hash)
    Calibration.from_spec(spec, step_time_s=0.005, model_hash=inv.model_hash).save(path)
    out = tmp_path / "out"
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--strategies", "5",
                 "--steps", "2", "--warmup", "1", "--repeats", "2", "--fit-residual", "--holdout", "0.4",
                 "--cache-dir", str(tmp_path), "-o", str(out), "--quiet"])
    text = capsys.readouterr().out
    assert code == 0
    assert "Kendall tau" in text and "MAPE" in text and "top-1 regret" in text and "measurement noise" in text
    assert "(top-5 " in text
    with open(out / "rows.csv") as fh:
        assert all(len(r["repeat_medians"].split(";")) == 2 for r in csv.DictReader(fh) if not r["error"])
    assert {p.name for p in out.iterdir()} >= {"rows.csv", "summary.json", "table.txt", "predicted_vs_measured.png"}
    assert Calibration.load(path, cluster=spec).residual is not None  # stored with the calibration


# ---- head-to-head groups (--together) ------------------------------------------------------------------------

@pytest.mark.parametrize("n,size,passes", [(30, 6, 2), (7, 3, 3), (5, 8, 1)])
def test_group_plan_puts_the_anchor_in_every_group_and_everyone_else_once_per_pass(n, size, passes):
    plan = fidelity.group_plan(n, 2, size, passes, seed=4)
    assert len(plan) == passes
    for groups in plan:
        assert all(g[0] == 2 and len(g) <= size for g in groups)
        others = sorted(i for g in groups for i in g[1:])
        assert others == [i for i in range(n) if i != 2]
    assert plan == fidelity.group_plan(n, 2, size, passes, seed=4)
    if passes > 1 and n > size:
        assert plan[0] != plan[1]  # each pass compares each strategy with different ones


def test_group_plan_needs_groups_of_two():
    with pytest.raises(fidelity.BadInput, match="--together"):
        fidelity.group_plan(5, 0, 1, 1)


def test_fit_drift_divides_out_each_groups_speed():
    rng = np.random.default_rng(0)
    truth = rng.uniform(0.01, 0.05, 12)
    obs, g = [], 0
    for groups in fidelity.group_plan(12, 0, 4, 2, seed=1):
        for group in groups:
            speed = rng.uniform(0.7, 1.4)
            obs += [(i, g, truth[i] * speed) for i in group]
            g += 1
    times, factors = fidelity.fit_drift(obs)
    ratio = np.array([times[i] for i in range(12)]) / truth
    assert ratio == pytest.approx(np.full(12, ratio[0]), rel=1e-6)  # one common scale: the ranking is exact
    assert np.exp(np.mean(np.log(list(factors.values())))) == pytest.approx(1.0)


def _drifting_group_profiler(scorer, calls, fail=None):
    """Each comparison runs at its own machine speed (0.7-1.4x), shared by every strategy in it."""
    rng = np.random.default_rng(3)

    def profile_group(strategies):
        calls.append([s.proto.id for s in strategies])
        if fail is not None and fail in calls[-1]:
            raise fidelity.AutotuneError("server 1 died")
        speed = rng.uniform(0.7, 1.4)
        return [[scorer.predict(s).step_time_s * speed * f for f in (0.95, 1.0, 1.05)] for s in strategies]

    return profile_group


def test_together_recovers_the_order_that_drift_between_runs_hides(inventories, clusters):
    scorer, picked = mlp_local(inventories, clusters, 10)
    calls: list[list[str]] = []
    report = fidelity.run_validation(picked, scorer, repeats=2, together=4,
                                     profile_group=_drifting_group_profiler(scorer, calls))
    anchor = picked[0][1].proto.id
    assert calls[0] == [anchor] and all(c[0] == anchor and len(c) <= 4 for c in calls[1:])
    assert sum(len(c) - 1 for c in calls[1:]) == 2 * (len(picked) - 1)
    ratio = np.array([r.measured_s / r.predicted_s for r in report.rows])
    assert ratio == pytest.approx(np.full(len(picked), ratio[0]), rel=1e-6)
    assert report.metrics["mape"] == pytest.approx(abs(1 / ratio[0] - 1))
    assert report.noise["mape"] == pytest.approx(0.0, abs=1e-9)  # the passes agree once the drift is divided out
    assert all(len(r.repeats) == 2 and r.p10_s < r.measured_s < r.p90_s for r in report.rows)


def test_together_finds_the_member_that_fails_and_keeps_the_rest(inventories, clusters):
    scorer, picked = mlp_local(inventories, clusters, 7)
    bad = picked[4][1].proto.id
    calls: list[list[str]] = []
    report = fidelity.run_validation(picked, scorer, repeats=2, together=3,
                                     profile_group=_drifting_group_profiler(scorer, calls, fail=bad))
    assert not report.rows[4].ok and "server 1 died" in report.rows[4].error
    assert sum(bad in c for c in calls) == 2  # its group, then its pair with the anchor; not in the second pass
    ratio = [r.measured_s / r.predicted_s for r in report.rows if r.ok]
    assert report.metrics["n"] == 6 and ratio == pytest.approx([ratio[0]] * 6, rel=1e-6)


def test_together_needs_a_group_profiler(inventories, clusters):
    from simulator import Calibration, Scorer

    inv, spec = inventories("mlp"), clusters["localhost"]
    picked = fidelity.pick_strategies(inv, spec, 3, seed=0)
    with pytest.raises(fidelity.BadInput, match="group profiler"):
        fidelity.run_validation(picked, Scorer(inv, spec, Calibration.from_spec(spec)), together=2)


@pytest.mark.slow
def test_validate_simulator_head_to_head_on_the_local_cluster(tmp_path, capsys, clusters):
    from simulator import Calibration, calibration_path
    from space.model import load_inventory

    inv = load_inventory(MLP, cache_dir=tmp_path)
    spec = clusters["localhost"]
    Calibration.from_spec(spec, step_time_s=0.005, model_hash=inv.model_hash).save(
        calibration_path(tmp_path / "calibration", spec, inv.model_hash))
    out = tmp_path / "out"
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--strategies", "4",
                 "--steps", "4", "--warmup", "1", "--repeats", "2", "--together", "3",
                 "--cache-dir", str(tmp_path), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 0 and "measurement noise" in captured.out
    assert "anchor of every comparison" in captured.err and "divided out" in captured.err
    with open(out / "rows.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4 and all(not r["error"] and float(r["measured_s"]) > 0 for r in rows)
    assert all(len(r["repeat_medians"].split(";")) == 2 for r in rows)
    # every comparison was journaled as it ended: the same command resumed profiles nothing and finds the same
    journal = (out / "measurements.jsonl").read_text().splitlines()
    assert len(journal) == 1 + 1 + 4  # header, the anchor alone, 2 passes x 2 comparisons
    argv = ["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--strategies", "4", "--steps", "4",
            "--warmup", "1", "--repeats", "2", "--together", "3", "--cache-dir", str(tmp_path), "-o", str(out)]
    assert main(argv) == 2 and "--resume" in capsys.readouterr().err  # never overwritten unasked
    assert main(argv + ["--resume"]) == 0
    assert "resumed: 5 run(s) taken from the journal" in capsys.readouterr().err
    with open(out / "rows.csv") as fh:
        again = list(csv.DictReader(fh))
    assert [r["measured_s"] for r in again] == [r["measured_s"] for r in rows]
