"""autotune: find how to distribute a TensorFlow training job, variable by variable."""
from space import __version__


def __getattr__(name: str):
    """``autotune.train`` and the API's types, imported on first use (the CLI must not pay for them)."""
    if name in ("train", "search", "History", "SearchOutcome", "StepInfo"):
        from autotune import api

        return getattr(api, name)
    raise AttributeError(f"module 'autotune' has no attribute {name!r}")


__all__ = ["History", "SearchOutcome", "StepInfo", "__version__", "search", "train"]
