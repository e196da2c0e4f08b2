"""The fidelity runs kept in the repository (``benchmarks/fidelity_runs/<model>-s<seed>/``: strategies, their
measured step times on the 3-host testbed, the calibration) are predicted again with today's cost model, as
``benchmarks/simulator_fidelity.py --reuse`` does: no cluster, no TensorFlow. A guard on real measurements: a
cost-model change that ranks them much worse than issue 5's targets fails here, before anyone profiles again."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from testpaths import ROOT

RUNS = ROOT / "benchmarks" / "fidelity_runs"
ARCHIVES = sorted(d for d in RUNS.iterdir() if d.is_dir()) if RUNS.is_dir() else []
# issue 5's targets are tau >= 0.85 and MAPE <= 10%; some measured runs miss them (the README's table), so the guard
# sits below: a change that falls under it has lost what the model got right
TAU_FLOOR, MAPE_CEILING = 0.75, 0.15


def test_there_are_archived_runs():
    assert ARCHIVES, f"no fidelity runs in {RUNS}"


@pytest.mark.parametrize("archive", ARCHIVES, ids=[d.name for d in ARCHIVES])
def test_archived_run_is_predicted_again_within_the_guard(archive, tmp_path):
    model = archive.name.rsplit("-s", 1)[0]
    rows = (archive / model / "rows.csv").read_text().splitlines()
    blocker = tmp_path / "no-tf" / "tensorflow"  # the archive holds the inventory: TensorFlow must not be needed
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('re-predicting an archived run imported TensorFlow')\n")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "simulator_fidelity.py"), "--reuse",
                           str(archive), "--models", model, "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": str(blocker.parent)})
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((tmp_path / "out" / model / "summary.json").read_text())
    metrics = summary["raw_metrics"] or summary["metrics"]
    # the MAPE with the machine's drift since calibrate divided out, where the run measured it: a machine that ran
    # 16% faster than at calibrate (transformer seed 111) makes every prediction ~19% slow, which no model can know.
    # That drift is the geometric mean over the three anchor steps the run measured again, a short one among them
    # (the mlp's 9 ms PowerSGD step read 1.16 on seed 113, its all_reduce and ps 1.01 and 1.02): the guard takes
    # the lower of the two MAPEs
    drift_free = summary.get("metrics_at_calibration") or metrics
    measured = [line for line in rows[1:] if line.strip()]
    assert metrics["n"] >= 0.9 * len(measured) >= 27  # every strategy with a measurement was predicted again
    assert metrics["kendall_tau"] >= TAU_FLOOR, metrics
    assert min(drift_free["mape"], metrics["mape"]) <= MAPE_CEILING, (metrics, drift_free)
    again = (tmp_path / "out" / model / "rows.csv").read_text().splitlines()
    assert len(again) == len(rows)


def test_archive_copies_what_reuse_needs_and_nothing_else(tmp_path):
    """``--archive`` lays a run out as ``--reuse`` reads it: rebuilt from a kept run's files (as a run leaves them,
    beside a testbed's directory and the plot), the archive holds the same files, byte for byte."""
    import shutil

    bench = _bench()
    kept = RUNS / "mlp-s111"
    out = tmp_path / "out"
    shutil.copytree(kept / "mlp", out / "mlp")
    shutil.copytree(kept / "cache", out / "cache")
    (out / "mlp" / "predicted_vs_measured.png").write_bytes(b"not kept")
    (out / "testbed-calfid").mkdir()
    model_hash = next((kept / "cache").glob("inventory-*.json")).stem.split("-", 1)[1]
    (out / "mlp-calibration.json").write_text(json.dumps({"model_hash": model_hash}))
    bench._archive(out, "mlp", out / "cache", tmp_path / "archive")

    def files(d):
        return {p.relative_to(d): p.read_bytes() for p in d.rglob("*") if p.is_file()}

    assert files(tmp_path / "archive") == files(kept)
    bench._archive(out, "cnn", out / "cache", tmp_path / "none")  # no run of that model: nothing written
    assert not (tmp_path / "none").exists()


def _bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("simulator_fidelity", ROOT / "benchmarks" / "simulator_fidelity.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def _summary(tau, mape, drift_free=None):
    m = {"kendall_tau": tau, "mape": mape, "top1_regret": 0.0, "n": 30.0}
    return {"metrics": m, "raw_metrics": m, "noise": {"kendall_tau": 0.95, "mape": 0.02},
            "since_calibration": 1.1 if drift_free is not None else None,
            "metrics_at_calibration": {**m, "mape": drift_free} if drift_free is not None else None}


@pytest.mark.parametrize(("summary", "meets"), [
    (_summary(0.90, 0.08), "yes"),
    (_summary(0.85, 0.10), "yes"),  # the targets are inclusive
    (_summary(0.90, 0.16, drift_free=0.07), "drift divided out"),
    (_summary(0.90, 0.16, drift_free=0.12), "no"),
    (_summary(0.84, 0.05, drift_free=0.05), "no"),  # the drift leaves tau as it is
    (_summary(0.90, 0.16), "no"),  # no drift measured
], ids=["raw", "at-the-targets", "drift-free", "drift-free-too-high", "tau-low", "no-drift-measured"])
def test_kept_row_says_whether_a_run_meets_the_targets(summary, meets):
    row = _bench()._kept_row("mlp", 111, summary)
    assert row["meets"] == meets
    assert (row["model"], row["seed"], row["tau"], row["mape"]) == ("mlp", 111, summary["metrics"]["kendall_tau"],
                                                                    summary["metrics"]["mape"])


def test_kept_repredicts_every_run_and_reports_it(tmp_path):
    """``--kept DIR``: one row per run, each what ``--reuse`` of that run gives, with its verdict on the targets; a
    run kept with its fresh strategies (seed + 1, transformer seed 118) adds a row for them, the raw model's."""
    import shutil

    kept = tmp_path / "kept"
    for name in ("recommender-s117", "transformer-s111", "transformer-s118", "transformer-s120"):
        shutil.copytree(RUNS / name, kept / name)
    (kept / "notes").mkdir()  # not a run: ignored
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "simulator_fidelity.py"), "--kept", str(kept),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    bench = _bench()
    rows = json.loads((tmp_path / "out" / "kept.json").read_text())
    assert [(r["model"], r["seed"], r.get("fresh", False)) for r in rows] == [
        ("recommender", 117, False), ("transformer", 111, False), ("transformer", 118, False),
        ("transformer", 119, True), ("transformer", 120, False), ("transformer", 121, True)]
    # what each calibration lacks of what calibrate measures now: seed 111's came before the updates' share and the
    # ps_lb step, seed 118's before the ps_lb step; seed 120's holds both
    assert [r["lacks"] for r in rows] == [["ps_lb step"], ["ps_lb step", "updates' share"], ["ps_lb step"],
                                          ["ps_lb step"], [], []]
    # each calibration's own anchor steps as this cost model predicts them; seed 120's timed every one
    assert set(rows[4]["anchor_fit"]) == {"all_reduce", "ar_groups", "ar_split", "powersgd", "ps", "ps_lb", "ps_split"}
    assert "ps_lb" not in rows[1]["anchor_fit"]
    lines = proc.stdout.splitlines()
    after = next(x for x in lines[lines.index(next(x for x in lines if x.startswith("transformer: "))):]
                 if x.startswith("  anchor steps"))
    worst = min(p / t - 1 for r in rows if r["model"] == "transformer" and not r.get("fresh")
                for t, p in [r["anchor_fit"]["ar_groups"]])
    assert after.startswith(f"  anchor steps the cost model misses by more than 5%: ar_groups {worst:+.0%}..")
    for row in rows:
        seed, run = (row["seed"] - 1, f"{row['model']}-fresh") if row.get("fresh") else (row["seed"], row["model"])
        summary = json.loads((tmp_path / "out" / f"{row['model']}-s{seed}" / run / "summary.json").read_text())
        metrics = summary["raw_metrics"] or summary["metrics"]
        assert row["tau"] == pytest.approx(metrics["kendall_tau"]) and row["mape"] == pytest.approx(metrics["mape"])
        if not row.get("fresh"):
            assert row["meets"] == bench._kept_row(row["model"], row["seed"], summary)["meets"]
            assert "fitted_tau" not in row
        else:  # and with the residual fitted on its dev run
            assert summary["raw_metrics"] is not None
            assert (row["fitted_tau"], row["fitted_mape"]) == pytest.approx(
                (summary["metrics"]["kendall_tau"], summary["metrics"]["mape"]))
            assert row["fitted_meets"] == (row["fitted_tau"] >= 0.85 and row["fitted_mape"] <= 0.10)
        assert f"{row['model']} s{row['seed']}" in proc.stdout
    table = (tmp_path / "out" / "kept.md").read_text().splitlines()  # the same rows as a markdown table
    assert len(table) == 2 + len(rows)
    label = bench._label
    assert all(line.startswith(f"| {label(r)} |") and line.endswith(f"| {r['meets']} | {bench._fitted(r)} |")
               for line, r in zip(table[2:], rows, strict=True))
    fresh = [r for r in rows if r.get("fresh")]
    assert f"  fresh runs with the residual fitted on their dev run: {sum(r['fitted_meets'] for r in fresh)} of 2 " \
           f"meet the targets raw (without it: {sum(r['meets'] == 'yes' for r in fresh)})" in proc.stdout
    assert label(rows[3]) == "transformer s119 fresh" and "| ps_lb, updates' share |" in table[3]
    for model in ("recommender", "transformer"):  # the per-model line counts the runs whose verdict is not "no"
        mine = [r for r in rows if r["model"] == model]
        met = sum(r["meets"] != "no" for r in mine)
        assert f"{model}: {met} of {len(mine)} runs meet the targets" in proc.stdout
        now = [r for r in mine if not r["lacks"]]  # and, apart, those calibrated as calibrate does now
        assert f"calibrated as calibrate does now: {sum(r['meets'] != 'no' for r in now)} of {len(now)}" in [
            line.split("; ")[-1] for line in proc.stdout.splitlines() if line.startswith(f"{model}: ")]


def test_the_residual_fitted_on_a_dev_run_helps_on_its_fresh_run(tmp_path):
    """What ``validate-simulator --fit-residual`` stores, fitted on a kept dev run's train split (as that run drew
    it), applied to the fresh run's new strategies with the same calibration: over the kept pairs it must lower the
    mean MAPE by half a point or more, and take no pair past the guard. Over the 16 pairs of stop 41, the fit in
    seconds with a factor where cross-validation preferred it (the rule up to stop 40) lowered it by 0.44 point (7.27%
    to 6.83%); the relative fit, by 0.89."""
    import argparse

    bench = _bench()
    pairs = [d for d in ARCHIVES if (d / f"{d.name.rsplit('-s', 1)[0]}-fresh" / "rows.csv").is_file()]
    assert len(pairs) >= 14
    raw, fitted = [], []
    for run in pairs:
        model, seed = bench._run_name(run.name)
        args = argparse.Namespace(holdout=0.3, seed=seed)
        result = bench._repredict(run, model, tmp_path / run.name, run / "cache", args)
        raw.append(result["fresh_raw"]["metrics"]["mape"])
        after = result["fresh"]["metrics"]
        fitted.append(after["mape"])
        assert after["kendall_tau"] >= TAU_FLOOR and after["mape"] <= MAPE_CEILING, (run.name, after)
    assert sum(fitted) / len(fitted) <= sum(raw) / len(raw) - 0.005, (raw, fitted)


def test_kept_without_runs_is_one_line_and_exit_2(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "simulator_fidelity.py"), "--kept",
                           str(tmp_path), "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "no kept runs" in proc.stderr and str(tmp_path) in proc.stderr


def _kept_calibrations():
    """(run, calibration path) of every kept run."""
    return [(d, p) for d in ARCHIVES for p in sorted((d / "cache" / "calibration").glob("*.json"))]


def test_a_calibration_this_cost_model_derived_is_derived_again_alike():
    """A kept calibration that records this version of the cost model (``COST_MODEL_VERSION``) holds the anchor costs
    this checkout derives from its anchor steps: a change to the cost model or to the derivation that moves them
    fails here until the version is bumped, so that ``search`` derives them again from any older file."""
    from autotune.calibration import DERIVED, moved
    from simulator import anchor_costs
    from simulator import COST_MODEL_VERSION, Calibration
    from space.cluster import load_cluster
    from space.model import load_inventory

    checked = 0
    for run, path in _kept_calibrations():
        model = run.name.rsplit("-s", 1)[0]
        cal = Calibration.load(path)
        if cal.cost_model != COST_MODEL_VERSION or not cal.anchors_s:
            continue
        inventory = load_inventory(ROOT / "examples" / "models" / f"{model}.py", cache_dir=run / "cache")
        again = anchor_costs(cal, inventory, load_cluster(run / model / "cluster.yml"))
        for name in DERIVED:
            stored, derived = getattr(cal, name), getattr(again, name)
            assert not moved(stored, derived), (  # beyond the solver's tolerance
                f"{run.name}: {name} stored {stored}, derived {derived} by cost model {COST_MODEL_VERSION}: "
                "bump simulator.COST_MODEL_VERSION")
        checked += 1
    if not checked:
        pytest.skip(f"no kept calibration records cost model {COST_MODEL_VERSION} yet")


EXPERIMENTS = ROOT / "benchmarks" / "experiments"


def predict_experiment(script) -> dict[str, list[float]]:
    """``python SCRIPT predict`` of a kept experiment: per strategy, [predicted ms, measured ms]."""
    proc = subprocess.run([sys.executable, str(script), "predict"], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {line.split()[0]: [float(x) for x in line.split()[1:3]] for line in proc.stdout.splitlines()[1:]}


def test_the_embedding_placement_experiment_predicts_what_it_measured():
    """``benchmarks/experiments/stop36-embedding-placement/placement.py predict`` sets this checkout's prediction of
    its eight strategies beside the measured steps; its plain all-reduce and PowerSGD strategies are the calibration's
    own anchor steps, which the derived costs fit exactly."""
    script = EXPERIMENTS / "stop36-embedding-placement" / "placement.py"
    rows = predict_experiment(script)
    assert set(rows) == {"ar", "ar_emb_own", "ar_emb_ps", "psgd", "psgd_emb_plain", "psgd_emb_ps", "fp16",
                         "fp16_emb_own"}
    anchors = json.loads(next((script.parent / "cache" / "calibration").glob("*.json")).read_text())["anchors_s"]
    assert rows["ar"][0] == pytest.approx(anchors["all_reduce"] * 1e3, abs=0.01)
    assert rows["psgd"][0] == pytest.approx(anchors["powersgd"] * 1e3, abs=0.01)


def test_the_mixed_steps_experiment_predicts_what_it_measured(monkeypatch):
    """``benchmarks/experiments/stop37-mixed-steps/mixed.py predict`` sets this checkout's prediction of its eight
    strategies beside the measured steps; its ``ps`` and ``ps_lb`` are the calibration's own anchor strategies, so
    the script predicts them as the calibration's anchor fit does, with the costs this version derives."""
    from simulator import anchor_fit

    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    from _experiment import kept_calibration

    here = EXPERIMENTS / "stop37-mixed-steps"
    rows = predict_experiment(here / "mixed.py")
    assert set(rows) == {"ps", "ps_ar_head", "ps_ar_first", "ps2", "ps2_ar_head", "ps2_ar_first", "ps_lb",
                         "ps_lb_ar_head"}
    spec, inv, cal = kept_calibration(here, ROOT / "examples" / "models" / "transformer.py", say=lambda _line: None)
    fit = anchor_fit(cal.replace(residual=None), inv, spec)
    for name in ("ps", "ps_lb"):
        assert rows[name][0] == pytest.approx(fit[name][1] * 1e3, abs=0.01)


def test_the_sparse_shards_experiment_predicts_the_embedding_split_as_measured():
    """``benchmarks/experiments/stop38-sparse-shards/shards.py predict`` sets this checkout's prediction of its
    sixteen strategies beside the measured steps. The embedding on one server in 1 to 16 shards, the dense variables
    all-reduced, measured 47-53 ms; cost model 3 (lost staggering scaled by the largest tensor's share) predicted the
    whole table 16% slow and 8 or 16 shards 7-11% fast, so this fails for a model that brings that rule back."""
    rows = predict_experiment(EXPERIMENTS / "stop38-sparse-shards" / "shards.py")
    assert len(rows) == 16 and {"r126_random6", "r127_random13"} <= set(rows)
    split = ["emb1", "emb2", "emb4", "emb8", "emb16", "emb1_h2", "emb16_h2"]
    errors = {name: rows[name][0] / rows[name][1] - 1 for name in split}
    assert all(abs(e) < 0.10 for e in errors.values()), errors


def test_the_ps_pieces_experiment_predicts_the_split_ps_steps_as_measured():
    """``benchmarks/experiments/stop38-ps-pieces/pieces.py predict``: the transformer's ``ps`` step with every
    variable in 1, 2, 4 or 8 shards on one server grows as one shard's cost from the ``ps_split`` pair says (cost
    model 4: within 2%; cost model 3, which charged the split steps less lost staggering: 5% and 8% fast whole and in
    2 shards), so this fails for a model that makes a step's staggering depend on its shards again."""
    rows = predict_experiment(EXPERIMENTS / "stop38-ps-pieces" / "pieces.py")
    assert set(rows) == {"ps", "ps2", "ps4", "ps8", "ps16", "ps_proxy", "ps16_proxy", "ps16_h1"}
    errors = {name: rows[name][0] / rows[name][1] - 1 for name in ("ps", "ps2", "ps4", "ps8")}
    assert all(abs(e) < 0.04 for e in errors.values()), errors


def test_the_spread_pieces_experiment_predicts_the_split_ps_steps_within_its_noise():
    """``benchmarks/experiments/stop39-spread-pieces/spread.py predict``: the transformer's ``ps`` step whole and
    in 4 shards on one server, and in 4 shards with the variables spread over the three servers (each variable's
    shards on its server, or spread too), predicted within 6% by the shard cost of the ``ps_split`` pair; the whole
    spread step, ``rr``, 29% slow (the floor of replicas sharing CPUs), stays out, so this fails for a change that
    prices the spread shards up without mending that floor (9-12% slow) or that breaks the one-server pair."""
    rows = predict_experiment(EXPERIMENTS / "stop39-spread-pieces" / "spread.py")
    assert set(rows) == {"ps", "ps4", "rr", "rr4_own", "rr4_spread", "rr_proxy", "rr4_spread_proxy"}
    errors = {name: rows[name][0] / rows[name][1] - 1 for name in ("ps", "ps4", "rr4_own", "rr4_spread")}
    assert all(abs(e) < 0.06 for e in errors.values()), errors
