"""What ``autotune calibrate`` measured, as plain data (seconds, bytes): ``simulator.to_calibration`` fits the
cost model's constants to it. The probes that fill it are in :mod:`runners.calibrate`."""
from __future__ import annotations

import dataclasses
import json

import numpy as np


@dataclasses.dataclass
class LinkTiming:
    """One direction of one pair of nodes: the median time of a message of each size."""

    src: str
    dst: str
    sizes: list[int]
    seconds: list[float]  # median per size, the session's own cost (``base_s``) included
    base_s: float  # the same probe with source and destination on one task
    tiny_s: float  # a 4-byte message from source to destination
    # where the time did not grow with message size even timed again: the bandwidth the link is known to reach
    # (its largest message over what it took beyond a 4-byte one, else what the cluster spec declares); None: the
    # sizes resolve it
    floor_gbit: float | None = None


@dataclasses.dataclass
class Measurements:
    """Everything one calibration run measured (seconds, bytes); turned into a Calibration by
    ``simulator.to_calibration``."""

    links: list[LinkTiming]
    allreduce_sizes: list[int]
    allreduce_s: list[float]
    allreduce_tiny_s: float  # a 4-byte all-reduce: launch overhead and latencies
    allreduce_base_s: float
    rpc_tensors: int
    rpc_s: float  # ``rpc_tensors`` tiny tensors in one run
    rpc_one_s: float  # one tiny tensor
    reduce_s_per_byte: float
    cast_s_per_byte: float
    step_single_s: float | None = None  # one replica alone
    chain_hops: tuple[int, int] = (0, 0)  # (short, long) chains of dependent tiny messages
    chain_s: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)  # link_key -> (short, long)
    collectives: int = 0  # independent tiny all-reduces in one run
    collectives_many_s: float = 0.0
    collectives_one_s: float = 0.0
    run_all_tasks_s: float | None = None  # a tiny run touching every task
    run_one_task_s: float | None = None  # the same on one task
    powersgd_small_s: float | None = None  # PSGD_SMALL_COUNT PowerSGD rounds of PSGD_SMALL matrices (space.anchors)
    powersgd_large_s: float | None = None  # PSGD_LARGE_COUNT rounds of PSGD_LARGE matrices
    nosync_step_s: float | None = None  # the lockstep step of every replica with nothing synchronized
    nosync_noupdate_s: float | None = None  # the same with every gradient computed and none applied
    update_s: float | None = None  # the model's optimizer applied to every variable once, on one node
    anchors_s: dict[str, float] = dataclasses.field(default_factory=dict)  # anchor_strategies name -> median step
    # the same name -> its mean step in each round of the head-to-head turns (one round order for every anchor)
    anchor_rounds_s: dict[str, list[float]] = dataclasses.field(default_factory=dict)
    # model-step job ("alone", "nosync", "noupdate", an anchor) -> the steps per call it ran: each of its samples is
    # a call's seconds over its steps, which spreads the call's own cost over them
    steps_per_call: dict[str, int] = dataclasses.field(default_factory=dict)


# the fields the cluster probes fill: what the cluster is, whatever model runs on it. The rest (the update probe,
# the model's steps) are one model's
CLUSTER_FIELDS = ("links", "allreduce_sizes", "allreduce_s", "allreduce_tiny_s", "allreduce_base_s", "rpc_tensors",
                  "rpc_s", "rpc_one_s", "reduce_s_per_byte", "cast_s_per_byte", "chain_hops", "chain_s", "collectives",
                  "collectives_many_s", "collectives_one_s", "run_all_tasks_s", "run_one_task_s", "powersgd_small_s",
                  "powersgd_large_s")


def cluster_probes(m: Measurements) -> dict:
    """The cluster probes' part of ``m`` as plain JSON data (lists, not tuples), for a calibration to keep."""
    d = {k: getattr(m, k) for k in CLUSTER_FIELDS}
    d["links"] = [dataclasses.asdict(t) for t in m.links]
    return json.loads(json.dumps(d))


def from_cluster_probes(d) -> Measurements:
    """Measurements holding the cluster probes ``cluster_probes`` kept, and nothing of a model."""
    fields = {k: d[k] for k in CLUSTER_FIELDS if k in d}
    fields["links"] = [LinkTiming(**t) for t in d["links"]]
    fields["chain_hops"] = tuple(d.get("chain_hops") or (0, 0))
    fields["chain_s"] = {k: tuple(v) for k, v in (d.get("chain_s") or {}).items()}
    return Measurements(**fields)


def grows(sizes: list[int], seconds: list[float]) -> bool:
    """Whether the time grows with message size: the slope of the least-squares line is positive (what an
    alpha-beta fit needs to read a bandwidth)."""
    return bool(np.polyfit(sizes, seconds, 1)[0] > 0)


def ms_list(seconds: list[float]) -> str:
    return ", ".join(f"{x * 1e3:.2f}" for x in seconds) + " ms"
