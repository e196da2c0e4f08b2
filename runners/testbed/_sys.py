"""Thin wrappers over ``ip``, ``tc`` and ``/proc``: run a command, check tools, identify processes by PID."""
from __future__ import annotations

import ipaddress
import json
import logging
import os
import shutil
import signal
import subprocess
import time
from typing import Sequence

from runners.testbed._errors import INSTALL_HINT, MissingTool, NotRoot, TestbedFailed

log = logging.getLogger(__name__)
_SBIN = os.pathsep.join(["/usr/local/sbin", "/usr/sbin", "/sbin"])
COMMAND_TIMEOUT_S = 30.0


def which(tool: str) -> str | None:
    return shutil.which(tool) or shutil.which(tool, path=_SBIN)


def require_root() -> None:
    if os.geteuid() != 0:
        raise NotRoot("the testbed needs root (network namespaces, veth links, tc qdiscs)",
                      f"running as uid {os.geteuid()}", hint="run `sudo autotune testbed ...`")


def require_tools(tools: Sequence[str] = ("ip", "tc", "sshd")) -> dict[str, str]:
    """Absolute paths of the tools; refuses with the Debian install line when one is missing."""
    found = {t: which(t) for t in tools}
    missing = [t for t, p in found.items() if not p]
    if missing:
        raise MissingTool(f"{', '.join(missing)} not found on PATH or in {_SBIN}", hint=INSTALL_HINT)
    return found  # type: ignore[return-value]


def run(argv: Sequence[str], check: bool = True, timeout: float = COMMAND_TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run a system command; a failure with ``check`` raises :class:`TestbedFailed` with its stderr."""
    log.debug("run: %s", " ".join(argv))
    try:
        proc = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TestbedFailed(f"`{' '.join(argv)}` did not finish in {timeout:.0f} s") from None
    if check and proc.returncode != 0:
        raise TestbedFailed(f"`{' '.join(argv)}` failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return proc


def netns_list() -> set[str]:
    out = run(["ip", "netns", "list"]).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def root_links() -> set[str]:
    return {link["ifname"] for link in json.loads(run(["ip", "-j", "link", "show"]).stdout or "[]")}


def root_networks() -> list[tuple[str, ipaddress.IPv4Network | ipaddress.IPv6Network]]:
    """``(where, network)`` for every address and route of the root namespace."""
    out = []
    for link in json.loads(run(["ip", "-j", "addr", "show"]).stdout or "[]"):
        for a in link.get("addr_info", []):
            out.append((f"address {a['local']} on {link['ifname']}",
                        ipaddress.ip_network(f"{a['local']}/{a['prefixlen']}", strict=False)))
    for r in json.loads(run(["ip", "-j", "-4", "route", "show", "table", "all"]).stdout or "[]"):
        dst = r.get("dst", "")
        if dst and dst != "default" and r.get("type", "unicast") == "unicast":
            try:
                out.append((f"route {dst} via {r.get('dev', '?')}", ipaddress.ip_network(dst, strict=False)))
            except ValueError:
                pass
    return out


def netns_pids(name: str) -> list[int]:
    """PIDs of the processes whose network namespace is ``name`` (``ip netns pids``)."""
    proc = run(["ip", "netns", "pids", name], check=False)
    return [int(p) for p in proc.stdout.split() if p.isdigit()]


# ---- processes, identified by (pid, start time) so a reused PID is never signalled -----------------

def start_time(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None when it does not exist."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[19])  # field 22 of proc(5); fields[0] is field 3 (state)


def alive(pid: int | None, started: int | None) -> bool:
    if not pid:
        return False
    now = start_time(pid)
    if now is None or (started is not None and now != started):
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def terminate(pid: int, started: int | None, grace_s: float = 5.0) -> bool:
    """SIGTERM, then SIGKILL after ``grace_s``; only if ``pid`` still has start time ``started``.

    Returns True when the process is gone (or was never there)."""
    for sig, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, 2.0)):
        if not alive(pid, started):
            return True
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            _reap(pid)
            if not alive(pid, started):
                return True
            time.sleep(0.05)
    return not alive(pid, started)


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass
