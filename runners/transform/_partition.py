"""Partitioned variables: split gradients per shard, read shards as a concat, gather rows from shards remotely."""
from __future__ import annotations

from runners.transform._plan import VarPlan
from space import wire


def split_grad(grad, plan: VarPlan) -> list:
    """The tower's gradient of a variable, one piece per shard (runs on the tower's device).

    Dense: ``tf.split`` along the axis. Sparse along axis 0: rows routed to their shard with shard-local
    indices, so each shard's parameter server receives only its rows. Sparse along another axis: densified.
    A sparse piece's row ids are in the form they travel in (``space.wire.index_itemsize``).
    """
    import tensorflow as tf

    if isinstance(grad, tf.IndexedSlices) and (not plan.partitioned or plan.axis == 0):
        grad = tf.IndexedSlices(grad.values, wire_ids(grad.indices, plan), grad.dense_shape)
    if not plan.partitioned:
        return [grad]
    sizes = [u.size for u in plan.units]
    if isinstance(grad, tf.IndexedSlices):
        if plan.axis != 0:
            grad = tf.convert_to_tensor(grad)
        else:
            shard, local = _route(grad.indices, plan)
            vals = tf.dynamic_partition(grad.values, shard, len(sizes))
            idx = tf.dynamic_partition(local, shard, len(sizes))
            return [tf.IndexedSlices(v, i, tf.constant(u.shape, tf.int64)) for v, i, u in zip(vals, idx, plan.units)]
    return tf.split(grad, sizes, axis=plan.axis)


def wire_ids(ids, plan: VarPlan):
    """Row ids of ``plan``'s table in the dtype they cross the network in (``space.wire.index_itemsize``)."""
    import tensorflow as tf

    dtype = tf.int32 if wire.index_itemsize(plan.shape[0] if plan.shape else 1) == 4 else tf.int64
    return ids if ids.dtype == dtype else tf.cast(ids, dtype)


def _route(indices, plan: VarPlan):
    """(shard of each row index, index within that shard) for a partition along axis 0 (uneven sizes allowed)."""
    import tensorflow as tf

    offsets = [u.offset for u in plan.units]
    bounds = tf.constant(offsets[1:] or [plan.shape[0]], indices.dtype)
    shard = tf.searchsorted(bounds, indices, side="right", out_type=tf.int32) if len(offsets) > 1 \
        else tf.zeros_like(indices, tf.int32)
    local = indices - tf.gather(tf.constant(offsets, indices.dtype), shard)
    return shard, local


def concat_read(reads: list, plan: VarPlan):
    import tensorflow as tf

    return reads[0] if len(reads) == 1 else tf.concat(reads, axis=plan.axis)


def gather_rows(handles: list, devices: list[str], indices, plan: VarPlan, dtype, row_shape, rows_per_step=None,
                expect=None, sent=None):
    """Rows ``indices`` of a variable stored as ``handles`` (one per unit, on ``devices``): each shard's rows
    are gathered where the shard lives (``ResourceGather``), so only touched rows cross the network.
    ``expect(tensor, rows)`` is told the rows per step of each tensor that crosses to or from a shard, a shard's
    share of the ids (``rows_per_step`` where their number depends on the batch's shape); ``sent(unit, ids)`` each
    unit's ids, in the order of its rows (a gradient of this one gather has its rows in that order: its push can
    reuse the ids sent)."""
    import tensorflow as tf

    flat = wire_ids(tf.reshape(indices, [-1]), plan)
    if len(handles) == 1:
        with tf.compat.v1.device(devices[0]):
            rows = tf.raw_ops.ResourceGather(resource=handles[0], indices=flat, dtype=dtype)
        crossing = [(flat, rows, plan.units[0])]
    else:
        shard, local = _route(flat, plan)
        n = len(handles)
        parts = tf.dynamic_partition(local, shard, n)
        positions = tf.dynamic_partition(tf.range(tf.size(flat)), shard, n)
        gathered = []
        for h, dev, idx in zip(handles, devices, parts):
            with tf.compat.v1.device(dev):
                gathered.append(tf.raw_ops.ResourceGather(resource=h, indices=idx, dtype=dtype))
        rows = tf.dynamic_stitch(positions, gathered)
        crossing = list(zip(parts, gathered, plan.units))
    for ids, got, u in crossing:
        if sent is not None:
            sent(u, ids)
        if expect is not None:
            ids_per_step = flat.shape.num_elements() if flat.shape.is_fully_defined() else (rows_per_step or 0)
            share = ids_per_step * u.size / max(plan.shape[0], 1)
            expect(ids, share)
            expect(got, share)
    return tf.reshape(rows, tf.concat([tf.shape(indices), tf.constant(row_shape, tf.int32)], 0))
