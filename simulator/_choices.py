"""Strategies as per-variable choice arrays (:class:`Choices`, the search's fast path) and their encoding into the
engine's :class:`~simulator._arrays.Batch`: as (M, K, V) loads, or as one entry per server holding a shard."""
from __future__ import annotations

import dataclasses

import numpy as np

from simulator._arrays import Batch
from simulator._sparse import Entries


@dataclasses.dataclass
class Choices:
    """Per-variable choices of K strategies as (K, V) arrays in inventory order: the search's fast path.

    ``ps``: PS (True) or all-reduce. PS variables go to node ``server`` (index into ``cluster.nodes``),
    split along axis 0 into ``shards`` shards placed on nodes server, server+1, ... (mod the node count).
    ``None`` fields take the default (shards 1, sync, staleness 0, no proxy, group 0, no compressor, rank 1, flat
    ring).
    """

    ps: np.ndarray
    server: np.ndarray | None = None
    shards: np.ndarray | None = None
    sync: np.ndarray | None = None
    staleness: np.ndarray | None = None
    proxy: np.ndarray | None = None
    group: np.ndarray | None = None
    compressor: np.ndarray | None = None
    rank: np.ndarray | None = None
    hier: np.ndarray | None = None  # all-reduce hierarchically (AllReduceSynchronizer.hierarchical)


def rows(c: Choices, sl: slice, K: int) -> Choices:
    """The strategies ``sl`` of ``c`` (fields given per strategy are sliced, broadcast ones kept)."""
    return Choices(**{f.name: x[sl] if np.ndim(x) == 2 and np.shape(x)[0] == K else x
                      for f in dataclasses.fields(c) for x in [getattr(c, f.name)]})


def empty_batch(K: int, V: int, M: int, dense: bool = True) -> Batch:
    """K strategies of V columns with every default (``dense``: with zero (M, K, V) loads)."""
    return Batch(ar_frac=np.zeros((K, V)), group=np.zeros((K, V), np.int64), comp=np.zeros((K, V), np.int64),
                 spec=np.zeros((K, V), np.int64), rank=np.ones((K, V), np.int64),
                 ps_frac=np.zeros((M, K, V)) if dense else None, ps_tensors=np.zeros((M, K, V)) if dense else None,
                 sync=np.ones((K, V), bool), stale=np.zeros((K, V), bool), proxy=np.zeros((K, V), bool),
                 gather=np.zeros((K, V), bool), hier=np.zeros((K, V), bool))


def _with_flags(c: Choices, M: int, dense: bool) -> tuple[Batch, callable]:
    """A batch with the choices' per-column flags set, and ``arr`` broadcasting a field to (K, V)."""
    ps = np.asarray(c.ps, bool)
    K, V = ps.shape

    def arr(x, default, dtype):
        return np.broadcast_to(np.asarray(default if x is None else x, dtype), (K, V))

    b = empty_batch(K, V, M, dense)
    b.ar_frac[:] = ~ps
    b.group[:], b.comp[:], b.rank[:] = arr(c.group, 0, np.int64), arr(c.compressor, 0, np.int64), \
        np.maximum(arr(c.rank, 1, np.int64), 1)
    b.sync[:], b.stale[:], b.proxy[:] = arr(c.sync, True, bool), arr(c.staleness, 0, np.int64) > 0, \
        arr(c.proxy, False, bool)
    b.hier[:] = arr(c.hier, False, bool)
    return b, arr


def dense_batch(c: Choices, M: int, dim0: np.ndarray) -> Batch:
    """Choice arrays -> the engine's batch with (M, K, V) loads (PS shards spread over consecutive nodes); ``dim0``
    (V,) each variable's rows."""
    ps = np.asarray(c.ps, bool)
    b, arr = _with_flags(c, M, dense=True)
    server = arr(c.server, 0, np.int64)
    shards = np.where(ps, np.clip(arr(c.shards, 1, np.int64), 1, dim0), 1)
    # shard i of a PS variable sits on node (server + i) % M: count the shards and rows landing on node m
    d = np.arange(M)[:, None, None] - server  # (M, K, V): first shard index that lands on m
    d += M * (d < 0)
    q, r = dim0 // shards, dim0 % shards
    if shards.max() <= M:  # at most one shard per node (the usual case): no division over (M, K, V)
        count, extra = d < shards, d < r
    else:
        count = np.maximum(0, (shards - d + M - 1) // M)
        extra = np.maximum(0, (r - d + M - 1) // M)  # shards among them with one extra row (TF's rule)
    np.multiply(count, ps, out=b.ps_tensors)
    np.multiply(b.ps_tensors * q + extra * ps, 1.0 / dim0, out=b.ps_frac)
    return b


def entry_batch(c: Choices, M: int, dim0: np.ndarray) -> Batch:
    """Choice arrays -> a batch whose PS shards are entries: shard i of a PS variable on node (server + i) % M,
    each node's shards (more than one where there are more shards than nodes) one entry."""
    ps = np.asarray(c.ps, bool)
    K, V = ps.shape
    b, arr = _with_flags(c, M, dense=False)
    kk, vv = np.nonzero(ps)
    dim0 = dim0[vv]
    shards = np.clip(arr(c.shards, 1, np.int64)[kk, vv], 1, dim0)
    server = arr(c.server, 0, np.int64)[kk, vv]
    nodes = np.minimum(shards, M)
    cell = np.repeat(np.arange(len(kk)), nodes)
    j = np.arange(cell.size) - np.repeat(np.cumsum(nodes) - nodes, nodes)  # which node of the cell's
    shards, dim0 = shards[cell], dim0[cell]
    q, r = dim0 // shards, dim0 % shards
    count = (shards - j + M - 1) // M  # the shards landing on that node, and those with one extra row
    extra = np.maximum(0, (r - j + M - 1) // M)
    b.entries = Entries(k=kk[cell], col=vv[cell], srv=(server[cell] + j) % M,
                        frac=(count * q + extra) * (1.0 / dim0), tensors=count.astype(float), K=K, V=V, M=M)
    return b
