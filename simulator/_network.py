"""Network constants of the cost model: which NIC directions and links a byte of PS load or all-reduce uses.

Resources: one per NIC direction (send of node n = n, receive of node n = M + n), one per direction of every
link measured slower than both its NICs and, where the nodes share CPUs, one for those CPUs (the last). Replicas
on the PS's own node exchange nothing over the wire.

A server answers its remote replicas' pulls one after another, so the first replica served starts computing
once its own pulls are done (:meth:`Network.first_pulls`, per node holding replicas: one replica's pull from every
server but its own node's, whose variables it reads in place) and only the last replica's push is left once the
last pull is served (``Network.push(..., last=True)``): k = remote replicas of that server.

Every resource's time is a sum over the servers, and each server touches few of them: its own NIC direction
(everything it serves), every other node's opposite direction (per replica there: the node's share of the
total, less what that node serves itself), the slow links to or from it and the shared CPUs. :class:`Network`
applies that structure to per-server loads in O(nodes) per variable instead of a dense (2M, R) product.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from simulator._calibration import Calibration

GBIT = 1e9 / 8  # bytes per second in one Gbit/s


# the replicas are taken to share CPUs where their lockstep step is this many times one replica's alone (the
# 3-host testbed on one core: 2.5-4.6x); on separate machines the slowest of N replicas is a few percent over
SHARED_CPUS_LOCKSTEP = 1.5


@dataclasses.dataclass(frozen=True, eq=False)
class Network:
    """The resources of one (cluster, replicas) and the seconds a server's load puts on each of them.

    Methods take per-server arrays of shape (M, ...) (bytes ``load``, tensors ``tensors``) and return the time on
    each resource as blocks: sends (M, ...), receives (M, ...), slow links (S, ...) and, where the nodes share
    CPUs, the CPUs (1, ...); :func:`stack` joins them into (R, ...) in resource order, :func:`busiest` takes their
    maximum."""

    nic: np.ndarray  # (M,) bytes per second of each node's NIC
    link: np.ndarray  # (M, M) bytes per second from node a to node b (inf on the diagonal)
    counts: np.ndarray  # (M,) replicas on each node
    rpc: float  # seconds per tensor moved between two tasks (Calibration.rpc_overhead_s)
    gamma: float  # seconds per byte reduced on a server
    shared_cpus: bool  # the nodes share CPUs: every tensor's RPC work goes on one resource
    slow: np.ndarray  # (S, 2) the links (a, b) slower than both NICs, in resource order

    @property
    def M(self) -> int:
        return len(self.nic)

    @property
    def R(self) -> int:
        return 2 * self.M + len(self.slow) + self.shared_cpus

    @property
    def N(self) -> float:
        return float(self.counts.sum())

    @property
    def present(self) -> np.ndarray:
        return (self.counts > 0).astype(float)

    @property
    def rpc_nic(self) -> float:
        """Per tensor at each end's NIC resource (none where the nodes share CPUs: it is on them)."""
        return 0.0 if self.shared_cpus else self.rpc

    @property
    def remote(self) -> np.ndarray:
        """(M,) the replicas remote from each server: k."""
        return self.N - self.counts

    def push(self, load: np.ndarray, tensors: np.ndarray, last: bool = False) -> list[np.ndarray]:
        """Every replica's push of ``load`` bytes per replica to each server (``last``: the last remote replica's
        alone, whose receive is one k-th of every replica's and whose bytes are reduced with the others')."""
        k, counts, nic = self.remote, self.counts, self.nic
        share = np.where(k > 0, 1.0 / np.maximum(k, 1), 1.0) if last else np.ones(self.M)
        send = _col(counts / nic, load) * _others(load) + _col(counts * self.rpc_nic, load) * _others(tensors)
        recv = (_col((k / nic + self.N * self.gamma) * share, load) * load
                + _col(k * self.rpc_nic * share, load) * tensors)
        blocks = [send, recv]
        if len(self.slow):
            a, b = self.slow.T
            blocks.append(load[b] * _col(counts[a] / self.link[a, b], load))
        if self.shared_cpus:
            blocks.append(np.tensordot(k * share * self.rpc, tensors, axes=1)[None])
        return blocks

    def pull(self, load: np.ndarray, tensors: np.ndarray, per: np.ndarray) -> list[np.ndarray]:
        """``per[n]`` pulls by each node ``n`` holding replicas of ``load`` bytes from every other node's server."""
        per = per * self.present
        served = per.sum() - per
        send = _col(served / self.nic, load) * load + _col(served * self.rpc_nic, load) * tensors
        recv = _col(per / self.nic, load) * _others(load) + _col(per * self.rpc_nic, load) * _others(tensors)
        blocks = [send, recv]
        if len(self.slow):
            a, b = self.slow.T
            blocks.append(load[a] * _col(per[b] / self.link[a, b], load))
        if self.shared_cpus:
            blocks.append(np.tensordot(served * self.rpc, tensors, axes=1)[None])
        return blocks

    def first_pulls(self, load: np.ndarray, tensors: np.ndarray) -> np.ndarray:
        """(Mr, ...) per node holding replicas, the busiest resource of one pull by its first replica from every
        other node's server (served first everywhere): every server but its own sends, its node receives. The
        busiest sender but one node's own is the busiest, or the second where that node is the busiest."""
        nodes = np.flatnonzero(self.counts > 0)
        send = _col(1.0 / self.nic, load) * load + self.rpc_nic * tensors
        if self.M > 1:
            top = np.argmax(send, axis=0)
            first = np.take_along_axis(send, top[None], axis=0)[0]
            np.put_along_axis(send, top[None], -np.inf, axis=0)
            second = np.maximum(send.max(axis=0), 0.0)
            out = np.where(top[None] == _col(nodes, load), second[None], first[None])
        else:
            out = np.zeros((len(nodes),) + load.shape[1:])
        own_load, own_tensors = load[nodes], tensors[nodes]
        np.maximum(out, _col(1.0 / self.nic[nodes], load) * (load.sum(axis=0) - own_load)
                   + self.rpc_nic * (tensors.sum(axis=0) - own_tensors), out=out)
        if self.shared_cpus:
            np.maximum(out, self.rpc * (tensors.sum(axis=0) - own_tensors), out=out)
        row = {int(n): i for i, n in enumerate(nodes)}
        for a, b in self.slow:  # a slow link into a node is one more resource of that node's first pull
            if int(b) in row:
                np.maximum(out[row[int(b)]], load[a] / self.link[a, b], out=out[row[int(b)]])
        return out


def _col(x, like: np.ndarray) -> np.ndarray:
    """A per-node vector shaped to broadcast against (M, ...) arrays like ``like``."""
    return np.reshape(x, (-1,) + (1,) * (like.ndim - 1))


def _others(x: np.ndarray) -> np.ndarray:
    """(M, ...) the sum over every other node: the total less the node's own."""
    return x.sum(axis=0) - x


def stack(blocks: list[np.ndarray]) -> np.ndarray:
    """Blocks of :class:`Network` -> (R, ...) in resource order."""
    return np.concatenate(blocks)


def busiest(blocks: list[np.ndarray]) -> np.ndarray:
    """The busiest resource of :class:`Network` blocks: (...)."""
    out = blocks[0].max(axis=0)
    for b in blocks[1:]:
        np.maximum(out, b.max(axis=0), out=out)
    return out


def add(x: list[np.ndarray], y: list[np.ndarray]) -> list[np.ndarray]:
    """Blockwise sum of two :class:`Network` times."""
    return [a + b for a, b in zip(x, y)]


def network_coefficients(addresses: list[str], counts: np.ndarray, cal: Calibration,
                         shared_cpus: bool = False) -> dict:
    """The :class:`Network` (``net``) and all-reduce constants for replicas ``counts[n]`` on each node ``n``.

    ``cal.rpc_overhead_s`` is the probe's time per tiny tensor moved between two tasks: on separate machines the
    two ends work in parallel and each end's NIC resource carries all of it; where the nodes share CPUs
    (``shared_cpus``) the sender and the receiver work on the same cores, and so do every other pair of nodes:
    the probe's time is both ends' work, and every tensor moved anywhere puts it on one resource, the shared CPUs,
    however the tensors are spread over the servers. Halving it on each end instead lets a step spreading its
    shards over three servers do their work three at a time: on the transformer's fidelity runs that predicted the
    steps 0.03-0.14 ms fast per PS tensor and, on three of twelve runs, 0.05-0.10 ms slow per tensor on the busiest
    server."""
    M = len(addresses)
    nic = np.array([cal.node_bandwidth(a) for a in addresses], float) * GBIT
    link = np.array([[cal.link_bandwidth(a, b) * GBIT if a != b else np.inf for b in addresses] for a in addresses],
                    float).reshape(M, M)
    slow = np.argwhere(link < np.minimum.outer(nic, nic) * (1 - 1e-9))  # row-major: (a, b) in resource order
    counts = np.asarray(counts, float)
    N = counts.sum()
    net = Network(nic=nic, link=link, counts=counts, rpc=cal.rpc_overhead_s, gamma=cal.reduce_s_per_byte,
                  shared_cpus=bool(shared_cpus), slow=slow.reshape(-1, 2))
    present = net.present
    wire = {key: per.sum() - per for key, per in (("wire_push", counts), ("wire_pull", counts),
                                                  ("wire_pull_proxy", present))}

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
        ar_s_per_byte = 2 * (N - 1) / N / bandwidth + (N - 1) / N * cal.reduce_s_per_byte
        ar_latency = cal.collective_overhead_s  # serialised per collective; the ring's latency is paid once
        ar_tail = 2 * (N - 1) * alpha
    pairs = [cal.link_latency(a, b) for a in addresses for b in addresses if a != b]
    return dict(net=net, **wire, wire_ar=float(wire_ar),
                ar_s_per_byte=float(ar_s_per_byte), ar_latency_s=float(ar_latency), ar_tail_s=float(ar_tail),
                spans_nodes=bool(len(ring) > 1), replica_nodes=counts > 0,
                pull_latency_s=2 * max(pairs) if pairs else 0.0)
