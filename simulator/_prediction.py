"""Result types: ``Prediction`` (one strategy's step time and its parts) and ``Bound`` / ``Distance``."""
from __future__ import annotations

import dataclasses
from typing import Mapping

COUNT_UNIT_S = 1e-3  # a count enters the residual as count x 1 ms: its coefficient reads as ms per piece


@dataclasses.dataclass(frozen=True)
class Prediction:
    """Predicted step time of one strategy, in seconds, with the parts it is made of.

    ``step_time_s`` = ``compute_s`` + ``exposed_comm_s`` before the residual correction (``raw_step_time_s``).
    ``per_variable_s`` is each variable's communication time as if it were alone on the network;
    ``per_group_s`` the time of each fused all-reduce group (both wire kinds of a group summed).
    """

    step_time_s: float
    raw_step_time_s: float
    compute_s: float  # forward + backward of the slowest replica (mean when nothing synchronizes) + compression
    forward_s: float
    backward_s: float
    compression_s: float  # casts, PowerSGD matmuls, error-feedback passes
    pull_s: float  # exposed PS pull before the forward pass
    gradient_phase_s: float  # from the start of the backward pass to the last push / all-reduce
    barrier_s: float
    exposed_comm_s: float  # communication not hidden behind computation
    latency_s: float  # latency and per-message overheads (all-reduce launches, PS RPCs on the busiest node)
    busiest_resource_s: float  # total busy time of the most loaded NIC direction, link or shared CPUs
    wire_bytes: float  # bytes crossing the network per step
    per_variable_s: Mapping[str, float]
    per_group_s: Mapping[int, float]
    server_load_bytes: Mapping[str, float]  # per PS node: bytes each replica exchanges with it (L_j)
    busiest_server: str | None
    busiest_server_s: float  # total NIC time of that server's busier direction
    pieces: int = 0  # synchronized tensors beyond one per variable (shards of partitioned variables)
    collectives: int = 0  # all-reduce collectives launched per step (after fusion)

    @property
    def features(self) -> tuple[float, float, float, float, float]:
        """The inputs of the residual correction: (compute, exposed communication, latency, pieces, collectives),
        the two counts in units of ``COUNT_UNIT_S`` so that every coefficient is of order one."""
        return (self.compute_s, self.exposed_comm_s, self.latency_s, self.pieces * COUNT_UNIT_S,
                self.collectives * COUNT_UNIT_S)

    @property
    def busiest_server_load_bytes(self) -> float:
        return self.server_load_bytes.get(self.busiest_server, 0.0) if self.busiest_server else 0.0


@dataclasses.dataclass(frozen=True)
class Bound:
    """Roofline of a model on a cluster: no strategy can beat ``step_s``."""

    compute_s: float
    comm_s: float  # T_lb(S): moving every gradient once through the bottleneck NIC
    comm_wire_s: float  # T_lb(S_wire) for the wire bytes given (equals comm_s without compression)
    step_s: float  # max(compute_s, comm_s)
    ceiling_s: float  # compute_s + comm_s: what no overlap at all would cost
    bandwidth_gbit: float
    nodes: int  # nodes holding replicas (N of the formula; traffic inside a node is free)
    extra_servers: int  # nodes without replicas that may serve PS state (k of the BytePS formula)


@dataclasses.dataclass(frozen=True)
class Distance:
    """How far a step time is from the bound: gap = T / max(T_compute, T_lb) - 1, eta = T_lb / T_comm."""

    step_s: float
    gap: float
    eta: float | None  # None when there is no communication to compare with
