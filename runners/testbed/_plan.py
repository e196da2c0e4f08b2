"""What a testbed will be: names, addresses and rates, checked before anything is created.

Pure data (no system calls), so it is tested without root. Naming, for prefix ``attb`` and 3 hosts:
namespaces ``attb-br`` (the bridge ``br0``) and ``attb-h0`` .. ``attb-h2`` (each host's ``eth0``), one link
``attb-r`` in the root namespace for the driver. Addresses come from 198.18.0.0/15 (RFC 2544 benchmarking).
A slow link (``--link 0-2=50mbit``) is a pair of hosts whose traffic runs below both of their rates.
"""
from __future__ import annotations

import ipaddress
import os
import re
import sys
from typing import Any, Sequence

from runners.testbed._errors import TestbedRefused
from space import parse_bandwidth_gbit

BENCHMARK_NET = ipaddress.ip_network("198.18.0.0/15")
DEFAULT_PREFIX = "attb"
DEFAULT_SUBNET = "198.18.0.0/24"
HOST_OFFSET = 11  # host i gets subnet address 11 + i; the root namespace gets address 1
MAX_HOSTS = 64
SSH_PORT = 22
_PREFIX = re.compile(r"^[a-z][a-z0-9]{0,9}$")  # "<prefix>-r" must fit the 15-character interface name limit


def default_dir(prefix: str) -> str:
    return os.path.join("/tmp", f"autotune-testbed-{prefix}")


def check_prefix(prefix: str) -> str:
    if not _PREFIX.match(prefix or ""):
        raise TestbedRefused(f"`--prefix` must be 1-10 lower-case letters or digits starting with a letter, "
                             f"but got {prefix!r}", hint="e.g. --prefix attb")
    return prefix


def rate_bits(value: str, where: str) -> int:
    """A bandwidth (``1gbit``, ``200mbit``, a number in Gbit/s) as bits per second."""
    try:
        bits = round(parse_bandwidth_gbit(value) * 1e9)
    except ValueError as e:
        raise TestbedRefused(f"bad {where}: {e}", hint="use a rate such as 200mbit or 1gbit") from None
    if not 1_000_000 <= bits <= 100_000_000_000:
        raise TestbedRefused(f"{where} must be between 1mbit and 100gbit, but got {value!r}")
    return bits


def _host_index(i: int, hosts: int, where: str) -> int:
    if not 0 <= i < hosts:
        raise TestbedRefused(f"{where} names host {i}, but hosts are 0..{hosts - 1}",
                             hint="host indices start at 0 (h0 is the chief)")
    return i


def parse_per_host(items: Sequence[str], hosts: int) -> dict[int, int]:
    """``["2=100mbit", "h0=1gbit"]`` → ``{2: 100_000_000, 0: 1_000_000_000}`` (host indices from 0)."""
    out: dict[int, int] = {}
    for item in items:
        index, sep, rate = item.partition("=")
        index = index.strip().removeprefix("h")
        if not sep or not index.isdigit():
            raise TestbedRefused(f"`--per-host` must be INDEX=RATE, but got {item!r}", hint="e.g. --per-host 2=100mbit")
        i = _host_index(int(index), hosts, f"`--per-host {item}`")
        out[i] = rate_bits(rate, f"`--per-host {item}`")
    return out


def parse_links(items: Sequence[str], rates: Sequence[int]) -> list[dict[str, Any]]:
    """``["0-2=50mbit", "h1-h2=20mbit"]`` → ``[{"hosts": [0, 2], "rate_bit": 50_000_000}, ...]``, sorted by pair.

    ``rates`` are the hosts' own rates: a link joins two different hosts, each pair once, and is no faster than
    the slower of the two (it slows a pair down; the hosts' links cap it anyway). The rate holds both ways."""
    out: dict[tuple[int, int], int] = {}
    for item in items:
        pair, sep, rate = item.partition("=")
        ends = [e.strip().removeprefix("h") for e in pair.split("-")]
        if not sep or len(ends) != 2 or not all(e.isdigit() for e in ends):
            raise TestbedRefused(f"`--link` must be I-J=RATE, but got {item!r}", hint="e.g. --link 0-2=50mbit")
        i, j = (_host_index(int(e), len(rates), f"`--link {item}`") for e in ends)
        if i == j:
            raise TestbedRefused(f"`--link {item}` joins host {i} to itself",
                                 hint="name two hosts, e.g. --link 0-2=50mbit")
        key = (min(i, j), max(i, j))
        if key in out:
            raise TestbedRefused(f"`--link {item}` repeats the link between h{key[0]} and h{key[1]}",
                                 hint="give each pair of hosts one rate")
        bits = rate_bits(rate, f"`--link {item}`")
        limit = min(rates[i], rates[j])
        if bits > limit:
            slower = i if rates[i] <= rates[j] else j
            raise TestbedRefused(f"`--link {item}` is faster than h{slower}'s own rate ({format_rate(limit)}), "
                                 f"which caps the link anyway",
                                 hint=f"use at most {format_rate(limit)}, or raise h{slower}'s rate with --per-host")
        out[key] = bits
    return [{"hosts": list(key), "rate_bit": bits} for key, bits in sorted(out.items())]


def fair_threads(hosts: int) -> int:
    """Each host's share of this machine's cores (at least 1): the emulated hosts share one CPU."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, cores // max(hosts, 1))


def make_plan(hosts: int, bandwidth: str, per_host: Sequence[str] = (), links: Sequence[str] = (),
              prefix: str = DEFAULT_PREFIX, subnet: str = DEFAULT_SUBNET, directory: str | None = None,
              python: str | None = None, threads: int | None = None) -> dict[str, Any]:
    """Validate the request and return the plan as plain JSON-able data.

    ``links``: slow links, ``I-J=RATE`` (see :func:`parse_links`); the plan's ``links`` lists them by host index.

    ``threads``: intra-op threads of each host's TensorFlow server (default :func:`fair_threads`; 0 leaves
    TensorFlow's default of one per core, so N hosts on C cores run N*C threads and time each other out).
    """
    check_prefix(prefix)
    if not 1 <= hosts <= MAX_HOSTS:
        raise TestbedRefused(f"`--hosts` must be in 1..{MAX_HOSTS}, but got {hosts}")
    if threads is not None and threads < 0:
        raise TestbedRefused(f"`--threads` must be >= 0, but got {threads}", hint="0 = TensorFlow's default")
    try:
        net = ipaddress.ip_network(subnet)
    except ValueError as e:
        raise TestbedRefused(f"bad `--subnet`: {e}", hint=f"e.g. --subnet {DEFAULT_SUBNET}") from None
    if not (net.version == 4 and net.subnet_of(BENCHMARK_NET)):
        raise TestbedRefused(f"`--subnet` must lie inside {BENCHMARK_NET} (the benchmarking range), "
                             f"but got {subnet}", hint="e.g. --subnet 198.18.1.0/24")
    if HOST_OFFSET + hosts >= net.num_addresses - 1:
        raise TestbedRefused(f"`--subnet {subnet}` is too small for {hosts} hosts",
                             hint=f"use a /24 such as {DEFAULT_SUBNET}")
    default_rate = rate_bits(bandwidth, "`--bandwidth`")
    overrides = parse_per_host(per_host, hosts)
    rates = [overrides.get(i, default_rate) for i in range(hosts)]
    return {
        "prefix": prefix,
        "dir": os.path.abspath(directory or default_dir(prefix)),
        "subnet": str(net),
        "python": python or sys.executable,
        "threads": fair_threads(hosts) if threads is None else threads,
        "bridge_netns": f"{prefix}-br",
        "bridge": "br0",
        "root": {"link": f"{prefix}-r", "peer": "root", "address": str(net[1])},
        "hosts": [{"index": i, "name": f"h{i}", "netns": f"{prefix}-h{i}", "port": f"h{i}",
                   "address": str(net[HOST_OFFSET + i]), "rate_bit": rates[i]}
                  for i in range(hosts)],
        "links": parse_links(links, rates),
    }


def format_rate(bits: int) -> str:
    """``200000000`` → ``"200mbit"`` (the form the cluster spec and ``tc`` both read as bits)."""
    for unit, scale in (("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3)):
        if bits % scale == 0:
            return f"{bits // scale}{unit}"
    return f"{bits}bit"
