"""Interrupts held across a library loop: real signals sent to this process."""
import os
import signal

import optuna
import pytest

from autotune import _signals


@pytest.fixture(autouse=True)
def ctrl_c_raises():
    """Ctrl-C as an interactive Python gets it: a process started in the background of a non-interactive shell (a
    CI job, ``nohup``) inherits SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_interrupts_wait_for_the_safe_point():
    reached = []
    with pytest.raises(KeyboardInterrupt):
        with _signals.deferred_interrupts() as held:
            os.kill(os.getpid(), signal.SIGINT)
            reached.append(1)  # Ctrl-C is only recorded
            os.kill(os.getpid(), signal.SIGINT)
            reached.append(2)  # and so is a repeat
            assert isinstance(held.pending, KeyboardInterrupt)
            held.check()
            reached.append(3)
    assert reached == [1, 2]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_sigterm_held_is_reported_as_sigterm():
    installed, previous = _signals.stop_on_sigterm()
    assert installed
    try:
        with pytest.raises(_signals.Terminated):
            with _signals.deferred_interrupts():
                os.kill(os.getpid(), signal.SIGTERM)
        assert _signals.interrupted_code() == 143
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)
        _signals._terminated.clear()


def test_an_ignored_signal_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with _signals.deferred_interrupts() as held:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGINT)
        assert held.pending is None
    finally:
        signal.signal(signal.SIGINT, previous)


class _InterruptWhileRecording(optuna.samplers.RandomSampler):
    """Ctrl-C delivered while Optuna records a trial (its sampler's ``after_trial`` runs inside that step), and
    again while it records the trial the interrupt ended."""

    def after_trial(self, study, trial, state, values):
        os.kill(os.getpid(), signal.SIGINT)
        super().after_trial(study, trial, state, values)


def test_ctrl_c_while_optuna_records_a_trial_stops_the_loop_as_ctrl_c():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study(sampler=_InterruptWhileRecording(seed=0))
    ran = []

    def objective(trial):
        held.check()
        ran.append(trial.number)
        return trial.suggest_float("x", 0, 1)

    with pytest.raises(KeyboardInterrupt) as e:
        with _signals.deferred_interrupts() as held:
            study.optimize(objective, n_trials=50)
    assert type(e.value) is KeyboardInterrupt
    assert ran == [0]  # the next trial's safe point stopped it
    assert study.trials[0].state == optuna.trial.TrialState.COMPLETE
