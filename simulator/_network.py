"""Network constants of the cost model: which NIC directions and links a byte of PS load or all-reduce uses.

Resources: one per NIC direction (send of node n = n, receive of node n = M + n), one per direction of every
link measured slower than both its NICs and, where the nodes share CPUs, one for those CPUs (the last). Replicas
on the PS's own node exchange nothing over the wire.

A server answers its remote replicas' pulls one after another, so the first replica served starts computing
once its own pulls are done (``coef_pull_node_first``, per node holding replicas: one replica's pull from every
server but its own node's, whose variables it reads in place) and only the last replica's push is left once the
last pull is served (``coef_push_last``): k = remote replicas of that server.
"""
from __future__ import annotations

import numpy as np

from simulator._calibration import Calibration

GBIT = 1e9 / 8  # bytes per second in one Gbit/s


# the replicas are taken to share CPUs where their lockstep step is this many times one replica's alone (the
# 3-host testbed on one core: 2.5-4.6x); on separate machines the slowest of N replicas is a few percent over
SHARED_CPUS_LOCKSTEP = 1.5


def network_coefficients(addresses: list[str], counts: np.ndarray, cal: Calibration,
                         shared_cpus: bool = False) -> dict:
    """Coefficient matrices and all-reduce constants for replicas ``counts[n]`` on each node ``n``.

    ``cal.rpc_overhead_s`` is the probe's time per tiny tensor moved between two tasks: on separate machines the
    two ends work in parallel and each end's NIC resource carries all of it; where the nodes share CPUs
    (``shared_cpus``) the sender and the receiver work on the same cores, and so do every other pair of nodes:
    the probe's time is both ends' work, and every tensor moved anywhere puts it on one resource, the shared CPUs,
    however the tensors are spread over the servers. Halving it on each end instead lets a step spreading its
    shards over three servers do their work three at a time: on the transformer's fidelity runs that predicted the
    steps 0.03-0.14 ms fast per PS tensor and, on three of twelve runs, 0.05-0.10 ms slow per tensor on the busiest
    server."""
    M = len(addresses)
    nic = np.array([cal.node_bandwidth(a) for a in addresses]) * GBIT
    link = np.array([[cal.link_bandwidth(a, b) * GBIT if a != b else np.inf for b in addresses] for a in addresses])
    slow = [(a, b) for a in range(M) for b in range(M) if a != b and link[a, b] < min(nic[a], nic[b]) * (1 - 1e-9)]
    res_of = {pair: 2 * M + j for j, pair in enumerate(slow)}
    cpu = 2 * M + len(slow) if shared_cpus else None  # the shared CPUs' resource
    R = 2 * M + len(slow) + (cpu is not None)
    counts = np.asarray(counts, float)
    N = counts.sum()
    nodes_present = (counts > 0).astype(float)
    rpc, gamma = cal.rpc_overhead_s, cal.reduce_s_per_byte
    rpc_nic = 0.0 if shared_cpus else rpc  # per tensor at each end's NIC resource (none: on the shared CPUs)

    def pull_coef(per: np.ndarray) -> np.ndarray:
        """(2M, R) for ``per[n]`` pulls by node ``n`` from every other node's server."""
        c = np.zeros((2 * M, R))
        for m in range(M):
            remote = [n for n in range(M) if n != m and counts[n] > 0]
            served = sum(per[n] for n in remote)
            c[m, m] += served / nic[m]
            c[M + m, m] += served * rpc_nic
            if cpu is not None:
                c[M + m, cpu] += served * rpc
            for n in remote:
                c[m, M + n] += per[n] / nic[n]
                c[M + m, M + n] += per[n] * rpc_nic
                if (m, n) in res_of:
                    c[m, res_of[m, n]] += per[n] / link[m, n]
        return c

    coef_push = np.zeros((2 * M, R))
    server_share = np.ones((2 * M, R))  # 1/k on the server's own NIC entries (its push receive)
    for m in range(M):
        remote = [n for n in range(M) if n != m and counts[n] > 0]
        k = sum(counts[n] for n in remote)
        if k:
            server_share[[m, M + m], m] = server_share[[m, M + m], M + m] = 1.0 / k
            if cpu is not None:
                server_share[M + m, cpu] = 1.0 / k
        coef_push[m, M + m] += k / nic[m] + N * gamma
        coef_push[M + m, M + m] += k * rpc_nic
        if cpu is not None:
            coef_push[M + m, cpu] += k * rpc
        for n in remote:
            coef_push[m, n] += counts[n] / nic[n]
            coef_push[M + m, n] += counts[n] * rpc_nic
            if (n, m) in res_of:
                coef_push[m, res_of[n, m]] += counts[n] / link[n, m]
    wire = {key: np.array([sum(per[n] for n in range(M) if n != m) for m in range(M)])
            for key, per in (("wire_push", counts), ("wire_pull", counts), ("wire_pull_proxy", nodes_present))}

    ring = [n for n in range(M) if counts[n] > 0]
    if N <= 1:
        ar_s_per_byte = ar_latency = ar_tail = wire_ar = 0.0
    else:
        if len(ring) == 1:
            bandwidth, alpha, wire_ar = cal.intra_node_bandwidth_gbit * GBIT, 0.0, 0.0
        else:
            hops = [(ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))]
            bandwidth = min(link[a, b] for a, b in hops) * cal.collective_bandwidth_factor
            alpha = max(cal.link_latency(addresses[a], addresses[b]) for a, b in hops)
            wire_ar = len(ring) * 2 * (N - 1) / N
        ar_s_per_byte = 2 * (N - 1) / N / bandwidth + (N - 1) / N * gamma
        ar_latency = cal.collective_overhead_s  # serialised per collective; the ring's latency is paid once
        ar_tail = 2 * (N - 1) * alpha
    pairs = [cal.link_latency(a, b) for a in addresses for b in addresses if a != b]
    # per node holding replicas, one pull: its first replica, served first by every other node's server
    first = [pull_coef(np.eye(M)[n]) for n in np.flatnonzero(counts > 0)]
    return dict(coef_push=coef_push, coef_pull=pull_coef(counts), coef_pull_proxy=pull_coef(nodes_present),
                coef_pull_node_first=np.array(first).reshape(-1, 2 * M, R),
                coef_push_last=coef_push * server_share, **wire, wire_ar=float(wire_ar),
                ar_s_per_byte=float(ar_s_per_byte), ar_latency_s=float(ar_latency), ar_tail_s=float(ar_tail),
                spans_nodes=bool(len(ring) > 1), replica_nodes=counts > 0,
                pull_latency_s=2 * max(pairs) if pairs else 0.0)
