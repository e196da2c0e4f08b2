"""``autotune.parts``: a strategy's predicted parts beside the traced ones, and which of them are flagged."""
from __future__ import annotations

import dataclasses

import pytest

from autotune import parts
from runners._step_stats import LinkTime, StepParts, TaskTime, TraceSummary
from simulator import Breakdown, LinkPart

A, B = "10.0.0.1", "10.0.0.2"
PREDICTED = Breakdown(step_s=10e-3, compute_s=6e-3, fixed_s=1e-3, comm_s=3e-3, correction_s=0.0,
                      tower_compute_s={f"{A}:CPU:0": 6e-3},
                      links=(LinkPart(A, B, 1e6, 2e-3), LinkPart(B, A, 1e5, 2e-4)))


def _trace(compute_s: float, waiting_s: float, idle_s: float, wire_s: float = 2e-3) -> TraceSummary:
    """A traced step whose tasks' own parts differ from the step's as a whole: the comparison takes the step's."""
    slow = TaskTime(A, 50e-3, 1e-3, {f"{B} -> {A}": 1e-3}, 48e-3)
    quick = TaskTime(B, 1e-3, 1e-3, {}, 0.0)
    step = StepParts(compute_s + waiting_s + idle_s, compute_s, waiting_s, idle_s)
    links = (LinkTime(A, B, 9e-3, 1e6, wire_s=wire_s / 2, latency_s=1e-4, transfers=4),
             LinkTime(B, A, 5e-3, 1e5, wire_s=wire_s, latency_s=1e-4, transfers=4))
    return TraceSummary(steps=3, step_s=20e-3, tasks=(quick, slow), links=links, step=step)


def _by_part(rows):
    return {r.part: r for r in rows}


def test_the_measured_parts_are_the_steps_over_every_task():
    got = _by_part(parts.rows_for("s", PREDICTED, 10e-3, _trace(5.5e-3, 3.5e-3, 1e-3)))
    assert got["compute"].measured_s == pytest.approx(6.5e-3)  # ops and the gaps where nothing is recorded
    assert got["comm"].measured_s == pytest.approx(3.5e-3)
    assert got["other"].measured_s is None
    assert got["comm"].predicted_s == pytest.approx(4e-3)  # exposed communication and its fixed overheads
    assert got["step"].measured_s == 10e-3


def test_the_traced_parts_are_shares_of_the_timed_step():
    """A traced step of 20 ms (one step a call, traced) against a timed one of 10 ms: each part is half its trace."""
    got = _by_part(parts.rows_for("s", PREDICTED, 10e-3, _trace(12e-3, 6e-3, 2e-3)))
    assert (got["compute"].measured_s, got["comm"].measured_s) == pytest.approx((7e-3, 3e-3))
    assert got["compute"].measured_s + got["comm"].measured_s == pytest.approx(got["step"].measured_s)


def test_a_summary_without_the_whole_step_has_no_measured_parts():
    trace = dataclasses.replace(_trace(6e-3, 4e-3, 0.0), step=None)
    got = _by_part(parts.rows_for("s", PREDICTED, 10e-3, trace))
    assert got["compute"].measured_s is None and got["comm"].measured_s is None


@pytest.mark.parametrize("compute_s,flagged", [(6.5e-3, False), (8e-3, True), (4e-3, True)], ids=str)
def test_a_part_off_by_more_than_a_quarter_is_flagged(compute_s, flagged):
    got = _by_part(parts.rows_for("s", PREDICTED, 10e-3, _trace(compute_s, 10e-3 - compute_s, 0.0)))
    assert got["compute"].flagged is flagged


def test_a_small_part_is_never_flagged():
    small = dataclasses.replace(PREDICTED, comm_s=2.6e-3, correction_s=4e-4)
    got = _by_part(parts.rows_for("s", small, 10e-3, _trace(6e-3, 4e-3, 0.0)))
    assert got["other"].predicted_s == 4e-4 and not got["other"].flagged


def test_the_link_with_the_most_wire_time_is_held_to_the_same_links_prediction():
    """A->B is busier, latencies included; B->A carries more bytes on the wire."""
    rows = parts.rows_for("s", PREDICTED, 10e-3, _trace(6e-3, 4e-3, 0.0))
    (link,) = [r for r in rows if r.part.startswith(parts.LINK)]
    assert (link.part, link.predicted_s, link.measured_s) == (f"{parts.LINK} {B}->{A}", 2e-4, 2e-3)
    assert link.flagged


def test_without_a_trace_only_the_step_is_measured():
    got = _by_part(parts.rows_for("s", PREDICTED, 12e-3))
    assert got["step"].measured_s == 12e-3
    assert all(r.measured_s is None for k, r in got.items() if k != "step")
    assert got[f"{parts.LINK} {A}->{B}"].predicted_s == 2e-3


def test_a_breakdown_survives_its_json(tmp_path):
    parts.write_parts(tmp_path / "parts.json", [{"label": "s", "strategy_id": "x", "measured_s": 1.0,
                                                "breakdown": parts.breakdown_to_dict(PREDICTED)}])
    (entry,) = parts.read_parts(tmp_path / "parts.json")
    assert entry["breakdown"] == PREDICTED


def test_a_cut_trace_summary_is_no_trace(tmp_path):
    from runners._trace import trace_paths

    path = trace_paths(tmp_path, "s1")[1]
    path.write_text('{"steps": 3, "step_s"')
    assert parts.trace_of(tmp_path, "s1") is None
    assert parts.trace_of(tmp_path, "s2") is None
