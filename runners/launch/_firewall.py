"""Keep strangers off the servers' ports: TensorFlow's gRPC server listens on every interface, unauthenticated,
whatever address the cluster names, so anyone who reaches a port can run any op as the servers' user.

While a cluster runs, its ports admit the cluster only, by an nftables table of its own per machine and cluster
start (``autotune_<pid>_<run>``), added before the servers start and deleted when they stop:

- other hosts: on a loopback cluster, none; on a remote node, the members' addresses and the driver's;
- other users of a machine: none. Connections a machine makes itself leave by its output hook, which knows the
  sending socket's owner (``meta skuid``): only the servers' user (on a node) and the driver's (on its own
  machine) may connect to the cluster's ports there, through any of the machine's own addresses or to a member.

Where a table cannot be added (not root, no ``nft``), one line on stderr says which ports stay open to whom.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys

from space.cluster import ClusterSpec, Node

_TABLE = re.compile(r"^table inet (autotune_(\d+)_[0-9a-z_]+)$", re.M)


def _set(items) -> str:
    return "{ " + ", ".join(str(i) for i in sorted(set(items))) + " }"


def ruleset(table: str, ports: list[int], *, uids: list[int], allowed: list[str] | None = None,
            members: list[str] | None = None, inbound: bool = True) -> str:
    """The nftables table of one machine. ``inbound``: its own ports admit loopback and the ``allowed`` addresses
    only. Outbound, a connection to the ``ports`` is refused unless its socket belongs to one of ``uids``: to any
    of this machine's own addresses, and to the ``members``' addresses."""
    ports_set = _set(ports)
    stranger = f"meta skuid != {_set(uids)} reject with tcp reset"
    chains = []
    if inbound:
        allow = f"        ip saddr {_set(allowed)} tcp dport {ports_set} accept\n" if allowed else ""
        chains.append(f"    chain input {{\n"
                      f"        type filter hook input priority -10; policy accept;\n"
                      f"        iifname \"lo\" tcp dport {ports_set} accept\n"
                      f"{allow}"
                      f"        tcp dport {ports_set} drop\n"
                      f"    }}\n")
    to_members = f"        tcp dport {ports_set} ip daddr {_set(members)} {stranger}\n" if members else ""
    chains.append(f"    chain output {{\n"
                  f"        type filter hook output priority -10; policy accept;\n"
                  f"        tcp dport {ports_set} fib daddr type local {stranger}\n"
                  f"{to_members}"
                  f"    }}\n")
    return f"table inet {table} {{\n{''.join(chains)}}}\n"


def _nft() -> str | None:
    return shutil.which("nft") or shutil.which("nft", path="/usr/sbin:/sbin")


class Firewall:
    """The rules of one cluster start: :meth:`install` before launching, :meth:`remove` after stopping."""

    def __init__(self, spec: ClusterSpec, ports: list[int], launchers: list, run_id: str,
                 warn=lambda line: print(line, file=sys.stderr)) -> None:
        self.spec, self.ports, self.launchers, self.warn = spec, ports, launchers, warn
        self.table = f"autotune_{os.getpid()}_{run_id}"
        self.installed: list[tuple[Node, object]] = []  # (node, its launcher), or (None, None) for this machine

    def install(self) -> None:
        if all(n.is_loopback for n in self.spec.nodes):  # every server is on this machine, run by this user
            why = self._install_here(ruleset(self.table, self.ports, uids=[os.geteuid()]))
            if why:
                self.warn(f"note: the servers' ports {', '.join(map(str, self.ports))} accept connections from other "
                          f"hosts and other users of this machine while the cluster runs (TensorFlow listens on "
                          f"every interface; they could not be closed: {why})")
            return
        members = [a for n in self.spec.nodes if (a := _ip(n.address))]
        uids = [os.geteuid()]  # of this machine's sockets, those that may connect: the driver's, the local servers'
        for node, launcher in zip(self.spec.nodes, self.launchers):
            if getattr(launcher, "run", None) is not None:
                uids += self._install_on(node, launcher, members)
        # this machine's other users reach the members as the driver does, from an address they admit
        why = self._install_here(ruleset(f"{self.table}_driver", self.ports, uids=uids, members=members,
                                         inbound=False))
        if why:
            self.warn(f"note: other users of this machine can reach the servers' ports while the cluster runs (its "
                      f"own rules could not be set: {why})")

    def _install_on(self, node: Node, launcher, members: list[str]) -> list[int]:
        """Add the node's table; returns the servers' uid there when the node is this machine (SSH to itself)."""
        driver = getattr(launcher, "local_address", lambda _n: None)(node)
        here = _is_here(node.address)
        code, out, err = launcher.run(node, "id -u", timeout_s=20)
        if code == 0 and out.strip().isdigit():
            uids = [int(out.strip())] + ([os.geteuid()] if here else [])  # the driver's sockets are here too
            rules = ruleset(self.table, self.ports, uids=uids, members=members,
                            allowed=[a for a in members + [driver] if a])
            code, _, err = launcher.run(node, f"nft -f - <<'AUTOTUNE_RULES'\n{rules}AUTOTUNE_RULES", timeout_s=20)
            if code == 0:
                self.installed.append((node, launcher))
                return uids if here else []
        self.warn(f"note: port {self.ports[self.spec.nodes.index(node)]} of node {node.name} accepts connections "
                  f"from any host and any user there while the cluster runs (its firewall could not be set: "
                  f"{(err.strip().splitlines() or ['nft failed'])[-1][:160]}); run it as root with nftables "
                  "installed, or keep its network private")
        return []

    def _install_here(self, rules: str) -> str:
        """Add ``rules`` on this machine; '' when done, else why not."""
        nft = _nft()
        if os.geteuid() != 0:
            return "not root"
        if not nft:
            return "nft not found (apt-get install nftables)"
        _drop_stale_tables(nft)
        p = subprocess.run([nft, "-f", "-"], input=rules, text=True, capture_output=True, timeout=20)
        if p.returncode != 0:
            return (p.stderr.strip().splitlines() or ["nft failed"])[-1][:160]
        self.installed.append((None, None))
        return ""

    def remove(self) -> None:
        """Delete the rules this start added (never raises: it runs on the way out of every cluster)."""
        for node, launcher in self.installed:
            try:
                if node is None:
                    for table in (self.table, f"{self.table}_driver"):
                        subprocess.run([_nft(), "delete", "table", "inet", table], capture_output=True, timeout=20)
                else:
                    launcher.run(node, f"nft delete table inet {self.table}", timeout_s=20)
            except Exception:  # noqa: BLE001 - a node that dropped off keeps a table that guards closed ports
                pass
        self.installed = []


def _ip(address: str) -> str | None:
    """A node's address as the firewall matches it (IPv4); a name that does not resolve here is left out."""
    try:
        return socket.gethostbyname(address)
    except OSError:
        return None


def _is_here(address: str) -> bool:
    """Whether ``address`` is one of this machine's own (in this network namespace)."""
    ip = _ip(address)
    if ip is None:
        return False
    try:
        with socket.socket() as s:
            s.bind((ip, 0))
        return True
    except OSError:
        return False


def _drop_stale_tables(nft: str) -> None:
    """Tables of drivers that died without removing them (SIGKILL): their ports are closed anyway."""
    p = subprocess.run([nft, "list", "tables"], capture_output=True, text=True, timeout=20)
    for table, pid in _TABLE.findall(p.stdout):
        if not os.path.exists(f"/proc/{pid}"):
            subprocess.run([nft, "delete", "table", "inet", table], capture_output=True, timeout=20)
