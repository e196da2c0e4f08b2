"""``autotune search``: Optuna over the Strategy space, pruned by the cost model, the best profiled for real.

``run_search``, ``make_space`` and ``refine`` are imported on first use: their modules import Optuna, and the command
line reads :class:`SearchConfig` to build its options without paying for it."""
import importlib

from autotune.tuner._measurement import Measurement
from autotune.tuner._profiler import ClusterProfiler
from autotune.tuner._types import Candidate, SearchConfig, SearchResult

_LAZY = {"make_space": "autotune.tuner._pipeline", "run_search": "autotune.tuner._pipeline",
         "refine": "autotune.tuner._simulated"}


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'autotune.tuner' has no attribute {name!r}")


__all__ = ["SearchConfig", "SearchResult", "Candidate", "run_search", "make_space", "refine", "ClusterProfiler",
           "Measurement"]
