"""Small helpers shared by the tests (imported as ``testsupport``): processes and network namespaces."""
from __future__ import annotations

import os
import subprocess
import time


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a reparented zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, timeout_s: float) -> list[int]:
    """Wait up to ``timeout_s`` for every pid to be gone; return the ones still alive."""
    end = time.monotonic() + timeout_s
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < end:
        time.sleep(0.1)
    return left


def netns_forbidden() -> str | None:
    """Why real network namespaces cannot be used on this machine, or None."""
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
