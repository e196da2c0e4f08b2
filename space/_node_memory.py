"""A node's memory in the cluster spec: ``memory:`` (host RAM autotune's tasks may use) and ``gpu_memory:`` (per
GPU), their parsing, and the defaults where the spec gives none: on loopback nodes, the machine's memory shared
among them; under Slurm, the allocation's (``space.slurm.memory``); else unknown (no check).

Of a node's memory, :data:`TF_RESERVE_BYTES` is TensorFlow's own: what its server process holds before it stores
anything of the model (the runtime, its kernels, gRPC's buffers); the rest is what a plan may fill.
"""
from __future__ import annotations

import os
from typing import Any, Mapping

from space._units import format_bytes, parse_memory_bytes
from space.errors import SpecError

# an idle TensorFlow server process (one per node) was measured at 350-600 MB resident on the development machine;
# 500 MB covers most of that without refusing plans that fit, and a plan near the edge fails in its first step
TF_RESERVE_BYTES = 500 * 10**6
MEMORY_KEYS = ("memory", "gpu_memory")


def machine_memory_bytes() -> int | None:
    """This machine's memory (``MemTotal`` of /proc/meminfo, else the physical pages), None where unknown.

    The total, not what is free right now: a search's pruning must not change with the moment's page cache or
    another program's burst, and a loopback cluster emulates nodes that have the machine to themselves."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024  # the kernel writes kB meaning KiB
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def node_memory(raw: Mapping[str, Any], key: str, label: str, source: str) -> int | None:
    """The node's ``memory`` or ``gpu_memory`` in bytes (None: not given); a host memory must leave room for
    TensorFlow's own :data:`TF_RESERVE_BYTES`."""
    if raw.get(key) is None:
        return None
    try:
        value = parse_memory_bytes(raw[key])
    except ValueError as e:
        raise SpecError(f"bad `{label}.{key}`: {e}", source, hint="e.g. memory: 16GB, or memory: 512MiB") from None
    if key == "memory" and value <= TF_RESERVE_BYTES:
        raise SpecError(f"`{label}.memory` is {format_bytes(value)}, not more than the "
                        f"{format_bytes(TF_RESERVE_BYTES)} a TensorFlow server takes itself", source,
                        hint="give the RAM the node's tasks may use, e.g. memory: 8GB")
    return value


def loopback_shares(given: list[int | None], available: int | None) -> list[int | None]:
    """Each loopback node's memory: its own where given, else an equal share of what the machine has available
    beyond the given ones (None where the machine's is unknown)."""
    unset = sum(g is None for g in given)
    if not unset or available is None:
        return list(given)
    share = max(available - sum(g for g in given if g is not None), 0) // unset
    return [share if g is None else g for g in given]
