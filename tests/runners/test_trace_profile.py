"""``autotune profile --trace DIR`` on the loopback cluster: one Chrome trace that loads, with events from every task,
and a summary whose parts add up to each task's span of the step."""
from __future__ import annotations

import json

import pytest

from runners._trace import load_summary, trace_paths
from testpaths import CLUSTERS, MODELS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def traced_profile(lent_localhost, tmp_path_factory, cache_dir):
    from autotune.cli import main
    from space.strategy import Strategy

    out = tmp_path_factory.mktemp("traced")
    spec = CLUSTERS / "localhost.yml"
    strategy = out / "s.pb"
    assert main(["build", "--builder", "all_reduce", "--model", str(MODELS / "mlp.py"), "--spec", str(spec),
                 "--cache-dir", str(cache_dir), "-o", str(strategy)]) == 0
    assert main(["profile", "--model", str(MODELS / "mlp.py"), "--spec", str(spec), "--strategy", str(strategy),
                 "--steps", "3", "--warmup", "2", "--steps-per-call", "1", "--trace", str(out / "trace")]) == 0
    return trace_paths(out / "trace", Strategy.load(strategy).proto.id)


def test_the_trace_loads_with_events_from_every_task(traced_profile):
    trace = json.loads(traced_profile[0].read_text())["traceEvents"]
    lanes = {e["pid"]: e["args"]["name"] for e in trace if e.get("ph") == "M" and e["name"] == "process_name"}
    drawn = {lanes[e["pid"]] for e in trace if e.get("ph") == "X"}
    for task in ("task:0", "task:1"):
        assert any(task in lane for lane in drawn), task


def test_each_tasks_parts_add_up_to_its_span_of_the_step(traced_profile):
    summary = load_summary(traced_profile[1])
    assert {t.task for t in summary.tasks} == {"127.0.0.1", "127.0.0.2"}
    for t in summary.tasks:
        assert t.compute_s > 0
        assert t.compute_s + t.waiting_total_s + t.other_s == pytest.approx(t.span_s)
        assert t.span_s <= summary.step_s  # a task's part of the call is inside the driver's
    st = summary.step
    assert st.compute_s > 0 and st.compute_s + st.comm_s + st.idle_s == pytest.approx(st.span_s)


def test_the_all_reduce_keeps_both_directions_busy(traced_profile):
    summary = load_summary(traced_profile[1])
    assert {(x.src, x.dst) for x in summary.links} == {("127.0.0.1", "127.0.0.2"), ("127.0.0.2", "127.0.0.1")}
    assert traced_profile[2].read_text().startswith("traced ")
