"""The cost model on PS loads given as entries (:class:`simulator._sparse.Entries`), for clusters whose nodes are
all alike: the same predictions as :func:`simulator._engine.evaluate`, in O(entries + V log V) per strategy and
chain instead of O(nodes x V). Every chain of :func:`simulator._engine._chains` is a running extreme over the
servers' cumulative loads (:mod:`simulator._sparse` says how each is read from the entries); the synchronous
proxies' refreshes, which follow their unit's pushes resource by resource, are :class:`Pushes`."""
from __future__ import annotations

import dataclasses

import numpy as np

from simulator._arrays import Batch, Model
from simulator._engine import _AllReduce, _Chains, _ServerLoads, evaluate_with, push_bytes
from simulator._network import Network, stack
from simulator._sparse import Entries, MaxTable, largest, per_strategy_max, server_cum, smallest


def sparse_fits(net: Network) -> bool:
    """Whether the entries' engine serves the cluster: every node alike (one NIC speed, one replica count, all
    holding replicas), no link slower than its NICs, no cap on the traffic across groups and no CPUs shared between
    the nodes."""
    return bool(net.M > 1 and len(net.classes) == 1 and not len(net.slow) and not net.X and not net.shared_cpus
                and net.counts.min() > 0)


def evaluate_entries(m: Model, b: Batch, detail: bool = False) -> dict[str, np.ndarray]:
    """:func:`simulator._engine.evaluate` of a batch whose PS loads are ``b.entries``."""
    return evaluate_with(m, b, _server_loads, _chains, detail)


@dataclasses.dataclass
class _EntryLoads(_ServerLoads):
    """:class:`_ServerLoads` with the per-entry bytes in place of the (M, K, V) arrays."""

    push_e: np.ndarray | None = None  # (E,) bytes each replica pushes to the entry's server
    pull_e: np.ndarray | None = None  # (E,) bytes the entry's server sends per pull

    def column_busiest(self, net: Network, b: Batch) -> np.ndarray:
        """(K, V) each column's own busiest resource: its pushes and its pulls (one per node where proxied). A
        server sends its replicas' pushes to the others and its pulls to every other node, and receives the
        other replicas' pushes and its replicas' pulls from the others; a node serving none of the column only
        sends and receives the others' (the largest such: any node without an entry)."""
        e, rpc, nic = b.entries, net.rpc_nic, net.nic[0]
        u_push, u_pull = self.push_e / nic, self.pull_e / nic
        if rpc:
            u_push, u_pull = u_push + rpc * e.tensors, u_pull + rpc * e.tensors
        all_push, all_pull = e.cell_sum(u_push), e.cell_sum(u_pull)
        per_c, per_p = net.counts[0] * net.present[0], net.present[0]
        px = e.cells(self.proxy & b.sync)
        per = np.where(px, per_p, per_c)
        served = np.where(px, net.M * per_p - per_p, net.M * per_c - per_c)
        send = net.counts[0] * (e.cells(all_push) - u_push) + served * u_pull
        recv = net.remote[0] * u_push + per * (e.cells(all_pull) - u_pull)
        if net.gamma:
            recv = recv + net.N * net.gamma * self.push_e
        out = np.maximum(e.cell_max(np.maximum(send, recv), 0.0), 0.0).reshape(e.K, e.V)
        alone = np.maximum(net.counts[0] * all_push, np.where(self.proxy & b.sync, per_p, per_c) * all_pull)
        return np.where(e.cell_sum(np.ones(e.size)) < net.M, np.maximum(out, alone), out)


def _server_loads(m: Model, b: Batch) -> _EntryLoads:
    """As :func:`simulator._engine._server_loads`, summed from the entries."""
    e = b.entries
    ones = np.ones(e.size)
    ps_any = e.cell_sum(ones) > 0
    push_e = e.frac * e.cells(push_bytes(m, b.proxy))
    stale = b.stale if m.stale_prefetch else np.zeros_like(b.stale)
    live, proxy = ~stale, b.proxy
    pull_bytes = np.where(proxy, m.nbytes, m.pull_bytes)
    pull_e = e.frac * e.cells(pull_bytes)
    px = e.cells(proxy & b.sync)  # refreshed once per node; an asynchronous proxy once per tower, like a pull
    pull_b = np.stack([e.server_sum(pull_e * ~px), e.server_sum(pull_e * px)], axis=1)
    pull_t = np.stack([e.server_sum(e.tensors * ~px), e.server_sum(e.tensors * px)], axis=1)
    net = m.net
    # the per-server totals spread on the resources by their structure: O(M) per strategy, not a (2M, R) product
    pull_all = (stack(net.pull(pull_b[:, 0].T, pull_t[:, 0].T, net.counts))
                + stack(net.pull(pull_b[:, 1].T, pull_t[:, 1].T, net.present))).T
    lat = m.pull_latency_s * (ps_any & live).any(axis=1)
    server_frac = e.server_sum(e.frac)
    return _EntryLoads(ps_any=ps_any, push_load=None, pull_load=None, live=live, proxy=proxy, pull_b=pull_b,
                       pull_t=pull_t, pull_all=pull_all, lat=lat, col_tensors=e.cell_sum(e.tensors),
                       col_frac=e.cell_sum(e.frac), server_push=e.server_sum(push_e),
                       server_pulled=e.server_sum(push_e * ~e.cells(proxy & b.sync)),
                       off_replicas=(server_frac[:, ~m.replica_nodes] > 0).any(axis=1), push_e=push_e, pull_e=pull_e,
                       server_req=None if m.req_bytes is None else
                       e.server_sum(e.frac * np.where(e.cells(proxy), 0.0, m.req_bytes[e.col])))


def _pull_busiest(net: Network, e: Entries, parts: list[tuple]) -> np.ndarray:
    """(K, V) the busiest resource of the pulls ``parts``: (w, u, per), each entry's seconds per pull ``w`` (E,),
    their cumulative per server ``u`` (E,) and the pulls ``per`` (M,) by each node. A server sends to every other
    node's replicas, a node receives from every other server; with the nodes alike the busiest send is the
    largest server and the busiest receive the total less the smallest."""
    per = [float(p[0] * net.present[0]) for _, _, p in parts]
    served = [float((p * net.present).sum()) - w for (_, _, p), w in zip(parts, per)]
    out = np.zeros((e.K, e.V))
    if any(served):
        send = served[0] * largest(e, parts[0][1]) if len(parts) == 1 else \
            largest(e, sum(w * u for w, (_, u, _) in zip(served, parts)))
        np.maximum(out, send, out=out)
    if any(per):
        total = np.cumsum(e.cell_sum(sum(p * w for p, (w, _, _) in zip(per, parts))), axis=1)
        least = per[0] * smallest(e, parts[0][1]) if len(parts) == 1 else \
            smallest(e, sum(p * u for p, (_, u, _) in zip(per, parts)))
        np.maximum(out, total - least, out=out)
    return out


def _chains(m: Model, b: Batch, ar: _AllReduce, loads: _EntryLoads) -> "_EntryChains":
    """As :func:`simulator._engine._chains`, from the entries."""
    K, V = b.ar_frac.shape
    net, e = m.net, b.entries
    live, proxy = loads.live, loads.proxy
    rep, px_sync, px_async = live & ~proxy, live & proxy & b.sync, live & proxy & ~b.sync
    nic, rpc, counts, k = net.nic[0], net.rpc_nic, net.counts[0], net.remote[0]

    w_push = loads.push_e / nic + rpc * e.tensors if rpc else loads.push_e / nic
    z = loads.pull_e / nic + rpc * e.tensors if rpc else loads.pull_e / nic
    pulled = rep | px_async
    sync = px_sync.any()
    # every per-server cumulative the chains need, in one pass
    rows = {"push": w_push, "pulled": z * e.cells(pulled)}
    if net.gamma:
        rows["load"] = loads.push_e
    if sync:
        rows["sync"] = z * e.cells(px_sync)
    cum = dict(zip(rows, server_cum(e, np.stack(list(rows.values())))))

    # every replica's pushes: a server receives k replicas' (and reduces N), a node sends to every other server
    x_push = cum["push"]
    t_push = np.cumsum(e.cell_sum(w_push), axis=1)
    send = counts * (t_push - smallest(e, x_push))
    recv = largest(e, k * x_push + net.N * net.gamma * cum["load"] if net.gamma else k * x_push)
    cum_push_max = np.maximum(send, recv)
    cum_last = np.maximum(send, recv / k if k > 0 else recv)
    push_total = stack(net.push(loads.server_push.T, e.server_sum(e.tensors).T)).T

    parts = [(rows["pulled"], cum["pulled"], net.counts)]
    lat = loads.lat[:, None]
    cum_all = _pull_busiest(net, e, parts) + lat
    firsts = FirstPulls(e, rows["pulled"], cum["pulled"])
    cum_ref = pushes = None
    if sync:
        cum_ref = _pull_busiest(net, e, [(rows["sync"], cum["sync"], net.present)])
        pushes = Pushes(net, e, x_push, t_push, cum.get("load"), cum_ref)
    return _EntryChains(m=m, V=V, lat=loads.lat, push_total=push_total, cum_p=None, cum_push_max=cum_push_max,
                        cum_last=cum_last, cum_all=cum_all, firsts=firsts, cum_ref=cum_ref,
                        cum_ar_bytes=np.cumsum(ar.unit_s, axis=1), ar_fixed=ar.fixed.sum(axis=1, keepdims=True),
                        tail=ar.tail,
                        pushes=pushes)


@dataclasses.dataclass
class _EntryChains(_Chains):
    """:class:`_Chains` whose synchronous proxies' refreshes follow their unit's pushes through :class:`Pushes`."""

    pushes: "Pushes | None" = None

    def finish(self, rdy: np.ndarray, c: int) -> np.ndarray:
        cum_ps = self.cum_push_max if c == 0 else self.cum_last
        end = (rdy + np.maximum(self.cum_ar_bytes, cum_ps)).max(axis=1) + self.ar_fixed[:, 0]
        if self.cum_ref is not None:
            shared = (rdy + self.cum_ar_bytes + self.cum_ref).max(axis=1) + self.ar_fixed[:, 0]
            end = np.maximum(np.maximum(end, shared), self.pushes.latest(rdy, c) + self.ar_fixed[:, 0])
        return end + self.tail


class FirstPulls:
    """Per node, the busiest resource of its first replica's pulls from every other node's server (the pulled
    seconds ``w`` (E,) per entry, ``x`` their cumulative per server), read at the end of the forward pass of each
    layer (:meth:`latest`)."""

    def __init__(self, e: Entries, w: np.ndarray, x: np.ndarray) -> None:
        self.e, self.x = e, x
        self.nodes = np.arange(e.M)
        self.first = largest(e, self.x)
        self.total = np.cumsum(e.cell_sum(w), axis=1)

    def latest(self, h: np.ndarray) -> np.ndarray:
        """(M, K) max over the columns of (pulls done + ``h``), ``h`` (K, V): the busiest other server (the
        busiest of all, or the busiest but the node where it is that node), or the node's own receive."""
        e, x = self.e, self.x
        kk = np.arange(e.K)
        e1 = self.first + h
        peak = e1.argmax(axis=1)
        best = e1[kk, peak]
        # the server that is the busiest at the peak (any of them on a tie: they give the same)
        top = (e.col <= peak[e.k]) & (x == self.first[kk, peak][e.k])
        at = np.zeros(e.K, np.int64)
        at[e.k[top]] = e.srv[top]
        alone = (largest(e, np.where(e.srv == at[e.k], 0.0, x)) + h).max(axis=1)
        out = np.broadcast_to(best, (e.M, e.K)).copy()
        out[at, kk] = alone
        return np.maximum(out, self._own(h))

    def _own(self, h: np.ndarray) -> np.ndarray:
        """(M, K) max over the columns of (total less the node's own + ``h``): the node's own is constant
        between two of its entries, so each gap takes the range maximum of (total + h)."""
        e, lay = self.e, self.e.lay
        g = self.total + h
        table = MaxTable(g)
        prefix = np.maximum.accumulate(g, axis=1)  # before a node's first entry (everywhere: a node with none)
        first = np.minimum(lay.first_col - 1, e.V - 1).reshape(e.K, e.M)
        own = np.where(first >= 0, np.take_along_axis(prefix, np.maximum(first, 0), axis=1), -np.inf).ravel()
        if e.size:
            gaps = table.max(e.k, e.col, lay.next_col - 1) - self.x
            np.maximum.at(own, lay.seg_key[lay.seg_of], gaps)
        return own.reshape(e.K, e.M).T


class Pushes:
    """The synchronous proxies' refreshes after their unit's pushes: max over the columns v of (``ref``(v), the
    refreshes of the units ready no earlier, plus when the pushes of v are done on the busiest resource), that
    is, over every resource r and pair v <= u: rdy(u) + ref(v) + the pushes of the columns v..u on r.

    On a server's receive the load of v..u grows only at its own entries, so the pairs worth taking start and end
    at them: a prefix maximum along each server's entries. On a node's send (every replica's pushes to the other
    servers: the total less its own) a window that misses one node's entries carries all of the others' pushes
    on that node's send (the furthest such window from each v: a range maximum); one that holds a node's entries
    splits at them, the best start before its first plus the best end after its last, each a range maximum."""

    def __init__(self, net: Network, e: Entries, x: np.ndarray, total: np.ndarray, load_cum: np.ndarray | None,
                 ref: np.ndarray) -> None:
        self.net, self.e, self.x, self.total, self.load_cum, self.ref = net, e, x, total, load_cum, ref
        self._send = (None, None)

    def latest(self, rdy: np.ndarray, c: int) -> np.ndarray:
        """(K,) for every replica's pushes (``c`` 0) or the last remote replica's (1)."""
        if self._send[0] is not rdy:
            self._send = (rdy, self._sends(rdy))
        return np.maximum(self._send[1], self._receives(rdy, c))

    def _receives(self, rdy: np.ndarray, c: int) -> np.ndarray:
        net, e, lay = self.net, self.e, self.e.lay
        k = net.remote[0]
        p = k * self.x + net.N * net.gamma * self.load_cum if net.gamma else k * self.x
        if c == 1 and k > 0:
            p = p / k
        before = np.where(lay.prev >= 0, p[np.maximum(lay.prev, 0)], 0.0)
        start = lay.from_server(np.maximum.accumulate(lay.by_server(e.cells(self.ref) - before, -np.inf), axis=1))
        return per_strategy_max(e, start + e.cells(rdy) + p)

    def _sends(self, rdy: np.ndarray) -> np.ndarray:
        net, e, lay = self.net, self.e, self.e.lay
        cnt = net.counts[0]
        A = rdy + cnt * self.total
        B = self.ref - cnt * np.concatenate([np.zeros((e.K, 1)), self.total[:, :-1]], axis=1)
        max_a = MaxTable(A)
        # windows v..u that miss a node's entries: its send carries every other server's pushes of them whole
        reach = self._reach()
        kk = np.repeat(np.arange(e.K), e.V)
        missing = (B.ravel() + max_a.max(kk, np.tile(np.arange(e.V), e.K), reach.ravel())).reshape(e.K, e.V)
        missing = missing.max(axis=1)
        if not e.size:
            return missing
        # windows holding a node's entries: the best start up to its first entry in them (from the one before),
        # the best end from its last up to its next
        max_b = MaxTable(B)
        has_prev = lay.prev >= 0
        prev = np.maximum(lay.prev, 0)
        start = (max_b.max(e.k, np.where(has_prev, e.col[prev] + 1, 0), e.col)
                 + np.where(has_prev, cnt * self.x[prev], 0.0))
        start = lay.from_server(np.maximum.accumulate(lay.by_server(start, -np.inf), axis=1))
        across = start + max_a.max(e.k, e.col, lay.next_col - 1) - cnt * self.x
        return np.maximum(missing, per_strategy_max(e, across))

    def _reach(self) -> np.ndarray:
        """(K, V) the last column u such that the columns v..u miss some node's entries (v - 1: none do). Until
        some node has no entry left, that is the latest of every node's next entry, less one."""
        e, lay = self.e, self.e.lay
        last = np.full(e.K * e.M, -1)
        if e.size:
            last[lay.seg_key] = e.col[lay.order[np.append(lay.heads[1:], e.size) - 1]]
        all_until = last.reshape(e.K, e.M).min(axis=1)
        grid = np.full(e.K * (e.V + 1), -1)
        prev_col = np.where(lay.prev >= 0, e.col[np.maximum(lay.prev, 0)], -1)
        np.maximum.at(grid, e.k * (e.V + 1) + prev_col + 1, e.col)
        nxt = np.maximum.accumulate(grid.reshape(e.K, e.V + 1), axis=1)[:, :e.V]
        return np.where(np.arange(e.V)[None, :] > all_until[:, None], e.V - 1, nxt - 1)
