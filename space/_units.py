"""Parsing of bandwidths (plain numbers are Gbit/s) and latencies (plain numbers are seconds); strings may carry
a unit. Also the bound on a node's thread pools, which both spec sources (a file, Slurm) apply."""
from __future__ import annotations

import re

MAX_THREADS = 1024  # per thread pool of a node's server; TensorFlow crashes making billions

_UNITS = {  # bits per second for each unit suffix (lower-case)
    "bit": 1.0, "bps": 1.0,
    "kbit": 1e3, "kbps": 1e3,
    "mbit": 1e6, "mbps": 1e6,
    "gbit": 1e9, "gbps": 1e9,
}
_PATTERN = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zA-Z/]*)\s*$")


def parse_bandwidth_gbit(value: object) -> float:
    """Return ``value`` in Gbit/s. Numbers are taken as Gbit/s; ``"200mbit"``, ``"1.5 Gbps"``,
    ``"10gbit/s"`` carry their unit. Raises ``ValueError`` with the accepted forms."""
    if isinstance(value, bool):
        raise ValueError(f"expected a bandwidth, got {value!r}")
    if isinstance(value, (int, float)):
        number, unit = float(value), "gbit"
    elif isinstance(value, str) and (m := _PATTERN.match(value)):
        number, unit = float(m.group(1)), (m.group(2).lower().removesuffix("/s") or "gbit")
    else:
        raise ValueError(f"expected a bandwidth such as 1, '200mbit' or '10gbit', got {value!r}")
    if unit not in _UNITS:
        raise ValueError(f"unknown bandwidth unit {unit!r} in {value!r}; use one of {sorted(_UNITS)}")
    if number <= 0:
        raise ValueError(f"bandwidth must be > 0, got {value!r}")
    return number * _UNITS[unit] / 1e9


_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}


def parse_duration_s(value: object) -> float:
    """Return ``value`` in seconds. Numbers are taken as seconds; ``"20us"``, ``"0.5ms"`` carry their unit.
    Raises ``ValueError`` with the accepted forms."""
    if isinstance(value, bool):
        raise ValueError(f"expected a latency, got {value!r}")
    if isinstance(value, (int, float)):
        number, unit = float(value), "s"
    elif isinstance(value, str) and (m := _PATTERN.match(value)):
        number, unit = float(m.group(1)), (m.group(2).lower() or "s")
    else:
        raise ValueError(f"expected a latency such as 2e-5, '20us' or '0.5ms', got {value!r}")
    if unit not in _TIME_UNITS:
        raise ValueError(f"unknown time unit {unit!r} in {value!r}; use one of {sorted(_TIME_UNITS)}")
    if number < 0:
        raise ValueError(f"latency must be >= 0, got {value!r}")
    return number * _TIME_UNITS[unit]


# bytes per unit suffix (lower-case): decimal (kB, MB, GB, TB) and binary (KiB, MiB, GiB, TiB); single letters
# (Slurm's 1024-based "4G", Kubernetes' 1000-based "4G") are refused as ambiguous
_MEMORY_UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
                 "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
MAX_PLAIN_GB = 1e5  # a plain number above this is likely bytes meant as bytes: refused with a hint


def parse_memory_bytes(value: object) -> int:
    """Return ``value`` in bytes. Plain numbers are GB (10^9 bytes), as plain bandwidths are Gbit/s; strings carry
    their unit: ``"4GB"``, ``"512MiB"``, ``"1.5 GiB"``, ``"2000000000B"``. Raises ``ValueError`` with the forms."""
    if isinstance(value, bool):
        raise ValueError(f"expected an amount of memory, got {value!r}")
    if isinstance(value, (int, float)):
        if value > MAX_PLAIN_GB:
            raise ValueError(f"plain numbers are GB, and {value!r} GB is more than any node has; "
                             f"write bytes with their unit, e.g. '{int(value)}B'")
        number, unit = float(value), "gb"
    elif isinstance(value, str) and (m := _PATTERN.match(value)):
        number, unit = float(m.group(1)), (m.group(2).lower() or "gb")
    else:
        raise ValueError(f"expected memory such as 16 (GB), '4GB', '512MiB' or '1.5 GiB', got {value!r}")
    if unit not in _MEMORY_UNITS:
        raise ValueError(f"unknown memory unit {unit!r} in {value!r}; use one of B, kB, MB, GB, TB, KiB, MiB, "
                         "GiB, TiB")
    if number <= 0:
        raise ValueError(f"memory must be > 0, got {value!r}")
    return int(number * _MEMORY_UNITS[unit])


def format_bytes(n: float) -> str:
    """``5.2 GB``, ``640 MB``, ``12 kB``: decimal units, two or three significant digits, for messages."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"
