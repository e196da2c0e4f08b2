"""``Scorer``: indexes an inventory and a cluster once, then predicts strategies one at a time or in batches."""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
from typing import Sequence

import numpy as np

from simulator._coefficients import Levels, network_coefficients
from simulator._network import SHARED_CPUS_LOCKSTEP
from space.cluster import ClusterSpec, parse_device
from space.errors import BadInput, StrategyError
from space.inventory import Inventory
from space import wire
from space.strategy import Strategy, partition_axis, shard_sizes
from simulator._calibration import RESIDUAL_KEYS, Calibration
from simulator._arrays import Batch, Model
from simulator._choices import Choices, dense_batch, empty_batch, entry_batch, rows
from simulator._engine import evaluate
from simulator._engine_sparse import evaluate_entries, sparse_fits
from simulator._breakdown import Breakdown, breakdown_of
from simulator._ledger import Ledger, fixed_links, ledger_of
from simulator._memory import MemoryPlan, memory_of
from simulator._sparse import Entries
from simulator._prediction import Prediction

LAYOUT_CACHE = 256  # shard layouts whose per-shard model is kept
# (node, strategy, column) cells per vectorised pass, so that its arrays stay in cache: 64 strategies of 200
# variables on 3 nodes, 1.4x the rate of 128 per pass and 1.2x that of 32 (simulator_throughput.py's model)
CHUNK_CELLS = 38_400
# (strategy, column) cells per pass of the entries' engine: 64 strategies of 200 variables on 64 nodes, 1.2x the
# rate of 192 per pass (simulator_scaling.py's model; the entries' arrays do not grow with the nodes)
ENTRY_CHUNK_CELLS = 12_800
# nodes from which the entries' engine is the faster (simulator_scaling.py's model, 200 variables: 0.6x the dense
# engine's rate on 3 nodes, 1.2x on 8, 1.7x on 16)
ENTRY_MIN_NODES = 8


class Scorer:
    """Predicts step times of strategies for one (inventory, cluster, calibration); build it once per search."""

    def __init__(self, inventory: Inventory, cluster: ClusterSpec, calibration: Calibration,
                 replicas: Sequence[str] | None = None) -> None:
        if not isinstance(calibration, Calibration):
            raise BadInput(f"`calibration` must be a simulator.Calibration, but got {type(calibration).__name__}",
                           hint="load one with Calibration.load(path, cluster) or ask for Calibration.from_spec")
        calibration.check(cluster, inventory.model_hash)
        self.inventory, self.cluster, self.calibration = inventory, cluster, calibration
        self.replicas = tuple(replicas) if replicas else tuple(cluster.replicas)
        self.addresses = [n.address for n in cluster.nodes]
        self._node_ix = {n.address: i for i, n in enumerate(cluster.nodes)}
        self._node_ix |= {n.hostname: i for i, n in enumerate(cluster.nodes) if n.hostname}
        self._device_ix: dict[str, int] = {}
        self._var_ix = {v.name: i for i, v in enumerate(inventory.variables)}
        self._partitions: dict[tuple[str, int], list[float]] = {}
        self._axes: dict[str, int] = {}
        self._others: dict[tuple[str, ...], Scorer] = {}
        self._layout_models: dict[tuple, Model] = {}
        self._layout_cols: dict[tuple, tuple] = {}
        self.model = self._build_model()
        self._sparse = (len(self.addresses) >= ENTRY_MIN_NODES and bool(len(self._var_ix))
                        and sparse_fits(self.model.net))

    # ---- public API ----------------------------------------------------------------------------------
    def predict(self, strategy: Strategy) -> Prediction:
        """Step time and its parts for one strategy."""
        scorer = self._for_replicas(strategy)
        layout = scorer._layout(strategy)
        model, batch = scorer._model_for(layout), scorer.encode([strategy], layout, entries=scorer._sparse)
        out = (evaluate_entries if scorer._sparse else evaluate)(model, batch, detail=True)
        return scorer._prediction(out, layout)

    def ledger(self, strategy: Strategy) -> Ledger:
        """Bytes per step from node a to node b, as the cost model charges them (:mod:`simulator._ledger`)."""
        scorer = self._for_replicas(strategy)
        layout = scorer._layout(strategy)
        return ledger_of(scorer, scorer._model_for(layout), scorer.encode([strategy], layout))

    def breakdown(self, strategy: Strategy) -> Breakdown:
        """The predicted step by part: compute per tower, each link's bytes (the ledger's) and busy seconds, fixed
        overheads (:mod:`simulator._breakdown`)."""
        scorer = self._for_replicas(strategy)
        cal = scorer.calibration
        return breakdown_of(scorer.predict(strategy), scorer.ledger(strategy), scorer.addresses,
                            scorer.model.net.link, scorer.replicas, [cal.speed_of(r) for r in scorer.replicas])

    def memory(self, strategy: Strategy) -> MemoryPlan:
        """Bytes resident per node, by part, on the columns the cost model times (:mod:`simulator._memory`)."""
        scorer = self._for_replicas(strategy)
        layout = scorer._layout(strategy)
        return memory_of(scorer, scorer._model_for(layout), scorer.encode([strategy], layout))

    def score_many(self, strategies: Sequence[Strategy]) -> np.ndarray:
        """Predicted step times (seconds) of many strategies, vectorised (per replica set and shard layout)."""
        result = np.empty(len(strategies))
        groups: dict[tuple, tuple[Scorer, tuple, list[int]]] = {}
        for i, s in enumerate(strategies):
            sc = self._for_replicas(s)
            layout = sc._layout(s)
            groups.setdefault((id(sc), layout), (sc, layout, []))[2].append(i)
        with _one_blas_thread():
            for sc, layout, idx in groups.values():
                model = sc._model_for(layout)
                chunk = max(8, ENTRY_CHUNK_CELLS // max(len(model.nbytes), 1)) if sc._sparse else _chunk(model)
                score = evaluate_entries if sc._sparse else evaluate
                for start in range(0, len(idx), chunk):
                    part = idx[start:start + chunk]
                    batch = sc.encode([strategies[i] for i in part], layout, entries=sc._sparse)
                    result[part] = score(model, batch)["step"]
        return result

    def score_choices(self, choices: Choices, parts: bool = False) -> np.ndarray | dict[str, np.ndarray]:
        """Predicted step times of K strategies given as choice arrays (the fastest path).

        With ``parts`` a dict of (K,) arrays: step, raw, compute, comm, latency, pull, finish, wire_bytes, ...
        """
        ps = self._check_choices(choices)
        K = ps.shape[0]
        if self._sparse:  # the loads as entries: no (nodes x strategies x variables) arrays
            chunk = max(8, ENTRY_CHUNK_CELLS // max(len(self.model.nbytes), 1))
            score, encode = evaluate_entries, self._entry_batch
        else:
            chunk = _chunk(self.model)
            score, encode = evaluate, self._batch
        with _one_blas_thread():
            outs = [score(self.model, encode(rows(choices, slice(s, s + chunk), K)))
                    for s in range(0, max(K, 1), chunk)]
        merged = {k: np.concatenate([o[k] for o in outs]) for k in outs[0]}
        return merged if parts else merged["step"]

    # ---- encoding ------------------------------------------------------------------------------------
    def _layout(self, strategy: Strategy) -> tuple:
        """The strategy's partitioned variables: ((variable index, partitioner), ...) in inventory order."""
        var_ix = self._var_ix
        return tuple(sorted((var_ix[n.var_name], n.partitioner) for n in strategy.proto.node_config
                            if n.partitioner and n.var_name in var_ix))

    def _columns(self, layout: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(variable, fraction, axis) of each column: one column per variable, one per shard when partitioned."""
        hit = self._layout_cols.get(layout)
        if hit is None:
            if len(self._layout_cols) >= LAYOUT_CACHE:
                self._layout_cols.pop(next(iter(self._layout_cols)))
            hit = self._layout_cols[layout] = self._make_columns(layout)
        return hit

    def _make_columns(self, layout: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        V = len(self._var_ix)
        var, frac, axis = [np.arange(V)], [np.ones(V)], [np.zeros(V, np.int64)]
        for v, partitioner in layout:  # each shard's column goes after its variable's (sorted below, stable)
            fr = self._shard_fracs(partitioner, v)
            var.append(np.full(len(fr), v))
            frac.append(np.asarray(fr))
            axis.append(np.full(len(fr), self._axes[partitioner]))
        var_a, frac_a, axis_a = np.concatenate(var), np.concatenate(frac), np.concatenate(axis)
        keep = np.ones(var_a.size, bool)
        keep[[v for v, _ in layout]] = False  # a partitioned variable is its shards only
        order = np.argsort(var_a[keep], kind="stable")
        return var_a[keep][order], frac_a[keep][order], axis_a[keep][order]

    def _model_for(self, layout: tuple) -> Model:
        if not layout:
            return self.model
        hit = self._layout_models.get(layout)
        if hit is None:
            if len(self._layout_models) >= LAYOUT_CACHE:
                self._layout_models.pop(next(iter(self._layout_models)))
            c, f, ax = self._columns(layout)
            base = self.model
            nbytes, pull, push = base.nbytes[c] * f, base.pull_bytes[c] * f, base.push_bytes[c] * f
            # the backend gathers and routes rows only for row (axis 0) shards of a sparse variable; other shards
            # are read whole and concatenated, and their gradient is densified before the split
            pull, push = np.where(ax != 0, nbytes, pull), np.where(ax != 0, nbytes, push)
            rows, req = np.where(ax != 0, 0.0, base.rows[c] * f), np.where(ax != 0, 0.0, base.req_bytes[c] * f)
            push_ids = np.where(ax != 0, 0.0, base.push_ids[c] * f)
            whole = ~np.isin(c, [v for v, _ in layout])  # a shard's rows vary with the batch: densified, never gathered
            pn = np.where(ax == 0, base.pn[c] * f, base.pn[c])
            pm = np.where(ax == 0, base.pm[c], base.pm[c] * f)
            hit = self._layout_models[layout] = dataclasses.replace(
                base, nbytes=nbytes, numel=base.numel[c] * f, itemsize=base.itemsize[c], pn=pn, pm=pm,
                matrix=base.matrix[c] & (np.minimum(pn, pm) > 1), push_bytes=push, pull_bytes=pull,
                ready_frac=base.ready_frac[c], update_w=None if base.update_w is None else base.update_w[c] * f,
                col_starts=np.searchsorted(c, np.arange(len(base.nbytes))), rows=rows,
                index_itemsize=base.index_itemsize[c], req_bytes=req, push_ids=push_ids,
                gatherable=base.gatherable[c] & whole)
        return hit

    def encode(self, strategies: Sequence[Strategy], layout: tuple = (), entries: bool = False) -> Batch:
        """Strategies of one shard ``layout`` -> choice arrays, one column per variable or per shard (its own
        synchronizer, compressor, group and flags); ``entries``: the PS shards as entries, not (M, K, V) arrays."""
        K, M = len(strategies), len(self.addresses)
        if layout:
            col_var, _, _ = self._columns(layout)
            starts = np.searchsorted(col_var, np.arange(len(self._var_ix)))
        else:
            starts = np.arange(len(self._var_ix))
        V = len(starts) if not layout else len(col_var)
        KV = K * V
        b = empty_batch(K, V, M, dense=not entries)
        ps_at, ar_at, ps_flags, ar_flags = self._gather_synchronizers(strategies, V, starts.tolist())
        covered = np.zeros(K * V, bool)
        if entries:  # one entry per PS column (a shard of its own is a column of its own)
            at = np.asarray(ps_at, np.int64)
            order = np.argsort(at % KV, kind="stable")
            srv, kv = np.divmod(at[order], KV)
            b.entries = Entries(k=kv // V, col=kv % V, srv=srv, frac=np.ones(len(at)), tensors=np.ones(len(at)),
                                K=K, V=V, M=M)
        elif ps_at:
            b.ps_frac.ravel()[:] = np.bincount(ps_at, minlength=K * V * M)
            b.ps_tensors.ravel()[:] = np.bincount(ps_at, minlength=K * V * M)
        if ps_at:
            at = np.fromiter(ps_flags, np.int64, len(ps_flags))
            flags = np.array(list(ps_flags.values()), bool).reshape(-1, 3)
            b.sync.ravel()[at], b.stale.ravel()[at], b.proxy.ravel()[at] = flags.T
            covered[at] = True
        if ar_at:
            b.ar_frac.ravel()[:] = np.bincount(ar_at, minlength=K * V)
            at = np.fromiter(ar_flags, np.int64, len(ar_flags))
            flags = np.array(list(ar_flags.values()), np.int64).reshape(-1, 6)
            b.group.ravel()[at], b.comp.ravel()[at], b.rank.ravel()[at], b.spec.ravel()[at] = flags[:, :4].T
            b.gather.ravel()[at] = flags[:, 4].astype(bool)
            b.hier.ravel()[at] = flags[:, 5].astype(bool)
            covered[at] = True
        if not covered.all():
            k, c = divmod(int(np.argmin(covered)), V)
            v = int(col_var[c]) if layout else c
            raise StrategyError(f"variable {self.inventory.variables[v].name!r} has no node_config "
                                "(or is configured twice)", f"strategy {strategies[k].proto.id}")
        return b

    def _gather_synchronizers(self, strategies: Sequence[Strategy], V: int,
                              starts_at: list[int]) -> tuple[list, list, dict, dict]:
        """Each strategy's synchronizers by flat index (strategy x column): the PS ones' flat indices times their
        server, the all-reduce ones', and each column's flags (the first piece's, as a column has one setting)."""
        KV = len(strategies) * V
        ps_at, ar_at = [], []
        ps_flags: dict[int, tuple] = {}
        ar_flags: dict[int, tuple] = {}
        var_ix, device_node, device_ix = self._var_ix, self._device_node, self._device_ix
        for k, s in enumerate(strategies):
            seen = 0
            for node in s.proto.node_config:
                v = var_ix.get(node.var_name)
                if v is None:
                    raise StrategyError(f"unknown variable {node.var_name!r} (not in model "
                                        f"{self.inventory.model_path})", f"strategy {s.proto.id}")
                seen += 1
                at = k * V + starts_at[v]
                if node.partitioner:
                    fracs = self._shard_fracs(node.partitioner, v)
                    if len(fracs) != len(node.part_config):
                        raise StrategyError(f"partitioner {node.partitioner!r} needs {len(fracs)} part_config "
                                            f"nodes, got {len(node.part_config)}", f"variable {node.var_name!r}")
                    pieces = enumerate(node.part_config, at)
                else:
                    pieces = ((at, node),)
                for kv, part in pieces:
                    which = part.WhichOneof("synchronizer")
                    if which == "PSSynchronizer":
                        x = part.PSSynchronizer
                        dest = x.reduction_destination
                        ix = device_ix.get(dest)
                        ps_at.append((device_node(dest) if ix is None else ix) * KV + kv)
                        if kv not in ps_flags:
                            ps_flags[kv] = (x.sync, x.staleness > 0, x.local_replication)
                    elif which == "AllReduceSynchronizer":
                        x = part.AllReduceSynchronizer
                        ar_at.append(kv)
                        if kv not in ar_flags:
                            ar_flags[kv] = (x.group, x.compressor, max(x.powersgd_rank, 1), x.spec, x.gather_sparse,
                                           x.hierarchical)
                    else:
                        raise StrategyError("node has no synchronizer", f"variable {part.var_name!r}",
                                            hint="set PSSynchronizer or AllReduceSynchronizer")
            if seen != len(var_ix):
                raise StrategyError(f"strategy configures {seen} variables, the model has {len(var_ix)}",
                                    f"strategy {s.proto.id}", hint="every variable needs exactly one node_config")
        return ps_at, ar_at, ps_flags, ar_flags

    def _shard_fracs(self, partitioner: str, v: int) -> list[float]:
        key = (partitioner, v)
        if key not in self._partitions:
            shape = self.inventory.variables[v].shape
            try:
                axis, n = partition_axis(partitioner)
            except ValueError as e:
                raise StrategyError(str(e), f"variable {self.inventory.variables[v].name!r}") from None
            self._axes[partitioner] = axis
            dim = shape[axis] if axis < len(shape) else 1
            self._partitions[key] = [size / dim for size in shard_sizes(dim, n)] if dim >= n else [1.0 / n] * n
        return self._partitions[key]

    def _device_node(self, device: str) -> int:
        ix = self._device_ix.get(device)
        if ix is None:
            try:
                address = parse_device(device)[0]
            except ValueError as e:
                raise StrategyError(str(e), "strategy") from None
            if address not in self._node_ix:
                raise StrategyError(f"device {device!r} is on no node of the cluster", self.cluster.source)
            ix = self._device_ix[device] = self._node_ix[address]
        return ix

    def _check_choices(self, c: Choices) -> np.ndarray:
        """``c.ps`` as a bool array, once the choices are known to fit the model and the cluster."""
        ps = np.asarray(c.ps, bool)
        if ps.ndim != 2 or ps.shape[1] != len(self._var_ix):
            raise BadInput(f"`choices.ps` must have shape (K, {len(self._var_ix)}), but got {ps.shape}")
        M = len(self.addresses)
        if c.server is not None and ps.any():
            server = np.broadcast_to(np.asarray(c.server, np.int64), ps.shape)
            on_any = np.where(ps, server, 0)  # non-PS entries read 0, inside the range
            if on_any.min() < 0 or on_any.max() >= M:
                on_ps = server[ps]
                raise BadInput(f"`0 <= server < {M}` must hold for PS variables, but got values in "
                               f"[{on_ps.min()}, {on_ps.max()}]")
        return ps

    def choices_batch(self, c: Choices) -> Batch:
        """Choice arrays -> the engine's batch (PS shards spread over consecutive nodes)."""
        self._check_choices(c)
        return self._batch(c)

    def _batch(self, c: Choices) -> Batch:
        return dense_batch(c, len(self.addresses), self._dim0)

    def _entry_batch(self, c: Choices) -> Batch:
        return entry_batch(c, len(self.addresses), self._dim0)

    # ---- model constants -----------------------------------------------------------------------------
    def _for_replicas(self, strategy: Strategy) -> "Scorer":
        reps = tuple(strategy.proto.graph_config.replicas)
        if not reps or reps == self.replicas:
            return self
        if reps not in self._others:
            self._others[reps] = Scorer(self.inventory, self.cluster, self.calibration, reps)
        return self._others[reps]

    def _build_model(self) -> Model:
        """Model constants per variable (``_model_for`` re-indexes them per shard of a layout)."""
        inv, cal = self.inventory, self.calibration
        vs = inv.variables
        nbytes = np.array([v.bytes for v in vs], float)
        numel = np.array([v.num_elements for v in vs], float)
        itemsize = np.array([v.itemsize for v in vs], float)
        pn = np.array([v.shape[0] if len(v.shape) >= 2 else v.num_elements for v in vs], float)
        pm = np.array([math.prod(v.shape[1:]) if len(v.shape) >= 2 else 1 for v in vs], float)
        # PowerSGD compresses a matrix both of whose sides exceed 1; a column or a row goes uncompressed
        matrix = np.array([len(v.shape) >= 2 for v in vs], bool) & (np.minimum(pn, pm) > 1)
        self._dim0 = np.array([max(v.shape[0], 1) if v.shape else 1 for v in vs], np.int64)
        work = np.array([v.touched_elements for v in vs], float)  # a sparse gradient: the rows touched
        update = np.array([v.updated_elements(inv.optimizer_name) for v in vs], float)  # the optimizer's writes
        tables = _table_bytes(vs, cal.sparse_remote_gather)
        if vs and all(v.grad_ready is not None for v in vs):
            # as traced: the share of the backward FLOPs each gradient waits for (its own and the later layers'),
            # kept falling with the index, as the chains serve the units (the last ready first)
            ready = np.maximum.accumulate(np.array([v.grad_ready for v in vs], float)[::-1])[::-1]
        else:  # an inventory without them: each variable's share of the parameters from it to the last
            suffix = np.cumsum(work[::-1])[::-1]
            ready = suffix / suffix[0] if len(vs) and suffix[0] > 0 else np.ones(len(vs))
        counts = np.zeros(len(self.addresses))
        for r in self.replicas:
            counts[self._device_node(r)] += 1
        base = cal.step_time_s if cal.step_time_s is not None else inv.flops_per_step / cal.compute_flops_per_s
        times = [base / cal.speed_of(r) for r in self.replicas] or [base]
        alone = math.inf if cal.alone_step_s is None or cal.step_time_s is None else \
            max([cal.alone_step_s / cal.speed_of(r) for r in self.replicas] or [cal.alone_step_s])
        net = network_coefficients(self.addresses, counts, cal, shared_cpus=max(times) >= SHARED_CPUS_LOCKSTEP * alone,
                                   levels=Levels.of(self.cluster, self.addresses))
        links = fixed_links(inv, [self._device_node(r) for r in self.replicas], len(self.addresses))
        res = cal.residual
        update_w = update / update.sum() if update.sum() > 0 else None
        return Model(nbytes=nbytes, numel=numel, itemsize=itemsize, matrix=matrix, pn=pn, pm=pm,
                     ready_frac=ready, **net, **tables,
                     compute_sync_s=max(times), compute_async_s=float(np.mean(times)),
                     backward_fraction=cal.backward_fraction, cast_s_per_byte=cal.cast_s_per_byte,
                     psgd_s_per_flop=(cal.powersgd_s_per_flop if cal.powersgd_s_per_flop is not None
                                      else 1.0 / cal.compute_flops_per_s),
                     psgd_matrix_s=cal.powersgd_matrix_s, barrier_s=cal.barrier_overhead_s,
                     stale_prefetch=cal.stale_prefetch, step_overhead_s=cal.step_overhead_s,
                     compute_alone_s=alone, variables=len(vs), ar_piece_s=cal.ar_piece_s, ps_piece_s=cal.ps_piece_s,
                     ps_serial=cal.ps_serial_fraction,
                     ps_spread_serial=cal.ps_spread_serial, ps_spread_busiest=cal.ps_spread_busiest,
                     update_share=cal.lockstep_update_share(), update_w=update_w, replicas=max(len(self.replicas), 1),
                     residual=None if res is None else tuple(res.get(k, 0.0) for k in RESIDUAL_KEYS),
                     fixed_links=links, fixed_total=np.moveaxis(net["net"].flows(np.moveaxis(links, 0, -1)), -1, 0))

    def _prediction(self, out: dict[str, np.ndarray], layout: tuple = ()) -> Prediction:
        f = {k: float(v[0]) for k, v in out.items() if np.ndim(v) == 1}
        names = self.inventory.names
        col_var = self._columns(layout)[0] if layout else np.arange(len(names))
        per_col = out["ps_var"][0] + out["ar_var"][0]
        per_var = dict(zip(names, np.bincount(col_var, per_col, minlength=len(names)).tolist()))
        groups: dict[int, float] = {}
        heads = np.nonzero(out["is_head"][0])[0]
        group_of = out["group"][0]
        for h in heads:
            g = int(group_of[h])
            groups[g] = groups.get(g, 0.0) + float(out["ar_unit"][0, h])
        load = out["server_load"][0]  # (M,)
        M = len(self.addresses)
        total = out["resource_total"][0]
        server_s = np.maximum(total[:M], total[M:2 * M]) * (load > 0)
        busiest = int(np.argmax(server_s)) if load.any() else None
        return Prediction(
            step_time_s=f["step"], raw_step_time_s=f["raw"], compute_s=f["compute"], forward_s=f["forward"],
            backward_s=f["backward"], compression_s=f["compression"], pull_s=f["pull"],
            gradient_phase_s=f["finish"], barrier_s=f["barrier"], exposed_comm_s=f["comm"],
            latency_s=f["latency"], busiest_resource_s=f["busiest"], wire_bytes=f["wire_bytes"],
            per_variable_s=per_var, per_group_s=groups,
            server_load_bytes={self.addresses[j]: float(load[j]) for j in range(M) if load[j] > 0},
            busiest_server=None if busiest is None else self.addresses[busiest],
            busiest_server_s=0.0 if busiest is None else float(server_s[busiest]),
            pieces=int(round(f["pieces"])), collectives=int(round(f["collectives"])))


def _table_bytes(vs, remote_gather: bool) -> dict[str, np.ndarray]:
    """Model fields of what a step sends per variable: every id an embedding gathers travels, repeats included,
    with its row (int32 ids, ``space.wire``); with remote gathers the ids go to the server and the rows come back,
    and a table's one lookup has sent the ids its gradient pushes (its push leaves them out where not proxied)."""
    nbytes = np.array([v.bytes for v in vs], float)
    push, pull = nbytes.copy(), nbytes.copy()
    ids, id_bytes, req, push_ids = (np.zeros(len(vs)) for _ in range(4))
    for i, v in enumerate(vs):
        if v.rows_touched is None:
            continue
        ids[i], id_bytes[i] = v.gather_rows, wire.index_itemsize(v.shape[0])
        push[i] = ids[i] * (v.row_bytes + id_bytes[i])
        if remote_gather and v.gathers != 0:
            pull[i], req[i] = ids[i] * v.row_bytes, ids[i] * id_bytes[i]
            push_ids[i] = req[i] if v.gathers == 1 else 0.0
    return dict(push_bytes=push, pull_bytes=pull, rows=ids, index_itemsize=id_bytes, req_bytes=req,
                push_ids=push_ids, gatherable=(ids > 0) & ~np.array([v.rows_vary for v in vs], bool))


def _chunk(model: Model) -> int:
    """Strategies per vectorised pass for ``model``."""
    return max(8, CHUNK_CELLS // max(len(model.nbytes) * len(model.wire_push), 1))


@functools.cache
def _blas_controller():
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextlib.contextmanager
def _one_blas_thread():
    """The engine's matrix products are thin (a few rows per node by many columns): left to its own threads, BLAS
    takes twice the CPU time for the same wall time (2 cores, docs/design.md), so it gets one
    while a batch is scored."""
    with _blas_controller().limit(limits=1, user_api="blas"):
        yield
