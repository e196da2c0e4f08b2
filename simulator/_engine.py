"""The vectorised cost model: K strategies at once as per-column arrays (a column is a variable, or one shard of
it with its own synchronizer when the strategy partitions it).

Step = end of the forward pass + compression + end of the gradient phase + barrier + step overhead. The forward pass
overlaps the pulls: they are served in the order it reads the variables (the first layer first) and a layer waits
for its own, so a later layer's pull hides under the forward work before it. The gradient phase (PS pushes and fused
all-reduces) overlaps the backward pass. A server serves its remote replicas' pulls one after another (the replica
beside it reads in place), so one replica's push overlaps the next one's pull: a lockstep step is the later of
(first replica's pull, then every push) and (every pull, then the last replica's push); all-async towers step on
their own (their own pull and push). A synchronous proxy is refreshed at the end of the step that updated it (the
backend copies the one update into every node's proxy before the step ends): its refresh follows its unit's pushes,
on the NICs the all-reduced bytes use, and the next step's pulls come after it. Where the replicas share CPUs (nodes
emulated on one machine), a replica computes faster alone than in lockstep with the others; the two chains stagger
the replicas, so they take the compute of a replica alone, bounded below by (first start, lockstep compute, last
push). That lockstep compute has every replica apply the optimizer to its own copy of every variable; a synchronous
PS variable is updated once, on its server, so with the updates' share of that compute measured
(``Calibration.lockstep_update_share``) a step computes in proportion to its work. A server staggers its replicas
less than those chains say: a calibrated share (``ps_serial``, from the model's ``ps`` step, all of its PS load on one
server; toward ``ps_spread_serial``, from the ``ps_lb`` step, as the load spreads over the servers, by the share of
the bytes the replicas pull that the busiest server holds: a synchronous proxy, refreshed on every node at once,
is not pulled) of the way from that staggered step to the unstaggered one (every pull, the lockstep compute, every
push) is added back, however the PS bytes are split into tensors. Each NIC direction (each link slower than its
NICs, and the CPUs where the nodes share them: every tensor's RPC work) is a resource serving the units in the order
their gradients become ready (the last layer first); for one resource the finish time is max_u(ready_u + sum of the
times of units ready no earlier than u). All-reduced bytes flow alongside the PS pushes (the busiest resource bounds
what they share); collectives cost a serialised fixed cost each on top, never hidden under the backward pass, and
the ring latency once."""
from __future__ import annotations

import dataclasses

import numpy as np

from simulator._arrays import Batch, Model
from simulator._network import FirstPulls, stack
from simulator._prediction import COUNT_UNIT_S

FP16_KINDS = (1, 2)  # HorovodCompressor, HorovodCompressorEF
POWERSGD = 3
EF_KINDS = (2, 3)  # compressors that keep an error-feedback residual


def compute_with_updates(lockstep_s, update_share: float, updates, replicas: float):
    """The lockstep compute of a step that does ``updates`` whole-model optimizer updates (all nodes together),
    where ``replicas`` replicas each updating their own copy take ``update_share`` of ``lockstep_s``."""
    return lockstep_s * (1.0 - update_share * (1.0 - updates / replicas))


def evaluate(m: Model, b: Batch, detail: bool = False) -> dict[str, np.ndarray]:
    """Predict every part for the K strategies of ``b``; ``detail`` adds per-variable arrays.

    The phases: what compression costs and how the all-reduced parts fuse into collectives (:func:`_all_reduce`);
    what each server sends and receives (:func:`_server_loads`) and when the busiest resource is done with each
    variable of every chain (:func:`_chains`); the shards' CPU work (:func:`_piece_costs`); the compute
    (:func:`_compute`); then the step (:func:`_step`) and its parts (:func:`_outputs`)."""
    return evaluate_with(m, b, _server_loads, _chains, detail)


def evaluate_with(m: Model, b: Batch, server_loads, chains, detail: bool = False) -> dict[str, np.ndarray]:
    """:func:`evaluate` with the servers' loads and the chains built by ``server_loads(m, b)`` and
    ``chains(m, b, ar, loads)`` (the dense ones, or those of :mod:`simulator._engine_sparse`)."""
    ar = _all_reduce(m, b)
    loads = server_loads(m, b)
    timing = chains(m, b, ar, loads)
    piece_s = _piece_costs(m, loads, ar)
    serial = ar.compression + piece_s  # on the critical path, outside the overlap of communication and backward
    compute, synchronous, any_sync_ps = _compute(m, b, loads)
    bwd = compute * m.backward_fraction
    fwd = compute - bwd
    step = _step(m, b, loads, timing, fwd, bwd, serial, synchronous, any_sync_ps)
    return _outputs(m, b, ar, loads, timing, step, compute, serial, piece_s, synchronous, detail)


@dataclasses.dataclass
class _AllReduce:
    """The all-reduced parts of K strategies: (K, V) arrays unless noted."""

    is_ar: np.ndarray  # bool: the variable (column) is all-reduced, in part at least
    psgd: np.ndarray  # bool: compressed by PowerSGD
    kind: np.ndarray  # wire kind: 0 plain, 1 fp16, 2 PowerSGD, 3 all-gathered sparse gradient
    wire: np.ndarray  # bytes each column puts on the ring
    compression: np.ndarray  # (K,) casts, PowerSGD rounds, error-feedback passes
    unit_bytes: np.ndarray  # bytes of the fused unit each column leads (0 where it leads none)
    ncoll: np.ndarray  # collectives each column leads (PowerSGD: two, P and Q)
    is_head: np.ndarray  # bool: the column leads its unit (its lowest index: ready last)
    ar_time: np.ndarray  # seconds of each unit on the ring, its collectives' fixed cost included
    tail: np.ndarray  # (K,) the ring latency of the last collective, once
    ar_latency: np.ndarray  # (K,) every collective's fixed cost, and the tail
    unit_s: np.ndarray  # seconds of each unit's bytes on the ring (0 where it leads none)
    fixed: np.ndarray  # each unit's collectives' fixed cost
    s_per_byte: np.ndarray  # (K, V) seconds per ring byte of the column's all-reduce (flat or hierarchical)
    coll_s: np.ndarray  # (K, V) fixed cost of one of its collectives
    hier: np.ndarray  # (K, V) bool: all-reduced hierarchically
    head: np.ndarray  # (K, V) the column leading each column's unit (V where not all-reduced)
    rank: np.ndarray  # (K, V) the PowerSGD factors' columns: the strategy's rank, at most the matrix's sides


def _all_reduce(m: Model, b: Batch) -> _AllReduce:
    """Compression compute (casts and matmuls, plus two passes over an error-feedback residual) and fusion: as the
    backend groups collectives, by (group, compressor, spec, PowerSGD rank) and wire kind (a PowerSGD group
    all-reduces its vectors apart); one unit per key, led by its lowest index (ready last)."""
    K, V = b.ar_frac.shape
    kk = np.arange(K)[:, None]
    vv = np.arange(V)[None, :]
    is_ar = b.ar_frac > 0
    # an all-gathered sparse gradient (as the backend does it wherever a whole variable's rows are static, whatever
    # its compressor): each node receives the other replicas' rows and indices ((N - 1) x the pushed bytes),
    # written in ring bytes (x N/2, which the ring's 2 (N - 1) / N turns back into that)
    gather = is_ar & (b.gather if b.gather is not None else False) & (m.gatherable if m.gatherable is not None
                                                                       else m.push_bytes < m.nbytes)
    fp16 = is_ar & ~gather & ((b.comp == FP16_KINDS[0]) | (b.comp == FP16_KINDS[1]))
    psgd = is_ar & ~gather & (b.comp == POWERSGD) & m.matrix
    rank = np.minimum(b.rank, np.minimum(m.pn, m.pm))  # a factor has no more columns than the matrix's sides
    kind = np.where(psgd, 2, np.where(fp16, 1, np.where(gather, 3, 0)))
    wire = np.where(psgd, (m.pn + m.pm) * rank * m.itemsize,
                    np.where(fp16, m.numel * np.minimum(m.itemsize, 2),
                             np.where(gather, m.push_bytes * m.replicas / 2, m.nbytes))) * b.ar_frac

    ef = is_ar & ~gather & ((b.comp == EF_KINDS[0]) | (b.comp == EF_KINDS[1]))
    part_bytes = m.nbytes * b.ar_frac
    passes = 2.0 * fp16 + 2.0 * ef
    flops = np.where(psgd, 4.0 * m.pn * m.pm * rank + 2.0 * (m.pn + m.pm) * rank * rank, 0.0) * b.ar_frac
    comp_var = passes * part_bytes * m.cast_s_per_byte + flops * m.psgd_s_per_flop + psgd * m.psgd_matrix_s
    compression = comp_var.sum(axis=1)

    rk = np.where(b.comp == POWERSGD, np.minimum(b.rank, 7), 0)
    hier = is_ar & ~gather & (b.hier if b.hier is not None else False)  # a gathered gradient stays flat
    key = (((((b.group * 4 + np.clip(b.comp, 0, 3)) * 3 + np.clip(b.spec, 0, 2)) * 8 + rk) * 4 + kind) * 2
           + hier) * is_ar
    # every gathered gradient is collectives of its own (indices and values), fused with nothing
    key = np.where(gather, key.max(initial=0) + 1 + vv, key)
    if key.size and (key.min() < 0 or key.max() >= 32 * V + 32):
        key = np.unique(key, return_inverse=True)[1].reshape(key.shape)
    width = int(key.max()) + 1 if key.size else 1
    table = np.full(K * width, V, dtype=np.int64)
    slot = kk * width + key
    np.minimum.at(table, slot[is_ar], np.broadcast_to(vv, (K, V))[is_ar])  # each unit's lowest index
    head = np.where(is_ar, table[slot], V)
    is_head = is_ar & (head == vv)
    ncoll = np.where((kind == 2) | (kind == 3), 2.0, 1.0) * is_head
    flat = (kk * (V + 1) + head)[is_ar]
    unit_bytes = np.bincount(flat, weights=wire[is_ar], minlength=K * (V + 1)).reshape(K, V + 1)[:, :V]
    s_per_byte = np.where(hier, m.har_s_per_byte, m.ar_s_per_byte)
    coll_s = np.where(hier, m.har_latency_s, m.ar_latency_s)
    unit_s, fixed = unit_bytes * s_per_byte, ncoll * coll_s
    ar_time = unit_s + fixed
    # the ring latency of the last collective: the longer kind's
    tail = np.maximum(m.ar_tail_s * (is_ar & ~hier).any(axis=1), m.har_tail_s * hier.any(axis=1)) \
        * np.where(psgd.any(axis=1), 2.0, 1.0)
    ar_latency = fixed.sum(axis=1) + tail
    return _AllReduce(is_ar=is_ar, psgd=psgd, kind=kind, wire=wire, compression=compression, unit_bytes=unit_bytes,
                      ncoll=ncoll, is_head=is_head, ar_time=ar_time, tail=tail, ar_latency=ar_latency,
                      unit_s=unit_s, fixed=fixed, s_per_byte=s_per_byte, coll_s=coll_s, hier=hier, head=head,
                      rank=rank)


@dataclasses.dataclass
class _ServerLoads:
    """What K strategies' parameter servers serve per step; (M, K, V) arrays unless noted."""

    ps_any: np.ndarray  # (K, V) bool: the column is on a server, in part at least
    push_load: np.ndarray  # bytes each replica pushes to each server
    pull_load: np.ndarray  # bytes each server sends per pull
    live: np.ndarray  # (K, V) bool: pulled inside the step (not prefetched)
    proxy: np.ndarray  # (K, V) bool: a proxy copy on every node, refreshed whole
    pull_b: np.ndarray  # (K, 2, M) bytes sent by each server: once per replica (a pull, an asynchronous proxy's
    # refresh after each tower's update), once per node (a synchronous proxy's refresh after the one update)
    pull_t: np.ndarray  # (K, 2, M) the same in tensors
    pull_all: np.ndarray  # (K, R) busy time of every pull on each resource
    lat: np.ndarray  # (K,) the round trip of the pull phase, where anything is pulled live
    col_tensors: np.ndarray  # (K, V) the column's shards on servers
    col_frac: np.ndarray  # (K, V) the share of the column on servers
    server_push: np.ndarray  # (K, M) bytes each replica pushes to each server
    server_pulled: np.ndarray  # (K, M) the same, less the synchronous proxies' (refreshed, not pulled)
    off_replicas: np.ndarray  # (K,) bool: a server on a node without replicas
    server_req: np.ndarray | None = None  # (K, M) bytes of ids each replica sends a server for its gathered pulls

    def column_busiest(self, net, b: Batch) -> np.ndarray:
        """(K, V) each column's own busiest resource (:meth:`Network.column_busiest`)."""
        return net.column_busiest(self.push_load, self.pull_load, b.ps_tensors, self.proxy & b.sync)


def push_bytes(m: Model, proxy: np.ndarray) -> np.ndarray:
    """(K, V) bytes one replica pushes per column: a gathered table's rows leave out the ids its one lookup sent
    the server (not a proxy's)."""
    return m.push_bytes if m.push_ids is None else m.push_bytes - np.where(proxy, 0.0, m.push_ids)


def _server_loads(m: Model, b: Batch) -> _ServerLoads:
    """The bytes and tensors each server serves: the pushes overlap the backward pass, the pulls the forward
    pass. A proxy copy is refreshed whole after every update: rows-touched pulls (remote gather) only without
    one."""
    ps_any = b.ps_frac.sum(axis=0) > 0
    stale = b.stale if m.stale_prefetch else np.zeros_like(b.stale)
    live, proxy = ~stale, b.proxy
    push_load = b.ps_frac * push_bytes(m, proxy)  # (M, K, V) bytes each replica pushes to each server
    pull_bytes = np.where(proxy, m.nbytes, m.pull_bytes)  # (K, V)
    pull_load = b.ps_frac * pull_bytes  # (M, K, V) bytes each server sends per pull
    # every pull, every proxy refresh (stale ones too): (K, 2, M) pulled bytes and tensors, once per replica and once
    # per node
    per_node = proxy & b.sync
    pull_b, pull_t = (np.einsum("mkv,pkv->kpm", x, np.stack([~per_node, per_node]).astype(float))
                      for x in (pull_load, b.ps_tensors))
    net = m.net
    pull_all = (stack(net.pull(pull_b[:, 0].T, pull_t[:, 0].T, net.counts))
                + stack(net.pull(pull_b[:, 1].T, pull_t[:, 1].T, net.present))).T  # (K, R) busy time
    any_live_pull = (ps_any & live).any(axis=1)
    lat = m.pull_latency_s * any_live_pull
    server_push = push_load.sum(axis=2).T
    server_pulled = np.einsum("mkv,kv->km", push_load, (~(proxy & b.sync)).astype(float))
    off = (b.ps_frac[~m.replica_nodes] > 0).any(axis=(0, 2)) if len(m.replica_nodes) else np.zeros(len(lat), bool)
    server_req = np.einsum("mkv,kv->km", b.ps_frac, np.where(proxy, 0.0, m.req_bytes)) \
        if m.req_bytes is not None else None
    return _ServerLoads(ps_any=ps_any, push_load=push_load, pull_load=pull_load, live=live, proxy=proxy,
                        pull_b=pull_b, pull_t=pull_t, pull_all=pull_all, lat=lat, col_tensors=b.ps_tensors.sum(axis=0),
                        col_frac=b.ps_frac.sum(axis=0), server_push=server_push, server_pulled=server_pulled,
                        off_replicas=off, server_req=server_req)


@dataclasses.dataclass
class _Chains:
    """When the busiest resource is done with each variable of every chain of K strategies (``cum_*``: (K, V),
    except ``cum_p`` and ``cum_firsts``), and the ends of the phases that wait for them."""

    m: Model
    V: int
    lat: np.ndarray  # (K,) the pull phase's round trip
    push_total: np.ndarray  # (K, R) every replica's pushes, per resource
    # pushes per resource, (rows, K, V): those every replica's and the last remote replica's load alike, every
    # replica's others, the last's others (Network.push_resources; None: no synchronous proxy needs them)
    cum_p: tuple | None
    cum_push_max: np.ndarray  # every replica's pushes, on their busiest resource
    cum_last: np.ndarray  # the last remote replica's pushes alone
    cum_all: np.ndarray  # every live pull, the round trip included
    firsts: FirstPulls  # per node holding replicas, the pulls until its first replica has its own
    cum_ref: np.ndarray | None  # synchronous proxies' refreshes of the units ready no earlier (None: none)
    cum_ar_bytes: np.ndarray  # the all-reduced units' bytes on the ring
    ar_fixed: np.ndarray  # (K, 1) every collective's fixed cost, one after another
    tail: np.ndarray  # (K,) the ring latency of the last collective
    _shared_pushed: tuple = (None, None)  # (rdy, its pushes on the shared resources): both chains' calls reuse it

    def forward_end(self, cum: np.ndarray, f: np.ndarray) -> np.ndarray:
        """End of the forward pass ``f`` when the pulls end at ``cum``: each layer waits for its variables."""
        return np.maximum(f, (cum + f[:, None] * self.m.ready_frac).max(axis=-1)) if self.V else f + cum[..., -1]

    def node_forward_ends(self, f: np.ndarray) -> np.ndarray:
        """(Mr, K) end of the forward pass ``f`` of the replica served first on each node holding replicas."""
        if not self.V:
            return (f + self.lat)[None]
        if not len(self.firsts.nodes):
            return self.forward_end(self.cum_all, f)[None]
        return np.maximum(f, self.firsts.latest(self.lat[:, None] + f[:, None] * self.m.ready_frac))

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
        if self._shared_pushed[0] is not rdy:
            self._shared_pushed = (rdy, _pushed(self.cum_p[0], rdy))
        pushed = np.maximum(self._shared_pushed[1], _pushed(self.cum_p[1 + c], rdy))
        shared = rdy + self.cum_ar_bytes + self.cum_ref + self.ar_fixed
        return np.maximum(np.maximum(out, shared), pushed + self.cum_ref + self.ar_fixed)

    def finish(self, rdy: np.ndarray, c: int) -> np.ndarray:
        """(K,) end of the whole gradient phase, the ring's tail included."""
        return self.gradient_end(rdy, c).max(axis=1) + self.tail


def _pushed(per: np.ndarray, rdy: np.ndarray) -> np.ndarray:
    """(K, V) on the busiest of the resources ``per`` (rows, K, V; cumulative pushes), when each unit's push is done:
    the latest of (a unit ready no later than it, then every push from that one to it)."""
    if not len(per):
        return np.full(rdy.shape, -np.inf)
    pushed = np.maximum.accumulate((rdy + per)[:, :, ::-1], axis=2)[:, :, ::-1]
    pushed[:, :, 1:] -= per[:, :, :-1]
    return pushed.max(axis=0)


def _chains(m: Model, b: Batch, ar: _AllReduce, loads: _ServerLoads) -> _Chains:
    """Seconds on each resource, variable by variable, of the chains: every replica's push, the last remote
    replica's push, every live pull and, per node holding replicas, the pulls of its replica served first (its own
    node's variables it reads in place: the replica beside a server starts at once). The pulls are served in the
    order the forward pass reads them (inventory order: a layer's ops run once its variables have arrived), so a
    later layer's pull hides under the forward work before it. A resource's time is linear in the servers' loads:
    the loads are summed along the variables first, then spread on the resources (:class:`Network`)."""
    K, V = b.ar_frac.shape
    net = m.net
    live, proxy, pull_load = loads.live, loads.proxy, loads.pull_load
    rep, px_sync, px_async = live & ~proxy, live & proxy & b.sync, live & proxy & ~b.sync

    inv_nic = 1.0 / net.nic[:, None, None]
    c_load, c_tensors = np.cumsum(loads.push_load, axis=2), np.cumsum(b.ps_tensors, axis=2)
    u_push = c_load * inv_nic + net.rpc_nic * c_tensors if net.rpc_nic else c_load * inv_nic
    cum_push_max, cum_last = net.push_busiest(u_push, c_load, c_tensors)
    push_total = stack(net.push(c_load[..., -1], c_tensors[..., -1])).T if V else np.zeros((K, net.R))
    # every live pull (an asynchronous proxy refreshed right after each of its node's towers' updates, like a pull)
    # and the pulls until each node's first replica has its own
    z = pull_load * inv_nic + net.rpc_nic * b.ps_tensors if net.rpc_nic else pull_load * inv_nic
    pulled = rep | px_async  # an asynchronous proxy is refreshed after each of its node's towers' updates
    u_pulled = np.cumsum(z * pulled, axis=2)
    parts = [(u_pulled, pulled, net.counts)]
    lat = loads.lat[:, None]
    cum_all = net.pull_busiest(parts, pull_load, b.ps_tensors, u_pulled) + lat if V else np.zeros((K, 1)) + lat
    firsts = net.first_pull_parts(u_pulled, pulled, pull_load, b.ps_tensors)
    # a synchronous unit's proxies are refreshed once its one update is done, every node's before the step ends
    # (the next step's pulls wait for them): ``cum_ref`` (K, V), the refreshes of the units ready no earlier than
    # each, on their busiest resource
    cum_ref = cum_p = None
    if V and px_sync.any():
        cum_ref = net.pull_busiest([(np.cumsum(z * px_sync, axis=2), px_sync, net.present)], pull_load,
                                   b.ps_tensors)
        cum_p = net.push_resources(u_push, c_load, c_tensors)
    return _Chains(m=m, V=V, lat=loads.lat, push_total=push_total, cum_p=cum_p, cum_push_max=cum_push_max,
                   cum_last=cum_last, cum_all=cum_all, firsts=firsts, cum_ref=cum_ref,
                   cum_ar_bytes=np.cumsum(ar.unit_s, axis=1), ar_fixed=ar.fixed.sum(axis=1, keepdims=True),
                   tail=ar.tail)


def _piece_costs(m: Model, loads: _ServerLoads, ar: _AllReduce) -> np.ndarray:
    """(K,) CPU work of the extra pieces: every shard beyond one per variable is sliced, packed and applied on its
    own; a PowerSGD shard's round (its per-matrix cost) does that work for it, so it pays no all-reduced piece's
    cost on top."""
    def by_variable(x: np.ndarray) -> np.ndarray:  # (..., C) per column -> (..., variables): shards summed
        return x if m.col_starts is None or not x.shape[-1] else np.add.reduceat(x, m.col_starts, axis=-1)

    n_ps, n_ar = by_variable(loads.col_tensors), by_variable(ar.is_ar.astype(float))  # (K, variables)
    n_psgd = by_variable(ar.psgd.astype(float))
    n_all = n_ps + n_ar
    share_ps = np.divide(n_ps, n_all, out=np.zeros_like(n_all), where=n_all > 0)
    share_ar = np.divide(n_ar - n_psgd, n_all, out=np.zeros_like(n_all), where=n_all > 0)
    extra = np.maximum(n_all - 1.0, 0.0)
    return (extra * share_ps).sum(axis=1) * m.ps_piece_s + (extra * share_ar).sum(axis=1) * m.ar_piece_s


def _compute(m: Model, b: Batch, loads: _ServerLoads) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(K,) the compute of each step, whether it is synchronous, and whether it has a synchronous PS variable.

    Where replicas share CPUs, the lockstep compute is every replica's step, each applying the optimizer to its
    own copy of every variable (N updates, ``update_share`` of it). A synchronous PS variable is updated once, on
    its server (an asynchronous one once per replica's gradient): the step computes in proportion to the work it
    has."""
    any_sync_ps = (loads.ps_any & b.sync).any(axis=1)
    synchronous = any_sync_ps | (b.ar_frac > 0).any(axis=1)
    compute = np.where(synchronous, m.compute_sync_s, m.compute_async_s)
    if m.update_w is not None and m.update_share > 0 and m.compute_alone_s < m.compute_sync_s:
        n = float(m.replicas)
        copies = n * b.ar_frac + loads.col_frac * np.where(b.sync, 1.0, n)  # (K, C) updates per step
        updates = (copies * m.update_w).sum(axis=1)  # (K,) whole-model updates per step, all nodes together
        compute = np.where(synchronous, compute_with_updates(m.compute_sync_s, m.update_share, updates, n), compute)
    return compute, synchronous, any_sync_ps


@dataclasses.dataclass
class _Step:
    """(K,) the raw step and the parts of it :func:`_outputs` reports."""

    overlapped: np.ndarray  # the step before the busiest resource bounds it
    finish: np.ndarray  # end of the gradient phase
    barrier: np.ndarray
    fwd: np.ndarray
    bwd: np.ndarray
    fwd_end_all: np.ndarray  # end of the forward pass after every pull


def _step(m: Model, b: Batch, loads: _ServerLoads, c: _Chains, fwd: np.ndarray, bwd: np.ndarray,
          serial: np.ndarray, synchronous: np.ndarray, any_sync_ps: np.ndarray) -> _Step:
    """The step of the first replica to start (the one beside a server reads that server's variables in place);
    with parameter servers, no shorter than the last replica's (:func:`_with_servers`), plus the staggering a
    server loses (:func:`_staggering_lost`). All-async towers step on their own and drift out of phase: a tower's
    step is its own pull and push (the slowest tower's: one that pulls over the network)."""
    K, V = b.ar_frac.shape
    M = m.net.M
    ready = bwd[:, None] * m.ready_frac
    finish = finish_lockstep = c.finish(ready, 0) if V else bwd
    spans = m.spans_nodes | loads.off_replicas if M else np.zeros(K, bool)
    barrier = m.barrier_s * any_sync_ps + m.step_overhead_s * spans
    ends = c.node_forward_ends(fwd)
    fwd_end_first, fwd_end_tower, fwd_end_all = ends.min(axis=0), ends.max(axis=0), c.forward_end(c.cum_all, fwd)
    overlapped = fwd_end_first + serial + np.maximum(finish, bwd) + barrier
    if M and V:
        finish_last = c.finish(ready, 1)  # the last remote replica's pushes
        tower = fwd_end_tower + serial + np.maximum(finish_last, bwd) + barrier
        alone = fwd_end_first + serial + np.maximum(finish_last, bwd) + barrier
        overlapped, finish = _with_servers(m, c, fwd, bwd, serial, barrier, overlapped, finish, finish_last, alone,
                                           fwd_end_all)
        if m.ps_serial > 0:
            # every pull, the lockstep compute, then every push: the step with no staggering at all
            unstaggered = fwd_end_all + serial + np.maximum(finish_lockstep, bwd) + barrier
            overlapped = overlapped + _staggering_lost(m, loads) * np.maximum(unstaggered - overlapped, 0.0)
        overlapped = np.where(synchronous, overlapped, tower)
    return _Step(overlapped=overlapped, finish=finish, barrier=barrier, fwd=fwd, bwd=bwd, fwd_end_all=fwd_end_all)


def _with_servers(m: Model, c: _Chains, fwd, bwd, serial, barrier, overlapped, finish, finish_last, alone,
                  fwd_end_all) -> tuple[np.ndarray, np.ndarray]:
    """A lockstep step with parameter servers: no shorter than the last replica's (every pull, then its own push).
    Where replicas share CPUs, the chains stagger them (a server serves one pull, one push at a time), so the
    replicas on them compute with the CPUs to themselves; the whole lockstep compute still bounds the step from
    below (``alone``: the first replica's start, every replica's compute, the last push). Returns (step, end of the
    gradient phase)."""
    if m.compute_alone_s < m.compute_sync_s:
        alone_scale = m.compute_alone_s / m.compute_sync_s  # < 1: a replica alone computes faster
        fwd_a, bwd_a = fwd * alone_scale, bwd * alone_scale
        ready_a = bwd_a[:, None] * m.ready_frac
        finish = c.finish(ready_a, 0)
        overlapped = c.node_forward_ends(fwd_a).min(axis=0) + serial + np.maximum(finish, bwd_a) + barrier
        finish_last = c.finish(ready_a, 1)
        last = c.forward_end(c.cum_all, fwd_a) + serial + np.maximum(finish_last, bwd_a) + barrier
        return np.maximum(np.maximum(overlapped, last), alone), finish
    last = fwd_end_all + serial + np.maximum(finish_last, bwd) + barrier
    return np.maximum(overlapped, last), finish


def _staggering_lost(m: Model, loads: _ServerLoads) -> np.ndarray:
    """(K,) the share of the way from its staggered to its unstaggered step a synchronous PS step loses: the
    ``ps`` step's share with all of its load on one server; spread over the servers as ``ps_lb`` spreads it,
    ``ps_spread_serial``; in between, by the share of its PS load its busiest server holds; 0 without PS load.
    The share does not depend on how the step's PS bytes are split into tensors. A synchronous proxy is
    refreshed on every node at once, at the end of the step: only the tensors the replicas pull from their
    servers say how the step's load is spread (every PS tensor, where all are proxied)."""
    K = loads.server_push.shape[0]
    pulled = loads.server_pulled
    pulled_total = pulled.sum(axis=1)
    stag_load = np.where((pulled_total > 0)[:, None], pulled, loads.server_push)  # (K, M)
    total = stag_load.sum(axis=1)
    lost = np.full(K, m.ps_serial)
    if m.ps_spread_serial is not None and m.ps_spread_serial < m.ps_serial and m.ps_spread_busiest < 1:
        held = np.divide(stag_load.max(axis=1), total, out=np.ones(K), where=total > 0)
        toward_one = np.clip((held - m.ps_spread_busiest) / (1.0 - m.ps_spread_busiest), 0.0, 1.0)
        lost = m.ps_spread_serial + (m.ps_serial - m.ps_spread_serial) * toward_one
    return np.where(total > 0, lost, 0.0)


def side_flows(m: Model, loads: _ServerLoads, synchronous: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(K, R) seconds on each resource and (K,) bytes on the network of what a step sends besides the pushes,
    pulls and all-reduces: the ids of its gathered pulls, its state's refresh and sync."""
    K, R = len(synchronous), m.net.R
    total, nbytes = np.zeros((K, R)), np.zeros(K)
    if loads.server_req is not None and loads.server_req.any():
        total += stack(m.net.push(loads.server_req.T, np.zeros_like(loads.server_req.T), reduced=False)).T
        nbytes += loads.server_req @ m.wire_push
    if m.fixed_links is not None:
        lockstep = synchronous.astype(int)
        total += m.fixed_total[1 - lockstep]
        nbytes += m.fixed_links.sum(axis=(1, 2))[1 - lockstep]
    return total, nbytes


def _outputs(m: Model, b: Batch, ar: _AllReduce, loads: _ServerLoads, c: _Chains, s: _Step, compute: np.ndarray,
             serial: np.ndarray, piece_s: np.ndarray, synchronous: np.ndarray, detail: bool) -> dict[str, np.ndarray]:
    """The step (bounded by the busiest resource, then corrected by the residual) and its parts."""
    M = m.net.M
    net = m.net
    side_s, side_bytes = side_flows(m, loads, synchronous)
    # (K, R) busy time per resource
    resource_total = loads.pull_all + c.push_total + ar.ar_time.sum(axis=1)[:, None] + side_s
    busiest = resource_total.max(axis=1)
    raw = np.maximum(s.overlapped, busiest)

    rpc = loads.pull_t[:, 0] + loads.pull_t[:, 1]  # (K, M) tensors per server
    none = np.zeros(rpc.shape[::-1])  # the tensors' share of every push and pull, spread by structure
    rpc_s = (stack(net.push(none, rpc.T)) + stack(net.pull(none, rpc.T, net.counts))).T
    latency = ar.ar_latency + rpc_s.max(axis=1) if M else ar.ar_latency
    compute_all = compute + serial
    comm = raw - compute_all
    # counts the residual may charge: shards beyond one per variable, and collectives after fusion
    pieces = np.maximum(loads.col_tensors.sum(axis=1) + ar.is_ar.sum(axis=1) - m.variables, 0.0)
    collectives = ar.ncoll.sum(axis=1)
    step = raw
    if m.residual is not None:
        c0, cc, cm, cl, cp, ck = m.residual
        step = np.maximum(c0 + cc * compute_all + cm * comm + cl * latency
                          + (cp * pieces + ck * collectives) * COUNT_UNIT_S, 0.0)
    load_push = loads.server_push  # (K, M): L_j, bytes each replica pushes to server j
    wire_bytes = (load_push @ m.wire_push + loads.pull_b[:, 0] @ m.wire_pull + loads.pull_b[:, 1] @ m.wire_pull_proxy
                  + (ar.wire * ~ar.hier).sum(axis=1) * m.wire_ar + (ar.wire * ar.hier).sum(axis=1) * m.wire_har
                  + side_bytes)
    out = dict(step=step, raw=raw, compute=compute_all, forward=s.fwd, backward=s.bwd, compression=ar.compression,
               pieces_s=piece_s, pull=s.fwd_end_all - s.fwd, finish=s.finish, barrier=s.barrier,
               comm=comm, latency=latency, busiest=busiest, wire_bytes=wire_bytes, pieces=pieces,
               collectives=collectives)
    if detail:
        out.update(ps_var=loads.column_busiest(net, b),
                   ar_var=ar.wire * ar.s_per_byte + np.where(ar.is_ar, np.where(ar.kind == 2, 2.0, 1.0), 0) * ar.coll_s,
                   ar_unit=ar.ar_time, is_head=ar.is_head, group=b.group, server_load=load_push,
                   resource_total=resource_total)
    return out
