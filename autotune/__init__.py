"""autotune: find how to distribute a TensorFlow training job, variable by variable."""
from autotune import _siblings

_siblings.check()

from space import __version__  # noqa: E402 - only once space is known to be ours


def __getattr__(name: str):
    """``autotune.train`` and the API's types, imported on first use (the CLI must not pay for them)."""
    if name in ("train", "search", "History", "SearchOutcome", "StepInfo"):
        from autotune import api

        return getattr(api, name)
    raise AttributeError(f"module 'autotune' has no attribute {name!r}")


__all__ = ["History", "SearchOutcome", "StepInfo", "__version__", "search", "train"]
