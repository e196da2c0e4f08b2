"""The search's data: its configuration, the candidates carried out of the simulated stage, and its result.

Kept apart from the stages (``_pipeline``, ``_simulated``, ``_stage``) so that each imports them without
importing the others."""
from __future__ import annotations

import dataclasses
import hashlib
import pathlib
from typing import Any

from space import families
from space.cluster import ClusterSpec
from space.errors import BadInput
from space.inventory import Inventory
from space.strategy import Strategy

REDUCE_ABOVE = 16  # variables above which the search uses the reduced (per-class) space


@dataclasses.dataclass
class SearchConfig:
    model: str
    spec: str
    output: pathlib.Path
    trials: int = 2000
    top_k: int = 5
    builders_to_profile: int = 5  # at most this many builders profiled beside the top-k ...
    builder_band: float = 1.5  # ... those predicted within this factor of the best builder
    max_profiles: int = 10  # profiling runs in all, confirmation included
    confirm: int = 3  # of those, re-measure up to this many contenders head to head ...
    confirm_within: float = 0.25  # ... measured within this fraction of the best (one run's noise: 10-20%)
    round_size: int = 2  # candidates per profiling round after the first, chosen by the refitted cost model
    time_budget_s: float | None = None  # the simulated stage's own limit
    budget_s: float | None = None  # the whole search's, calibration included (--budget)
    storage: str | None = None
    study_name: str | None = None
    resume: bool = False
    seed: int | None = None  # None: the n-th searcher on a study uses seed n (one alone: 0)
    sampler: str = "tpe"
    simulate_only: bool = False
    prune_ratio: float = 2.0  # a candidate predicted slower than this x the best so far is pruned
    reduced: bool | None = None
    sparse_ps_only: bool = False
    allow_async: bool = False
    lossless: bool = False  # exact synchronizers only (no compressed gradients)
    reduce_above: int = REDUCE_ABOVE
    calibration: str | None = None
    calibrate: bool = True  # no calibration stored for the cluster: measure a quick one before the search
    cache_dir: str | None = None
    steps: int = 20
    warmup: int = 5
    confirm_steps: int | None = None  # steps of each contender in the head-to-head (None: 3 x steps)
    # a job's head-to-head median moves this much (relative) from one comparison to the next, beyond its steps'
    # spread: validate-simulator's pass-against-pass noise on the testbed, 1.4-2.6% MAPE over 17 runs
    run_noise: float = 0.02
    accept_unknown_hosts: bool = False
    claim_grace_s: float = 30.0  # a searcher silent this long on a shared study is gone: its claims are released

    def __post_init__(self) -> None:
        self.output = pathlib.Path(self.output)
        checks = {"trials": self.trials >= 1, "top_k": self.top_k >= 0, "prune_ratio": self.prune_ratio > 1,
                  "builders_to_profile": self.builders_to_profile >= 0, "builder_band": self.builder_band >= 1,
                  "steps": self.steps >= 1, "warmup": self.warmup >= 0, "max_profiles": self.max_profiles >= 0,
                  "confirm": self.confirm >= 0, "round_size": self.round_size >= 0,
                  "confirm_within": self.confirm_within >= 0,
                  "confirm_steps": self.confirm_steps is None or self.confirm_steps >= 1,
                  "run_noise": 0 <= self.run_noise < 1}
        for name, ok in checks.items():
            if not ok:
                raise BadInput(f"--{name.replace('_', '-')} is out of range: {getattr(self, name)!r}",
                               hint="trials/steps/confirm-steps >= 1, top-k/warmup/max-profiles/confirm/round-size "
                                    ">= 0, prune-ratio > 1, 0 <= run-noise < 1")
        if not self.claim_grace_s > 0:
            raise BadInput(f"--claim-grace must be > 0 seconds, got {self.claim_grace_s!r}")
        if self.confirm_steps is None:
            self.confirm_steps = 3 * self.steps
        if self.time_budget_s is not None and self.time_budget_s <= 0:
            raise BadInput(f"--time-budget must be > 0 seconds, got {self.time_budget_s!r}")
        if self.budget_s is not None and not self.budget_s > 0:
            raise BadInput(f"--budget must be > 0 seconds, got {self.budget_s!r}", hint="e.g. --budget 3m")


@dataclasses.dataclass
class Candidate:
    """One strategy carried out of the simulated stage."""

    params: dict[str, Any]
    strategy: Strategy
    predicted_s: float
    builders: list[str]
    trial: int
    measured: Any = None  # runners' measurement, when profiled
    simplified: int = 0  # changes the simplification made to the trial's parameters before profiling
    error: str = ""  # why profiling it failed (the first line), when it did
    lower_bound_s: float = 0.0  # no step of this strategy can be faster (0: not known)
    skipped: str = ""  # why it was not profiled after all, when it was chosen and then ruled out

    @property
    def label(self) -> str:
        return "+".join(self.builders) if self.builders else f"trial {self.trial}"

    @property
    def family(self) -> str:
        return families.family(self.strategy)

    @property
    def lossy(self) -> bool:
        return families.lossy(self.strategy)

    @property
    def strategy_hash(self) -> str:
        return hashlib.sha256(self.strategy.to_bytes()).hexdigest()[:16]


@dataclasses.dataclass
class SearchResult:
    inventory: Inventory
    cluster: ClusterSpec
    winner: Candidate
    candidates: list[Candidate]  # every builder and every profiled candidate
    simulated: int
    pruned: int
    profiled: int
    lower_bound_s: float
    calibrated: bool
    wall_s: float
    output: pathlib.Path
    study_name: str
    storage: str
    interrupted: bool = False
    kept_builder: str = ""  # the noise rule's line when it kept the best builder over a faster-looking mix
    rounds: list = dataclasses.field(default_factory=list)  # per profiling round: predicted vs measured, why it stopped
    families: list = dataclasses.field(default_factory=list)  # per synchronizer family: measured or why not
    timing: dict = dataclasses.field(default_factory=dict)  # seconds of each phase (setup, calibration, simulated, ...)
    budget: dict = dataclasses.field(default_factory=dict)  # --budget: the seconds given and used, what it cut
