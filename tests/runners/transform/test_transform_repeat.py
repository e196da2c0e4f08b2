"""Several steps per ``Session.run`` train exactly as one step per call: same variables, state, optimizer slots
and losses, whatever the strategy (collectives, PS, shards, compressors with state, BatchNorm, fed inputs, loops
reading tower-local copies)."""
from __future__ import annotations

import numpy as np
import pytest

from space.builders import build_strategy

pytestmark = pytest.mark.slow

STEPS = 7  # not a multiple of the steps per call: the last call runs fewer
CASES = [("mlp", "all_reduce", 3), ("cnn", "all_reduce_fp16_ef", 3), ("recommender", "ps", 4),
         ("recommender", "partitioned_ps", 2), ("mlp", "all_reduce_powersgd", 5), ("from_generator", "ps_lb", 3),
         ("recommender", "parallax", 3), ("cnn", "ps_proxy", 2), ("keras_lstm", "ps_lb", 3)]


def _train(t, strategy, cluster, steps_per_call: int):
    from runners.transform import TrainingJob

    with TrainingJob(t, strategy, cluster, step_timeout_s=60) as job:
        assert job.set_steps_per_call(steps_per_call) == steps_per_call
        losses: list[float] = []
        times = job.run(STEPS, on_step=lambda _s, _dt, loss: losses.append(loss))
        assert len(times) == len(losses) == STEPS and job.steps_done == [STEPS] * job.graph.num_towers
        return job.snapshot(), losses


def _zoo(traced, name: str):
    from space.model import inventory_from_trace, trace_step

    from testpaths import ROOT

    path = ROOT / "examples" / "zoo" / f"{name}.py"
    if not path.is_file():
        return traced(name)
    t = trace_step(path)
    return t, inventory_from_trace(t)


@pytest.mark.parametrize("model,alias,k", CASES, ids=[f"{m}-{a}-k{k}" for m, a, k in CASES])
def test_k_steps_per_call_equal_k_calls(model, alias, k, cluster, spec, traced):
    t, inv = _zoo(traced, model)
    strategy = build_strategy(alias, inv, spec)
    (v1, s1, slots1), losses1 = _train(t, strategy, cluster, 1)
    (vk, sk, slotsk), lossesk = _train(t, strategy, cluster, k)
    assert lossesk == losses1
    for name in v1:
        np.testing.assert_array_equal(vk[name], v1[name], err_msg=name)
    for name in s1:
        np.testing.assert_array_equal(sk[name], s1[name], err_msg=name)
    for name, by_slot in slots1.items():
        for slot, value in by_slot.items():
            np.testing.assert_array_equal(slotsk[name][slot], value, err_msg=f"{name}/{slot}")


def test_threads_mode_keeps_one_step_per_call(cluster, spec, traced):
    from runners.transform import TrainingJob

    t, inv = traced("mlp")
    with TrainingJob(t, build_strategy("ps_async", inv, spec), cluster, step_timeout_s=60) as job:
        assert job.set_steps_per_call(4) == 1
        assert len(job.run(3)) == 3 * job.graph.num_towers


def test_chosen_steps_per_call_hide_the_call_cost(cluster, spec, traced):
    """The mlp's step is about as short as a call's own cost: it gets several steps per call, chosen from probe
    calls that train like any other (their steps are counted)."""
    from runners.transform import TrainingJob

    t, inv = traced("mlp")
    with TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, step_timeout_s=60) as job:
        assert job.call_overhead_s() > 0
        one = job.run(6)[1:]
        k = job.choose_steps_per_call(sorted(one)[len(one) // 2])
        assert 2 <= k <= job.MAX_STEPS_PER_CALL and job.steps_per_call == k
        assert k & (k - 1) == 0, "a power of two: runs whose noisy estimates differ by less than 2x choose alike"
        assert job.probe_steps == job.PROBE_CALLS * job.probe_length()
        assert job.steps_done == [6 + job.probe_steps] * 2


def test_a_low_cap_is_probed_at_the_cap(cluster, spec, traced):
    """Every job allows at most 8 steps per call: the probe calls run 8 steps each, and where the choice is 8 no
    call of another length is built (each length's executors take the servers seconds to build)."""
    from runners.profile import settle_steps_per_call
    from runners.transform import TrainingJob

    cap = TrainingJob.MAX_STEPS_PER_CALL
    assert cap <= TrainingJob.PROBE_AT_CAP
    t, inv = traced("mlp")
    with TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, step_timeout_s=60) as job:
        k = settle_steps_per_call(job, job.run(3), samples=20)
        assert job.probe_steps == job.PROBE_CALLS * cap and job.steps_per_call == k
        assert job.built_calls == ({1, cap} if k == cap else {1, cap, k})
        assert job.steps_done == [3 + job.probe_steps + (0 if k == cap else k)] * 2


def test_a_slow_step_is_not_probed_for_steps_per_call(cluster, spec, traced):
    """A one-step call far longer than any call's own cost shows one step per call is enough: no probe calls (five
    calls of eight steps would cost a one-second step 40 s), no executors of another call length. A step in between
    is probed only up to what it could want."""
    from runners.transform import TrainingJob

    t, inv = traced("mlp")
    with TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, step_timeout_s=60) as job:
        job.run(2)
        floor = job.call_overhead_s()
        slow = 100 * job.CALL_OVER_NOOP * floor / job.CALL_SHARE
        assert job.most_wanted(slow, floor) == 1
        assert job.choose_steps_per_call(slow) == 1
        assert job.probe_steps == 0 and job.built_calls == {1} and job.steps_done == [2] * 2
        # a step at 1.5 x the bound over a 2% share wants at most 2-4 steps per call
        middle = job.CALL_OVER_NOOP * floor * (1 + 1 / (1.5 * job.CALL_SHARE))
        assert 2 <= job.most_wanted(middle, floor) <= 4
        assert job.most_wanted(job.CALL_OVER_NOOP * floor, floor) == job.MAX_STEPS_PER_CALL


def test_a_graph_built_ahead_in_another_thread_trains_as_one_built_in_place(cluster, spec, traced):
    """Calibrate builds each job's graph, with its copies, in a thread while the last job runs."""
    import concurrent.futures

    from runners.transform import TrainingJob, job_graph

    t, inv = traced("recommender")
    strategy = build_strategy("ps", inv, spec)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        graph = pool.submit(job_graph, t, strategy, cluster, copies=3).result()
    assert len(graph.steps.train_ops) == 3
    runs = []
    for ahead in (graph, None):
        with TrainingJob(t, strategy, cluster, step_timeout_s=60, graph=ahead) as job:
            job.set_steps_per_call(3)
            losses: list[float] = []
            job.run(STEPS, on_step=lambda _s, _dt, loss: losses.append(loss))
            runs.append((losses, job.values()[0]))
    (losses_ahead, values_ahead), (losses_here, values_here) = runs
    assert losses_ahead == losses_here and len(losses_here) == STEPS
    for name, value in values_here.items():
        np.testing.assert_array_equal(values_ahead[name], value, err_msg=name)


def test_a_remainder_runs_one_step_per_call(cluster, spec, traced):
    """A call of another length than the chosen one would build its own executors on every server (tens of
    seconds for a large step graph): the steps that do not fill a call run one per call."""
    from runners.transform import TrainingJob

    t, inv = traced("mlp")
    with TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, step_timeout_s=60) as job:
        job.run(1)
        calls: list[int] = []
        run = job._run

        def counted(fetches, **kwargs):
            calls.append(len(fetches[1]))
            return run(fetches, **kwargs)

        job._run = counted
        job.set_steps_per_call(3)
        assert len(job.run(8)) == 8
        assert calls == [3, 3, 1, 1]


def test_copies_leave_the_ops_already_run_unchanged(cluster, spec, traced):
    """Copies are added after the first step has run; TensorFlow warns about (and means to refuse) changes to ops a
    session has run, so the copies order themselves after the step without touching its ops."""
    from runners.transform import TrainingJob

    t, inv = traced("mlp")
    with TrainingJob(t, build_strategy("all_reduce", inv, spec), cluster, step_timeout_s=60) as job:
        job.run(1)
        graph = job.graph.graph
        before = {name: graph.get_operation_by_name(name).node_def.SerializeToString(deterministic=True)
                  for name in job.graph.steps.names}
        job.set_steps_per_call(3)
        assert len(job.run(3)) == 3
        after = {name: graph.get_operation_by_name(name).node_def.SerializeToString(deterministic=True)
                 for name in before}
        assert [n for n in before if before[n] != after[n]] == []
