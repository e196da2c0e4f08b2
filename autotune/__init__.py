"""autotune: find how to distribute a TensorFlow training job, variable by variable."""
from autotune import _siblings

_siblings.check()

# only once space, simulator and runners are known to be ours
from autotune.api import History, SearchOutcome, StepInfo, TrainConfig, search, train  # noqa: E402
from space import __version__  # noqa: E402

__all__ = ["History", "SearchOutcome", "StepInfo", "TrainConfig", "__version__", "search", "train"]
