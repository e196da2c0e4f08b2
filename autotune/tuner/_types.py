"""The search's data: its configuration, the candidates carried out of the simulated stage, and its result.

Kept apart from the stages (``_pipeline``, ``_simulated``, ``_stage``) so that each imports them without
importing the others."""
from __future__ import annotations

import dataclasses
import hashlib
import pathlib
from typing import Any

from autotune._options import count, option, positive_seconds, space_option
from autotune.tuner._budget import duration
from space import families
from space.cluster import ClusterSpec
from space.errors import BadInput
from space.inventory import Inventory
from space.strategy import Strategy

REDUCE_ABOVE = 16  # variables above which the search uses the reduced (per-class) space
SAMPLERS = ("tpe", "cmaes", "nsga2", "random")
SIMULATED = ("local", "sampler")  # how the simulated stage spends its trials (``_simulated``)


@dataclasses.dataclass
class SearchConfig:
    """A search's configuration; each field with a help is also an option of ``autotune search``."""

    model: str
    spec: str
    output: pathlib.Path
    trials: int = option(2000, "simulated trials in all, resumed ones included (2000)", type=count(1))
    top_k: int = option(5, "diverse candidates to profile, plus the best builder (5)", type=count(0))
    builders_to_profile: int = option(  # at most this many builders profiled beside the top-k ...
        5, "also profile up to N builders predicted within --builder-band of the best builder (5)",
        flag="--profile-builders", type=count(0), metavar="N")
    builder_band: float = option(  # ... those predicted within this factor of the best builder
        1.5, "builders predicted within X times the best builder are profiled (1.5)", metavar="X")
    max_profiles: int = option(  # profiling runs in all, confirmation included
        10, "profiling runs on the cluster in all, confirmation included (10)", type=count(0), metavar="N")
    confirm: int = option(  # of those, re-measure up to this many contenders head to head ...
        3, "re-measure up to N candidates measured within --confirm-within of the best (the best builder among "
           "them), head to head, and choose the fastest there; 0 turns it off (3)", type=count(0), metavar="N")
    confirm_within: float = option(  # ... measured within this fraction of the best (one run's noise: 10-20%)
        0.25, "relative distance to the best measured that counts as a tie worth re-measuring (0.25)", metavar="F")
    round_size: int = option(  # candidates per profiling round after the first, chosen by the refitted cost model
        2, "after the first round, refit the cost model on what was measured and profile up to N candidates per "
           "round that could still win; 0 profiles the first round only (2)", type=count(0), metavar="N")
    time_budget_s: float | None = option(  # the simulated stage's own limit
        None, "stop the simulated stage after this long", flag="--time-budget", type=positive_seconds,
        metavar="SECONDS")
    budget_s: float | None = option(  # the whole search's, calibration included
        None, "bound the whole search, calibration included, e.g. 90s, 3m, 1h: it plans its rounds to fit, ends "
              "with the best measured strategy and says what it left unmeasured", flag="--budget", type=duration,
        metavar="TIME")
    storage: str | None = option(None, "Optuna storage, any SQLAlchemy URL (default: sqlite:///DIR/study.db)",
                                 metavar="URL")
    study_name: str | None = option(None, "study name (default: <model>-<cluster fingerprint>)")
    resume: bool = option(False, "continue the search in DIR (keeps every finished trial); with --storage/"
                                 "--study-name, join the searchers sharing that study")
    seed: int | None = option(  # None: the n-th searcher on a study uses seed n (one alone: 0)
        None, "sampler seed: same seed, same trials (default: the n-th searcher on the study uses n)", type=int)
    sampler: str = option("tpe", "tpe (default), cmaes, nsga2 (step time vs bytes on the wire), random",
                          choices=SAMPLERS)
    simulated: str = option(  # how the simulated stage spends its trials after the sampler's first ones
        "local", "local (default): the sampler draws the first trials (the builders among them), then a local search "
                 "scores neighbours of the best through the cost model for the rest; sampler: every trial from "
                 "--sampler (nsga2 always)", choices=SIMULATED)
    simulate_only: bool = option(False, "skip profiling on the cluster")
    prune_ratio: float = option(  # a candidate predicted slower than this x the best so far is pruned
        2.0, "prune candidates predicted slower than this x the best so far (2.0)")
    reduced: bool | None = space_option("reduced")
    sparse_ps_only: bool = space_option("sparse_ps_only")
    allow_async: bool = space_option("allow_async")
    lossless: bool = space_option("lossless")  # exact synchronizers only (no compressed gradients)
    reduce_above: int = REDUCE_ABOVE
    calibration: str | None = option(
        None, "calibration file (default: the one `autotune calibrate` stored for this cluster)", metavar="FILE")
    calibrate: bool = option(  # no calibration stored for the cluster: measure a quick one before the search
        True, "where no calibration is stored for the cluster, use the spec's nominal values instead of measuring "
              "a quick calibration first", flag="--no-calibrate")
    cache_dir: str | None = None
    steps: int = option(20, "profiled steps per candidate (20; fewer, at least 5, where they would take over 10 s)",
                        type=count(1))
    warmup: int = option(5, "warm-up steps per candidate (5)", type=count(0))
    confirm_steps: int | None = option(  # steps of each contender in the head-to-head (None: 3 x steps)
        None, "timed steps of each contender in the head-to-head, in 10 turns (default 3 x --steps; fewer, at least "
        "5, where the turns would take over 60 s)", type=count(1),
        metavar="N")
    # a job's head-to-head median moves this much (relative) from one comparison to the next, beyond its steps'
    # spread: validate-simulator's pass-against-pass noise on the testbed, 1.4-2.6% MAPE over 17 runs
    run_noise: float = option(
        0.02, "how much one job's head-to-head median moves from one comparison to the next, beyond its steps' "
              "spread; a mix must beat the best builder by twice the resulting standard error (0.02)", metavar="F")
    trace_top: int = option(  # candidates traced after their timed steps (runners._trace), in the order profiled
        0, "trace a few steps of the first N candidates profiled on every task, after their timed steps: a Chrome "
           "trace and a summary per strategy in DIR/traces, which `autotune report` draws (0: none)",
        type=count(0), metavar="N")
    accept_unknown_hosts: bool = option(False, "accept SSH host keys not in known_hosts")
    verbose: bool = option(False, "say where each profiling run's wall time went: graph, session, executors, "
                                  "warm-up, steps-per-call choice, timed steps, close")
    claim_grace_s: float = option(  # a searcher silent this long on a shared study is gone: its claims are released
        30.0, "a searcher on a shared study that gives no sign of life for S seconds is gone: the candidates it "
              "claimed are profiled by the others (30)", flag="--claim-grace", type=positive_seconds, metavar="S")

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
