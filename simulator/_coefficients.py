"""A cluster's network constants for the cost model: the :class:`~simulator._network.Network` of its NICs, links and
the spec's topology, and the all-reduce constants of a flat ring and of a hierarchical all-reduce."""
from __future__ import annotations

import dataclasses

import numpy as np

from simulator._calibration import Calibration
from simulator._network import GBIT, Network


@dataclasses.dataclass(frozen=True)
class Levels:
    """The cluster spec's topology as the cost model reads it (see :class:`space.cluster.Topology`)."""

    group: np.ndarray  # (M,) each node's group index (-1: the spec names no groups)
    intra_group_gbit: float | None = None  # caps each node's NIC (its port inside the group)
    inter_group_gbit: float | None = None  # caps a hop between nodes of different groups
    intra_group_latency_s: float | None = None
    inter_group_latency_s: float | None = None
    intra_node_gbit: float | None = None  # between the replicas of one node (overrides the calibration's)

    @property
    def grouped(self) -> bool:
        return bool((self.group >= 0).any())

    @classmethod
    def of(cls, cluster, addresses: list[str]) -> "Levels":
        names = {g: i for i, g in enumerate(cluster.groups)}
        node = {n.address: n for n in cluster.nodes}
        group = np.array([names.get(node[a].group, -1) for a in addresses], np.int64)
        t = cluster.topology
        return cls(group=group, intra_group_gbit=t.intra_group.bandwidth_gbit,
                   inter_group_gbit=t.inter_group.bandwidth_gbit, intra_group_latency_s=t.intra_group.latency_s,
                   inter_group_latency_s=t.inter_group.latency_s, intra_node_gbit=t.intra_node.bandwidth_gbit)


def _pair_matrices(addresses: list[str], cal: Calibration, levels: Levels | None) -> tuple[np.ndarray, ...]:
    """(NIC (M,), link (M, M), ring hop bandwidth (M, M), latency (M, M)): the calibration's per-node and per-link
    values; the topology caps the NICs inside a group and the hops across groups, and gives the latency where the
    calibration measured none for the link."""
    M = len(addresses)
    nic = np.array([cal.node_bandwidth(a) for a in addresses], float)
    grouped = levels is not None and levels.grouped
    if grouped and levels.intra_group_gbit:
        nic = np.minimum(nic, levels.intra_group_gbit)
    link = np.minimum.outer(nic, nic)
    lat = np.full((M, M), cal.latency_s)
    same = np.equal.outer(levels.group, levels.group) if grouped else np.ones((M, M), bool)
    if grouped:
        if levels.intra_group_latency_s is not None:
            lat[same] = levels.intra_group_latency_s
        if levels.inter_group_latency_s is not None:
            lat[~same] = levels.inter_group_latency_s
    index = {a: i for i, a in enumerate(addresses)}
    for key, gbit in cal.link_bandwidth_gbit.items():  # measured (or written) links: as they are
        ends = [index.get(x) for x in key.split("|")]
        if len(ends) == 2 and None not in ends:
            link[ends[0], ends[1]] = link[ends[1], ends[0]] = gbit
    for key, seconds in cal.link_latency_s.items():
        ends = [index.get(x) for x in key.split("|")]
        if len(ends) == 2 and None not in ends:
            lat[ends[0], ends[1]] = lat[ends[1], ends[0]] = seconds
    hop = link.copy()
    if grouped and levels.inter_group_gbit:
        hop[~same] = np.minimum(hop[~same], levels.inter_group_gbit)
    np.fill_diagonal(link, np.inf)
    np.fill_diagonal(hop, np.inf)
    return nic * GBIT, link * GBIT, hop * GBIT, lat


def _ring(nodes: list[int], N: float, hop: np.ndarray, lat: np.ndarray, cal: Calibration, intra: float
          ) -> tuple[float, float]:
    """(seconds per byte, ring latency 2 (N - 1) alpha) of a ring all-reduce over N replicas on ``nodes`` (replicas
    of one node adjacent), bandwidth-bound by its slowest hop."""
    if N <= 1:
        return 0.0, 0.0
    if len(nodes) == 1:
        bandwidth, alpha = intra, 0.0
    else:
        hops = [(nodes[i], nodes[(i + 1) % len(nodes)]) for i in range(len(nodes))]
        bandwidth = min(hop[a, b] for a, b in hops) * cal.collective_bandwidth_factor
        alpha = max(lat[a, b] for a, b in hops)
    return 2 * (N - 1) / N / bandwidth + (N - 1) / N * cal.reduce_s_per_byte, 2 * (N - 1) * alpha


def _hierarchical(counts: np.ndarray, unit_of: np.ndarray, nic: np.ndarray, hop: np.ndarray, lat: np.ndarray,
                  cal: Calibration, intra: float) -> tuple[float, float, float] | None:
    """(seconds per byte, latency, bytes on the wire per byte) of a hierarchical all-reduce, or None where it runs
    as a flat ring (fewer than two units, or units of different sizes).

    As the backend runs it, with U units of n replicas, g of them on each node of a unit:

    1. inside each unit an all-to-all of the n chunks, each summed where it lands (TensorFlow's reduce-scatter has no
       CPU implementation): every replica sends (n - 1)/n of the bytes in one round, g (n - g)/n of them per node over
       its NIC where the unit spans nodes, (g - 1)/n to the GPUs beside it;
    2. the U replicas holding chunk j, one per unit, all-reduce it on a ring across the units: 2 (U - 1)/U of S/n
       each, the n rings in parallel, g of them through each node's hop to another unit;
    3. inside each unit a ring all-gather of the chunks: (n - 1)/n of the bytes at the unit ring's slowest hop."""
    units = [np.flatnonzero((unit_of == u) & (counts > 0)) for u in np.unique(unit_of[counts > 0])]
    sizes = {float(counts[nodes].sum()) for nodes in units}
    if len(units) < 2 or len(sizes) != 1 or min(sizes) < 2:
        return None
    n, U = sizes.pop(), len(units)
    g = max(counts[nodes].max() for nodes in units)  # replicas of one node, sharing its NIC and hops
    factor = cal.collective_bandwidth_factor
    exchange = gather = alpha_in = 0.0
    for nodes in units:
        if len(nodes) == 1:
            exchange = max(exchange, (n - 1) / n / intra)
            gather = max(gather, (n - 1) / n / intra)
            continue
        sub = lat[np.ix_(nodes, nodes)]
        alpha_in = max(alpha_in, sub[~np.eye(len(nodes), dtype=bool)].max())
        exchange = max(exchange, g * (n - g) / n / (nic[nodes].min() * factor), (g - 1) / n / intra if g > 1 else 0.0)
        ring, _ = _ring(list(nodes), n, hop, lat, cal, intra)
        gather = max(gather, (ring - (n - 1) / n * cal.reduce_s_per_byte) / 2)
    lead = [nodes[0] for nodes in units]  # the units' rings meet through one hop per pair of units
    cross = [(lead[i], lead[(i + 1) % U]) for i in range(U)]
    bandwidth = min(hop[a, b] for a, b in cross) * factor
    across = 2 * (U - 1) / U * g / n / bandwidth + (U - 1) / U / n * cal.reduce_s_per_byte
    alpha = max(lat[a, b] for a, b in cross)
    per_byte = exchange + (n - 1) / n * cal.reduce_s_per_byte + across + gather
    latency = alpha_in + (n - 1) * alpha_in + 2 * (U - 1) * alpha  # one round, a ring inside, a ring across
    # on the network: each unit's exchange between its nodes and its gather ring's hops, and the n rings across
    wire = sum(len(nodes) * (g * (n - g) / n + (n - 1) / n) for nodes in units if len(nodes) > 1) + 2 * (U - 1)
    return per_byte, latency, wire


def network_coefficients(addresses: list[str], counts: np.ndarray, cal: Calibration,
                         shared_cpus: bool = False, levels: Levels | None = None) -> dict:
    """The :class:`Network` (``net``) and all-reduce constants for replicas ``counts[n]`` on each node ``n``;
    ``levels``: the spec's topology (groups, and bandwidths and latencies by level).

    ``cal.rpc_overhead_s`` is the probe's time per tiny tensor moved between two tasks: on separate machines the
    two ends work in parallel and each end's NIC resource carries all of it; where the nodes share CPUs
    (``shared_cpus``) the sender and the receiver work on the same cores, and so do every other pair of nodes:
    the probe's time is both ends' work, and every tensor moved anywhere puts it on one resource, the shared CPUs,
    however the tensors are spread over the servers. Halving it on each end instead lets a step spreading its
    shards over three servers do their work three at a time: on the transformer's fidelity runs that predicted the
    steps 0.03-0.14 ms fast per PS tensor and, on three of twelve runs, 0.05-0.10 ms slow per tensor on the busiest
    server."""
    M = len(addresses)
    nic, link, hop, lat = _pair_matrices(addresses, cal, levels)
    slow = np.argwhere(link < np.minimum.outer(nic, nic) * (1 - 1e-9))  # row-major: (a, b) in resource order
    counts = np.asarray(counts, float)
    N = counts.sum()
    grouped = levels is not None and levels.grouped
    cap = levels.inter_group_gbit * GBIT if grouped and levels.inter_group_gbit else None
    across = cap is not None and cap < nic.max() and len(np.unique(levels.group)) > 1
    net = Network(nic=nic, link=link, counts=counts, rpc=cal.rpc_overhead_s, gamma=cal.reduce_s_per_byte,
                  shared_cpus=bool(shared_cpus), slow=slow.reshape(-1, 2),
                  xbw=np.full(M, cap) if across else None, grp=levels.group if across else None)
    present = net.present
    wire = {key: per.sum() - per for key, per in (("wire_push", counts), ("wire_pull", counts),
                                                  ("wire_pull_proxy", present))}
    intra = (levels.intra_node_gbit if levels is not None and levels.intra_node_gbit
             else cal.intra_node_bandwidth_gbit) * GBIT
    ring = [n for n in range(M) if counts[n] > 0]
    ar_s_per_byte, ar_tail = _ring(ring, N, hop, lat, cal, intra)
    wire_ar = len(ring) * 2 * (N - 1) / N if N > 1 and len(ring) > 1 else 0.0
    ar_latency = cal.collective_overhead_s if N > 1 else 0.0  # serialised per collective; the ring's latency once
    unit_of = levels.group if grouped else np.arange(M)
    hier = _hierarchical(counts, unit_of, nic, hop, lat, cal, intra) if N > 1 else None
    har = dict(har_s_per_byte=ar_s_per_byte, har_latency_s=ar_latency, har_tail_s=ar_tail, wire_har=wire_ar)
    if hier is not None:  # three collectives one after another: inside, across, inside
        har = dict(har_s_per_byte=hier[0], har_latency_s=3 * ar_latency, har_tail_s=hier[1], wire_har=hier[2])
    pairs = lat[~np.eye(M, dtype=bool)]
    return dict(net=net, **wire, wire_ar=float(wire_ar),
                ar_s_per_byte=float(ar_s_per_byte), ar_latency_s=float(ar_latency), ar_tail_s=float(ar_tail),
                **{k: float(v) for k, v in har.items()},
                spans_nodes=bool(len(ring) > 1), replica_nodes=counts > 0,
                pull_latency_s=2 * float(pairs.max()) if pairs.size else 0.0)
