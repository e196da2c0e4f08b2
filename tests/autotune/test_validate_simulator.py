"""The fidelity harness: metrics and the held-out residual fit without TensorFlow, the CLI's calibration checks,
and (slow) ``autotune validate-simulator`` end to end on the local 2-node cluster."""
from __future__ import annotations

import csv
import json
import math
import pathlib

import numpy as np
import pytest

from autotune import fidelity
from autotune.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "models" / "mlp.py"
LOCAL = ROOT / "examples" / "clusters" / "localhost.yml"


def _mlp_local(inventories, clusters, n):
    """A scorer of the mlp on the local cluster's nominal bandwidths, and the harness's first n picks."""
    from simulator import Calibration, Scorer

    inv, spec = inventories("mlp"), clusters["localhost"]
    return Scorer(inv, spec, Calibration.from_spec(spec)), fidelity.pick_strategies(inv, spec, n, seed=0)


def _rows(measured, predicted, comm=None):
    comm = comm if comm is not None else [p * 0.5 for p in predicted]
    return [fidelity.Row(label=f"s{i}", strategy_id=f"id{i}", predicted_s=p, raw_s=p, compute_s=p - c, comm_s=c,
                         latency_s=0.0, measured_s=m) for i, (m, p, c) in enumerate(zip(measured, predicted, comm))]


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
    text = fidelity.format_report(r)
    assert all(f"s{i}" in text for i in range(5)) and "Kendall tau" in text and "after residual" in text
    written = fidelity.write_outputs(r, tmp_path / "out", title="t")
    assert {p.name for p in written} == {"rows.csv", "summary.json", "table.txt", "predicted_vs_measured.png"}
    with open(tmp_path / "out" / "rows.csv") as fh:
        assert len(list(csv.DictReader(fh))) == 5
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert set(summary["metrics"]) == {"kendall_tau", "mape", "top1_regret", "n"}


# ---- strategies and the harness loop (no TensorFlow: a fake profiler) --------------------------------------

def test_pick_strategies_gives_builders_then_distinct_random_samples(inventories, clusters):
    inv, spec = inventories("mlp"), clusters["localhost"]
    picked = fidelity.pick_strategies(inv, spec, 20, seed=3)
    keys = {fidelity.strategy_key(s) for _, s in picked}
    assert len(picked) == 20 and len(keys) == 20
    assert picked[0][0] == "all_reduce" and any(label.startswith("random") for label, _ in picked)


@pytest.mark.parametrize("allow_async", [False, True])
def test_pick_strategies_draws_from_the_search_space(inventories, clusters, allow_async):
    from autotune.search import make_space

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
    from autotune.search import make_space

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
    scorer, picked = _mlp_local(inventories, clusters, 6)
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
    assert "measurement noise" in fidelity.format_report(report)


def test_a_strategy_failing_in_one_pass_is_left_out_and_not_run_again(inventories, clusters):
    scorer, picked = _mlp_local(inventories, clusters, 5)
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
    scorer, picked = _mlp_local(inventories, clusters, 8)
    report = fidelity.run_validation(picked, scorer, lambda s: (1.5 * scorer.predict(s).step_time_s,) * 3,
                                     fit=True, holdout=0.5)
    assert report.metrics["kendall_tau"] == pytest.approx(1.0)
    assert report.metrics["mape"] == pytest.approx(1 / 3)
    assert report.holdout_after["mape"] < 0.05


def _saved_run(tmp_path, inv, spec, scorer, n=6):
    """A fake-profiled run written like the CLI writes it: strategies/<label>.pb beside rows.csv."""
    picked = fidelity.pick_strategies(inv, spec, n, seed=0)
    out = tmp_path / "run"
    files = fidelity.save_strategies(picked, out)
    report = fidelity.run_validation(picked, scorer, lambda s: (2.0 * scorer.predict(s).step_time_s,) * 3,
                                     files=files)
    report.rows[1].measured_s, report.rows[1].error = math.nan, "step hung"
    fidelity.write_outputs(report, out)
    return picked, out


def test_reuse_predicts_saved_strategies_again_with_their_measurements(tmp_path, inventories, clusters):
    from simulator import Calibration, Scorer

    inv, spec = inventories("mlp"), clusters["localhost"]
    scorer = Scorer(inv, spec, Calibration.from_spec(spec))
    picked, out = _saved_run(tmp_path, inv, spec, scorer)
    assert sorted(p.name for p in (out / "strategies").iterdir()) == sorted(f"{l}.pb" for l, _ in picked)
    again, measured = fidelity.load_measured(out)
    assert [l for l, _ in again] == [l for l, _ in picked] and again[0][1] == picked[0][1]
    assert measured[1].error == "step hung" and not measured[1].ok
    faster = Scorer(inv, spec, Calibration.from_spec(spec, node_bandwidth_gbit={n.address: 100.0
                                                                                for n in spec.nodes}))
    report = fidelity.repredict(faster, again, measured)
    assert report.metrics["n"] == len(picked) - 1  # the failed row stays out
    for r, (_, s) in zip(report.rows, again):
        assert r.predicted_s == pytest.approx(faster.predict(s).step_time_s)
        assert r.strategy_file == f"strategies/{r.label}.pb"
    assert [r.measured_s for r in report.rows if r.ok] == [m.measured_s for m in measured if m.ok]


def test_reuse_without_saved_strategies_is_a_bad_input(tmp_path):
    rows = _rows([0.1, 0.2], [0.1, 0.2])
    fidelity.write_outputs(fidelity.evaluate(rows), tmp_path / "old")
    with pytest.raises(fidelity.BadInput, match="no saved strategy file"):
        fidelity.load_measured(tmp_path / "old")
    with pytest.raises(fidelity.BadInput, match="no rows.csv"):
        fidelity.load_measured(tmp_path / "nothing")


def test_reuse_cli_needs_no_cluster(tmp_path, capsys, inventories, clusters):
    from simulator import Calibration, Scorer, calibration_path

    inv, spec = inventories("mlp"), clusters["localhost"]
    cal = Calibration.from_spec(spec)
    _, out = _saved_run(tmp_path, inv, spec, Scorer(inv, spec, cal))
    cal.save(calibration_path(tmp_path / "cache" / "calibration", spec))
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "again"), "--quiet"])
    assert code == 0 and "Kendall tau" in capsys.readouterr().out
    assert (tmp_path / "again" / "rows.csv").is_file() and (tmp_path / "again" / "strategies").is_dir()
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "-o", str(out), "--quiet"])
    assert code == 2 and "overwrite" in capsys.readouterr().err


def test_reuse_derives_the_anchor_costs_again_from_the_stored_anchor_steps(tmp_path, capsys, inventories, clusters):
    """A calibration keeps its anchor steps, so --reuse after a cost-model change derives the per-collective cost
    (and the others) as the current model does, instead of trusting the constant stored by an older one."""
    from simulator import Calibration, Scorer, calibration_path

    inv, spec = inventories("mlp"), clusters["localhost"]
    stale = Calibration.from_spec(spec, collective_overhead_s=0.05,
                                  anchors_s={"all_reduce": 0.1, "ar_groups": 0.1 + 5 * 0.002})  # 6 groups vs 1
    _, out = _saved_run(tmp_path, inv, spec, Scorer(inv, spec, stale))
    stale.save(calibration_path(tmp_path / "cache" / "calibration", spec))
    assert main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "again")]) == 0
    assert "2.000 ms per collective" in capsys.readouterr().err
    now = Scorer(inv, spec, stale.replace(collective_overhead_s=0.002))
    picked, _ = fidelity.load_measured(out)
    rows = {r["label"]: float(r["predicted_s"]) for r in csv.DictReader(open(tmp_path / "again" / "rows.csv"))}
    assert all(rows[label] == pytest.approx(now.predict(s).step_time_s) for label, s in picked)
    assert any(now.predict(s).step_time_s != pytest.approx(Scorer(inv, spec, stale).predict(s).step_time_s)
               for _, s in picked)


def test_a_stored_residual_is_used_and_the_raw_model_reported_too(tmp_path, capsys, inventories, clusters):
    from simulator import Calibration, Scorer, calibration_path

    inv, spec = inventories("mlp"), clusters["localhost"]
    cal = Calibration.from_spec(spec)
    _, out = _saved_run(tmp_path, inv, spec, Scorer(inv, spec, cal))
    shifted = dict(intercept=0.05, compute=1.0, comm=1.0, latency=0.0, pieces=0.0, collectives=0.0)
    cal.replace(residual=shifted).save(calibration_path(tmp_path / "cache" / "calibration", spec))
    args = ["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
            "--cache-dir", str(tmp_path / "cache"), "--quiet"]
    assert main(args + ["-o", str(tmp_path / "with")]) == 0
    assert "without the residual" in capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "with" / "rows.csv")))
    assert all(float(r["predicted_s"]) == pytest.approx(float(r["raw_s"]) + 0.05) for r in rows)
    assert main(args + ["--fit-residual", "-o", str(tmp_path / "fit")]) == 0  # a new fit starts from the raw model
    assert "without the residual" not in capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "fit" / "rows.csv")))
    assert all(float(r["predicted_s"]) == pytest.approx(float(r["raw_s"])) for r in rows)


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
    scorer, picked = _mlp_local(inventories, clusters, 10)
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
    scorer, picked = _mlp_local(inventories, clusters, 7)
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


# ---- the journal: nothing measured is lost, --resume goes on ---------------------------------------------------

def _steady_group_profiler(scorer, calls, stop_after=None):
    """Deterministic: a comparison's speed depends on who is in it, so a resumed run must reproduce a whole one."""
    def profile_group(strategies):
        if stop_after is not None and len(calls) >= stop_after:
            raise KeyboardInterrupt
        ids = [s.proto.id for s in strategies]
        calls.append(ids)
        speed = 0.7 + (sum(map(ord, "".join(ids))) % 70) / 100
        return [[scorer.predict(s).step_time_s * speed * f for f in (0.95, 1.0, 1.05)] for s in strategies]

    return profile_group


def test_an_interrupted_run_resumes_where_it_stopped_and_ends_as_a_whole_one(tmp_path, inventories, clusters):
    scorer, picked = _mlp_local(inventories, clusters, 9)
    header = fidelity.journal_header(picked, steps=3, together=4)
    whole_calls: list = []
    whole = fidelity.run_validation(picked, scorer, repeats=2, together=4,
                                    profile_group=_steady_group_profiler(scorer, whole_calls))
    path = tmp_path / "measurements.jsonl"
    first: list = []
    with pytest.raises(KeyboardInterrupt):
        fidelity.run_validation(picked, scorer, repeats=2, together=4, journal=fidelity.Journal(path, header),
                                profile_group=_steady_group_profiler(scorer, first, stop_after=4))
    assert len(path.read_text().splitlines()) == 1 + 4  # the header, then each run as it ended
    rest: list = []
    messages: list[str] = []
    resumed = fidelity.run_validation(picked, scorer, repeats=2, together=4, progress=messages.append,
                                      journal=fidelity.Journal(path, header, resume=True),
                                      profile_group=_steady_group_profiler(scorer, rest))
    assert first + rest == whole_calls  # each comparison measured once over both runs
    assert [r.measured_s for r in resumed.rows] == [r.measured_s for r in whole.rows]
    assert "resumed: 4 run(s) taken from the journal, not measured again" in messages


def test_a_serial_run_resumes_too_and_a_failure_stays_a_failure(tmp_path, inventories, clusters):
    scorer, picked = _mlp_local(inventories, clusters, 4)
    bad = picked[2][1].proto.id
    seen: list[str] = []

    def profile(s):
        seen.append(s.proto.id)
        if s.proto.id == bad:
            raise fidelity.AutotuneError("server 1 died")
        if len(seen) == 4:  # the last run of the first pass
            raise KeyboardInterrupt
        return [scorer.predict(s).step_time_s]

    path, header = tmp_path / "j.jsonl", fidelity.journal_header(picked, together=1)
    with pytest.raises(KeyboardInterrupt):
        fidelity.run_validation(picked, scorer, profile, repeats=2, journal=fidelity.Journal(path, header))
    done = list(seen)
    seen.clear()
    report = fidelity.run_validation(picked, scorer, lambda s: seen.append(s.proto.id) or
                                     [scorer.predict(s).step_time_s], repeats=2,
                                     journal=fidelity.Journal(path, header, resume=True))
    assert bad in done and bad not in seen  # recorded as failed: not run again
    assert len(done) - 1 + len(seen) == 2 * 4 - 1  # the interrupted run is measured again, nothing else
    assert "server 1 died" in report.rows[2].error and sum(r.ok for r in report.rows) == 3


def test_the_journal_refuses_another_runs_measurements_and_drops_a_cut_last_line(tmp_path, inventories, clusters):
    inv, spec = inventories("mlp"), clusters["localhost"]
    picked = fidelity.pick_strategies(inv, spec, 3, seed=0)
    path = tmp_path / "measurements.jsonl"
    journal = fidelity.Journal(path, fidelity.journal_header(picked, steps=20))
    journal.put(("alone", "a"), [[0.1, 0.2]])
    journal.put(("group", 0, 0, "a", "b"), "server died")
    with pytest.raises(fidelity.BadInput, match="--resume"):
        fidelity.Journal(path, fidelity.journal_header(picked, steps=20))
    with pytest.raises(fidelity.BadInput, match="its steps differ"):
        fidelity.Journal(path, fidelity.journal_header(picked, steps=10), resume=True)
    with pytest.raises(fidelity.BadInput, match="its strategies differ"):
        fidelity.Journal(path, fidelity.journal_header(picked[:2], steps=20), resume=True)
    with open(path, "a") as fh:
        fh.write('{"key": ["group", 0, 1, "a"], "ste')  # a crash while writing
    again = fidelity.Journal(path, fidelity.journal_header(picked, steps=20), resume=True)
    assert len(again) == 2 and again.get(("alone", "a")) == [[0.1, 0.2]] and again.get(("group", 0, 0, "a", "b"))
    again.put(("group", 0, 1, "a"), [[0.3]])
    assert len(fidelity.Journal(path, fidelity.journal_header(picked, steps=20), resume=True)) == 3
    path.write_text(path.read_text().replace('"alone"', '"alone', 1))
    with pytest.raises(fidelity.BadInput, match=":2 is not a journal entry"):
        fidelity.Journal(path, fidelity.journal_header(picked, steps=20), resume=True)
