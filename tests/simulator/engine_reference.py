"""The cost model with dense coefficients: every chain is a product of a (chains x resources, 2M inputs) matrix
with the servers' (2M, K x V) loads, O(M^2) per variable and (M^3) per node-first chain set. The tests hold
:func:`simulator._engine.evaluate`, which applies the same coefficients through their structure
(:class:`simulator._network.Network`), to it; nothing else uses it."""
from __future__ import annotations

import dataclasses
import types

import numpy as np

from simulator._arrays import Batch, Model
from simulator._engine import _AllReduce, _all_reduce, _compute, _piece_costs, _Step, _step
from simulator._network import Network
from simulator._prediction import COUNT_UNIT_S


def dense_coefficients(net: Network) -> dict[str, np.ndarray]:
    """(2M, R) matrices: [load bytes on m, tensors on m] -> seconds on each resource, built pair by pair."""
    M, R, nic, link, counts = net.M, net.R, net.nic, net.link, net.counts
    res_of = {(int(a), int(b)): 2 * M + j for j, (a, b) in enumerate(net.slow)}
    xs, xr = 2 * M + len(net.slow), 2 * M + len(net.slow) + M  # each node's send and receive across groups
    grp, xbw = net.grp, net.xbw

    def across(a: int, b: int) -> bool:
        return xbw is not None and grp[a] != grp[b]

    cpu = R - 1 if net.shared_cpus else None
    N, rpc, gamma, rpc_nic = counts.sum(), net.rpc, net.gamma, net.rpc_nic
    nodes_present = (counts > 0).astype(float)

    def pull_coef(per: np.ndarray) -> np.ndarray:
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
                if across(m, n):
                    c[m, xs + m] += per[n] / xbw[m]
                    c[m, xr + n] += per[n] / xbw[n]
        return c

    coef_push = np.zeros((2 * M, R))
    server_share = np.ones((2 * M, R))
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
            if across(m, n):
                coef_push[m, xs + n] += counts[n] / xbw[n]
                coef_push[m, xr + m] += counts[n] / xbw[m]
        kx = sum(counts[n] for n in remote if across(m, n))
        if kx:
            server_share[m, xr + m] = 1.0 / kx
    first = [pull_coef(np.eye(M)[n]) for n in np.flatnonzero(counts > 0)]
    flow = flow_coefficients(net)
    # the ids of a gathered pull: every replica's bytes to each server, read and not reduced
    coef_req = np.einsum("n,nmr->mr", counts, flow)
    return dict(coef_push=coef_push, coef_pull=pull_coef(counts), coef_pull_proxy=pull_coef(nodes_present),
                coef_pull_node_first=np.array(first).reshape(-1, 2 * M, R), coef_push_last=coef_push * server_share,
                coef_req=coef_req, coef_flow=flow)


def flow_coefficients(net: Network) -> np.ndarray:
    """(M, M, R) seconds on each resource per byte from node a to node b, pair by pair: the sender's and the
    receiver's NIC, a slow link between them, their traffic across groups."""
    M, R, nic, link = net.M, net.R, net.nic, net.link
    res_of = {(int(a), int(b)): 2 * M + j for j, (a, b) in enumerate(net.slow)}
    xs, xr = 2 * M + len(net.slow), 2 * M + len(net.slow) + M
    c = np.zeros((M, M, R))
    for a in range(M):
        for b in range(M):
            if a == b:
                continue
            c[a, b, a] += 1.0 / nic[a]
            c[a, b, M + b] += 1.0 / nic[b]
            if (a, b) in res_of:
                c[a, b, res_of[a, b]] += 1.0 / link[a, b]
            if net.xbw is not None and net.grp[a] != net.grp[b]:
                c[a, b, xs + a] += 1.0 / net.xbw[a]
                c[a, b, xr + b] += 1.0 / net.xbw[b]
    return c


def chain_coefficients(d: dict) -> tuple[np.ndarray, np.ndarray]:
    """The chains' stacked coefficients: pushes ((2R, 2M): every replica's, the last remote replica's) and pulls
    (((1 + Mr) R, 4M): every live pull, then per node holding replicas its first replica's, per byte and tensor
    pulled without a proxy, then refreshing asynchronous proxies, after each tower's update like a pull)."""
    M = d["coef_push"].shape[0] // 2
    halves = (slice(0, M), slice(M, None))

    def stack(inputs):
        return np.concatenate([np.concatenate([c[h] for c in chains], 1) for chains in inputs for h in halves]).T

    own = list(d["coef_pull_node_first"])
    return (stack([[d["coef_push"], d["coef_push_last"]]]),
            stack([[d["coef_pull"]] + own, [d["coef_pull"]] + own]))


def dense_model(model: Model) -> types.SimpleNamespace:
    """``model``'s fields with its dense coefficients and chains (``coef_*``)."""
    d = dense_coefficients(model.net)
    d["coef_push_chains"], d["coef_pull_chains"] = chain_coefficients(d)
    return types.SimpleNamespace(**{f.name: getattr(model, f.name) for f in dataclasses.fields(model)}, **d)


MATMUL_ROWS = 16  # rows per block of a thin matrix product (see _thin_matmul)


def _thin_matmul(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``w @ x`` for a few rows ``w`` and many columns ``x``, in blocks of ``MATMUL_ROWS`` rows: OpenBLAS (numpy's
    wheels) took 2.4x as long for 24 rows by 18 as for 22 (3.4 vs 1.4 ms), and 2.2x as long as for two blocks of 12
    (12,800 columns, one thread, this project's 2-core machine)."""
    if w.shape[0] <= MATMUL_ROWS:
        return w @ x
    out = np.empty((w.shape[0], x.shape[1]))
    for i in range(0, w.shape[0], MATMUL_ROWS):
        np.matmul(w[i:i + MATMUL_ROWS], x, out=out[i:i + MATMUL_ROWS])
    return out


def reference_evaluate(model: Model, b: Batch, detail: bool = False) -> dict[str, np.ndarray]:
    """Predict every part for the K strategies of ``b``; ``detail`` adds per-variable arrays.

    The phases: what compression costs and how the all-reduced parts fuse into collectives (:func:`_all_reduce`);
    what each server sends and receives (:func:`_server_loads`) and when the busiest resource is done with each
    variable of every chain (:func:`_chains`); the shards' CPU work (:func:`_piece_costs`); the compute
    (:func:`_compute`); then the step (:func:`_step`) and its parts (:func:`_outputs`)."""
    m = dense_model(model)
    ar = _all_reduce(m, b)
    loads = _server_loads(m, b)
    timing = _chains(m, b, ar, loads)
    piece_s = _piece_costs(m, loads, ar)
    serial = ar.compression + piece_s  # on the critical path, outside the overlap of communication and backward
    compute, synchronous, any_sync_ps = _compute(m, b, loads)
    bwd = compute * m.backward_fraction
    fwd = compute - bwd
    step = _step(m, b, loads, timing, fwd, bwd, serial, synchronous, any_sync_ps)
    return _outputs(m, b, ar, loads, timing, step, compute, serial, piece_s, synchronous, detail)


@dataclasses.dataclass
class _ServerLoads:
    """What K strategies' parameter servers serve per step; (M, K, V) arrays unless noted."""

    ps_any: np.ndarray  # (K, V) bool: the column is on a server, in part at least
    push_load: np.ndarray  # bytes each replica pushes to each server
    pull_load: np.ndarray  # bytes each server sends per pull
    live: np.ndarray  # (K, V) bool: pulled inside the step (not prefetched)
    proxy: np.ndarray  # (K, V) bool: a proxy copy on every node, refreshed whole
    pull_b: np.ndarray  # (K, 2, M) bytes sent by each server: once per replica, once per node (synchronous proxy)
    pull_t: np.ndarray  # (K, 2, M) the same in tensors
    pull_all: np.ndarray  # (K, R) busy time of every pull on each resource
    lat: np.ndarray  # (K,) the round trip of the pull phase, where anything is pulled live
    col_tensors: np.ndarray  # (K, V) the column's shards on servers
    col_frac: np.ndarray  # (K, V) the share of the column on servers
    server_push: np.ndarray  # (K, M) bytes each replica pushes to each server
    server_pulled: np.ndarray  # (K, M) the same, less the synchronous proxies' (refreshed, not pulled)
    off_replicas: np.ndarray  # (K,) bool: a server on a node without replicas
    server_req: np.ndarray  # (K, M) bytes of ids each replica sends a server for its gathered pulls


def _server_loads(m: Model, b: Batch) -> _ServerLoads:
    """The bytes and tensors each server serves: the pushes overlap the backward pass, the pulls the forward
    pass. A proxy copy is refreshed whole after every update: rows-touched pulls (remote gather) only without
    one."""
    ps_any = b.ps_frac.sum(axis=0) > 0
    stale = b.stale if m.stale_prefetch else np.zeros_like(b.stale)
    live, proxy = ~stale, b.proxy
    # a gathered table's push leaves out the ids its one lookup sent (where it is not proxied)
    pushed = m.push_bytes - (0.0 if m.push_ids is None else m.push_ids * ~proxy)
    push_load = b.ps_frac * pushed  # (M, K, V) bytes each replica pushes to each server
    pull_bytes = np.where(proxy, m.nbytes, m.pull_bytes)  # (K, V)
    pull_load = b.ps_frac * pull_bytes  # (M, K, V) bytes each server sends per pull
    # every pull and proxy refresh (stale ones too): per replica (asynchronous proxies too), per node (synchronous)
    masks = np.stack([~(proxy & b.sync), proxy & b.sync]).astype(float)
    pull_b = (masks[:, None] * pull_load).sum(-1).transpose(2, 0, 1)  # (K, 2, M) pulled bytes
    pull_t = (masks[:, None] * b.ps_tensors).sum(-1).transpose(2, 0, 1)
    pull_all = (np.concatenate([pull_b[:, 0], pull_t[:, 0]], 1) @ m.coef_pull
                + np.concatenate([pull_b[:, 1], pull_t[:, 1]], 1) @ m.coef_pull_proxy)  # (K, R) busy time
    any_live_pull = (ps_any & live).any(axis=1)
    lat = m.pull_latency_s * any_live_pull
    return _ServerLoads(ps_any=ps_any, push_load=push_load, pull_load=pull_load, live=live, proxy=proxy,
                        pull_b=pull_b, pull_t=pull_t, pull_all=pull_all, lat=lat, col_tensors=b.ps_tensors.sum(axis=0),
                        col_frac=b.ps_frac.sum(axis=0), server_push=push_load.sum(axis=2).T,
                        server_pulled=(push_load * ~(proxy & b.sync)[None]).sum(axis=2).T,
                        off_replicas=(b.ps_frac[~m.replica_nodes] > 0).any(axis=(0, 2)),
                        server_req=(b.ps_frac * (m.req_bytes * ~proxy if m.req_bytes is not None else 0.0)
                                    ).sum(axis=2).T)


@dataclasses.dataclass
class _Chains:
    """When the busiest resource is done with each variable of every chain of K strategies (``cum_*``: (K, V),
    except ``cum_p`` and ``cum_firsts``), and the ends of the phases that wait for them."""

    m: Model
    V: int
    lat: np.ndarray  # (K,) the pull phase's round trip
    t_push: np.ndarray  # (R, K, V) every replica's push, per resource
    cum_p: np.ndarray  # (2, R, K, V) pushes per resource: every replica's, the last remote replica's
    cum_push_max: np.ndarray  # every replica's pushes, on their busiest resource
    cum_last: np.ndarray  # the last remote replica's pushes alone
    cum_all: np.ndarray  # every live pull, the round trip included
    cum_firsts: list  # per node holding replicas, the pulls until its first replica has its own
    cum_ref: np.ndarray | None  # synchronous proxies' refreshes of the units ready no earlier (None: none)
    cum_ar_bytes: np.ndarray  # the all-reduced units' bytes on the ring
    ar_fixed: np.ndarray  # (K, 1) every collective's fixed cost, one after another
    tail: np.ndarray  # (K,) the ring latency of the last collective

    def forward_end(self, cum: np.ndarray, f: np.ndarray) -> np.ndarray:
        """End of the forward pass ``f`` when the pulls end at ``cum``: each layer waits for its variables."""
        return np.maximum(f, (cum + f[:, None] * self.m.ready_frac).max(axis=1)) if self.V else f + cum[:, -1]

    def node_forward_ends(self, f: np.ndarray) -> np.ndarray:
        """(Mr, K) end of the forward pass ``f`` of the replica served first on each node holding replicas."""
        if not self.V:
            return (f + self.lat)[None]
        return np.array([self.forward_end(c, f) for c in self.cum_firsts or [self.cum_all]])

    def gradient_end(self, rdy: np.ndarray, c: int) -> np.ndarray:
        """(K, V) end of the gradient phase up to each variable, its gradient ready at ``rdy``: every replica's
        pushes (``c`` 0) or the last remote replica's (1). The all-reduces' bytes flow alongside the pushes (what
        they share of a NIC, ``busiest`` bounds); every collective's fixed cost (launch, CPU side, handshakes)
        comes on top, one after another, none of it hidden under the backward pass: a collective launched early is
        not free on hosts whose cores are busy computing."""
        cum_ps = self.cum_push_max if c == 0 else self.cum_last
        out = rdy + np.maximum(self.cum_ar_bytes, cum_ps) + self.ar_fixed
        if self.cum_ref is None:
            return out
        # the refreshes flow alongside the all-reduced bytes (the NICs they share), and each follows its unit's
        # pushes: a unit's push is done, on each resource, at the latest of (a unit ready no later than it, then
        # every push from that one to it); then come its refresh and those of the units ready after it
        per = self.cum_p[c]  # (R, K, V)
        pushed = np.maximum.accumulate((rdy + per)[:, :, ::-1], axis=2)[:, :, ::-1]
        pushed[:, :, 1:] -= per[:, :, :-1]
        shared = rdy + self.cum_ar_bytes + self.cum_ref + self.ar_fixed
        return np.maximum(np.maximum(out, shared), pushed.max(axis=0) + self.cum_ref + self.ar_fixed)

    def finish(self, rdy: np.ndarray, c: int) -> np.ndarray:
        """(K,) end of the whole gradient phase, the ring's tail included."""
        return self.gradient_end(rdy, c).max(axis=1) + self.tail


def _chains(m: Model, b: Batch, ar: _AllReduce, loads: _ServerLoads) -> _Chains:
    """Seconds on each resource, variable by variable, of the chains (two matrix products,
    ``chain_coefficients``): every replica's push, the last remote replica's push, every live pull and, per node
    holding replicas, the pulls of its replica served first (its own node's variables it reads in place: the
    replica beside a server starts at once). The pulls are served in the order the forward pass reads them
    (inventory order: a layer's ops run once its variables have arrived), so a later layer's pull hides under the
    forward work before it."""
    M = b.ps_frac.shape[0]
    K, V = b.ar_frac.shape
    live, proxy, pull_load = loads.live, loads.proxy, loads.pull_load
    rep, px_sync, px_async = live & ~proxy, live & proxy & b.sync, live & proxy & ~b.sync
    x_push, x_pull = np.empty((2, M, K, V)), np.empty((4, M, K, V))
    x_push[0], x_push[1] = loads.push_load, b.ps_tensors
    for i, mask in enumerate((rep, px_async)):
        np.multiply(pull_load, mask, out=x_pull[2 * i])
        np.multiply(b.ps_tensors, mask, out=x_pull[2 * i + 1])
    R = m.coef_pull.shape[1]
    t_push = _thin_matmul(m.coef_push_chains, x_push.reshape(2 * M, K * V)).reshape(2, R, K, V)
    t_pull = _thin_matmul(m.coef_pull_chains, x_pull.reshape(4 * M, K * V)).reshape(-1, R, K, V)
    # a synchronous unit's proxies are refreshed once its one update is done, every node's before the step ends
    # (the next step's pulls wait for them): ``cum_ref`` (K, V), the refreshes of the units ready no earlier than
    # each, on their busiest resource
    cum_ref = None
    if V and px_sync.any():
        x_ref = np.concatenate([pull_load * px_sync, b.ps_tensors * px_sync])  # (2M, K, V)
        t_ref = _thin_matmul(m.coef_pull_proxy.T, x_ref.reshape(2 * M, K * V)).reshape(R, K, V)
        cum_ref = np.cumsum(t_ref, axis=2).max(axis=0)
    cum_p, cum_l = np.cumsum(t_push, axis=3), np.cumsum(t_pull, axis=3)
    cum_push_max, cum_last = cum_p.max(axis=1)
    cum_all, *cum_firsts = cum_l.max(axis=1) + loads.lat[:, None]  # every pull; each node's first replica's own
    if not V:
        cum_all = np.zeros((K, 1)) + loads.lat[:, None]
    return _Chains(m=m, V=V, lat=loads.lat, t_push=t_push[0], cum_p=cum_p, cum_push_max=cum_push_max,
                   cum_last=cum_last, cum_all=cum_all, cum_firsts=cum_firsts, cum_ref=cum_ref,
                   cum_ar_bytes=np.cumsum(ar.unit_s, axis=1), ar_fixed=ar.fixed.sum(axis=1, keepdims=True),
                   tail=ar.tail)


def _outputs(m: Model, b: Batch, ar: _AllReduce, loads: _ServerLoads, c: _Chains, s: _Step, compute: np.ndarray,
             serial: np.ndarray, piece_s: np.ndarray, synchronous: np.ndarray, detail: bool) -> dict[str, np.ndarray]:
    """The step (bounded by the busiest resource, then corrected by the residual) and its parts."""
    K, V = b.ar_frac.shape
    M = b.ps_frac.shape[0]
    R = m.coef_pull.shape[1]
    push_total = c.cum_p[0][:, :, -1].T if V else np.zeros((K, R))
    # the ids of gathered pulls, and what every step moves (its state) lockstep [0] or tower by tower [1]
    fixed = np.zeros((K, M, M)) if m.fixed_links is None else m.fixed_links[np.where(synchronous, 0, 1)]
    side = loads.server_req @ m.coef_req + np.einsum("kab,abr->kr", fixed, m.coef_flow)
    resource_total = loads.pull_all + push_total + ar.ar_time.sum(axis=1)[:, None] + side  # (K, R) busy time
    busiest = resource_total.max(axis=1)
    raw = np.maximum(s.overlapped, busiest)

    rpc = loads.pull_t[:, 0] + loads.pull_t[:, 1]  # (K, M) tensors per server
    zeros = np.zeros_like(rpc)
    rpc_s = (np.concatenate([zeros, rpc], 1) @ m.coef_push + np.concatenate([zeros, rpc], 1) @ m.coef_pull)
    latency = ar.ar_latency + rpc_s.max(axis=1) if M else ar.ar_latency
    compute_all = compute + serial
    comm = raw - compute_all
    # counts the residual may charge: shards beyond one per variable, and collectives after fusion
    pieces = np.maximum(b.ps_tensors.sum(axis=(0, 2)) + ar.is_ar.sum(axis=1) - m.variables, 0.0)
    collectives = ar.ncoll.sum(axis=1)
    step = raw
    if m.residual is not None:
        c0, cc, cm, cl, cp, ck = m.residual
        step = np.maximum(c0 + cc * compute_all + cm * comm + cl * latency
                          + (cp * pieces + ck * collectives) * COUNT_UNIT_S, 0.0)
    load_push = loads.server_push  # (K, M): L_j, bytes each replica pushes to server j
    wire_bytes = (load_push @ m.wire_push + loads.pull_b[:, 0] @ m.wire_pull + loads.pull_b[:, 1] @ m.wire_pull_proxy
                  + (ar.wire * ~ar.hier).sum(axis=1) * m.wire_ar + (ar.wire * ar.hier).sum(axis=1) * m.wire_har
                  + loads.server_req @ m.wire_push + fixed.sum(axis=(1, 2)))
    out = dict(step=step, raw=raw, compute=compute_all, forward=s.fwd, backward=s.bwd, compression=ar.compression,
               pieces_s=piece_s, pull=s.fwd_end_all - s.fwd, finish=s.finish, barrier=s.barrier,
               comm=comm, latency=latency, busiest=busiest, wire_bytes=wire_bytes, pieces=pieces,
               collectives=collectives)
    if detail:
        x_pull = np.concatenate([loads.pull_load, b.ps_tensors]).transpose(1, 2, 0)  # (K, V, 2M)
        t_pull_var = np.where((loads.proxy & b.sync)[:, :, None], x_pull @ m.coef_pull_proxy, x_pull @ m.coef_pull)
        out.update(ps_var=(c.t_push.transpose(1, 2, 0) + t_pull_var).max(axis=2),
                   ar_var=ar.wire * ar.s_per_byte + np.where(ar.is_ar, np.where(ar.kind == 2, 2.0, 1.0), 0) * ar.coll_s,
                   ar_unit=ar.ar_time, is_head=ar.is_head, group=b.group, server_load=load_push,
                   resource_total=resource_total)
    return out
