"""Execute strategies on real TensorFlow servers: launch and watch servers (this package's launch part).

Importing ``runners`` does not import TensorFlow or paramiko; they are imported when used.
"""
from runners.cluster import RunningCluster, run_with_timeout, start_cluster
from runners.launch import Launcher, LocalLauncher, ServerProcess

__all__ = ["Launcher", "LocalLauncher", "RunningCluster", "SSHLauncher", "ServerProcess", "run_with_timeout",
           "start_cluster"]


def __getattr__(name: str):
    if name == "SSHLauncher":
        from runners.launch._ssh import SSHLauncher

        return SSHLauncher
    raise AttributeError(f"module 'runners' has no attribute {name!r}")
