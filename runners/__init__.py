"""Execute strategies on real TensorFlow servers: launch and watch servers, transform, profile, train, calibrate.

Importing ``runners`` does not import TensorFlow or paramiko; they are imported when used.
"""
import importlib

from runners._lending import lend
from runners._watched import run_with_timeout
from runners.cluster import RunningCluster, start_cluster
from runners.launch import Launcher, LocalLauncher, ServerProcess

__all__ = ["Launcher", "LocalLauncher", "RunningCluster", "SSHLauncher", "ServerProcess", "lend", "run_with_timeout",
           "start_cluster", "profile_strategy", "profile_together", "ProfileResult", "train_strategy"]

_LAZY = {"SSHLauncher": ("runners.launch._ssh", "SSHLauncher"),
         "profile_strategy": ("runners.profile", "profile_strategy"),
         "profile_together": ("runners.profile", "profile_together"),
         "ProfileResult": ("runners.profile", "ProfileResult"),
         "train_strategy": ("runners.train", "train_strategy")}


def __getattr__(name: str):
    if name in _LAZY:
        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'runners' has no attribute {name!r}")
