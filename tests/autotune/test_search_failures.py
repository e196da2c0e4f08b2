"""Failures are data: a candidate that fails is a FAIL trial with its reason and the search goes on; a builder
whose every job crashes is a failed row of the table, with its cause, beside a measured winner; a server killed
during the profiling stage costs one candidate, not the search."""
from __future__ import annotations

import json
import os
import signal

import optuna
import pytest

from autotune.tuner import Measurement, SearchConfig, run_search
from autotune.tuner._profiler import ClusterProfiler
from space.builders import aliases
from space.errors import RunError
from testpaths import CLUSTERS, MODELS

MODEL = str(MODELS / "mlp.py")
SPEC = str(CLUSTERS / "localhost.yml")


def _cfg(out, cache_dir, **kw):
    base = dict(model=MODEL, spec=SPEC, output=out, cache_dir=str(cache_dir), trials=40, top_k=2,
                builders_to_profile=2, max_profiles=4, confirm=0, steps=4, warmup=1, reduced=True)
    return SearchConfig(**{**base, **kw})


def _failed_trials(summary):
    study = optuna.load_study(study_name=summary["study_name"], storage=summary["storage"])
    return [t for t in study.trials
            if t.state == optuna.trial.TrialState.FAIL and t.user_attrs.get("stage") == "failed"]


class _FailingProfiler:
    """Measures every candidate but the ``fail_at``-th, which raises ``error``; counts the clusters it starts."""

    entered = 0
    calls = 0
    fail_at: set = {2}
    error: Exception = RunError("step failed: server of node 127.0.0.2 exited with status -9", node="127.0.0.2")

    def __init__(self, inventory, cluster, cfg):
        pass

    def __enter__(self):
        type(self).entered += 1
        return self

    def __exit__(self, *exc):
        pass

    def profile(self, strategy):
        cls = type(self)
        cls.calls += 1
        if cls.calls in cls.fail_at:
            raise cls.error
        t = 0.01 + 0.001 * cls.calls
        return Measurement(t, t * 0.9, t * 1.1, 640 / t)


def _failing(fail_at, error):
    return type("Failing", (_FailingProfiler,), {"entered": 0, "calls": 0, "fail_at": fail_at, "error": error})


def test_a_failing_candidate_is_a_fail_trial_and_the_search_goes_on(tmp_path, cache_dir):
    profiler = _failing({2}, RunError("step failed: server of node 127.0.0.2 exited with status -9",
                                      node="127.0.0.2"))
    result = run_search(_cfg(tmp_path / "o", cache_dir), profiler_factory=profiler, progress=False)
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert (tmp_path / "o" / "best.pb").is_file() and result.winner.measured is not None
    (failed,) = _failed_trials(summary)
    assert failed.user_attrs["error"].startswith("step failed: server of node 127.0.0.2")
    assert failed.user_attrs["node"] == "127.0.0.2"
    assert [f["error"] for f in summary["failed"]] == [failed.user_attrs["error"]]
    assert sum(r["measured_ms"] == "failed" for r in summary["rows"]) == 1
    assert profiler.calls >= 3, "the candidates after the failure were profiled"
    assert profiler.entered == 2, "a RunError may leave the servers in a bad state: a fresh cluster"


def test_a_graph_error_keeps_the_cluster(tmp_path, cache_dir):
    profiler = _failing({1}, ValueError("Cannot colocate nodes"))
    run_search(_cfg(tmp_path / "o", cache_dir), profiler_factory=profiler, progress=False)
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    (failed,) = _failed_trials(summary)
    assert failed.user_attrs["error"] == "ValueError: Cannot colocate nodes"
    assert profiler.entered == 1


def test_every_candidate_failing_is_one_error_that_keeps_the_simulated_trials(tmp_path, cache_dir, run):
    profiler = _failing(set(range(1, 100)), RunError("step did not finish within 10 s"))
    with pytest.raises(RunError, match=r"every profiled candidate failed; the first, .*: step did not finish "
                                       r"within 10 s; hint: .*--resume"):
        run_search(_cfg(tmp_path / "o", cache_dir), profiler_factory=profiler, progress=False)
    assert len((tmp_path / "o" / "simulated.jsonl").read_text().splitlines()) == 40


def _whole_on_a_ps(strategy) -> bool:
    """Whether ``strategy`` places a variable whole (unpartitioned) on a parameter server."""
    return any(not node.partitioner and node.WhichOneof("synchronizer") == "PSSynchronizer"
               for node in strategy.proto.node_config)


class _PSCrashProfiler(_FailingProfiler):
    """Measures every candidate but those with a variable whole on a PS, whose job crashes as the backend's bytes
    ledger did once on such a placement of a model with an in-model lookup; counts the crashes."""

    crashed = 0
    error = RunError("tensor tower1/Identity_2:0 crosses tasks with shape (None, 64), whose size per step nobody "
                     "expected")

    def profile(self, strategy):
        if _whole_on_a_ps(strategy):
            type(self).crashed += 1
            raise self.error
        return super().profile(strategy)


def test_a_builder_that_crashes_is_a_failed_row_with_its_cause_beside_a_measured_winner(tmp_path, cache_dir):
    profiler = type("PSCrash", (_PSCrashProfiler,), {"entered": 0, "calls": 0, "fail_at": set(), "crashed": 0})
    cfg = _cfg(tmp_path / "o", cache_dir, builders_to_profile=len(aliases()), builder_band=1e6, max_profiles=30,
               round_size=0)
    result = run_search(cfg, profiler_factory=profiler, progress=False)
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    ps = next(c for c in result.candidates if c.builders and "ps" in c.builders)
    assert ps.measured is None and ps.error == str(_PSCrashProfiler.error)
    (row,) = [r for r in summary["rows"] if r["strategy"].removesuffix(" *") == ps.label]
    assert row["measured_ms"] == "failed" and "crosses tasks with shape (None, 64)" in row["error"]
    failed = _failed_trials(summary)
    assert len(failed) == profiler.crashed >= 2  # ps and ps_lb at least, each a FAIL trial
    assert {t.user_attrs["error"] for t in failed} == {ps.error}
    assert result.winner.measured is not None and not _whole_on_a_ps(result.winner.strategy)
    assert summary["winner_measured_s"] > 0 and (tmp_path / "o" / "best.pb").is_file()
    assert sum(r["measured_ms"] not in ("failed", "-") for r in summary["rows"]) >= 3  # the others were measured


class _KillingProfiler(ClusterProfiler):
    """The real profiler on the real cluster; before the second candidate, SIGKILL the server of task 1."""

    calls = 0
    killed: list = []

    def profile(self, strategy):
        type(self).calls += 1
        if type(self).calls == 2:
            pid = self._running.pids[1]
            os.kill(pid, signal.SIGKILL)
            type(self).killed.append(pid)
        return super().profile(strategy)


@pytest.mark.slow
def test_a_server_killed_during_profiling_costs_one_candidate(tmp_path, cache_dir):
    result = run_search(_cfg(tmp_path / "o", cache_dir, max_profiles=3), profiler_factory=_KillingProfiler,
                        progress=False)
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    (failed,) = _failed_trials(summary)
    assert "node 127.0.0.2" in failed.user_attrs["error"] and "status -9" in failed.user_attrs["error"]
    measured = [c for c in result.candidates if c.measured is not None]
    assert len(measured) >= 2 and (tmp_path / "o" / "best.pb").is_file()
