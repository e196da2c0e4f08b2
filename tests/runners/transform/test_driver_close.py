"""``TrainingJob.close`` runs on the way out of every job: it must free what it can and never raise."""
from __future__ import annotations

import types


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

    import pytest

    from runners.transform import closed_together

    barrier = threading.Barrier(3)
    with pytest.raises(KeyError):
        with closed_together() as jobs:
            jobs += [_SlowClose(barrier) for _ in range(3)]
            raise KeyError("a failure while the jobs run")
    assert [j.closed for j in jobs] == [True] * 3
