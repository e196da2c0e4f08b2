"""Fixtures for the testbed tests: a skip when namespaces cannot be made here, and a testbed brought up once."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from _testbed_helpers import unique_prefix, unique_subnet


def _netns_forbidden() -> str | None:
    """Why real namespaces cannot be used on this machine, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth, tc)"
    from runners.testbed._sys import which

    missing = [t for t in ("ip", "tc", "sshd") if not which(t)]
    if missing:
        return f"{', '.join(missing)} missing; apt-get install -y iproute2 openssh-server"
    probe = f"atprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=10)
    if made.returncode != 0:
        return f"`ip netns add` is not permitted here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=10)
    return None


@pytest.fixture(scope="session")
def netns_ok() -> None:
    reason = _netns_forbidden()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def testbed(netns_ok, tmp_path_factory):
    """Three hosts: h0 and h1 at 200mbit, h2 at 100mbit; removed by ``down`` even when a test fails."""
    import runners.testbed as tb

    directory = tmp_path_factory.mktemp("testbed") / "state"
    plan = tb.make_plan(3, "200mbit", ["2=100mbit"], prefix=unique_prefix("tb"), subnet=unique_subnet(0),
                        directory=str(directory), python=sys.executable)
    try:
        tb.up(plan)
        yield plan
    finally:
        tb.down(plan["dir"])
