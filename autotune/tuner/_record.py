"""The study's records: the one owner of every attribute name a search writes on a study and its trials.

A trial of the persistent study is a search's record (``stage`` ``simulated``, ``profiled``, ``confirmed`` or
``failed``), a searcher's claim (``claim``) or a searcher itself (``searcher``). :class:`TrialRecord` holds what any
of them says; the stored names are its field names, so a study written by an older search loads unchanged. The
search, the report and the dashboard read and write trials through it and nobody else spells the names.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable, Mapping

SIMULATED, PROFILED, CONFIRMED, FAILED = "simulated", "profiled", "confirmed", "failed"
CLAIM, SEARCHER = "claim", "searcher"
RECORDS = (SIMULATED, PROFILED, CONFIRMED, FAILED)  # a search's results (not its searchers' claims)
MEASURED = (PROFILED, CONFIRMED)  # the records that hold a measurement
DONE = (PROFILED, CONFIRMED, FAILED)  # the records that settle a candidate


@dataclasses.dataclass(frozen=True)
class TrialRecord:
    """What one trial's user attributes say; a field left None is not written (and was not stored)."""

    stage: str | None = None
    strategy_hash: str | None = None
    sim_trial: int | None = None  # the simulated trial the candidate came from
    predicted_s: float | None = None
    measured_s: float | None = None
    p10_s: float | None = None
    p90_s: float | None = None
    examples_per_s: float | None = None
    bytes_per_step: float | None = None
    step_times_s: list | None = None
    runs: int | None = None
    head_to_head_s: float | None = None
    head_to_head_se_s: float | None = None
    steps_per_call: int | None = None
    phases_s: dict | None = None
    source: str | None = None
    builders: list | None = None  # the builders whose strategy this is (none: a search trial)
    simplified: int | None = None
    family: str | None = None
    lossy: bool | None = None
    error: str | None = None  # why its profiling failed
    node: str | None = None  # the node the failure names
    wire_mb: float | None = None  # the sampler's trials: MB on the wire of a step
    memory: dict | None = None  # the sampler's trials: where it does not fit a node's memory
    owner: str | None = None  # a claim's or a searcher's process
    claimed_by: str | None = None  # the searcher whose claim became this record
    phase: str | None = None  # a searcher's phase (``_claims.PHASES``)
    heartbeat_t: float | None = None
    released: str | None = None  # why a claim was released

    def to_attrs(self) -> dict[str, Any]:
        """The user attributes to store: every field that is set."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any]) -> "TrialRecord":
        """The record of stored attributes; names it does not own (another tool's) are left out."""
        return cls(**{k: attrs[k] for k in _NAMES if k in attrs})

    @classmethod
    def of(cls, trial) -> "TrialRecord":
        """The record of an Optuna trial (frozen or live)."""
        return cls.from_attrs(trial.user_attrs)

    def number(self, trial) -> int:
        """The simulated trial this record is of: its ``sim_trial``, else the study trial's own number."""
        return trial.number if self.sim_trial is None else self.sim_trial

    @property
    def pooled_runs(self) -> int:
        """Profiling runs pooled into its measurement (one where not recorded)."""
        return 1 if self.runs is None else self.runs

    def write(self, set_attr: Callable[[str, Any], None]) -> None:
        """Store the set fields one by one through ``set_attr(name, value)`` (a live trial, a storage)."""
        for key, value in self.to_attrs().items():
            set_attr(key, value)


_NAMES = frozenset(f.name for f in dataclasses.fields(TrialRecord))


class StudyKeys:
    """The names of the study's own attributes."""

    MODEL_FINGERPRINT = "model_fingerprint"
    CLUSTER_FINGERPRINT = "cluster_fingerprint"
    MODEL_PATH = "model_path"
    SPEC_PATH = "spec_path"
    SPACE = "space"  # the space's options: a report rebuilds the space to decode parameters
    INVENTORY = "inventory"  # the model as data
    LOWER_BOUND = "lower_bound_s"
    ROUNDS = "rounds"
    FAMILIES = "families"
    WINNER = "winner"  # the decision: ``winner_attrs``
    OWNED = (MODEL_FINGERPRINT, CLUSTER_FINGERPRINT)  # a study belongs to one model and one cluster


def winner_attrs(winner) -> dict[str, Any]:
    """The study's record of the decision, for a report read from the study alone and for the dashboard."""
    return {"sim_trial": winner.trial, "strategy_hash": winner.strategy_hash, "label": winner.label,
            "family": winner.family, "lossy": winner.lossy, "predicted_s": winner.predicted_s,
            "measured_s": winner.measured.median_s if winner.measured else None}


def winner_trial(attrs: Mapping[str, Any]) -> int | None:
    """The simulated trial the study's winner record names (None: no winner recorded)."""
    return (attrs.get(StudyKeys.WINNER) or {}).get("sim_trial")
