"""``autotune search``: Optuna over the Strategy space, pruned by the cost model, the best profiled for real."""
from autotune.tuner._measurement import Measurement
from autotune.tuner._pipeline import make_space, run_search
from autotune.tuner._profiler import ClusterProfiler
from autotune.tuner._types import Candidate, SearchConfig, SearchResult

__all__ = ["SearchConfig", "SearchResult", "Candidate", "run_search", "make_space", "ClusterProfiler", "Measurement"]
