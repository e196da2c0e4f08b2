"""``autotune search``: Optuna over the Strategy space, pruned by the cost model, the best profiled for real.

The names below are imported on first use: the command line reads :class:`SearchConfig` to build its options, and
must not pay for Optuna, TensorFlow or the stages to do so."""
from autotune.tuner._types import Candidate, SearchConfig, SearchResult

_LAZY = {"Measurement": "autotune.tuner._measurement", "make_space": "autotune.tuner._pipeline",
         "run_search": "autotune.tuner._pipeline", "ClusterProfiler": "autotune.tuner._profiler"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'autotune.tuner' has no attribute {name!r}")


__all__ = ["SearchConfig", "SearchResult", "Candidate", "run_search", "make_space", "ClusterProfiler", "Measurement"]
