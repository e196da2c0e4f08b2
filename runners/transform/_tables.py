"""Lookup tables in the training graph: every tower gets tables of its own on its device, filled there with the
entries the trace exported (``space._tables``). Nothing of them crosses the network after the job starts, and
nothing synchronizes them: the step only reads them."""
from __future__ import annotations


def build_tables(b) -> list[list]:
    """Per table of the traced step, its handle on each tower (``b``: the graph's builder)."""
    tf = b.tf
    container = b.container.replace("_", "-")  # a lookup table's container takes no underscore
    out = []
    for j, t in enumerate(getattr(b.traced, "tables", ())):
        handles = []
        for r, dev in enumerate(b.tower_dev):
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
                b.init_feed[keys], b.init_feed[values] = t.keys, t.values
                fill = tf.raw_ops.InitializeTableV2 if t.kind == "HashTableV2" else tf.raw_ops.LookupTableImportV2
                b.init_ops.append(fill(table_handle=h, keys=keys, values=values))
            b.resources.append((h, dev))
            handles.append(h)
        out.append(handles)
    return out
