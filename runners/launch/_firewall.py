"""Keep strangers off the servers' ports: TensorFlow's gRPC server listens on every interface, unauthenticated,
whatever address the cluster names, so anyone who reaches a port can run any op as the user.

While a cluster runs, each node's ports accept only the cluster: on a loopback cluster, loopback traffic; on a
remote node, the members' addresses and the driver's. The rules are an nftables table of their own per node and
cluster start (``autotune_<pid>_<run>``), added before the servers start and deleted when they stop. Where that
cannot be done (not root, no ``nft``), one line on stderr says which ports stay open to whom.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from space.cluster import ClusterSpec, Node

_TABLE = re.compile(r"^table inet (autotune_(\d+)_[0-9a-f]+)$", re.M)


def _ruleset(table: str, ports: list[int], allowed: list[str]) -> str:
    ports_set = ", ".join(str(p) for p in sorted(set(ports)))
    allow = f"        ip saddr {{ {', '.join(sorted(set(allowed)))} }} tcp dport {{ {ports_set} }} accept\n" \
        if allowed else ""
    return (f"table inet {table} {{\n"
            f"    chain input {{\n"
            f"        type filter hook input priority -10; policy accept;\n"
            f"        iifname \"lo\" tcp dport {{ {ports_set} }} accept\n"
            f"{allow}"
            f"        tcp dport {{ {ports_set} }} drop\n"
            f"    }}\n"
            f"}}\n")


class Firewall:
    """The rules of one cluster start: :meth:`install` before launching, :meth:`remove` after stopping."""

    def __init__(self, spec: ClusterSpec, ports: list[int], launchers: list, run_id: str,
                 warn=lambda line: print(line, file=sys.stderr)) -> None:
        self.spec, self.ports, self.launchers, self.warn = spec, ports, launchers, warn
        self.table = f"autotune_{os.getpid()}_{run_id}"
        self.installed: list[tuple[Node, object]] = []  # (node, its launcher), or (None, None) for this machine

    def install(self) -> None:
        if all(n.is_loopback for n in self.spec.nodes):  # every server is on this machine
            self._install_here()
            return
        members = [_ip(n.address) for n in self.spec.nodes]
        for node, launcher in zip(self.spec.nodes, self.launchers):
            run = getattr(launcher, "run", None)
            if run is None:
                continue
            driver = getattr(launcher, "local_address", lambda _n: None)(node)
            allowed = [a for a in members + [driver] if a]
            code, _, err = run(node, _remote_command(self.table, self.ports, allowed), timeout_s=20)
            if code == 0:
                self.installed.append((node, launcher))
            else:
                self.warn(f"note: port {self.ports[self.spec.nodes.index(node)]} of node {node.name} accepts "
                          f"connections from any host while the cluster runs (its firewall could not be set: "
                          f"{(err.strip().splitlines() or ['nft failed'])[-1][:160]}); run it as root with nftables "
                          "installed, or keep its network private")

    def _install_here(self) -> None:
        nft = shutil.which("nft") or shutil.which("nft", path="/usr/sbin:/sbin")
        why = "not root" if os.geteuid() != 0 else "nft not found (apt-get install nftables)" if not nft else ""
        if not why:
            _drop_stale_tables(nft)
            p = subprocess.run([nft, "-f", "-"], input=_ruleset(self.table, self.ports, []), text=True,
                               capture_output=True, timeout=20)
            if p.returncode == 0:
                self.installed.append((None, None))
                return
            why = (p.stderr.strip().splitlines() or ["nft failed"])[-1][:160]
        ports = ", ".join(str(p) for p in self.ports)
        self.warn(f"note: the servers' ports {ports} accept connections from other hosts while the cluster runs "
                  f"(TensorFlow listens on every interface; they could not be closed: {why})")

    def remove(self) -> None:
        """Delete the rules this start added (never raises: it runs on the way out of every cluster)."""
        for node, launcher in self.installed:
            try:
                if node is None:
                    nft = shutil.which("nft") or shutil.which("nft", path="/usr/sbin:/sbin")
                    subprocess.run([nft, "delete", "table", "inet", self.table], capture_output=True, timeout=20)
                else:
                    launcher.run(node, f"nft delete table inet {self.table}", timeout_s=20)
            except Exception:  # noqa: BLE001 - a node that dropped off keeps a table that guards closed ports
                pass
        self.installed = []


def _ip(address: str) -> str | None:
    """A node's address as the firewall matches it (IPv4); a name that does not resolve here is left out."""
    import socket

    try:
        return socket.gethostbyname(address)
    except OSError:
        return None


def _remote_command(table: str, ports: list[int], allowed: list[str]) -> str:
    ruleset = _ruleset(table, ports, allowed)
    return f"nft -f - <<'AUTOTUNE_RULES'\n{ruleset}AUTOTUNE_RULES"


def _drop_stale_tables(nft: str) -> None:
    """Tables of drivers that died without removing them (SIGKILL): their ports are closed anyway."""
    p = subprocess.run([nft, "list", "tables"], capture_output=True, text=True, timeout=20)
    for table, pid in _TABLE.findall(p.stdout):
        if not os.path.exists(f"/proc/{pid}"):
            subprocess.run([nft, "delete", "table", "inet", table], capture_output=True, timeout=20)
