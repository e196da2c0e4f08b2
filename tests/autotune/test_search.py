"""`autotune search`: determinism, pruning, resume after an interrupt, outputs, a shared study."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import optuna
import pandas as pd
import pytest

from autotune.cli import main
from autotune.search import Measurement, SearchConfig, run_search
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
    assert best.proto.provenance.lower_bound_s == pytest.approx(summary["lower_bound_s"]) and summary["lower_bound_s"] > 0
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
def test_interrupted_search_resumes(tmp_path, cache_dir):
    out = tmp_path / "o"
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "autotune", "search", "--model", MODEL, "--spec", SPEC, "-o", str(out),
           "--simulate-only", "--quiet", "--reduced", "yes", "--trials", "100000"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if (out / "simulated.jsonl").is_file() and len((out / "simulated.jsonl").read_text().splitlines()) >= 40:
                break
            time.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    before = _records(out)
    assert len(before) >= 40 and (out / "best.pb").is_file(), "an interrupted search keeps its trials and a winner"
    total = len(before) + 30
    assert main(["search", "--model", MODEL, "--spec", SPEC, "-o", str(out), "--cache-dir", str(cache_dir),
                 "--simulate-only", "--quiet", "--reduced", "yes", "--trials", str(total), "--resume"]) == 0
    after = _records(out)
    assert len(after) == total and after[:len(before)] == before
    assert sum(bool(r["builders"]) for r in after) == sum(bool(r["builders"]) for r in before), "builders run once"


class CountingProfiler:
    """A stand-in for the cluster, to test the logic around profiling (which candidates, what is recorded)."""

    calls: list = []

    def __init__(self, inventory, cluster, cfg):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def profile(self, strategy):
        CountingProfiler.calls.append(strategy.proto.id)
        t = 0.01 + 0.001 * len(strategy.to_bytes()) % 7
        return Measurement(t, t * 0.9, t * 1.1, 640 / t)


def test_profiling_stage_records_into_a_shared_study(tmp_path, cache_dir):
    CountingProfiler.calls = []
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    cfg = dict(model=MODEL, spec=SPEC, trials=60, top_k=3, builders_to_profile=5, storage=url, study_name="shared", cache_dir=str(cache_dir),
               reduced=True)
    first = run_search(SearchConfig(output=tmp_path / "a", **cfg), profiler_factory=CountingProfiler, progress=False)
    assert first.profiled == len(CountingProfiler.calls) and 3 <= first.profiled <= 8  # top-k + close builders
    assert len(set(CountingProfiler.calls)) == len(CountingProfiler.calls), "no strategy profiled twice"
    study = optuna.load_study(study_name="shared", storage=url)
    profiled = [t for t in study.trials if t.user_attrs.get("stage") == "profiled"]
    assert len(profiled) == first.profiled
    assert all(t.value == t.user_attrs["measured_s"] and "predicted_s" in t.user_attrs for t in profiled)
    assert first.winner.measured.median_s == min(t.value for t in profiled)
    # a second process on the same study (same seed: same candidates) reuses every measurement
    calls = len(CountingProfiler.calls)
    second = run_search(SearchConfig(output=tmp_path / "b", resume=True, **cfg), profiler_factory=CountingProfiler,
                        progress=False)
    assert second.profiled == 0 and len(CountingProfiler.calls) == calls
    assert second.winner.measured.median_s == first.winner.measured.median_s


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
    cfg = SearchConfig(model=MODEL, spec=SPEC, output=tmp_path / "o", trials=40, top_k=0, builders_to_profile=10,
                       builder_band=1.5, cache_dir=str(cache_dir), reduced=True)
    result = run_search(cfg, profiler_factory=CountingProfiler, progress=False)
    builders = [c for c in result.candidates if c.builders]
    best = min(c.predicted_s for c in builders)
    assert {c.trial for c in builders if c.measured} == {c.trial for c in builders if c.predicted_s <= 1.5 * best}
    assert result.profiled == len(CountingProfiler.calls) >= 1
