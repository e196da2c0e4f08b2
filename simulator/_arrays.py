"""The cost model's inputs as arrays (:func:`simulator._engine.evaluate` reads them): a :class:`Batch` of K
strategies' per-variable choices, and the :class:`Model` of everything that does not depend on the strategy,
precomputed once per (inventory, cluster, replicas)."""
from __future__ import annotations

import dataclasses

import numpy as np

from simulator._network import Network
from simulator._sparse import Entries


@dataclasses.dataclass
class Batch:
    """Per-variable choices of K strategies; shapes (K, V) unless noted."""

    ar_frac: np.ndarray  # fraction of the variable's bytes all-reduced
    group: np.ndarray  # fusion group of its all-reduced part (>= 0)
    comp: np.ndarray  # AllReduceSynchronizer.Compressor value
    spec: np.ndarray  # AllReduceSynchronizer.Spec value (collectives of different specs are not fused)
    rank: np.ndarray  # PowerSGD rank (>= 1)
    ps_frac: np.ndarray | None  # (M, K, V) fraction of the variable held by the PS on node m (None: entries)
    ps_tensors: np.ndarray | None  # (M, K, V) shards (tensors, one RPC each) on node m
    sync: np.ndarray  # bool: synchronous PS
    stale: np.ndarray  # bool: staleness > 0 (the pull is prefetched only with Model.stale_prefetch)
    proxy: np.ndarray  # bool: local_replication (one pull per node)
    gather: np.ndarray | None = None  # bool: a sparse gradient all-gathered (rows and indices), not densified
    hier: np.ndarray | None = None  # bool: all-reduced hierarchically (inside each unit of replicas, then across)
    entries: Entries | None = None  # the PS shards as entries, in place of ps_frac and ps_tensors

    def rows(self, sl: slice) -> "Batch":
        if self.entries is not None:
            raise ValueError("a batch of entries is scored whole: encode each part of it apart")
        fields = {f.name: None if getattr(self, f.name) is None else getattr(self, f.name)[sl]
                  for f in dataclasses.fields(self)}
        fields["ps_frac"], fields["ps_tensors"] = self.ps_frac[:, sl], self.ps_tensors[:, sl]
        return Batch(**fields)

    @property
    def size(self) -> int:
        return self.ar_frac.shape[0]


@dataclasses.dataclass
class Model:
    """Everything that does not depend on the strategy, precomputed once per (inventory, cluster, replicas)."""

    nbytes: np.ndarray  # (V,) bytes of each variable
    numel: np.ndarray
    itemsize: np.ndarray
    matrix: np.ndarray  # bool: at least 2-D (PowerSGD compresses it)
    pn: np.ndarray  # PowerSGD view n x m
    pm: np.ndarray
    push_bytes: np.ndarray  # bytes one replica pushes per step (rows touched for sparse)
    pull_bytes: np.ndarray
    ready_frac: np.ndarray  # (V,) when the gradient is ready, as a fraction of the backward pass
    net: Network  # the resources and what a server's load puts on each (see simulator._network)
    wire_push: np.ndarray  # (M,) bytes crossing the network per byte of load on m
    wire_pull: np.ndarray
    wire_pull_proxy: np.ndarray
    wire_ar: float  # network bytes per byte all-reduced
    ar_s_per_byte: float
    ar_latency_s: float  # per collective, serialised (launch and CPU cost)
    ar_tail_s: float  # once: the ring latency 2(N-1) alpha of the last collective (twice with PowerSGD's P, Q)
    spans_nodes: bool  # replicas on more than one node
    # the same four for a hierarchical all-reduce (AllReduceSynchronizer.hierarchical): inside each unit, then
    # across; the flat ring's where it runs as one
    wire_har: float
    har_s_per_byte: float
    har_latency_s: float
    har_tail_s: float
    replica_nodes: np.ndarray  # (M,) bool: nodes holding replicas
    step_overhead_s: float  # once per step that spans nodes (the session's multi-task run)
    pull_latency_s: float  # round trip once per pull phase
    compute_sync_s: float  # slowest replica, every replica computing at once
    compute_async_s: float  # mean replica
    backward_fraction: float
    cast_s_per_byte: float
    psgd_s_per_flop: float  # PowerSGD matmuls
    psgd_matrix_s: float  # fixed cost of a PowerSGD round per compressed matrix (small ops, QR)
    barrier_s: float
    stale_prefetch: bool  # staleness > 0 takes the pull off the step (a backend that prefetches)
    variables: int  # variables of the model (one synchronized piece each when nothing is partitioned)
    residual: tuple[float, float, float, float, float, float] | None  # see Calibration.residual
    ar_piece_s: float = 0.0  # CPU cost of one all-reduced shard beyond one piece per variable (slice, pack, apply)
    ps_piece_s: float = 0.0  # the same for a parameter-server shard (slice, push, aggregate, apply, pull)
    ps_serial: float = 0.0  # Calibration.ps_serial_fraction
    ps_spread_serial: float | None = None  # Calibration.ps_spread_serial (None: ps_serial however spread)
    ps_spread_busiest: float | None = None  # Calibration.ps_spread_busiest
    compute_alone_s: float = np.inf  # slowest replica with the CPUs of its host to itself (no less than sync: none)
    update_share: float = 0.0  # of compute_sync_s, every replica's optimizer update (lockstep_update_share)
    update_w: np.ndarray | None = None  # (C,) each column's share of that update work (None: no update term)
    replicas: int = 1
    col_starts: np.ndarray | None = None  # (V,) each variable's first column when columns are shards (None: identity)
    # an embedding's rows per step: the ids one replica gathers (0 for a dense variable), and the bytes of one id
    # on the wire; a gathered PS pull sends the ids to the server first (``req_bytes``, bytes per replica)
    rows: np.ndarray | None = None
    gatherable: np.ndarray | None = None  # bool: a whole variable with a static number of rows (all-gathered)
    index_itemsize: np.ndarray | None = None
    req_bytes: np.ndarray | None = None
    push_ids: np.ndarray | None = None  # the ids a push leaves out, its one lookup having sent them (not proxied)
    # what a step moves whatever the strategy (the state's refresh and sync): (2, M, M) bytes
    # from node a to node b per step, lockstep [0] or every tower on its own [1], and (2, R) the seconds they put on
    # each resource (``Network.flows``)
    fixed_links: np.ndarray | None = None
    fixed_total: np.ndarray | None = None
