"""autotune: find how to distribute a TensorFlow training job, variable by variable."""
from space import __version__

__all__ = ["__version__"]
