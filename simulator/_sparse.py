"""The parameter servers' load as entries, one per (strategy, column, server holding a shard of it), for clusters
whose nodes are all alike (one NIC speed, one replica count, no slow link, no shared CPUs).

A variable lives on a few servers, so the dense (M, K, V) arrays of :mod:`simulator._engine` are mostly zeros. A
server's cumulative load along the columns changes only at its own entries and never falls, so over the servers:

- the largest is a running maximum over the entries in column order;
- the smallest is 0 until every server has an entry, then the least of the entries not yet followed by one of
  their own server's (those still current, and later ones, which are no smaller);
- a node's own resources (its receive during its first replica's pulls: the total less its own) peak where the
  total peaks between two of its entries: a range maximum over each gap between them (:class:`MaxTable`).

Each chain then costs O(entries + V log V) per strategy instead of O(M x V)."""
from __future__ import annotations

import dataclasses
import functools

import numpy as np


@dataclasses.dataclass
class Entries:
    """K strategies' PS shards as flat entries sorted by (strategy, column): (E,) arrays."""

    k: np.ndarray  # strategy
    col: np.ndarray  # column
    srv: np.ndarray  # node of the server
    frac: np.ndarray  # fraction of the column held there
    tensors: np.ndarray  # shards (tensors, one RPC each) there
    K: int
    V: int
    M: int

    @property
    def size(self) -> int:
        return len(self.k)

    @functools.cached_property
    def flat(self) -> np.ndarray:
        """(E,) each entry's cell in a flattened (K, V) array."""
        return self.k * self.V + self.col

    @functools.cached_property
    def runs(self) -> tuple[np.ndarray, np.ndarray]:
        """(cells holding entries, the first entry of each): the entries are sorted by cell."""
        head = np.ones(self.size, bool)
        head[1:] = self.flat[1:] != self.flat[:-1]
        starts = np.flatnonzero(head)
        return self.flat[starts], starts

    def cell_max(self, x: np.ndarray, fill: float) -> np.ndarray:
        """(K * V,) the largest of the per-entry ``x`` in each cell (``fill`` where none)."""
        out = np.full(self.K * self.V, fill)
        if self.size:
            cells, starts = self.runs
            out[cells] = np.maximum.reduceat(x, starts)
        return out

    def cell_sum(self, w: np.ndarray) -> np.ndarray:
        """(K, V) the per-entry ``w`` summed over the servers."""
        return np.bincount(self.flat, w, minlength=self.K * self.V).reshape(self.K, self.V)

    def server_sum(self, w: np.ndarray) -> np.ndarray:
        """(K, M) the per-entry ``w`` summed over the columns."""
        return np.bincount(self.k * self.M + self.srv, w, minlength=self.K * self.M).reshape(self.K, self.M)

    def cells(self, x: np.ndarray) -> np.ndarray:
        """(E,) each entry's cell of a (K, V) array."""
        return np.take(x, self.flat)

    @functools.cached_property
    def lay(self) -> "_Layout":
        return _Layout(self)


class _Layout:
    """Index arrays shared by every chain of one batch of entries: the entries grouped per (strategy, server)."""

    def __init__(self, e: Entries) -> None:
        K, V, M, E = e.K, e.V, e.M, e.size
        key = e.k * M + e.srv
        # a stable sort of 16-bit keys is a radix sort: O(E) where the (strategy, server) pairs fit
        self.order = np.argsort(key.astype(np.uint16) if K * M <= 1 << 16 else key, kind="stable")
        ks = key[self.order]
        head = np.ones(E, bool)
        head[1:] = ks[1:] != ks[:-1]
        self.heads = np.flatnonzero(head)
        seg = np.cumsum(head) - 1
        self.seg_of = np.empty(E, np.int64)
        self.seg_of[self.order] = seg
        rank = np.empty(E, np.int64)
        rank[self.order] = np.arange(E) - self.heads[seg]
        self.seg_key = ks[self.heads]
        self.seg_len = max(int(np.diff(np.append(self.heads, E)).max(initial=0)), 1)
        self.slot = self.seg_of * self.seg_len + rank  # in a flattened (segments, longest) array
        # the column of the next entry of the same server (V: none), and that entry before it (-1: none)
        same = ~head[1:]
        nxt = np.full(E, V)
        nxt[:-1][same] = e.col[self.order][1:][same]
        self.next_col = np.empty(E, np.int64)
        self.next_col[self.order] = nxt
        self.next_flat = e.k * (V + 1) + self.next_col
        prev_sorted = np.full(E, -1)
        prev_sorted[1:][same] = self.order[:-1][same]
        self.prev = np.empty(E, np.int64)
        self.prev[self.order] = prev_sorted
        # from which column every server has an entry (V: never)
        self.first_col = np.full(K * M, V)
        self.first_col[self.seg_key] = e.col[self.order][self.heads]
        first_col = self.first_col.reshape(K, M)
        self.all_from = first_col.max(axis=1) if M else np.full(K, V)

    def by_server(self, x: np.ndarray, fill: float) -> np.ndarray:
        """(segments, longest) the entries' ``x`` per (strategy, server), in column order."""
        out = np.full(len(self.heads) * self.seg_len, fill)
        out[self.slot] = x
        return out.reshape(len(self.heads), self.seg_len)

    def from_server(self, grid: np.ndarray) -> np.ndarray:
        """(E,) each entry's cell of a (segments, longest) array."""
        return grid.reshape(-1)[self.slot]


def server_cum(e: Entries, w: np.ndarray) -> np.ndarray:
    """(E,) the cumulative ``w`` (E,) of each entry's server through that entry; (n, E) for ``w`` (n, E)."""
    lay = e.lay
    rows = np.atleast_2d(w)
    grid = np.zeros((len(rows), len(lay.heads), lay.seg_len))
    grid.reshape(len(rows), -1)[:, lay.slot] = rows
    out = np.cumsum(grid, axis=2).reshape(len(rows), -1)[:, lay.slot]
    return out if np.ndim(w) == 2 else out[0]


def largest(e: Entries, x: np.ndarray) -> np.ndarray:
    """(K, V) the largest cumulative load over the servers (0 where none has any), ``x`` (E,) per entry: each
    column's largest entry, then a running maximum."""
    return np.maximum.accumulate(np.maximum(e.cell_max(x, 0.0), 0.0).reshape(e.K, e.V), axis=1)


def smallest(e: Entries, x: np.ndarray) -> np.ndarray:
    """(K, V) the smallest cumulative load over the servers, ``x`` (E,) per entry: 0 until every server has an
    entry, then the least entry whose server's next comes after the column."""
    lay = e.lay
    grid = np.full(e.K * (e.V + 1), np.inf)
    np.minimum.at(grid, lay.next_flat, x)
    suffix = np.minimum.accumulate(grid.reshape(e.K, e.V + 1)[:, ::-1], axis=1)[:, ::-1]
    return np.where(np.arange(e.V)[None, :] >= lay.all_from[:, None], suffix[:, 1:], 0.0)


def per_strategy_max(e: Entries, x: np.ndarray) -> np.ndarray:
    """(K,) the largest of the entries' ``x`` of each strategy (-inf: none)."""
    out = np.full(e.K, -np.inf)
    if e.size:
        head = np.ones(e.size, bool)
        head[1:] = e.k[1:] != e.k[:-1]
        starts = np.flatnonzero(head)
        out[e.k[starts]] = np.maximum.reduceat(x, starts)
    return out


def _level(length: np.ndarray) -> np.ndarray:
    """floor(log2(length)) of positive integers."""
    return np.frexp(length.astype(float))[1] - 1


class MaxTable:
    """Maxima of ``A`` (K, V) over ranges of columns of every strategy, O(1) per query after O(V log V) per
    strategy: a sparse table (per level j, the maximum of the 2^j columns from each)."""

    def __init__(self, A: np.ndarray) -> None:
        K, V = A.shape
        levels = max(int(V).bit_length(), 1)
        self.V = V
        self.table = np.full((levels, K, V), -np.inf)
        self.table[0] = A
        for j in range(1, levels):
            h = 1 << (j - 1)
            np.maximum(self.table[j - 1, :, :V - h], self.table[j - 1, :, h:], out=self.table[j, :, :V - h])

    def max(self, k, lo, hi) -> np.ndarray:
        """max A over [lo, hi] (clipped to the columns; -inf where empty)."""
        lo, hi = np.maximum(lo, 0), np.minimum(hi, self.V - 1)
        empty = hi < lo
        lo, hi = np.where(empty, 0, lo), np.where(empty, 0, hi)
        j = _level(hi - lo + 1)
        out = np.maximum(self.table[j, k, lo], self.table[j, k, hi - (1 << j) + 1])
        return np.where(empty, -np.inf, out)
