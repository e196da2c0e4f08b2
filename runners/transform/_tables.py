"""Lookup tables in the training graph: every tower gets tables of its own on its device, filled there with the
entries the trace exported (``space._tables``). Nothing of them crosses the network after the job starts, and
nothing synchronizes them: the step only reads them."""
from __future__ import annotations

from runners.transform._views import Towers, TrialResources


def build_tables(traced, towers: Towers, res: TrialResources) -> tuple[tuple, ...]:
    """Per table of the traced step, its handle on each tower, filled by the trial's initializers."""
    import tensorflow as tf

    container = res.container.replace("_", "-")  # a lookup table's container takes no underscore
    out = []
    for j, t in enumerate(getattr(traced, "tables", ())):
        handles = []
        for r, dev in enumerate(towers.devices):
            with tf.compat.v1.device(dev), tf.name_scope(f"table{j}_t{r}"):
                shared = f"{container}-table{j}-t{r}"
                if t.kind == "HashTableV2":
                    h = tf.raw_ops.HashTableV2(key_dtype=t.key_dtype, value_dtype=t.value_dtype,
                                               container=container, shared_name=shared)
                elif t.kind == "MutableHashTableV2":
                    h = tf.raw_ops.MutableHashTableV2(key_dtype=t.key_dtype, value_dtype=t.value_dtype,
                                                      container=container, shared_name=shared)
                else:
                    h = tf.raw_ops.MutableHashTableOfTensorsV2(key_dtype=t.key_dtype, value_dtype=t.value_dtype,
                                                               container=container, shared_name=shared,
                                                               value_shape=list(t.value_shape))
                keys = tf.compat.v1.placeholder(t.key_dtype, [None], name="keys")
                values = tf.compat.v1.placeholder(t.value_dtype, [None, *t.value_shape], name="values")
                res.init_feed[keys], res.init_feed[values] = t.keys, t.values
                fill = tf.raw_ops.InitializeTableV2 if t.kind == "HashTableV2" else tf.raw_ops.LookupTableImportV2
                res.init_ops.append(fill(table_handle=h, keys=keys, values=values))
            res.resources.append((h, dev))
            handles.append(h)
        out.append(tuple(handles))
    return tuple(out)
