"""autotune's strategy space: the Strategy protobuf, the cluster spec, the model inventory, the builders.

Importing this package never imports TensorFlow (``space.model`` imports it inside its functions).
"""
from space._version import version as _read_version
from space._table import format_table
from space._units import parse_bandwidth_gbit
from space.cluster import ClusterSpec, Node, SSHGroup, load_cluster, parse_device
from space.errors import AutotuneError, BadInput, ModelError, RunError, SpecError, StrategyError
from space.inventory import Inventory, VariableInfo
from space.strategy import Strategy
from space.validate import validate

__version__ = _read_version()

__all__ = ["__version__", "ClusterSpec", "Node", "SSHGroup", "load_cluster", "parse_device", "AutotuneError",
           "BadInput", "ModelError", "RunError", "SpecError", "StrategyError", "Inventory", "VariableInfo",
           "Strategy", "validate", "format_table", "parse_bandwidth_gbit"]
