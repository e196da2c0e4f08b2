"""An emulated multi-host cluster on one machine: network namespaces, shaped veth links, an sshd per host.

``make_plan`` checks a request, ``up`` builds it (recording each object in ``<dir>/testbed.json`` first),
``slurm_up`` adds a real Slurm (a ``slurmd`` per host), ``shape`` changes rates while it runs, ``status`` reports
on it and ``down`` removes exactly what the state file records.
"""
from runners.testbed._errors import (MissingTool, NameTaken, NoTestbed, NotRoot, TestbedFailed,
                                     TestbedRefused)
from runners.testbed._plan import (BENCHMARK_NET, DEFAULT_PREFIX, DEFAULT_SUBNET, check_prefix, default_dir,
                                   format_rate, make_plan)
from runners.testbed._slurm import conf_path as slurm_conf
from runners.testbed._slurm import up as slurm_up
from runners.testbed._state import State
from runners.testbed._testbed import down, shape, status, up

__all__ = ["BENCHMARK_NET", "DEFAULT_PREFIX", "DEFAULT_SUBNET", "MissingTool", "NameTaken", "NoTestbed", "NotRoot",
           "State", "TestbedFailed", "TestbedRefused", "check_prefix", "default_dir", "down", "format_rate",
           "make_plan", "shape", "slurm_conf", "slurm_up", "status", "up"]
