"""autotune's strategy space: the Strategy protobuf, the cluster spec, the model inventory, the builders.

Importing this package never imports TensorFlow (``space.model`` imports it inside its functions).
"""
__version__ = "0.1.0"

from space.cluster import ClusterSpec, Node, SSHGroup, load_cluster, parse_device
from space.errors import AutotuneError, BadInput, ModelError, RunError, SpecError, StrategyError
from space.inventory import Inventory, VariableInfo
from space.strategy import Strategy
from space.validate import validate

__all__ = ["__version__", "ClusterSpec", "Node", "SSHGroup", "load_cluster", "parse_device", "AutotuneError",
           "BadInput", "ModelError", "RunError", "SpecError", "StrategyError", "Inventory", "VariableInfo",
           "Strategy", "validate"]
