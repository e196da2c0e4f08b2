"""Traced steps summed up per task and per link, and merged into one Chrome trace (``runners._step_stats``), on
hand-made ``StepStats`` whose parts can be counted by hand and on one recorded from a real step."""
from __future__ import annotations

import json

import pytest

from runners import _step_stats as ss
from testpaths import ROOT

T0, T1, T2 = (f"/job:worker/replica:0/task:{k}" for k in range(3))
RECORDED = ROOT / "tests" / "fixtures" / "traces" / "mlp_all_reduce_loopback.pbtxt"


def _stats(ops=(), recv=()):
    """``ops``: (task, name, op type, start us, end us); ``recv``: (src task, dst task, start, end, label size)."""
    from tensorflow.core.framework.step_stats_pb2 import StepStats

    out = StepStats()
    lanes: dict = {}
    for task, name, op, start, end in ops:
        dev = lanes.setdefault(task, out.dev_stats.add(device=f"{task}/device:CPU:0"))
        dev.node_stats.add(node_name=name, all_start_micros=start, all_end_rel_micros=end - start,
                           timeline_label=f"{name} = {op}()")
    for src, dst, start, end, size in recv:
        dev = lanes.setdefault(("in", dst), out.dev_stats.add(device=f"{dst}/device:CPU:0"))
        dev.node_stats.add(node_name="RecvTensor", all_start_micros=start, all_end_rel_micros=end - start,
                           timeline_label=f"[{size}] [1Mb/s] edge_1_x from {src}/device:CPU:0 to {dst}/device:CPU:0")
    return out


def _task(summary, name):
    return next(t for t in summary.tasks if t.task == name)


def test_a_task_computes_waits_on_its_link_and_in_a_collective():
    step = _stats(ops=[(T0, "a", "MatMul", 0, 10), (T0, "b", "Add", 30, 40), (T0, "c", "CollectiveReduceV2", 40, 50),
                       (T1, "d", "MatMul", 0, 5)],
                  recv=[(T1, T0, 10, 30, "1024B")])
    got = _task(ss.summarize([step], [1e-4]), T0)
    assert (got.span_s, got.compute_s, got.other_s) == pytest.approx((50e-6, 20e-6, 0.0))
    assert got.waiting_s == pytest.approx({ss.link_name(T1, T0): 20e-6, ss.COLLECTIVE: 10e-6})


def test_a_transfer_under_compute_is_not_waiting():
    step = _stats(ops=[(T0, "a", "MatMul", 0, 10), (T0, "b", "Add", 20, 30)], recv=[(T1, T0, 5, 15, "4B")])
    got = _task(ss.summarize([step], [1e-4]), T0)
    assert got.waiting_s == pytest.approx({ss.link_name(T1, T0): 5e-6})
    assert got.other_s == pytest.approx(5e-6)


def test_links_under_way_at_once_share_the_wait():
    step = _stats(ops=[(T0, "a", "MatMul", 0, 10), (T0, "b", "Add", 30, 31)],
                  recv=[(T1, T0, 10, 30, "4B"), (T2, T0, 20, 30, "4B")])
    got = _task(ss.summarize([step], [1e-4]), T0)
    assert got.waiting_s == pytest.approx({ss.link_name(T1, T0): 15e-6, ss.link_name(T2, T0): 5e-6})


def test_a_link_is_busy_while_some_transfer_is_under_way():
    step = _stats(ops=[(T0, "a", "MatMul", 0, 100)],
                  recv=[(T1, T0, 10, 30, "0.5MB"), (T1, T0, 20, 40, "512B"), (T1, T0, 60, 70, "2KB")])
    (link,) = ss.summarize([step], [1e-4]).links
    assert (link.src, link.dst, link.busy_s) == (T1, T0, pytest.approx(40e-6))
    assert link.bytes == 0.5 * 2 ** 20 + 512 + 2048


def test_a_link_is_busy_once_the_tensor_it_carries_is_made():
    """The receiver asked for the tensor ``x`` at 10 us; its producer on the sender ended at 25 us."""
    step = _stats(ops=[(T1, "x", "MatMul", 5, 25), (T0, "a", "Add", 0, 10)], recv=[(T1, T0, 10, 30, "4B")])
    got = ss.summarize([step], [1e-4])
    assert got.links[0].busy_s == pytest.approx(5e-6)
    assert _task(got, T0).waiting_s == pytest.approx({ss.link_name(T1, T0): 20e-6})


def test_the_step_is_swept_over_every_task_at_once():
    """T1 computes while T0 waits on it: compute; a transfer, then a collective with no op anywhere: communication;
    nothing recorded at all: idle."""
    step = _stats(ops=[(T0, "a", "MatMul", 0, 10), (T1, "b", "MatMul", 5, 20), (T0, "c", "CollectiveReduceV2", 30, 40),
                       (T0, "d", "Add", 50, 60)],
                  recv=[(T1, T0, 8, 30, "1024B")])
    got = ss.summarize([step], [1e-4]).step
    assert (got.span_s, got.compute_s, got.comm_s, got.idle_s) == pytest.approx((60e-6, 30e-6, 20e-6, 10e-6))


def test_a_links_wire_time_leaves_out_each_transfers_latency():
    """The 4-byte record alone (5 us) is the latency; the one under the large record queued behind it and is not;
    the large record is on the wire from its start plus the latency."""
    step = _stats(ops=[(T0, "a", "MatMul", 0, 100)],
                  recv=[(T1, T0, 0, 5, "4B"), (T1, T0, 10, 40, "0.5MB"), (T1, T0, 12, 14, "8B")])
    (link,) = ss.summarize([step], [1e-4]).links
    assert (link.busy_s, link.wire_s, link.latency_s, link.transfers) == pytest.approx((35e-6, 25e-6, 5e-6, 3))


def test_a_small_transfer_that_waited_for_its_producer_is_no_latency():
    """The 4-byte tensor ``x`` was made at 25 us, after it was asked for at 10 us: the 2-byte one (4 us) is the
    latency."""
    step = _stats(ops=[(T1, "x", "MatMul", 5, 25), (T0, "a", "Add", 0, 100)],
                  recv=[(T1, T0, 10, 27, "4B"), (T1, T0, 40, 44, "2B"), (T1, T0, 50, 70, "1MB")])
    link = next(x for x in ss.summarize([step], [1e-4]).links)
    assert (link.latency_s, link.wire_s) == pytest.approx((4e-6, 16e-6))


def test_a_link_of_small_transfers_only_has_no_wire_time():
    step = _stats(ops=[(T0, "a", "MatMul", 0, 100)], recv=[(T1, T0, 0, 5, "4B"), (T1, T0, 10, 30, "2KB")])
    (link,) = ss.summarize([step], [1e-4]).links
    assert (link.busy_s, link.wire_s) == pytest.approx((25e-6, 0.0))


def test_steps_are_averaged_and_tasks_renamed():
    steps = [_stats(ops=[(T0, "a", "MatMul", 0, d)]) for d in (10, 30)]
    got = ss.summarize(steps, [1.0, 3.0], {T0: "10.0.0.1"})
    assert (got.steps, got.step_s) == (2, 2.0)
    assert _task(got, "10.0.0.1").compute_s == pytest.approx(20e-6)


def test_merging_keeps_ops_and_transfers_in_lanes_of_their_own():
    step = _stats(ops=[(T0, "a", "MatMul", 0, 10), (T1, "b", "Add", 0, 5)], recv=[(T1, T0, 10, 30, "4B")])
    got = ss.merged([step, step])
    lanes = {d.device: len(d.node_stats) for d in got.dev_stats}
    assert lanes == {f"{T0}/device:CPU:0": 2, f"{T1}/device:CPU:0": 2, f"{T0}/device:CPU:0{ss.TRANSFER_SUFFIX}": 2}


def test_the_chrome_trace_draws_every_task_and_labels_transfers():
    step = _stats(ops=[(T0, "a", "MatMul", 0, 10), (T1, "b", "Add", 0, 5)], recv=[(T1, T0, 10, 30, "4B")])
    trace = json.loads(ss.chrome_trace(ss.merged([step])))["traceEvents"]
    lanes = {e["pid"]: e["args"]["name"] for e in trace if e.get("ph") == "M" and e["name"] == "process_name"}
    drawn = {lanes[e["pid"]] for e in trace if e.get("ph") == "X"}
    assert any(T0 in lane for lane in drawn) and any(T1 in lane for lane in drawn)
    (recv,) = [e for e in trace if e.get("name") == "RecvTensor"]
    assert f"from {T1}" in recv["args"]["label"]


@pytest.fixture(scope="module")
def recorded():
    from google.protobuf import text_format
    from tensorflow.core.framework.step_stats_pb2 import StepStats

    return text_format.Parse(RECORDED.read_text(), StepStats())


def test_a_recorded_steps_parts_add_up_to_each_tasks_span(recorded):
    got = ss.summarize([recorded], [0.0128])
    assert {t.task for t in got.tasks} == {T0, T1}
    for t in got.tasks:
        assert t.compute_s + t.waiting_total_s + t.other_s == pytest.approx(t.span_s)
        assert 0 < t.span_s <= got.step_s


def test_a_recorded_all_reduce_uses_both_directions(recorded):
    got = ss.summarize([recorded], [0.0128])
    assert {(x.src, x.dst) for x in got.links} == {(T0, T1), (T1, T0)}
    assert all(x.busy_s > 0 and x.bytes > 0 for x in got.links)
    assert "collective" in " ".join(k for t in got.tasks for k in t.waiting_s)


def test_a_recorded_steps_parts_add_up_to_its_span(recorded):
    got = ss.summarize([recorded], [0.0128])
    st = got.step
    assert st.compute_s + st.comm_s + st.idle_s == pytest.approx(st.span_s)
    assert st.span_s >= max(t.span_s for t in got.tasks)  # the tasks start apart: the step spans them all
    assert all(0 <= x.wire_s <= x.busy_s for x in got.links)
