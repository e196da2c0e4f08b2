"""The cluster spec (``cluster.yml``): nodes, SSH groups, bandwidths, and device naming.

Keys follow AutoDist's resource spec (``nodes: [{address, gpus, cpus, chief, ssh_config,
network_bandwidth}]``, ``ssh: {group: {username, port, key_file, python_venv, shared_envs}}``) plus
``hostname``, per-node ``python`` / ``workdir`` / ``intra_op_threads`` / ``inter_op_threads`` (the TensorFlow
server's thread pools), per-link ``links`` overrides and ``known_hosts``; for clusters planned rather than owned,
``count`` (one entry for that many nodes at consecutive addresses), ``group`` (the node's rack) and a ``topology``
with the bandwidth and latency inside a node, inside a group and across groups; per-node ``memory`` / ``gpu_memory``
(``space._node_memory``: plain numbers are GB, strings carry a unit, ``"512MiB"``).
Bandwidth numbers are Gbit/s; strings may carry a unit (``"200mbit"``). Latency numbers are seconds (``"20us"``).
Devices are named ``"<address>:CPU:<i>"`` / ``"<address>:GPU:<i>"`` as in AutoDist.
"""
from __future__ import annotations

import dataclasses
import hashlib
import ipaddress
import json
import os
import pathlib
import re
from typing import Any, Mapping

from space import slurm
from space import _node_memory
from space._node_memory import MEMORY_KEYS, TF_RESERVE_BYTES
from space._topology import TIER_KEYS, TOPOLOGY_KEYS, Tier, Topology
from space._units import MAX_THREADS, parse_bandwidth_gbit, parse_duration_s
from space.errors import SpecError

_TOP_KEYS = {"nodes", "ssh", "links", "known_hosts", "topology", "launcher", "slurm", "external"}
_NODE_KEYS = {"address", "hostname", "gpus", "cpus", "chief", "ssh_config", "network_bandwidth",
              "python", "workdir", "intra_op_threads", "inter_op_threads", "group", "count", *MEMORY_KEYS}
MAX_NODES = 4096
MAX_CPU_DEVICES = 64  # a node's server makes one CPU device per number up to the highest in `cpus`
_SSH_KEYS = {"username", "port", "key_file", "python_venv", "shared_envs", "known_hosts"}
_LINK_KEYS = {"from", "to", "bandwidth"}
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def link_key(a: str, b: str) -> str:
    """The key of the link between node addresses ``a`` and ``b`` (order-free): ``"a|b"`` sorted."""
    return "|".join(sorted((a, b)))


@dataclasses.dataclass(frozen=True)
class SSHGroup:
    """How to log in to the nodes that name this group in ``ssh_config``."""

    name: str
    username: str
    port: int = 22
    key_file: str | None = None  # any key type paramiko reads (RSA, ECDSA, Ed25519)
    python_venv: str | None = None  # e.g. "source /opt/venv/bin/activate"
    shared_envs: Mapping[str, str] = dataclasses.field(default_factory=dict)
    known_hosts: str | None = None


@dataclasses.dataclass(frozen=True)
class Node:
    """One machine of the cluster."""

    address: str
    hostname: str | None = None
    cpus: tuple[int, ...] = (0,)
    gpus: tuple[int, ...] = ()
    chief: bool = False
    ssh_config: str | None = None
    network_bandwidth_gbit: float = 1.0
    python: str | None = None
    workdir: str | None = None
    intra_op_threads: int = 0  # the server's thread pools; 0 = TensorFlow's default (one thread per core)
    inter_op_threads: int = 0
    group: str | None = None  # the rack (or any set of nodes close to each other) the node belongs to
    memory_bytes: int | None = None  # host RAM autotune's tasks may use, TensorFlow's own included; None unknown
    gpu_memory_bytes: int | None = None  # each GPU's memory; None unknown
    memory_measured: bool = False  # ``memory_bytes`` is this machine's available share, not the spec's

    @property
    def memory_budget_bytes(self) -> int | None:
        """What a plan may fill of the node's host memory: ``memory_bytes`` less TensorFlow's own reserve."""
        return None if self.memory_bytes is None else max(self.memory_bytes - TF_RESERVE_BYTES, 0)

    @property
    def name(self) -> str:
        return self.hostname or self.address

    @property
    def is_loopback(self) -> bool:
        return is_loopback(self.address)

    @property
    def cpu_devices(self) -> list[str]:
        return [f"{self.address}:CPU:{i}" for i in self.cpus]

    @property
    def gpu_devices(self) -> list[str]:
        return [f"{self.address}:GPU:{i}" for i in self.gpus]


@dataclasses.dataclass(frozen=True)
class Link:
    """A per-link bandwidth override between two nodes (both directions)."""

    src: str
    dst: str
    bandwidth_gbit: float


@dataclasses.dataclass(frozen=True)
class ClusterSpec:
    """A validated cluster spec. Build it with :func:`load_cluster` or :meth:`from_dict`."""

    nodes: tuple[Node, ...]
    ssh: Mapping[str, SSHGroup] = dataclasses.field(default_factory=dict)
    links: tuple[Link, ...] = ()
    known_hosts: str | None = None
    source: str = "<cluster spec>"
    topology: Topology = Topology()
    launcher: str | None = None  # slurm (srun) or external (space/slurm.py); else local processes or SSH
    launcher_options: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # srun_args; port

    # ---- derived views -------------------------------------------------------------------------
    @property
    def chief(self) -> Node:
        return next(n for n in self.nodes if n.chief)

    @property
    def is_local(self) -> bool:
        """True when every node is a loopback address (the whole cluster runs on this machine)."""
        return all(n.is_loopback for n in self.nodes)

    @property
    def replicas(self) -> list[str]:
        """Data-parallel replica devices: every GPU, or the first CPU of nodes without GPUs."""
        out: list[str] = []
        for n in self.nodes:
            out.extend(n.gpu_devices or n.cpu_devices[:1])
        return out

    @property
    def ps_devices(self) -> list[str]:
        """Devices that may hold PS state: the first CPU of every node, in node order."""
        return [n.cpu_devices[0] for n in self.nodes]

    @property
    def devices(self) -> list[str]:
        return [d for n in self.nodes for d in n.cpu_devices + n.gpu_devices]

    def node(self, address: str) -> Node:
        for n in self.nodes:
            if n.address == address or n.hostname == address:
                return n
        raise SpecError(f"no node with address {address!r}", self.source)

    def node_of(self, device: str) -> Node:
        """The node a device name ``"<address>:CPU:<i>"`` belongs to."""
        return self.node(parse_device(device)[0])

    @property
    def groups(self) -> dict[str, tuple[str, ...]]:
        """Group name -> the addresses of its nodes, in node order ({} where no node names a group)."""
        out: dict[str, list[str]] = {}
        for n in self.nodes:
            if n.group is not None:
                out.setdefault(n.group, []).append(n.address)
        return {k: tuple(v) for k, v in out.items()}

    def replica_units(self, replicas: list[str] | None = None) -> list[list[int]]:
        """The units a hierarchical all-reduce reduces inside first: indices into ``replicas`` (default: every
        replica), grouped by the spec's node ``group`` where nodes name one, else by node; in order of first
        appearance. One unit, or units of different sizes, mean a flat ring (see :func:`hierarchical_units`)."""
        reps = self.replicas if replicas is None else replicas
        units: dict[str, list[int]] = {}
        for i, r in enumerate(reps):
            node = self.node_of(r)
            units.setdefault(node.group if node.group is not None else node.address, []).append(i)
        return list(units.values())

    def same_group(self, a: str, b: str) -> bool:
        ga, gb = self.node(a).group, self.node(b).group
        return ga is not None and ga == gb

    def bandwidth_gbit(self, a: str, b: str) -> float:
        """Bandwidth between two nodes (addresses): a link override, else the slower NIC, capped by the
        topology's bandwidth inside or across groups."""
        na, nb = self.node(a), self.node(b)
        for link in self.links:
            if {link.src, link.dst} == {na.address, nb.address}:
                return link.bandwidth_gbit
        nic = min(na.network_bandwidth_gbit, nb.network_bandwidth_gbit)
        tier = self.tier(na.address, nb.address)
        return min(nic, tier.bandwidth_gbit) if tier and tier.bandwidth_gbit else nic

    def tier(self, a: str, b: str) -> Tier | None:
        """The topology level between two nodes (addresses): intra- or inter-group; None without groups."""
        if not self.groups or a == b:
            return None
        return self.topology.intra_group if self.same_group(a, b) else self.topology.inter_group

    def to_dict(self) -> dict[str, Any]:
        """Plain data in the cluster.yml layout (bandwidths in Gbit/s)."""
        nodes = []
        for n in self.nodes:
            d: dict[str, Any] = {"address": n.address, "cpus": list(n.cpus), "gpus": list(n.gpus),
                                 "chief": n.chief, "network_bandwidth": n.network_bandwidth_gbit}
            for key in ("hostname", "ssh_config", "python", "workdir"):
                if getattr(n, key) is not None:
                    d[key] = getattr(n, key)
            for key in ("intra_op_threads", "inter_op_threads"):
                if getattr(n, key):  # written only when set: specs without them keep their fingerprint
                    d[key] = getattr(n, key)
            if n.group is not None:
                d["group"] = n.group
            if n.memory_bytes is not None and not n.memory_measured:  # measured: re-read on this machine
                d["memory"] = f"{n.memory_bytes}B"
            if n.gpu_memory_bytes is not None:
                d["gpu_memory"] = f"{n.gpu_memory_bytes}B"
            nodes.append(d)
        out: dict[str, Any] = {"nodes": nodes}
        if self.ssh:
            out["ssh"] = {name: {k: v for k, v in dataclasses.asdict(g).items() if k != "name" and v}
                          for name, g in self.ssh.items()}
        if self.links:
            out["links"] = [{"from": k.src, "to": k.dst, "bandwidth": k.bandwidth_gbit} for k in self.links]
        if self.known_hosts:
            out["known_hosts"] = self.known_hosts
        if self.topology.to_dict():
            out["topology"] = self.topology.to_dict()
        out.update(slurm.spec_keys(self.launcher, self.launcher_options))  # none unless set: fingerprints stay
        return out

    @property
    def fingerprint(self) -> str:
        """Stable hash of the spec's content (not of its file path or formatting), memory aside: the calibration
        and the study it keys measure time, which memory does not change, and a loopback node's memory is what
        the machine has free at the moment."""
        data = self.to_dict()
        for node in data["nodes"]:
            for key in MEMORY_KEYS:
                node.pop(key, None)
        blob = json.dumps(data, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: Any, source: str = "<cluster spec>") -> "ClusterSpec":
        return _parse(data, source)


def hierarchical_units(units: list[list[int]]) -> list[list[int]] | None:
    """``units`` where a hierarchical all-reduce runs over them (at least two units, all of one size >= 2), else
    None: the all-reduce runs as one flat ring."""
    if len(units) < 2 or len({len(u) for u in units}) != 1 or len(units[0]) < 2:
        return None
    return units


def is_loopback(address: str) -> bool:
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def parse_device(device: str) -> tuple[str, str, int]:
    """Split ``"<address>:CPU:<i>"`` into ``(address, "CPU", i)``; ``ValueError`` if malformed."""
    parts = device.rsplit(":", 2)
    if len(parts) != 3 or parts[1] not in ("CPU", "GPU") or not parts[2].isdigit() or not parts[0]:
        raise ValueError(f"device {device!r} is not of the form '<address>:CPU:<i>' or '<address>:GPU:<i>'")
    return parts[0], parts[1], int(parts[2])


def load_cluster(path: str | os.PathLike) -> ClusterSpec:
    """Read and validate a cluster spec file; every problem is a :class:`SpecError` naming the field."""
    import yaml  # local: keeps `import space` light

    if str(path) == slurm.LAUNCHER:  # `--spec slurm`: the allocation this process runs in
        return _parse({"launcher": slurm.LAUNCHER}, slurm.SOURCE)
    p = pathlib.Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise SpecError(f"cluster spec not found: {p}", hint="pass --spec PATH to an existing cluster.yml") from None
    except OSError as e:
        raise SpecError(f"cannot read cluster spec: {e.strerror}", str(p)) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{p}:{mark.line + 1}" if mark else str(p)
        raise SpecError(f"cluster spec is not valid YAML ({getattr(e, 'problem', e)})", where) from None
    return _parse(data, str(p))


# ---- parsing ---------------------------------------------------------------------------------------

def _type_error(field: str, expected: str, value: Any, where: str) -> SpecError:
    return SpecError(f"`{field}` must be {expected}, but got {value!r} ({type(value).__name__})", where)


def _check_keys(d: Mapping, allowed: set[str], what: str, where: str) -> None:
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise SpecError(f"unknown key {unknown[0]!r} in {what}", where, hint=f"known keys are {sorted(allowed)}")


def _int_list(value: Any, field: str, where: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                                              for v in value):
        raise _type_error(field, "a list of non-negative integers", value, where)
    return tuple(value)


def _threads(d: Mapping, key: str, where: str, what: str) -> int:
    value = d.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_THREADS:
        raise _type_error(f"{what}.{key}", f"an integer in 0..{MAX_THREADS} (0 = TensorFlow's default)", value, where)
    return value


def _cpus(raw: Mapping, label: str, where: str) -> tuple[int, ...]:
    cpus = _int_list(raw.get("cpus", [0]), f"{label}.cpus", where) or (0,)
    if max(cpus) >= MAX_CPU_DEVICES:
        raise SpecError(f"`{label}.cpus` names CPU device {max(cpus)}, but a node's server makes at most "
                        f"{MAX_CPU_DEVICES}", where, hint="cpus numbers the node's CPU devices from 0: [0], [0, 1]")
    return cpus


def _opt_str(d: Mapping, key: str, where: str, what: str) -> str | None:
    value = d.get(key)
    if value is not None and not isinstance(value, str):
        raise _type_error(f"{what}.{key}", "a string", value, where)
    return value


def _parse(data: Any, source: str) -> ClusterSpec:
    if data is None:
        raise SpecError("cluster spec is empty", source, hint="list the cluster's machines under `nodes:`")
    if not isinstance(data, dict):
        raise SpecError("cluster spec must be a mapping with a `nodes` list", source)
    _check_keys(data, _TOP_KEYS, "the cluster spec", source)
    data = slurm.spec_data(data, source) if "launcher" in data else data
    ssh = _parse_ssh(data.get("ssh") or {}, source)
    raw_nodes = data.get("nodes")
    if not isinstance(raw_nodes, list) or not raw_nodes:
        raise SpecError("`nodes` must be a non-empty list", source,
                        hint="add at least one node: nodes: [{address: localhost, chief: true}]")
    nodes = [node for i, raw in enumerate(raw_nodes) for node in _parse_nodes(raw, i, ssh, source)]
    if len(nodes) > MAX_NODES:
        raise SpecError(f"the spec names {len(nodes)} nodes, more than {MAX_NODES}", source)
    if len(nodes) == 1 and not nodes[0].chief:
        nodes[0] = dataclasses.replace(nodes[0], chief=True)  # a single node is the chief
    chiefs = [n.address for n in nodes if n.chief]
    if not chiefs:
        raise SpecError("no node is marked `chief: true`", source, hint="mark exactly one node as the chief")
    if len(chiefs) > 1:
        raise SpecError(f"{len(chiefs)} nodes are marked chief ({', '.join(chiefs)})", source,
                        hint="mark exactly one node as the chief")
    seen: dict[str, int] = {}
    for i, n in enumerate(nodes):
        for key in {n.address, n.hostname} - {None}:
            if key in seen:
                raise SpecError(f"duplicate address {key!r} in nodes[{i}] (already in nodes[{seen[key]}])", source)
            seen[key] = i
    loop = [n.address for n in nodes if n.is_loopback]
    if loop and len(loop) != len(nodes):
        remote = next(n.address for n in nodes if not n.is_loopback)
        raise SpecError(f"loopback node {loop[0]!r} mixed with remote node {remote!r}", source,
                        hint="use the machine's real address, or make every node loopback (127.0.0.x)")
    if loop:  # one machine: its available memory, shared among the nodes that give none
        shares = _node_memory.loopback_shares([n.memory_bytes for n in nodes], _node_memory.machine_memory_bytes())
        nodes = [n if n.memory_bytes is not None or m is None else dataclasses.replace(n, memory_bytes=m,
                                                                                      memory_measured=True)
                 for n, m in zip(nodes, shares)]
    names = {n.address: n.address for n in nodes} | {n.hostname: n.address for n in nodes if n.hostname}
    links = _parse_links(data.get("links") or [], names, source)
    known_hosts = _opt_str(data, "known_hosts", source, "cluster spec")
    topology = _parse_topology(data.get("topology"), source)
    if topology.intra_group.to_dict() or topology.inter_group.to_dict():
        lone = next((n for n in nodes if n.group is None), None)
        if lone is not None:
            raise SpecError(f"node {lone.name!r} has no `group`, but the topology sets bandwidths by group", source,
                            hint="give every node a `group:` (e.g. its rack)")
    return ClusterSpec(nodes=tuple(nodes), ssh=ssh, links=links, known_hosts=known_hosts, source=source,
                       topology=topology, launcher=data.get("launcher"), launcher_options=slurm.options(data))


def _parse_topology(raw: Any, source: str) -> Topology:
    if raw is None:
        return Topology()
    if not isinstance(raw, dict):
        raise _type_error("topology", "a mapping of intra_node / intra_group / inter_group", raw, source)
    _check_keys(raw, set(TOPOLOGY_KEYS), "topology", source)
    tiers = {}
    for key, tier in raw.items():
        if not isinstance(tier, dict):
            raise _type_error(f"topology.{key}", "a mapping {bandwidth, latency}", tier, source)
        _check_keys(tier, TIER_KEYS, f"topology.{key}", source)
        try:
            bw = parse_bandwidth_gbit(tier["bandwidth"]) if "bandwidth" in tier else None
        except ValueError as e:
            raise SpecError(f"bad `topology.{key}.bandwidth`: {e}", source) from None
        try:
            lat = parse_duration_s(tier["latency"]) if "latency" in tier else None
        except ValueError as e:
            raise SpecError(f"bad `topology.{key}.latency`: {e}", source) from None
        tiers[key] = Tier(bandwidth_gbit=bw, latency_s=lat)
    return Topology(**tiers)


def _parse_ssh(raw: Any, source: str) -> dict[str, SSHGroup]:
    if not isinstance(raw, dict):
        raise _type_error("ssh", "a mapping of group name to settings", raw, source)
    groups = {}
    for name, g in raw.items():
        where = f"ssh.{name}, {source}"
        if not isinstance(g, dict):
            raise _type_error(f"ssh.{name}", "a mapping", g, source)
        _check_keys(g, _SSH_KEYS, f"ssh group {name!r}", source)
        username = g.get("username")
        if not isinstance(username, str) or not username:
            raise SpecError(f"`ssh.{name}.username` is required and must be a string", source)
        port = g.get("port", 22)
        if not isinstance(port, int) or isinstance(port, bool) or not 0 < port < 65536:
            raise _type_error(f"ssh.{name}.port", "an integer in 1..65535", port, source)
        envs = g.get("shared_envs") or {}
        if not isinstance(envs, dict):
            raise _type_error(f"ssh.{name}.shared_envs", "a mapping of NAME: value", envs, source)
        for key in envs:
            if not isinstance(key, str) or not _ENV_NAME.fullmatch(key):
                raise SpecError(f"`ssh.{name}.shared_envs` has the name {key!r}, which is not an environment "
                                "variable name", source, hint="names match [A-Za-z_][A-Za-z0-9_]*")
        groups[str(name)] = SSHGroup(
            name=str(name), username=username, port=port,
            key_file=_opt_str(g, "key_file", where, f"ssh.{name}"),
            python_venv=_opt_str(g, "python_venv", where, f"ssh.{name}"),
            shared_envs={str(k): str(v) for k, v in envs.items()},
            known_hosts=_opt_str(g, "known_hosts", where, f"ssh.{name}"))
    return groups


def _parse_nodes(raw: Any, i: int, ssh: Mapping[str, SSHGroup], source: str) -> list[Node]:
    """One entry of ``nodes``: one node, or ``count`` nodes at consecutive addresses (``{i}`` in the address or
    hostname numbers them from 0 instead); only the first of them can be the chief."""
    node = _parse_node(raw, i, ssh, source)
    count = raw.get("count", 1)
    label = f"nodes[{i}] ({node.address})"
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_NODES:
        raise _type_error(f"{label}.count", f"an integer in 1..{MAX_NODES}", count, source)
    templated = "{i}" in node.address
    if count == 1 and not templated:
        return [node]
    if node.hostname is not None and "{i}" not in node.hostname:
        raise SpecError(f"`hostname` of {label} names {count} nodes alike", source,
                        hint="number them with {i} in the hostname, e.g. host{i}")
    if not templated:
        try:
            first = ipaddress.ip_address(node.address)
        except ValueError:
            raise SpecError(f"{label} has `count: {count}` but its address is neither an IP address nor "
                            "a template with {i}", source, hint="e.g. address: 10.0.0.1 or address: node{i}") from None
    out = []
    for k in range(count):
        try:
            address = node.address.replace("{i}", str(k)) if templated else str(first + k)
        except ipaddress.AddressValueError:
            raise SpecError(f"{label}: {count} consecutive addresses overflow the address space", source) from None
        hostname = node.hostname.replace("{i}", str(k)) if node.hostname else None
        out.append(dataclasses.replace(node, address=address, hostname=hostname, chief=node.chief and k == 0))
    return out


def _parse_node(raw: Any, i: int, ssh: Mapping[str, SSHGroup], source: str) -> Node:
    if not isinstance(raw, dict):
        raise _type_error(f"nodes[{i}]", "a mapping", raw, source)
    address = raw.get("address")
    label = f"nodes[{i}]" + (f" ({address})" if isinstance(address, str) else "")
    _check_keys(raw, _NODE_KEYS, label, source)
    if not isinstance(address, str) or not address:
        raise SpecError(f"`address` is required and must be a string in {label}", source)
    if ":" in address:
        raise _colon_error(address, label, source)
    chief = raw.get("chief", False)
    if not isinstance(chief, bool):
        raise _type_error(f"{label}.chief", "true or false", chief, source)
    group = raw.get("ssh_config")
    if group is not None and group not in ssh:
        raise SpecError(f"undefined ssh group {group!r} in {label}.ssh_config", source,
                        hint=f"define it under `ssh:` (defined: {sorted(ssh) or 'none'})")
    try:
        bw = parse_bandwidth_gbit(raw.get("network_bandwidth", 1))
    except ValueError as e:
        raise SpecError(f"bad `network_bandwidth` in {label}: {e}", source) from None
    cpus = _cpus(raw, label, source)
    return Node(address=address, hostname=_opt_str(raw, "hostname", source, label),
                cpus=cpus, gpus=_int_list(raw.get("gpus"), f"{label}.gpus", source), chief=chief,
                ssh_config=group, network_bandwidth_gbit=bw,
                python=_opt_str(raw, "python", source, label), workdir=_opt_str(raw, "workdir", source, label),
                intra_op_threads=_threads(raw, "intra_op_threads", source, label),
                inter_op_threads=_threads(raw, "inter_op_threads", source, label),
                group=_opt_str(raw, "group", source, label),
                memory_bytes=_node_memory.node_memory(raw, "memory", label, source),
                gpu_memory_bytes=_node_memory.node_memory(raw, "gpu_memory", label, source))


def _colon_error(address: str, label: str, source: str) -> SpecError:
    """Why an address with a colon is refused, as the user wrote it: a URL (``grpc://host``), a ``host:port``, or
    IPv6, which autotune does not support (the device names ``<address>:CPU:0`` would need brackets everywhere)."""
    scheme, sep, rest = address.partition("://")
    if sep:
        host = rest.split("/")[0]
        host = host.rpartition(":")[0] if host.count(":") == 1 else host
        example = f", e.g. address: {host}" if host and ":" not in host else ""
        return SpecError(f"{label} has the URL scheme {scheme}://, which a node's address must not have", source,
                         hint=f"give the address without {scheme}://{example}")
    host, _, port = address.rpartition(":")
    if host and ":" not in host and port.isdigit():
        return SpecError(f"{label} has a port, which a node's address must not have", source,
                         hint=f"give address: {host}; a server's port is not set per node")
    return SpecError(f"{label} has an IPv6 address, which autotune does not support", source,
                     hint="give the node's IPv4 address, or a host name that resolves to one")


def _parse_links(raw: Any, names: Mapping[str, str], source: str) -> tuple[Link, ...]:
    if not isinstance(raw, list):
        raise _type_error("links", "a list of {from, to, bandwidth}", raw, source)
    links = []
    for i, link in enumerate(raw):
        if not isinstance(link, dict):
            raise _type_error(f"links[{i}]", "a mapping", link, source)
        _check_keys(link, _LINK_KEYS, f"links[{i}]", source)
        for end in ("from", "to"):
            if link.get(end) not in names:
                raise SpecError(f"`links[{i}].{end}` = {link.get(end)!r} is not a node address or hostname", source)
        try:
            bw = parse_bandwidth_gbit(link.get("bandwidth"))
        except ValueError as e:
            raise SpecError(f"bad `links[{i}].bandwidth`: {e}", source) from None
        links.append(Link(src=names[link["from"]], dst=names[link["to"]], bandwidth_gbit=bw))
    return tuple(links)
