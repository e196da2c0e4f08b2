"""Network constants of the cost model: which NIC directions and links a byte of PS load or all-reduce uses.

Resources: one per NIC direction (send of node n = n, receive of node n = M + n), one per direction of every
link measured slower than both its NICs, where the spec's topology caps the traffic across groups of nodes one per
node and direction for that traffic (its share of the group's uplinks) and, where the nodes share CPUs, one for
those CPUs (the last). Replicas on the PS's own node exchange nothing over the wire.

A server answers its remote replicas' pulls one after another, so the first replica served starts computing
once its own pulls are done (:meth:`Network.first_pull_parts`, per node holding replicas: one replica's pull from
every server but its own node's, whose variables it reads in place) and only the last replica's push is left once the
last pull is served (``Network.push(..., last=True)``): k = remote replicas of that server.

Every resource's time is a sum over the servers, and each server touches few of them: its own NIC direction
(everything it serves), every other node's opposite direction (per replica there: the node's share of the
total, less what that node serves itself), the slow links to or from it and the shared CPUs. :class:`Network`
applies that structure to per-server loads in O(nodes) per variable instead of a dense (2M, R) product.
"""
from __future__ import annotations

import dataclasses
import functools

import numpy as np


GBIT = 1e9 / 8  # bytes per second in one Gbit/s


# the replicas are taken to share CPUs where their lockstep step is this many times one replica's alone (the
# 3-host testbed on one core: 2.5-4.6x); on separate machines the slowest of N replicas is a few percent over
SHARED_CPUS_LOCKSTEP = 1.5


@dataclasses.dataclass(frozen=True, eq=False)
class Network:
    """The resources of one (cluster, replicas) and the seconds a server's load puts on each of them.

    Methods take per-server arrays of shape (M, ...) (bytes ``load``, tensors ``tensors``) and return the time on
    each resource as blocks: sends (M, ...), receives (M, ...), slow links (S, ...) and, where the nodes share
    CPUs, the CPUs (1, ...); :func:`stack` joins them into (R, ...) in resource order. The ``*_busiest`` methods
    take the busiest resource of a chain directly."""

    nic: np.ndarray  # (M,) bytes per second of each node's NIC
    link: np.ndarray  # (M, M) bytes per second from node a to node b (inf on the diagonal)
    counts: np.ndarray  # (M,) replicas on each node
    rpc: float  # seconds per tensor moved between two tasks (Calibration.rpc_overhead_s)
    gamma: float  # seconds per byte reduced on a server
    shared_cpus: bool  # the nodes share CPUs: every tensor's RPC work goes on one resource
    slow: np.ndarray  # (S, 2) the links (a, b) slower than both NICs, in resource order
    xbw: np.ndarray | None = None  # (M,) bytes per second of each node's traffic to other groups (None: uncapped)
    grp: np.ndarray | None = None  # (M,) each node's group index (with xbw)

    @property
    def M(self) -> int:
        return len(self.nic)

    @property
    def R(self) -> int:
        return 2 * self.M + len(self.slow) + 2 * self.X + self.shared_cpus

    @property
    def X(self) -> int:
        """Resources of the traffic across groups per direction: one per node, or none."""
        return self.M if self.xbw is not None else 0

    @functools.cached_property
    def _onehot(self) -> np.ndarray:
        return (self.grp[None, :] == np.arange(self.grp.max() + 1)[:, None]).astype(float)

    @functools.cached_property
    def _run(self) -> int | None:
        """The nodes per group where the groups are runs of consecutive nodes of one size (a spec written by the
        rack), else None."""
        sizes = np.bincount(self.grp)
        n = int(sizes[0])
        return n if (sizes == n).all() and (self.grp == np.arange(self.M) // n).all() else None

    def other_groups(self, x: np.ndarray) -> np.ndarray:
        """(M, ...) the sum over the nodes of every other group: the total less the node's own group's."""
        flat = np.reshape(x, (self.M, -1))
        if self._run is not None:
            by = flat.reshape(self.M // self._run, self._run, -1)
            out = np.broadcast_to(flat.sum(axis=0) - by.sum(axis=1, keepdims=True), by.shape)
            return out.reshape(np.shape(x))
        return (flat.sum(axis=0) - (self._onehot @ flat)[self.grp]).reshape(np.shape(x))

    @functools.cached_property
    def kx(self) -> np.ndarray:
        """(M,) the replicas outside each node's group."""
        return self.other_groups(self.counts)

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

    def push(self, load: np.ndarray, tensors: np.ndarray, last: bool = False, reduced: bool = True
             ) -> list[np.ndarray]:
        """Every replica's push of ``load`` bytes per replica to each server (``last``: the last remote replica's
        alone, whose receive is one k-th of every replica's and whose bytes are reduced with the others';
        ``reduced=False``: bytes the server only reads, the ids of a gather)."""
        k, counts, nic = self.remote, self.counts, self.nic
        share = np.where(k > 0, 1.0 / np.maximum(k, 1), 1.0) if last else np.ones(self.M)
        gamma = self.gamma if reduced else 0.0
        send = _col(counts / nic, load) * _others(load) + _col(counts * self.rpc_nic, load) * _others(tensors)
        recv = (_col((k / nic + self.N * gamma) * share, load) * load
                + _col(k * self.rpc_nic * share, load) * tensors)
        blocks = [send, recv]
        if len(self.slow):
            a, b = self.slow.T
            blocks.append(load[b] * _col(counts[a] / self.link[a, b], load))
        if self.X:  # a replica pushes to the servers of the other groups; a server hears from their replicas
            kx = self.kx
            blocks.append(_col(counts / self.xbw, load) * self.other_groups(load))
            blocks.append(_col((kx > 0) / self.xbw if last else kx / self.xbw, load) * load)
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
        if self.X:
            blocks.append(_col(self.other_groups(per) / self.xbw, load) * load)
            blocks.append(_col(per / self.xbw, load) * self.other_groups(load))
        if self.shared_cpus:
            blocks.append(np.tensordot(served * self.rpc, tensors, axes=1)[None])
        return blocks

    def flows(self, links: np.ndarray) -> np.ndarray:
        """(R, ...) seconds on each resource of ``links`` (M, M, ...) bytes from node a to node b: the sender's and
        the receiver's NIC, a slow link between them, their traffic across groups (bytes only: no RPC cost)."""
        links = np.asarray(links, float)
        like = links[0]
        blocks = [_col(1.0 / self.nic, like) * links.sum(axis=1), _col(1.0 / self.nic, like) * links.sum(axis=0)]
        if len(self.slow):
            a, b = self.slow.T
            blocks.append(links[a, b] / _col(self.link[a, b], like))
        if self.X:
            same = self.grp[:, None] == self.grp[None, :]
            across = np.where(np.reshape(same, same.shape + (1,) * (links.ndim - 2)), 0.0, links)
            blocks += [across.sum(axis=1) / _col(self.xbw, like), across.sum(axis=0) / _col(self.xbw, like)]
        if self.shared_cpus:
            blocks.append(np.zeros((1,) + like.shape[1:]))
        return stack(blocks)

    # ---- the busiest resource of a chain, cumulative along the variables -------------------------------------
    # Nodes alike (same NIC, same replicas) have the same coefficients: within such a class a send is a multiple of
    # the node's own seconds ``u`` (bytes / NIC + tensors x RPC) and a receive of the total's less the node's own,
    # so the class's busiest resource needs only the largest and the smallest ``u``.
    @functools.cached_property
    def classes(self) -> list[tuple]:
        """(rows, first node) of each class of nodes alike; rows is a slice where every node is alike."""
        _, first, inverse = np.unique(np.stack([self.nic, self.counts], 1), axis=0, return_index=True,
                                      return_inverse=True)
        if len(first) == 1:
            return [(slice(None), 0)]
        return [(np.flatnonzero(inverse.ravel() == i), int(f)) for i, f in enumerate(first)]

    def push_busiest(self, u: np.ndarray, c_load: np.ndarray, c_tensors: np.ndarray) -> tuple[np.ndarray, ...]:
        """(every replica's push, the last remote replica's) on their busiest resource, from the cumulative
        per-server ``u`` (load / NIC + tensors x RPC), load and tensors (M, K, V)."""
        tot_load, tot_tensors = c_load.sum(axis=0), c_tensors.sum(axis=0)
        every = np.zeros(u.shape[1:])
        last = np.zeros(u.shape[1:])
        k, N = self.remote, self.N
        for rows, i in self.classes:
            ug = u[rows]
            send = self.counts[i] * (tot_load / self.nic[i] + self.rpc_nic * tot_tensors - ug.min(axis=0))
            recv = (k[i] * ug + N * self.gamma * c_load[rows]).max(axis=0) if self.gamma else k[i] * ug.max(axis=0)
            np.maximum(every, np.maximum(send, recv), out=every)
            np.maximum(last, np.maximum(send, recv / k[i] if k[i] > 0 else recv), out=last)
        for a, b in self.slow:
            np.maximum(every, c_load[b] * (self.counts[a] / self.link[a, b]), out=every)
            np.maximum(last, c_load[b] * (self.counts[a] / self.link[a, b]), out=last)
        if self.X:
            send = (_col(self.counts / self.xbw, c_load) * self.other_groups(c_load)).max(axis=0)
            recv = _col(1.0 / self.xbw, c_load) * c_load
            np.maximum(every, np.maximum(send, (_col(self.kx, c_load) * recv).max(axis=0)), out=every)
            np.maximum(last, np.maximum(send, (_col(self.kx > 0, c_load) * recv).max(axis=0)), out=last)
        if self.shared_cpus:
            np.maximum(every, self.rpc * np.tensordot(k, c_tensors, axes=1), out=every)
            np.maximum(last, self.rpc * np.tensordot((k > 0).astype(float), c_tensors, axes=1), out=last)
        return every, last

    def push_resources(self, u: np.ndarray, c_load: np.ndarray, c_tensors: np.ndarray) -> tuple[np.ndarray, ...]:
        """Pushes per resource, cumulative, from the per-server ``u``, load and tensors (M, K, V), as :meth:`push`
        spreads them: (the resources every replica's push and the last remote replica's load alike, the sends and
        slow links; the others, the receives and the shared CPUs, under every replica's push; the same under the
        last's)."""
        M, S, k, like = self.M, len(self.slow), self.remote, u
        shared = np.empty((M + S,) + u.shape[1:])
        send = shared[:M]
        np.multiply(_col(1.0 / self.nic, like), c_load.sum(axis=0), out=send)
        if self.rpc_nic:
            send += self.rpc_nic * c_tensors.sum(axis=0)
        send -= u
        send *= _col(self.counts, like)
        for j, (a, b) in enumerate(self.slow):
            np.multiply(c_load[b], self.counts[a] / self.link[a, b], out=shared[M + j])
        every = np.empty((M + self.shared_cpus,) + u.shape[1:])
        np.multiply(_col(k, like), u, out=every[:M])
        if self.gamma:
            every[:M] += self.N * self.gamma * c_load
        last = every * _col(np.append(np.where(k > 0, 1.0 / np.maximum(k, 1), 1.0), [1.0] * self.shared_cpus), like)
        if self.shared_cpus:
            every[M] = self.rpc * np.tensordot(k, c_tensors, axes=1)
            last[M] = self.rpc * np.tensordot((k > 0).astype(float), c_tensors, axes=1)
        if self.X:
            recv = _col(1.0 / self.xbw, like) * c_load
            shared = np.concatenate([shared, _col(self.counts / self.xbw, like) * self.other_groups(c_load)])
            every = np.concatenate([every, _col(self.kx, like) * recv])
            last = np.concatenate([last, _col(self.kx > 0, like) * recv])
        return shared, every, last

    def pull_busiest(self, parts: list[tuple], load: np.ndarray, tensors: np.ndarray,
                     u_sum: np.ndarray | None = None) -> np.ndarray:
        """The busiest resource of pulls in ``parts``, (u, mask, per): the cumulative per-server ``u`` of the
        variables ``mask`` (K, V) of ``load`` and ``tensors`` (M, K, V), pulled ``per[n]`` times by each node
        (``u_sum``: the parts' u summed, which serves where a class weighs every part alike)."""
        pers = [per * self.present for _, _, per in parts]
        served = [p.sum() - p for p in pers]
        tot_load, tot_tensors = load.sum(axis=0), tensors.sum(axis=0)
        base = [np.cumsum(tot_load * mask, axis=-1) for _, mask, _ in parts]
        base_t = [np.cumsum(tot_tensors * mask, axis=-1) for _, mask, _ in parts] if self.rpc_nic else None
        out = np.zeros(parts[0][0].shape[1:])
        for rows, i in self.classes:
            for weights, recv in ((served, False), (pers, True)):
                w = [x[i] for x in weights]
                if not any(w):
                    continue
                if len(parts) == 1:  # a multiple of the one part's u: its extremes scale
                    x, scale = parts[0][0][rows], w[0]
                elif u_sum is not None and all(wj == w[0] for wj in w):
                    x, scale = u_sum[rows], w[0]
                else:
                    x, scale = sum(wj * uj[rows] for wj, (uj, _, _) in zip(w, parts)), 1.0
                if not recv:
                    np.maximum(out, scale * x.max(axis=0), out=out)
                    continue
                total = sum(wj * bj for wj, bj in zip(w, base)) / self.nic[i]
                if base_t is not None:
                    total = total + self.rpc_nic * sum(wj * bj for wj, bj in zip(w, base_t))
                np.maximum(out, total - scale * x.min(axis=0), out=out)
        for a, b in self.slow:
            np.maximum(out, sum(np.cumsum(load[a] * mask, axis=-1) * (p[b] / self.link[a, b])
                                for (_, mask, _), p in zip(parts, pers)), out=out)
        if self.X:
            send = recv = 0.0
            for (_, mask, _), p in zip(parts, pers):
                cl = np.cumsum(load * mask, axis=-1)
                send = send + _col(self.other_groups(p) / self.xbw, cl) * cl
                recv = recv + _col(p / self.xbw, cl) * self.other_groups(cl)
            np.maximum(out, np.maximum(send.max(axis=0), recv.max(axis=0)), out=out)
        if self.shared_cpus:
            np.maximum(out, self.rpc * sum(np.cumsum(np.tensordot(s, tensors, axes=1) * mask, axis=-1)
                                           for (_, mask, _), s in zip(parts, served)), out=out)
        return out

    def column_busiest(self, push_load: np.ndarray, pull_load: np.ndarray, tensors: np.ndarray,
                       proxy: np.ndarray) -> np.ndarray:
        """(K, V) each column's own busiest resource: its pushes, and its pulls (one per node where ``proxy``),
        from its per-server (M, K, V) bytes and tensors."""
        like, rpc = push_load, self.rpc_nic
        inv = _col(1.0 / self.nic, like)
        per_c, per_p = self.counts * self.present, self.present
        u_push, u_pull = push_load * inv, pull_load * inv
        if rpc:
            u_push += rpc * tensors
            u_pull += rpc * tensors
        tot_t = rpc * tensors.sum(axis=0) if rpc else 0.0
        send = _col(self.counts, like) * (inv * push_load.sum(axis=0) + tot_t - u_push)
        send += np.where(proxy, _col(per_p.sum() - per_p, like), _col(per_c.sum() - per_c, like)) * u_pull
        recv = _col(self.remote, like) * u_push
        if self.gamma:
            recv += self.N * self.gamma * push_load
        recv += np.where(proxy, _col(per_p, like), _col(per_c, like)) * (inv * pull_load.sum(axis=0) + tot_t - u_pull)
        out = np.maximum(send.max(axis=0), recv.max(axis=0))
        for a, b in self.slow:  # pushes from a's replicas to b's server, pulls from a's server to b's replicas
            pulls = np.where(proxy, per_p[b], per_c[b])
            np.maximum(out, (push_load[b] * self.counts[a] + pull_load[a] * pulls) / self.link[a, b], out=out)
        if self.X:
            inv_x = _col(1.0 / self.xbw, like)
            served = np.where(proxy, _col(self.other_groups(per_p), like), _col(self.other_groups(per_c), like))
            pulls = np.where(proxy, _col(per_p, like), _col(per_c, like))
            send = inv_x * (_col(self.counts, like) * self.other_groups(push_load) + served * pull_load)
            recv = inv_x * (_col(self.kx, like) * push_load + pulls * self.other_groups(pull_load))
            np.maximum(out, np.maximum(send.max(axis=0), recv.max(axis=0)), out=out)
        if self.shared_cpus:
            per = np.where(proxy, (per_p.sum() - per_p)[:, None, None], (per_c.sum() - per_c)[:, None, None])
            np.maximum(out, self.rpc * (np.tensordot(self.remote, tensors, axes=1) + (per * tensors).sum(axis=0)),
                       out=out)
        return out

    def first_pull_parts(self, u: np.ndarray, mask: np.ndarray, load: np.ndarray, tensors: np.ndarray
                         ) -> "FirstPulls":
        """Per node holding replicas, one pull by its first replica of the variables ``mask`` from every other
        node's server, from their cumulative per-server ``u`` (see :class:`FirstPulls`)."""
        nodes = np.flatnonzero(self.counts > 0)
        if self.M > 1:
            top = np.argmax(u, axis=0)
            first = np.take_along_axis(u, top[None], axis=0)[0]
            other = u.copy()
            np.put_along_axis(other, top[None], -np.inf, axis=0)
            second = np.maximum(other.max(axis=0), 0.0)
        else:
            top, first, second = np.zeros(u.shape[1:], np.int64), np.zeros(u.shape[1:]), np.zeros(u.shape[1:])
        tot_load = np.cumsum(load.sum(axis=0) * mask, axis=-1)
        total = self.rpc_nic * np.cumsum(tensors.sum(axis=0) * mask, axis=-1) if self.rpc_nic else 0.0
        own = np.empty((len(nodes),) + u.shape[1:])
        row = np.full(self.M, -1)
        row[nodes] = np.arange(len(nodes))
        if len(self.classes) == 1 and len(nodes) == self.M:
            np.subtract(tot_load / self.nic[0] + total, u, out=own)
        for rows, i in self.classes if len(nodes) < self.M or len(self.classes) > 1 else ():
            at = np.arange(self.M)[rows]
            at = at[row[at] >= 0]
            if len(at):
                own[row[at]] = tot_load / self.nic[i] + total - u[at]
        if self.shared_cpus:
            c_tensors = np.cumsum(tensors * mask, axis=-1)
            np.maximum(own, self.rpc * (c_tensors.sum(axis=0) - c_tensors[nodes]), out=own)
        for a, b in self.slow:  # a slow link into a node is one more resource of that node's first pull
            if row[b] >= 0:
                np.maximum(own[row[b]], np.cumsum(load[a] * mask, axis=-1) / self.link[a, b], out=own[row[b]])
        if self.X:  # its receive from the other groups, and the busiest send to it of a server in another group
            cl = np.cumsum(load * mask, axis=-1)
            np.maximum(own, (self.other_groups(cl) / _col(self.xbw, cl))[nodes], out=own)
            send = cl / _col(self.xbw, cl)
            by_group = np.stack([send[self.grp == g].max(axis=0) for g in range(self.grp.max() + 1)])
            for g in np.unique(self.grp[nodes]):
                others = np.delete(by_group, g, axis=0)
                if len(others):
                    at = row[nodes[self.grp[nodes] == g]]
                    own[at] = np.maximum(own[at], others.max(axis=0))
        return FirstPulls(nodes=nodes, row=row, top=top, first=first, second=second, own=own)


@dataclasses.dataclass
class FirstPulls:
    """Per node holding replicas, the busiest resource of its first replica's pulls, cumulative along the
    variables, in two parts: the busiest sender but the node itself (the busiest ``first`` unless the node is
    ``top``, then the ``second``; (K, V)) and the node's own resources (its receive, the shared CPUs, slow links
    into it; (Mr, K, V))."""

    nodes: np.ndarray  # (Mr,) the nodes holding replicas
    row: np.ndarray  # (M,) each node's row in ``own`` (-1: no replicas)
    top: np.ndarray
    first: np.ndarray
    second: np.ndarray
    own: np.ndarray

    def latest(self, h: np.ndarray) -> np.ndarray:
        """(Mr, K) max over the variables of (pulls done + ``h``), ``h`` (K, V). A node that is the busiest sender
        at none of the variables where ``first + h`` peaks sees that peak; the one that is gets ``second + h``
        wherever it is the busiest."""
        e1 = self.first + h
        peak = e1.argmax(axis=-1)
        k = np.arange(len(peak))
        best, at = e1[k, peak], self.top[k, peak]
        out = np.broadcast_to(best, (len(self.nodes), len(best))).copy()
        alone = np.where(self.top == at[:, None], self.second + h, e1).max(axis=-1)
        hit = self.row[at] >= 0
        out[self.row[at[hit]], k[hit]] = alone[hit]
        return np.maximum(out, (self.own + h).max(axis=-1))


def _col(x, like: np.ndarray) -> np.ndarray:
    """A per-node vector shaped to broadcast against (M, ...) arrays like ``like``."""
    return np.reshape(x, (-1,) + (1,) * (like.ndim - 1))


def _others(x: np.ndarray) -> np.ndarray:
    """(M, ...) the sum over every other node: the total less the node's own."""
    return x.sum(axis=0) - x


def stack(blocks: list[np.ndarray]) -> np.ndarray:
    """Blocks of :class:`Network` -> (R, ...) in resource order."""
    return np.concatenate(blocks)
