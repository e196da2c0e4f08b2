"""The values the search's phases hand on: the opening's :class:`SearchContext`, then ``Simulated``
(``_simulated``), :class:`Carried`, :class:`Profiled` and :class:`Decision`.

Each phase takes what it needs as arguments and returns what it made; none writes into an object another phase
reads later. The candidates themselves learn their outcome (measured, failed, ruled out) where it is settled
(``_stage.ProfilingStage._settle``), and the study is the search's persistent record, written through
``_record``.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import optuna

from autotune.tuner._types import Candidate, SearchConfig
from simulator import Bound, Calibration, Scorer
from space.cluster import ClusterSpec
from space.inventory import Inventory
from space.search_space import SearchSpace


@dataclasses.dataclass(frozen=True)
class SearchContext:
    """What the opening made and no phase changes: the configuration (its seed drawn once the searcher has
    registered on the study), the model, the cluster, the space, the study, the cost model and the lower bound."""

    cfg: SearchConfig
    cluster: ClusterSpec
    inventory: Inventory
    space: SearchSpace
    dists: dict[str, optuna.distributions.BaseDistribution]
    multi: bool  # two objectives (step time, bytes on the wire)
    name: str  # the study's
    url: str  # the study's storage
    study: optuna.Study
    scorer: Scorer
    calibration: Calibration
    calibrated: bool
    bound: Bound  # the model's lower bound on this cluster (``simulator.lower_bound``)
    say: Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class Carried:
    """What the simulated stage hands the cluster: the builders, the first round to profile, the pool the closed
    loop chooses later rounds from (the builders and the simulated stage's best that fit), and each family's best
    predicted member."""

    builders: list[Candidate]
    to_profile: list[Candidate]
    pool: list[Candidate]
    families: dict[str, Candidate]


@dataclasses.dataclass(frozen=True)
class Profiled:
    """What the profiling made: every candidate chosen to be profiled (later rounds and the other searchers'
    measurements included), the profiling runs done, whether a stop cut it short, the closed loop's rounds and
    the seconds of its parts."""

    candidates: list[Candidate]
    runs: int
    interrupted: bool
    rounds: list = dataclasses.field(default_factory=list)
    timing: dict[str, float] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class Decision:
    """The winner, and the line saying so where the noise rule kept a builder (else "")."""

    winner: Candidate
    kept: str = ""
