"""End to end on the local cluster: search (simulated + real profiling) and train with the printed command."""
from __future__ import annotations

import json
import shlex

import optuna
import pytest

from autotune.cli import main
from testpaths import CLUSTERS, MODELS
from space.strategy import Strategy

pytestmark = pytest.mark.slow


def test_search_calibrates_profiles_and_the_winner_trains(tmp_path, capsys):
    out, cache = tmp_path / "run", tmp_path / "cache"  # a cache with no calibration in it: the search measures one
    code = main(["search", "--model", str(MODELS / "mlp.py"), "--spec", str(CLUSTERS / "localhost.yml"),
                 "-o", str(out), "--cache-dir", str(cache), "--trials", "40", "--top-k", "2", "--steps", "4",
                 "--confirm-steps", "6", "--warmup", "1", "--quiet", "--profile-builders", "1", "--max-profiles", "6"])
    captured = capsys.readouterr()
    text = captured.out
    assert code == 0, captured.err
    assert "measuring a quick one first" in captured.err and "no calibration for this cluster: predictions" \
        not in captured.err
    assert len(list((cache / "calibration").glob("*.json"))) == 1  # stored where the next search finds it
    summary = json.loads((out / "summary.json").read_text())
    assert summary["calibrated"] is True
    # where the time went: the phases add up to no more than the whole
    t = summary["timing"]
    assert all(t[k] > 0 for k in ("setup_s", "calibration_s", "simulated_s", "profiling_s", "total_s"))
    assert t["calibration_s"] < t["setup_s"] and t["setup_s"] + t["simulated_s"] + t["profiling_s"] + t["confirm_s"] \
        <= t["total_s"] * 1.01
    # each profiled candidate's first run, split by phase (runners.profile.PhaseClock)
    split = summary["profiling_split"]
    measured = {r["strategy"].rstrip(" *") for r in summary["rows"]
                if r["measured_ms"] not in ("-", "failed", "does not fit")}
    # the quick calibration timed the model's anchor strategies: those that are candidates are measured already
    assert summary["from_calibration"] and set(summary["from_calibration"]) <= measured
    assert {s["strategy"] for s in split} == measured - set(summary["from_calibration"])
    assert all(s["timed"] > 0 and s["overhead"] == pytest.approx(s["total"] - s["timed"] - s["warmup"], abs=1e-3)
               for s in split)
    assert 2 <= summary["profiling_runs"] <= 6  # a first round, refitted rounds and confirmations, within the budget
    assert summary["rounds"][0]["measured"] >= 2 and summary["rounds"][-1]["stop"]
    best = Strategy.load(out / "best.pb")
    assert best.proto.provenance.measured_step_time_s == pytest.approx(summary["winner_measured_s"])
    assert best.proto.provenance.measured_step_time_s > 0
    study = optuna.load_study(study_name=summary["study_name"], storage=summary["storage"])
    # the anchor steps the calibration measured are no profiling runs (a head-to-head of one is)
    runs = [t.user_attrs for t in study.trials if t.user_attrs.get("stage") == "confirmed"
            or (t.user_attrs.get("stage") == "profiled" and not t.user_attrs.get("source"))]
    assert len(runs) == summary["profiling_runs"]
    assert summary["winner_measured_s"] in [a["measured_s"] for a in runs]
    # every timed step kept: 4 of the first run, pooled with the head-to-head's 6 when confirmed
    assert all(len(a["step_times_s"]) == 4 + 6 * (a["runs"] - 1) for a in runs if not a.get("source"))

    train = next(line.strip() for line in text.splitlines() if line.strip().startswith("autotune train"))
    argv = shlex.split(train)[1:]
    argv[argv.index("--steps") + 1] = "2"
    assert main(argv) == 0
    # training runs the winner at the steps per call the search measured it at
    # (0: a winner only the calibration timed, which chose its steps per call as training does)
    k = best.proto.provenance.steps_per_call
    assert (f"({k} step(s) a call)" if k else " step(s) a call)") in capsys.readouterr().out
    assert (out / "ckpt").is_dir() and any((out / "ckpt").iterdir())
