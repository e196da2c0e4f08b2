"""Shared rules of the classic builders: load-balanced placement and shard counts."""
from __future__ import annotations

from typing import Sequence

from space.errors import SpecError


def ps_devices(cluster) -> list[str]:
    devices = cluster.ps_devices
    if not devices:  # AutoDist's guard checked the wrong list and never fired; this one does
        raise SpecError("the cluster has no CPU device to hold parameter-server state", cluster.source)
    return devices


def least_loaded(loads: dict[str, float]) -> str:
    """The device with the smallest load; ties go to the earliest device (dicts keep order)."""
    return min(loads, key=lambda d: loads[d])


def lpt_assign(items: Sequence[tuple[str, float]], devices: Sequence[str]) -> dict[str, str]:
    """Greedy largest-first (LPT) placement of ``(key, bytes)`` items onto devices; within 4/3 of optimal."""
    loads = {d: 0.0 for d in devices}
    out = {}
    for key, size in sorted(items, key=lambda kv: -kv[1]):  # sorted() is stable: equal sizes keep order
        dest = least_loaded(loads)
        out[key] = dest
        loads[dest] += size
    return out


def smallest_divisor_shards(dim: int) -> int:
    """AutoDist's even shard count: the smallest divisor >= 2 of ``dim``.

    AutoDist returned ``dim`` itself for a prime ``dim`` (one shard per row: thousands of tiny tensors).
    Fixed here: a prime (or < 2) dimension is not partitioned (1 shard).
    """
    for d in range(2, int(dim ** 0.5) + 1):
        if dim % d == 0:
            return d
    return 1


INDEX_BYTES = 8  # an all-gathered sparse gradient carries an int64 index per row


def gather_is_smaller(var, replicas: int) -> bool:
    """Whether all-gathering ``var``'s sparse gradient moves fewer bytes per node than a ring all-reduce of it
    densified: (N - 1) replicas' rows and indices against 2 (N - 1) / N of the whole table."""
    rows = var.rows_touched
    if not var.sparse or rows is None or replicas < 2:
        return False
    gathered = (replicas - 1) * rows * (var.row_bytes + INDEX_BYTES)
    return gathered < 2 * (replicas - 1) / replicas * var.bytes
