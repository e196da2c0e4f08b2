"""``autotune search``: Optuna over the Strategy space, pruned by the cost model, the best profiled for real."""
from autotune.search._pipeline import make_space, run_search
from autotune.search._types import Candidate, SearchConfig, SearchResult
from autotune.search._profiling import ClusterProfiler, Measurement

__all__ = ["SearchConfig", "SearchResult", "Candidate", "run_search", "make_space", "ClusterProfiler", "Measurement"]
