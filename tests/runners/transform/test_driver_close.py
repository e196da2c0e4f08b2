"""``TrainingJob.close`` runs on the way out of every job: it must free what it can and never raise."""
from __future__ import annotations

import types

import pytest


_LIVE = types.SimpleNamespace(closed=False, dead_servers=lambda: [])


class _Session:
    def __init__(self, error):
        self.error, self.closed = error, 0

    def close(self):
        self.closed += 1
        raise self.error


def test_close_survives_a_session_that_times_out_and_frees_nothing_twice():
    """On the 3-host testbed a session's close once timed out (``DeadlineExceededError``) after a comparison had
    been measured, and the exception ended the whole fidelity run. Both steps of close are tried, the first
    failure is kept in ``close_error``, and a second close does nothing."""
    import tensorflow as tf

    from runners.transform._driver import TrainingJob
    from space.errors import RunError

    calls = []

    def destroy(session, fetches, timeout_s):
        calls.append((session, fetches, timeout_s))
        raise RunError("step did not finish within 30 s")

    session = _Session(tf.errors.DeadlineExceededError(None, None, "Deadline Exceeded"))
    job = TrainingJob.__new__(TrainingJob)
    job.session, job.graph, job.close_error = session, types.SimpleNamespace(destroy_op="destroy", inputs=[]), ""
    job._run_with_timeout = destroy
    job.cluster = _LIVE
    job.close()
    assert job.session is None and session.closed == 1 and calls == [(session, "destroy", 30.0)]
    assert job.close_error.startswith("freeing the trial's variables: RunError: step did not finish")
    job.close()
    assert session.closed == 1 and len(calls) == 1


def test_close_records_a_failing_session_close():
    import tensorflow as tf

    from runners.transform._driver import TrainingJob

    session = _Session(tf.errors.DeadlineExceededError(None, None, "Deadline Exceeded"))
    job = TrainingJob.__new__(TrainingJob)
    job.session, job.graph, job.close_error = session, types.SimpleNamespace(destroy_op="destroy", inputs=[]), ""
    job._run_with_timeout = lambda *a: None
    job.cluster = _LIVE
    job.close()
    assert job.session is None and job.close_error == "closing the session: DeadlineExceededError: Deadline Exceeded"


def test_close_leaves_a_session_alone_once_a_server_died():
    """A step given up on may still be blocked in its thread on this session, and a dead server frees nothing."""
    import tensorflow as tf

    from runners.transform._driver import TrainingJob

    session = _Session(tf.errors.DeadlineExceededError(None, None, "Deadline Exceeded"))
    job = TrainingJob.__new__(TrainingJob)
    job.session, job.graph, job.close_error = session, types.SimpleNamespace(destroy_op="destroy", inputs=[]), ""
    job._run_with_timeout = lambda *a: (_ for _ in ()).throw(AssertionError("must not run"))
    job.cluster = types.SimpleNamespace(closed=False, dead_servers=lambda: ["task 1"])
    job.close()
    assert job.session is None and session.closed == 0 and "lost a server" in job.close_error


class _SlowClose:
    """A job whose close waits until every job of its group is closing: closed one after the other, the first
    would wait forever (the barrier's timeout)."""

    def __init__(self, barrier):
        self.barrier, self.closed = barrier, False

    def close(self):
        self.barrier.wait(timeout=10)
        self.closed = True


def test_jobs_closed_together_close_at_once_even_on_an_error():
    import threading

    from runners.transform import closed_together

    barrier = threading.Barrier(3)
    with pytest.raises(KeyError):
        with closed_together() as jobs:
            jobs += [_SlowClose(barrier) for _ in range(3)]
            raise KeyError("a failure while the jobs run")
    assert [j.closed for j in jobs] == [True] * 3


@pytest.mark.slow
def test_a_job_whose_cluster_stopped_lets_its_session_go_without_asking_it(spec, traced, monkeypatch):
    """Dropped as it is, a session whose servers are gone closes itself with a call to its master that waits out
    gRPC's retries (48 s for each of five jobs on loopback); a job closed after its cluster stopped skips that call."""
    import gc
    import weakref

    from tensorflow.python.client import session as tf_session_module

    from runners.cluster import start_cluster
    from runners.transform import TrainingJob
    from space.builders import build_strategy

    calls: list = []
    real = tf_session_module.tf_session.TF_CloseSession
    monkeypatch.setattr(tf_session_module.tf_session, "TF_CloseSession", lambda s: calls.append(s) or real(s))
    t, inv = traced("mlp")
    with start_cluster(spec, timeout_s=90) as cluster:
        job = TrainingJob(t, build_strategy("ps", inv, spec), cluster, step_timeout_s=60)
        job.run(2)
        session = weakref.ref(job.session)
    job.close()
    gc.collect()
    assert session() is None, "the session outlived its job: nothing was tested"
    assert job.session is None and calls == [] and "stopped" in job.close_error
