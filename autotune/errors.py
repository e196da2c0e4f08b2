"""The exception tree, re-exported from ``space.errors`` (the lowest layer owns it)."""
from space.errors import AutotuneError, BadInput, ModelError, RunError, SpecError, StrategyError, UnreachableHost

__all__ = ["AutotuneError", "BadInput", "ModelError", "RunError", "SpecError", "StrategyError", "UnreachableHost"]
