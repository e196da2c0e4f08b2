"""The classic strategy builders (AutoDist's eight, with fixes) and their alias registry."""
from space.builders._base import StrategyBuilder, aliases, available, build_strategy, get_builder, register
from space.builders._all_reduce import AllReduce, PartitionedAR, RandomAxisPartitionAR
from space.builders._parallax import Parallax
from space.builders._ps import PS, PartitionedPS, PSLoadBalancing, UnevenPartitionedPS

__all__ = ["StrategyBuilder", "register", "get_builder", "build_strategy", "aliases", "available",
           "PS", "PSLoadBalancing", "PartitionedPS", "UnevenPartitionedPS", "AllReduce", "PartitionedAR",
           "RandomAxisPartitionAR", "Parallax"]
