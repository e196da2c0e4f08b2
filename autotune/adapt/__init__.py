"""A training job that re-plans its strategy when the cluster changes under it (``autotune train --adapt``).

``replanning`` (the candidates, the refit, the simulated round) imports Optuna: import it where it is used."""
from autotune.adapt._detect import Change, ChangeDetector
from autotune.adapt._job import Watch, adaptive_train, same_strategy
from autotune.adapt._types import Checked, Decision, Plan, Ranked, Weighed

__all__ = ["Change", "ChangeDetector", "Checked", "Decision", "Plan", "Ranked", "Watch", "Weighed", "adaptive_train",
           "same_strategy"]
