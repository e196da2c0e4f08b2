"""The journal: nothing measured is lost, ``--resume`` goes on where an interrupted run stopped."""
from __future__ import annotations

import pytest

from autotune import fidelity
from fidelity_support import mlp_local


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
    scorer, picked = mlp_local(inventories, clusters, 9)
    header = fidelity.journal_header(picked, steps=3, together=4)
    whole_calls: list = []
    whole = fidelity.run_validation(picked, scorer, repeats=2, together=4,
                                    profile_group=_steady_group_profiler(scorer, whole_calls))
    path = tmp_path / "measurements.jsonl"
    first: list = []
    with pytest.raises(KeyboardInterrupt):
        fidelity.run_validation(picked, scorer, repeats=2, together=4,
                                journal=fidelity.MeasurementJournal(path, header),
                                profile_group=_steady_group_profiler(scorer, first, stop_after=4))
    assert len(path.read_text().splitlines()) == 1 + 4  # the header, then each run as it ended
    rest: list = []
    messages: list[str] = []
    resumed = fidelity.run_validation(picked, scorer, repeats=2, together=4, progress=messages.append,
                                      journal=fidelity.MeasurementJournal(path, header, resume=True),
                                      profile_group=_steady_group_profiler(scorer, rest))
    assert first + rest == whole_calls  # each comparison measured once over both runs
    assert [r.measured_s for r in resumed.rows] == [r.measured_s for r in whole.rows]
    assert "resumed: 4 run(s) taken from the journal, not measured again" in messages


def test_a_serial_run_resumes_too_and_a_failure_stays_a_failure(tmp_path, inventories, clusters):
    scorer, picked = mlp_local(inventories, clusters, 4)
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
        fidelity.run_validation(picked, scorer, profile, repeats=2, journal=fidelity.MeasurementJournal(path, header))
    done = list(seen)
    seen.clear()
    report = fidelity.run_validation(picked, scorer, lambda s: seen.append(s.proto.id) or
                                     [scorer.predict(s).step_time_s], repeats=2,
                                     journal=fidelity.MeasurementJournal(path, header, resume=True))
    assert bad in done and bad not in seen  # recorded as failed: not run again
    assert len(done) - 1 + len(seen) == 2 * 4 - 1  # the interrupted run is measured again, nothing else
    assert "server 1 died" in report.rows[2].error and sum(r.ok for r in report.rows) == 3


def test_the_journal_refuses_another_runs_measurements_and_drops_a_cut_last_line(tmp_path, inventories, clusters):
    inv, spec = inventories("mlp"), clusters["localhost"]
    picked = fidelity.pick_strategies(inv, spec, 3, seed=0)
    path = tmp_path / "measurements.jsonl"
    journal = fidelity.MeasurementJournal(path, fidelity.journal_header(picked, steps=20))
    journal.put(("alone", "a"), [[0.1, 0.2]])
    journal.put(("group", 0, 0, "a", "b"), "server died")
    with pytest.raises(fidelity.BadInput, match="--resume"):
        fidelity.MeasurementJournal(path, fidelity.journal_header(picked, steps=20))
    with pytest.raises(fidelity.BadInput, match="its steps differ"):
        fidelity.MeasurementJournal(path, fidelity.journal_header(picked, steps=10), resume=True)
    with pytest.raises(fidelity.BadInput, match="its strategies differ"):
        fidelity.MeasurementJournal(path, fidelity.journal_header(picked[:2], steps=20), resume=True)
    with open(path, "a") as fh:
        fh.write('{"key": ["group", 0, 1, "a"], "ste')  # a crash while writing
    again = fidelity.MeasurementJournal(path, fidelity.journal_header(picked, steps=20), resume=True)
    assert len(again) == 2 and again.get(("alone", "a")) == [[0.1, 0.2]] and again.get(("group", 0, 0, "a", "b"))
    again.put(("group", 0, 1, "a"), [[0.3]])
    assert len(fidelity.MeasurementJournal(path, fidelity.journal_header(picked, steps=20), resume=True)) == 3
    path.write_text(path.read_text().replace('"alone"', '"alone', 1))
    with pytest.raises(fidelity.BadInput, match=":2 is not a journal entry"):
        fidelity.MeasurementJournal(path, fidelity.journal_header(picked, steps=20), resume=True)
