"""The cost model's step by part (``Scorer.breakdown``): what a trace of the real step can be held against, part by
part, so that a wrong prediction is located and not only sized.

The parts of the step add up to it: ``compute_s`` (the slowest tower's forward, backward and compression),
``fixed_s`` (barriers and per-message overheads, as far as they are exposed), ``comm_s`` (the rest of the
communication not hidden behind compute) and ``correction_s`` (what the fitted residual adds or takes away).
Each link's bytes are the ledger's (:mod:`simulator._ledger`) and its seconds those bytes at the link's bandwidth
(:class:`simulator._network.Network`): the time the link is busy, whether or not the step waits for it.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from simulator._prediction import Prediction


@dataclasses.dataclass(frozen=True)
class LinkPart:
    """One direction of one pair of nodes: the bytes the cost model sends over it per step and the seconds they
    keep it busy."""

    src: str
    dst: str
    bytes: float
    seconds: float


@dataclasses.dataclass(frozen=True)
class Breakdown:
    """Predicted step of one strategy by part, in seconds; ``compute_s + fixed_s + comm_s + correction_s`` is
    ``step_s``."""

    step_s: float
    compute_s: float  # the slowest tower's forward + backward + compression
    fixed_s: float  # exposed barriers and per-message overheads (collective launches, PS RPCs)
    comm_s: float  # the rest of the exposed communication
    correction_s: float  # the residual's correction (0 without one)
    tower_compute_s: Mapping[str, float]  # replica device -> its compute, by its relative speed
    links: tuple[LinkPart, ...]  # every link that carries bytes, busiest first

    @property
    def parts(self) -> dict[str, float]:
        """The step's parts by name, in the order they are drawn."""
        return {"compute": self.compute_s, "fixed": self.fixed_s, "comm": self.comm_s,
                "correction": self.correction_s}

    @property
    def busiest_link(self) -> LinkPart | None:
        return self.links[0] if self.links else None


def breakdown_of(prediction: Prediction, ledger: Mapping[tuple[str, str], float], addresses: list[str],
                 link_bytes_per_s: np.ndarray, replicas: tuple[str, ...], speeds: list[float]) -> Breakdown:
    """The :class:`Breakdown` of one strategy from its prediction, its ledger and the network's link bandwidths
    (``link_bytes_per_s``: (M, M) bytes per second from node a to node b, ``addresses`` in that order); each of
    ``replicas`` computes in proportion to one over its relative speed (``speeds``), the slowest taking
    ``prediction.compute_s``."""
    raw, compute = prediction.raw_step_time_s, prediction.compute_s
    exposed = max(raw - compute, 0.0)
    fixed = min(prediction.barrier_s + prediction.latency_s, exposed)
    compute = raw - exposed  # compute is never more than the raw step
    slowest = min(speeds) if speeds else 1.0
    towers = {r: compute * slowest / s for r, s in zip(replicas, speeds)}
    ix = {a: i for i, a in enumerate(addresses)}
    links = []
    for (a, b), nbytes in ledger.items():
        bw = float(link_bytes_per_s[ix[a], ix[b]])
        links.append(LinkPart(a, b, float(nbytes), float(nbytes) / bw if np.isfinite(bw) and bw > 0 else 0.0))
    links.sort(key=lambda p: (-p.seconds, p.src, p.dst))
    return Breakdown(step_s=prediction.step_time_s, compute_s=compute, fixed_s=fixed, comm_s=exposed - fixed,
                     correction_s=prediction.step_time_s - raw, tower_compute_s=towers, links=tuple(links))
