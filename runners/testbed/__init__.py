"""An emulated multi-host cluster on one machine: network namespaces, shaped veth links, an sshd per host.

``make_plan`` checks a request, ``up`` builds it (recording each object in ``<dir>/testbed.json`` first),
``status`` reports on it and ``down`` removes exactly what the state file records.
"""
from runners.testbed._errors import (MissingTool, NameTaken, NoTestbed, NotRoot, TestbedFailed,
                                     TestbedRefused)
from runners.testbed._plan import BENCHMARK_NET, default_dir, make_plan
from runners.testbed._state import State
from runners.testbed._testbed import down, status, up

__all__ = ["BENCHMARK_NET", "MissingTool", "NameTaken", "NoTestbed", "NotRoot", "State", "TestbedFailed",
           "TestbedRefused", "default_dir", "down", "make_plan", "status", "up"]
