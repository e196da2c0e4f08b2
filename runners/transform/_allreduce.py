"""All-reduce of gradients across towers with ``collective_ops.all_reduce_v2``, fused by group, with compressors.

Every unit in one ``group`` (and with the same compressor) travels in one collective: each tower flattens and
concatenates its gradients, the collective averages them, and the result is split back. Every collective gets
its own instance key (same key on every tower); the group key is fresh per trial (servers cache both).

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

HINTS = {"AUTO": "auto", "RING": "ring", "NCCL": "nccl"}


@dataclasses.dataclass
class Collectives:
    """Group and instance keys of one trial, and the towers' devices."""

    devices: list[str]  # TF device of each tower
    key_base: int
    _next: int = 1
    bytes_on_wire: float = 0.0  # per step, summed over towers (ring: 2 (N-1)/N of the tensor per tower)

    @property
    def size(self) -> int:
        return len(self.devices)

    def instance_key(self) -> int:
        key = self.key_base + self._next
        self._next += 1
        return key

    def all_reduce_mean(self, tensors: list, spec: str, wire_dtype=None) -> list:
        """Mean over towers of ``tensors[r]`` (one per tower, same shape), computed in ``wire_dtype`` on the wire."""
        import tensorflow as tf
        from tensorflow.python.ops import collective_ops

        n = self.size
        if n == 1:
            return list(tensors)
        key = self.instance_key()
        hint = HINTS.get(spec, "auto")
        on_gpus = all(":GPU:" in d for d in self.devices)
        if hint == "auto" and on_gpus:
            hint = "nccl"  # every tower a GPU: NCCL, explicitly (the profile must measure what training will run)
        if hint == "nccl" and not on_gpus:
            hint = "ring"  # NCCL needs GPUs; on CPUs the ring is what NCCL would have done
        out = []
        for dev, t in zip(self.devices, tensors):
            with tf.compat.v1.device(dev):
                dtype = t.dtype
                x = tf.cast(t, wire_dtype) if wire_dtype is not None and wire_dtype != dtype else t
                self.bytes_on_wire += 2 * (n - 1) / n * x.shape.num_elements() * x.dtype.size
                y = collective_ops.all_reduce_v2(x, group_size=n, group_key=self.key_base, instance_key=key,
                                                 merge_op="Add", final_op="Id", communication_hint=hint)
                out.append(tf.cast(y, dtype) / n if y.dtype != dtype else y / n)
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
                self.bytes_on_wire += (self.size - 1) * t.shape.num_elements() * t.dtype.size
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
        key = (unit.group, unit.compressor, unit.spec, unit.rank if unit.compressor == "PowerSGDCompressor" else 0)
        groups.setdefault(key, []).append((unit, grads))
    out: dict[str, list] = {}
    effects: list = []
    for (group, comp, spec, rank), members in sorted(groups.items(), key=lambda kv: str(kv[0])):
        if comp == "PowerSGDCompressor":
            matrices = [(u, g) for u, g in members if len(u.shape) >= 2 and min(u.shape[0], _cols(u.shape)) > 1]
            vectors = [(u, g) for u, g in members if (u, g) not in matrices]
            if vectors:
                out.update(_fused(vectors, coll, spec, None))
            if matrices:
                res, eff = _powersgd(matrices, coll, spec, rank or 1, make_var, f"g{group}")
                out.update(res)
                effects += eff
        elif comp == "HorovodCompressorEF":
            res, eff = _fused_ef(members, coll, spec, make_var, f"g{group}")
            out.update(res)
            effects += eff
        else:
            out.update(_fused(members, coll, spec, "float16" if comp == "HorovodCompressor" else None))
    return out, effects


def gather_units(items: list[tuple[Unit, list]], coll: Collectives) -> dict:
    """Average each unit's per-tower sparse gradients by all-gathering them, as tf.distribute does: every tower
    receives every tower's rows and indices (a replica's batch touches a few rows of a large table, so this moves
    far less than the densified table) and sums the duplicate indices before applying. Returns
    ``{unit name: [IndexedSlices per tower]}``."""
    import tensorflow as tf

    out: dict[str, list] = {}
    for u, grads in items:
        indices = coll.all_gather([tf.cast(g.indices, tf.int64) for g in grads])
        values = coll.all_gather([g.values for g in grads])
        out[u.name] = []
        for r, dev in enumerate(coll.devices):
            with tf.compat.v1.device(dev):
                unique, position = tf.unique(indices[r])
                rows = tf.math.unsorted_segment_sum(values[r], position, tf.size(unique, out_type=tf.int32))
                out[u.name].append(tf.IndexedSlices(rows / coll.size, unique, grads[r].dense_shape))
    return out


def _cols(shape: tuple[int, ...]) -> int:
    return int(np.prod(shape[1:]))


def _fused(members, coll: Collectives, spec: str, wire_dtype) -> dict:
    import tensorflow as tf

    if coll.size == 1:  # nothing to average: the concat and split back would only copy every gradient twice
        with tf.compat.v1.device(coll.devices[0]):
            return {u.name: [tf.reshape(g[0], u.shape)] for u, g in members}
    flats = []
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            flats.append(tf.ensure_shape(_flat_concat([tf.reshape(g[r], u.shape) for u, g in members]),
                                         [sum(u.num_elements for u, _ in members)]))
    reduced = coll.all_reduce_mean(flats, spec, wire_dtype)
    out = {u.name: [] for u, _ in members}
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            for (u, _), part in zip(members, _split_back(reduced[r], [u.shape for u, _ in members])):
                out[u.name].append(part)
    return out


def _fused_ef(members, coll: Collectives, spec: str, make_var: MakeVar, tag: str):
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
    reduced = coll.all_reduce_mean(wire, spec, None)  # already fp16: the mean comes back as fp16
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


def _powersgd(members, coll: Collectives, spec: str, rank: int, make_var: MakeVar, tag: str):
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
    p_red = coll.all_reduce_mean(ps_local, spec)
    p_orth, q_local = [], []
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            ps = [_orthonormalize(p) for p in _split_back(p_red[r], p_shapes)]
            p_orth.append(ps)
            q_local.append(_flat_concat([tf.matmul(mats[r][k], p, transpose_a=True) for k, p in enumerate(ps)]))
    q_red = coll.all_reduce_mean(q_local, spec)
    out = {u.name: [] for u, _ in members}
    for r, dev in enumerate(coll.devices):
        with tf.compat.v1.device(dev):
            for k, ((u, _), q_new) in enumerate(zip(members, _split_back(q_red[r], q_shapes))):
                approx = tf.matmul(p_orth[r][k], q_new, transpose_b=True)
                effects.append(errors[r][k].assign(mats[r][k] - approx, read_value=False))
                effects.append(qs[r][k].assign(q_new, read_value=False))
                out[u.name].append(tf.reshape(approx, u.shape))
    return out, effects
