"""All-reduce of gradients across towers with ``collective_ops.all_reduce_v2``, fused by group, with compressors.

Every unit in one ``group`` (and with the same compressor) travels in one collective: each tower flattens and
concatenates its gradients, the collective averages them, and the result is split back. Every collective gets
its own instance key (same key on every tower); the group keys are fresh per trial (servers cache both).

Hierarchical units (``hierarchical``) go inside each replica unit first, then across units, then back
(:meth:`Collectives.all_reduce_mean`); units with and without it are never fused together.

Compressors: ``HorovodCompressor`` sends fp16; ``HorovodCompressorEF`` also carries the fp16 rounding error of
each tower in a residual variable to the next step; ``PowerSGDCompressor`` sends rank-r factors P and Q of
each matrix-shaped gradient (two collectives), warm-starts Q across steps and keeps the approximation error
per tower (error feedback); 1-D and scalar gradients of its group are all-reduced uncompressed.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from runners.transform._plan import Unit
from space.wire import rank_key

HINTS = {"AUTO": "auto", "RING": "ring", "NCCL": "nccl"}


@dataclasses.dataclass
class Collectives:
    """Group and instance keys of one trial, and the towers' devices.

    ``units``: the replica units a hierarchical all-reduce runs over (tower indices; at least two units, all of
    one size n >= 2: ``space.cluster.hierarchical_units``), or None: every all-reduce runs as one flat ring.
    Group keys: ``key_base`` for all towers, ``key_base + 1 + u`` for unit u, and after those one per position
    in a unit (the towers, one per unit, that all-reduce the same chunk): every set of member devices its own.
    """

    devices: list[str]  # TF device of each tower
    key_base: int
    units: list[list[int]] | None = None
    _next: int = 1

    def __post_init__(self) -> None:
        if self.units is not None:
            # a tower's place in its unit is its rank in the unit's group: the chunk it reduces
            self.units = [sorted(u, key=lambda r: rank_key(self.devices[r])) for u in self.units]
            if sorted(r for u in self.units for r in u) != list(range(self.size)) or \
                    len({len(u) for u in self.units}) != 1 or len(self.units) < 2 or len(self.units[0]) < 2:
                raise ValueError(f"hierarchical units must split the {self.size} towers into at least two units of "
                                 f"one size >= 2, but got {self.units}")

    @property
    def size(self) -> int:
        return len(self.devices)

    def instance_key(self) -> int:
        key = self.key_base + self._next
        self._next += 1
        return key

    def _hint(self, spec: str, members: list[int]) -> str:
        hint = HINTS.get(spec, "auto")
        on_gpus = all(":GPU:" in self.devices[r] for r in members)
        if hint == "auto" and on_gpus:
            hint = "nccl"  # every tower a GPU: NCCL, explicitly (the profile must measure what training will run)
        if hint == "nccl" and not on_gpus:
            hint = "ring"  # NCCL needs GPUs; on CPUs the ring is what NCCL would have done
        return hint

    def all_reduce_mean(self, tensors: list, spec: str, wire_dtype=None, hierarchical: bool = False) -> list:
        """Mean over towers of ``tensors[r]`` (one per tower, same shape), computed in ``wire_dtype`` on the wire;
        ``hierarchical``: inside each unit, then across units, where :attr:`units` are set (else one flat ring)."""
        import tensorflow as tf

        if self.size == 1:
            return list(tensors)
        wire = []
        for dev, t in zip(self.devices, tensors):
            with tf.compat.v1.device(dev):
                wire.append(tf.cast(t, wire_dtype) if wire_dtype is not None and wire_dtype != t.dtype else t)
        sums = self._hierarchical_sum(wire, spec) if hierarchical and self.units else self._ring_sum(wire, spec)
        out = []
        for dev, t, y in zip(self.devices, tensors, sums):
            with tf.compat.v1.device(dev):
                out.append(tf.cast(y, t.dtype) / self.size if y.dtype != t.dtype else y / self.size)
        return out

    def _ring_sum(self, wire: list, spec: str) -> list:
        import tensorflow as tf
        from tensorflow.python.ops import collective_ops

        n, key, members = self.size, self.instance_key(), list(range(self.size))
        hint = self._hint(spec, members)
        out = []
        for dev, x in zip(self.devices, wire):
            with tf.compat.v1.device(dev):
                out.append(collective_ops.all_reduce_v2(x, group_size=n, group_key=self.key_base, instance_key=key,
                                                        merge_op="Add", final_op="Id", communication_hint=hint))
        return out

    def _hierarchical_sum(self, wire: list, spec: str) -> list:
        """Sum over towers of the flat ``wire[r]`` in three phases, with U units of n towers and S elements padded
        to a multiple of n (chunk j: elements j S/n .. (j + 1) S/n):

        1. inside each unit, a reduce-scatter leaves the tower of rank j the unit's sum of chunk j. TensorFlow's
           ``CollectiveReduceScatterV2`` has no CPU implementation (and its failure aborts every collective of the
           servers), so this is ``all_to_all_v2`` of the n chunks, summed where they arrive: (n - 1)/n of the
           bytes out of each tower, as a ring reduce-scatter sends, in one round rather than n - 1 ring steps;
        2. across units, the U towers of rank j all-reduce chunk j (n rings of U towers, side by side):
           2 (U - 1)/U of S/n out of each tower;
        3. inside each unit, ``all_gather_v2`` of the chunks: (n - 1)/n of the bytes out of each tower.

        2U + n collectives per call, all in the wire dtype; the sums come back padded off."""
        import tensorflow as tf
        from tensorflow.python.ops import collective_ops

        units = self.units
        n, U = len(units[0]), len(units)
        total = wire[0].shape.num_elements()
        if total is None:
            raise ValueError("a hierarchical all-reduce needs tensors of a static size")
        pad = -total % n
        chunk = (total + pad) // n
        unit_key = [self.key_base + 1 + u for u in range(U)]
        position_key = [self.key_base + 1 + U + j for j in range(n)]
        partial, reduced, out = [None] * self.size, [None] * self.size, [None] * self.size
        for u, members in enumerate(units):  # 1. reduce-scatter inside the unit
            key, hint = self.instance_key(), self._hint(spec, members)
            for r in members:
                with tf.compat.v1.device(self.devices[r]):
                    rows = tf.reshape(tf.pad(wire[r], [[0, pad]]) if pad else wire[r], [n, chunk])
                    got = collective_ops.all_to_all_v2(rows, group_size=n, group_key=unit_key[u], instance_key=key,
                                                       communication_hint=hint)
                    partial[r] = tf.reduce_sum(tf.ensure_shape(got, [n, chunk]), 0)
        for j in range(n):  # 2. all-reduce chunk j across the units
            members = [units[u][j] for u in range(U)]
            key, hint = self.instance_key(), self._hint(spec, members)
            for r in members:
                with tf.compat.v1.device(self.devices[r]):
                    reduced[r] = collective_ops.all_reduce_v2(partial[r], group_size=U, group_key=position_key[j],
                                                              instance_key=key, merge_op="Add", final_op="Id",
                                                              communication_hint=hint)
        for u, members in enumerate(units):  # 3. all-gather inside the unit
            key, hint = self.instance_key(), self._hint(spec, members)
            for r in members:
                with tf.compat.v1.device(self.devices[r]):
                    whole = tf.ensure_shape(collective_ops.all_gather_v2(
                        reduced[r], group_size=n, group_key=unit_key[u], instance_key=key, communication_hint=hint),
                        [n * chunk])
                    out[r] = whole[:total] if pad else whole
        return out

    def all_gather(self, tensors: list) -> list:
        """Every tower's ``tensors[r]`` concatenated along axis 0, on every tower. The shapes must be static and
        alike: a collective instance keeps the shape of its first step."""
        import tensorflow as tf
        from tensorflow.python.ops import collective_ops

        if self.size == 1:
            return list(tensors)
        key, out = self.instance_key(), []
        for dev, t in zip(self.devices, tensors):
            with tf.compat.v1.device(dev):
                out.append(collective_ops.all_gather_v2(t, group_size=self.size, group_key=self.key_base,
                                                        instance_key=key))
        return out


def _flat_concat(tensors: list):
    import tensorflow as tf

    flat = [tf.reshape(t, [-1]) for t in tensors]
    out = tf.concat(flat, 0) if len(flat) > 1 else flat[0]
    total = sum(t.shape.num_elements() or 0 for t in tensors)
    return tf.ensure_shape(out, [total]) if all(t.shape.is_fully_defined() for t in tensors) else out


def _split_back(flat, shapes: list[tuple[int, ...]]) -> list:
    import tensorflow as tf

    sizes = [int(np.prod(s)) if s else 1 for s in shapes]
    parts = tf.split(flat, sizes) if len(sizes) > 1 else [flat]
    return [tf.reshape(p, s) for p, s in zip(parts, shapes)]


MakeVar = Callable[[str, np.ndarray, str], object]  # (name, initial value, TF device) -> variable


def reduce_units(items: list[tuple[Unit, list]], coll: Collectives, make_var: MakeVar) -> tuple[dict, list]:
    """Average each unit's per-tower dense gradients. Returns ``({unit name: [grad per tower]}, side-effect ops)``."""
    groups: dict[tuple, list[tuple[Unit, list]]] = {}
    for unit, grads in items:
        key = (unit.group, unit.compressor, unit.spec, unit.rank if unit.compressor == "PowerSGDCompressor" else 0,
               unit.hierarchical)
        groups.setdefault(key, []).append((unit, grads))
    out: dict[str, list] = {}
    effects: list = []
    for (group, comp, spec, rank, tiered), members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        tag = f"g{group}" + ("h" if tiered else "")  # the state variables of a group, with and without hierarchy
        if comp == "PowerSGDCompressor":
            matrices = [(u, g) for u, g in members if len(u.shape) >= 2 and min(u.shape[0], _cols(u.shape)) > 1]
            vectors = [(u, g) for u, g in members if (u, g) not in matrices]
            if vectors:
                out.update(_fused(vectors, coll, spec, None, tiered))
            if matrices:
                res, eff = _powersgd(matrices, coll, spec, rank or 1, make_var, tag, tiered)
                out.update(res)
                effects += eff
        elif comp == "HorovodCompressorEF":
            res, eff = _fused_ef(members, coll, spec, make_var, tag, tiered)
            out.update(res)
            effects += eff
        else:
            out.update(_fused(members, coll, spec, "float16" if comp == "HorovodCompressor" else None, tiered))
    return out, effects


def gather_units(items: list[tuple[Unit, list]], coll: Collectives) -> dict:
    """Average each unit's per-tower sparse gradients by all-gathering them, as tf.distribute does: every tower
    receives every tower's rows and indices (a replica's batch touches a few rows of a large table, so this moves
    far less than the densified table), each row over the number of towers. Rows of one index stay apart, as Keras'
    optimizers read them (a row's pieces are squared one by one). Returns ``{unit name: [IndexedSlices per
    tower]}``."""
    import tensorflow as tf

    out: dict[str, list] = {}
    for u, grads in items:
        if coll.size == 1:  # nothing to gather: the rows go to the update as the step made them, as on one device
            out[u.name] = list(grads)
            continue
        indices = coll.all_gather([g.indices for g in grads])  # already in the dtype they travel in
        values = coll.all_gather([g.values for g in grads])
        out[u.name] = []
        for r, dev in enumerate(coll.devices):
            with tf.compat.v1.device(dev):
                out[u.name].append(tf.IndexedSlices(values[r] / coll.size, indices[r], grads[r].dense_shape))
    return out


def _cols(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape[1:]))


def _fused(members, coll: Collectives, spec: str, wire_dtype, hierarchical: bool = False) -> dict:
    import tensorflow as tf

    if coll.size == 1:  # nothing to average: the concat and split back would only copy every gradient twice
        with tf.compat.v1.device(coll.devices[0]):
            return {u.name: [tf.reshape(g[0], u.shape)] for u, g in members}
    flats = []
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            flats.append(tf.ensure_shape(_flat_concat([tf.reshape(g[r], u.shape) for u, g in members]),
                                         [sum(u.num_elements for u, _ in members)]))
    reduced = coll.all_reduce_mean(flats, spec, wire_dtype, hierarchical)
    out = {u.name: [] for u, _ in members}
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            for (u, _), part in zip(members, _split_back(reduced[r], [u.shape for u, _ in members])):
                out[u.name].append(part)
    return out


def _fused_ef(members, coll: Collectives, spec: str, make_var: MakeVar, tag: str, hierarchical: bool = False):
    """fp16 on the wire; the rounding error of each tower is added back to its next step's gradient."""
    import tensorflow as tf

    total = sum(u.num_elements for u, _ in members)
    wire, effects = [], []
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            residual = make_var(f"ef_residual_{tag}_t{r}", np.zeros([total], np.float32), dev)
            e = _flat_concat([g[r] for _, g in members]) + residual.read_value()
            c = tf.cast(e, tf.float16)
            effects.append(residual.assign(e - tf.cast(c, tf.float32), read_value=False))
            wire.append(c)
    reduced = coll.all_reduce_mean(wire, spec, None, hierarchical)  # already fp16: the mean comes back as fp16
    out = {u.name: [] for u, _ in members}
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            flat = tf.cast(reduced[r], tf.float32)
            for (u, _), part in zip(members, _split_back(flat, [u.shape for u, _ in members])):
                out[u.name].append(part)
    return out, effects


def _orthonormalize(p):
    import tensorflow as tf

    q, _ = tf.linalg.qr(p)
    return q


def _powersgd(members, coll: Collectives, spec: str, rank: int, make_var: MakeVar, tag: str,
              hierarchical: bool = False):
    """PowerSGD (Vogels et al. 2019), one power iteration per step, warm-started Q, error feedback."""
    import tensorflow as tf

    n_towers = coll.size
    shapes = [(u.shape[0], _cols(u.shape)) for u, _ in members]
    ranks = [min(rank, n, m) for n, m in shapes]
    mats, ps_local, qs, errors = [[None] * len(members) for _ in range(n_towers)], [], [], []
    effects: list = []
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            q_r, e_r, p_r = [], [], []
            for k, ((u, g), (n, m), rk) in enumerate(zip(members, shapes, ranks)):
                rng = np.random.default_rng(1000 + k)  # same start on every tower: Q stays identical
                q = make_var(f"psgd_q_{tag}_{k}_t{r}", rng.standard_normal((m, rk)).astype(np.float32), dev)
                e = make_var(f"psgd_err_{tag}_{k}_t{r}", np.zeros((n, m), np.float32), dev)
                mat = tf.reshape(g[r], [n, m]) + e.read_value()
                mats[r][k] = mat
                p_r.append(tf.matmul(mat, q.read_value()))
                q_r.append(q)
                e_r.append(e)
            qs.append(q_r)
            errors.append(e_r)
            ps_local.append(_flat_concat(p_r))
    p_shapes = [(n, rk) for (n, _), rk in zip(shapes, ranks)]
    q_shapes = [(m, rk) for (_, m), rk in zip(shapes, ranks)]
    p_red = coll.all_reduce_mean(ps_local, spec, hierarchical=hierarchical)
    p_orth, q_local = [], []
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            ps = [_orthonormalize(p) for p in _split_back(p_red[r], p_shapes)]
            p_orth.append(ps)
            q_local.append(_flat_concat([tf.matmul(mats[r][k], p, transpose_a=True) for k, p in enumerate(ps)]))
    q_red = coll.all_reduce_mean(q_local, spec, hierarchical=hierarchical)
    out = {u.name: [] for u, _ in members}
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            for k, ((u, _), q_new) in enumerate(zip(members, _split_back(q_red[r], q_shapes))):
                approx = tf.matmul(p_orth[r][k], q_new, transpose_b=True)
                effects.append(errors[r][k].assign(mats[r][k] - approx, read_value=False))
                effects.append(qs[r][k].assign(q_new, read_value=False))
                out[u.name].append(tf.reshape(approx, u.shape))
    return out, effects
