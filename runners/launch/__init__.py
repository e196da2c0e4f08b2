"""Launchers: how server processes are started on nodes (local subprocesses, SSH, a Slurm step)."""
from runners.launch._base import Launcher, ServerProcess
from runners.launch._local import LocalLauncher
from runners.launch._slurm import SlurmLauncher

__all__ = ["Launcher", "LocalLauncher", "SSHLauncher", "ServerProcess", "SlurmLauncher"]


def __getattr__(name: str):
    if name == "SSHLauncher":  # paramiko is imported only when SSH is used
        from runners.launch._ssh import SSHLauncher

        return SSHLauncher
    raise AttributeError(f"module 'runners.launch' has no attribute {name!r}")
