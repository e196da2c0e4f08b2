"""``StrategyBuilder``: the policy that turns an inventory and a cluster into a Strategy, and its registry.

Builders register string aliases next to their class (``@register("ps")``); an alias may carry a preset of
constructor arguments (``all_reduce_fp16``). Custom builders load from ``module:Class`` or ``file.py[:Class]``.
"""
from __future__ import annotations

import abc
import datetime
import importlib
import importlib.util
import inspect
import pathlib
from typing import Any, Callable

from space import __version__
from space.cluster import ClusterSpec
from space.errors import BadInput
from space.inventory import Inventory
from space.strategy import Strategy


class StrategyBuilder(abc.ABC):
    """Builds one Strategy for a model inventory on a cluster."""

    @abc.abstractmethod
    def build(self, inventory: Inventory, cluster: ClusterSpec) -> Strategy:
        """Return a Strategy covering every trainable variable of ``inventory`` on ``cluster``'s replicas."""


_REGISTRY: dict[str, tuple[type[StrategyBuilder], dict[str, Any], str]] = {}


def register(alias: str, description: str = "", **preset: Any) -> Callable[[type], type]:
    """Class decorator: make ``alias`` build ``cls(**preset)``. Stack it for presets."""

    def deco(cls: type) -> type:
        if alias in _REGISTRY:
            raise ValueError(f"builder alias {alias!r} is already registered")
        doc = description or (inspect.getdoc(cls) or "").splitlines()[0]
        _REGISTRY[alias] = (cls, dict(preset), doc)
        return cls

    return deco


def available() -> list[tuple[str, str]]:
    """Sorted ``(alias, description)`` pairs."""
    return sorted((alias, doc) for alias, (_, _, doc) in _REGISTRY.items())


def aliases() -> list[str]:
    return sorted(_REGISTRY)


def get_builder(name: str, **overrides: Any) -> StrategyBuilder:
    """An alias from the registry, or a custom builder ``module:Class`` / ``path/to/file.py[:Class]``."""
    if name in _REGISTRY:
        cls, preset, _ = _REGISTRY[name]
        return cls(**{**preset, **overrides})
    if ":" in name or name.endswith(".py"):
        return _load_custom(name)(**overrides)
    raise BadInput(f"unknown builder {name!r}", hint=f"known builders are {', '.join(aliases())}; "
                   "or give a custom one as module:Class or file.py:Class")


def _load_custom(ref: str) -> type[StrategyBuilder]:
    target, _, cls_name = ref.rpartition(":") if not ref.endswith(".py") else (ref, ":", "")
    try:
        if target.endswith(".py"):
            path = pathlib.Path(target)
            if not path.is_file():
                raise BadInput(f"custom builder file not found: {path}")
            spec = importlib.util.spec_from_file_location(f"autotune_custom_builder_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except BadInput:
        raise
    except Exception as e:  # the user's code: any error is a bad input
        raise BadInput(f"cannot import custom builder {target!r}: {type(e).__name__}: {e}") from None
    if cls_name:
        cls = getattr(module, cls_name, None)
        if cls is None:
            raise BadInput(f"{target!r} has no attribute {cls_name!r}")
    else:
        found = [c for c in vars(module).values() if inspect.isclass(c) and issubclass(c, StrategyBuilder)
                 and c is not StrategyBuilder and c.__module__ == module.__name__]
        if len(found) != 1:
            raise BadInput(f"{target!r} defines {len(found)} StrategyBuilder subclasses",
                           hint="name the class: file.py:ClassName")
        cls = found[0]
    if not (inspect.isclass(cls) and issubclass(cls, StrategyBuilder)):
        raise BadInput(f"{ref!r} is not a StrategyBuilder subclass")
    return cls


def build_strategy(name: str, inventory: Inventory, cluster: ClusterSpec, **overrides: Any) -> Strategy:
    """Build with the named builder and stamp the strategy's provenance."""
    strategy = get_builder(name, **overrides).build(inventory, cluster)
    prov = strategy.proto.provenance
    prov.builder = name
    prov.model_fingerprint = inventory.fingerprint
    prov.cluster_fingerprint = cluster.fingerprint
    prov.tool_version = __version__
    prov.model_path = inventory.model_path
    prov.created_at = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return strategy
