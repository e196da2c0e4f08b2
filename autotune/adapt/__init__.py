"""A training job that re-plans its strategy when the cluster changes under it (``autotune train --adapt``).

``replanning`` (the candidates, the refit, the simulated round) imports Optuna: import it where it is used."""
from autotune.adapt._detect import Change, ChangeDetector
from autotune.adapt._job import Decision, Watch, adaptive_train, same_strategy

__all__ = ["Change", "ChangeDetector", "Decision", "Watch", "adaptive_train", "same_strategy"]
