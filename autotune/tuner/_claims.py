"""Searchers sharing one study divide the profiling: a candidate is claimed in the study before it is profiled.

A claim is a RUNNING trial (``stage: "claim"``, the candidate's ``strategy_hash``, its searcher, a heartbeat time
refreshed every ``heartbeat_s`` while the searcher lives). Claiming is race-free without locks: a searcher adds its
claim, then reads every live claim of that hash, and the one with the lowest trial number holds it; the others
withdraw theirs. A claim whose heartbeat is older than ``grace_s`` belongs to a searcher that died: it is released
(FAIL, ``lapsed``) by whoever meets it next, and the candidate can be claimed again. A finished claim becomes the
candidate's record (:meth:`Claims.finish`: ``stage: "profiled"``, COMPLETE; or ``"failed"``, FAIL).

Each searcher also registers (``stage: "searcher"``): the n-th on a study draws its simulated trials with seed n
unless ``--seed`` is given, so concurrent searchers do not simulate the same trials.
"""
from __future__ import annotations

import dataclasses
import datetime
import functools
import os
import socket
import threading
import time

import optuna

from autotune.tuner._record import CLAIM, DONE, SEARCHER, TrialRecord
from autotune.tuner._study import record

_State = optuna.trial.TrialState
RUNNING, FAIL, COMPLETE = _State.RUNNING, _State.FAIL, _State.COMPLETE
PHASES = ("simulating", "profiling", "profiled", "deciding", "done")


def _behind(r: TrialRecord, alive_since: float, need: int) -> bool:
    """Whether ``r`` is a live searcher (a heartbeat since ``alive_since``) short of the phase numbered ``need``."""
    return (r.stage == SEARCHER and (r.heartbeat_t or 0.0) >= alive_since
            and PHASES.index(r.phase or PHASES[0]) < need)


class Claims:
    """The claims of one searcher on one study (a context manager: its heartbeat runs while it is open)."""

    def __init__(self, study: optuna.Study, *, heartbeat_s: float = 5.0, grace_s: float = 30.0) -> None:
        self.study = study
        self.storage = study._storage  # noqa: SLF001 - trials by id: the public API cannot update a RUNNING one
        self.study_id = study._study_id  # noqa: SLF001
        self.heartbeat_s, self.grace_s = heartbeat_s, grace_s
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self.held: dict[str, int] = {}  # strategy hash -> trial id of my claim
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._searcher = self._add(TrialRecord(stage=SEARCHER, owner=self.owner, phase=PHASES[0]))
        self._thread = threading.Thread(target=self._beat, name="autotune-claims", daemon=True)
        self._thread.start()

    # ---- registration ----------------------------------------------------------------------------------
    def rank(self) -> int:
        """How many searchers registered on this study before this one (0 for the first)."""
        return sum(1 for t in self._trials() if TrialRecord.of(t).stage == SEARCHER
                   and t._trial_id < self._searcher)  # noqa: SLF001 - the storage's order of creation

    # ---- phases ----------------------------------------------------------------------------------------
    def set_phase(self, phase: str) -> None:
        """Say where this searcher is (:data:`PHASES`): the others wait for it at :meth:`wait_for_others`."""
        TrialRecord(phase=phase).write(functools.partial(self.storage.set_trial_user_attr, self._searcher))

    def wait_for_others(self, phase: str, poll_s: float = 1.0, say=None) -> None:
        """Block until every other live searcher has reached ``phase`` (a barrier; a searcher that died lapses)."""
        need = PHASES.index(phase)
        told = False
        while True:
            now = time.time()
            behind = [t for t in self._trials() if t.state == RUNNING
                      and t._trial_id != self._searcher  # noqa: SLF001
                      and _behind(TrialRecord.of(t), now - self.grace_s, need)]
            if not behind:
                return
            if say and not told:
                say(f"waiting for {len(behind)} other searcher(s) on this study to finish "
                    f"{PHASES[need - 1] if need else 'starting'}")
                told = True
            time.sleep(poll_s)

    def wait_released(self, key: str, poll_s: float = 1.0) -> None:
        """Block until no live claim of ``key`` remains (its holder finished, or died and lapsed)."""
        while self.live(key):
            time.sleep(poll_s)

    # ---- claims ----------------------------------------------------------------------------------------
    def claim(self, strategy_hash: str) -> bool:
        """Claim the candidate; False when another live searcher holds it, or one has recorded it meanwhile."""
        mine = self._add(TrialRecord(stage=CLAIM, strategy_hash=strategy_hash, owner=self.owner))
        holders = sorted(t._trial_id for t in self.live(strategy_hash))  # noqa: SLF001
        if (holders and holders[0] != mine) or self.recorded(strategy_hash):
            self._release(mine, "withdrawn")
            return False
        with self._lock:
            self.held[strategy_hash] = mine
        return True

    def finish(self, strategy_hash: str, params: dict, distributions: dict, values: list[float] | None,
               rec: TrialRecord) -> bool:
        """Record the candidate in place of my claim: its parameters, ``rec`` and ``values`` (COMPLETE), or FAIL
        when ``values`` is None, then release the claim. False when I hold no claim of it (the caller records it
        another way). The record is one trial written whole, in one transaction (a storage write per parameter
        took seconds a record on SQLite for a model of many variables); a searcher that reads both the record and
        the claim before the claim is released finds the candidate recorded and does not claim it."""
        with self._lock:
            trial_id = self.held.pop(strategy_hash, None)
        if trial_id is None:
            return False
        record(self.study, distributions, params, values, dataclasses.replace(rec, claimed_by=self.owner))
        self._release(trial_id, "recorded")
        return True

    def recorded(self, strategy_hash: str) -> bool:
        """Whether a searcher has recorded the candidate (measured it, or seen it fail)."""
        return any(t.state != RUNNING and (r := TrialRecord.of(t)).strategy_hash == strategy_hash and r.stage in DONE
                   for t in self._trials())

    def release(self, strategy_hash: str) -> None:
        with self._lock:
            trial_id = self.held.pop(strategy_hash, None)
        if trial_id is not None:
            self._release(trial_id, "done")

    def live(self, strategy_hash: str | None = None) -> list:
        """The live claims (of one hash): RUNNING, heartbeat within ``grace_s``; lapsed ones are released here."""
        now, out = time.time(), []
        for t in self._trials():
            r = TrialRecord.of(t)
            # a claim being turned into its record has its record's stage before it completes: still held
            if t.state != RUNNING or r.stage not in (CLAIM, *DONE):
                continue
            if strategy_hash is not None and r.strategy_hash != strategy_hash:
                continue
            if now - (r.heartbeat_t or 0.0) > self.grace_s:
                self._release(t._trial_id, "lapsed")  # noqa: SLF001 - its searcher stopped beating
                continue
            out.append(t)
        return out

    # ---- plumbing --------------------------------------------------------------------------------------
    def _trials(self) -> list:
        return self.storage.get_all_trials(self.study_id, deepcopy=False)

    def _add(self, rec: TrialRecord) -> int:
        """A RUNNING trial of ``rec``, written in one transaction."""
        now = datetime.datetime.now()
        template = optuna.trial.FrozenTrial(
            number=-1, state=RUNNING, value=None, datetime_start=now, datetime_complete=None, params={},
            distributions={}, user_attrs=dataclasses.replace(rec, heartbeat_t=time.time()).to_attrs(), system_attrs={},
            intermediate_values={}, trial_id=-1)
        return self.storage.create_new_trial(self.study_id, template_trial=template)

    def _release(self, trial_id: int, why: str) -> None:
        try:
            TrialRecord(released=why).write(functools.partial(self.storage.set_trial_user_attr, trial_id))
            self.storage.set_trial_state_values(trial_id, FAIL)
        except (RuntimeError, optuna.exceptions.UpdateFinishedTrialError):
            pass  # released already (by its owner, or by another searcher that found it lapsed)

    def _beat(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            with self._lock:
                ids = [self._searcher, *self.held.values()]
            for trial_id in ids:
                try:
                    TrialRecord(heartbeat_t=time.time()).write(
                        functools.partial(self.storage.set_trial_user_attr, trial_id))
                except Exception:  # noqa: BLE001 - a lapsed claim another searcher released; the next beat goes on
                    pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=self.heartbeat_s + 5)
        for h in list(self.held):
            self.release(h)
        try:
            self.set_phase("done")
        except Exception:  # noqa: BLE001 - closing on the way out of an error must not raise another
            pass
        self._release(self._searcher, "done")

    def __enter__(self) -> "Claims":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
