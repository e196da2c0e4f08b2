"""Lookup tables a training step reads (a ``StringLookup``, ``IntegerLookup`` or ``TextVectorization`` inside the
model, a ``tf.lookup`` table of the model file): they are not trained, so every replica gets a table of its own,
filled with the same entries, and nothing of them is synchronized.

A table is known by the Python object that owns its resource (found through the model and the model file's
globals) and copied by its entries (``LookupTableExportV2``). A step that writes a table, or a resource of another
kind, is refused. TensorFlow is imported inside the functions.
"""
from __future__ import annotations

import collections
import dataclasses
import types
from typing import Any

from space._values import keras_object
from space.errors import ModelError

READS = frozenset({"LookupTableFindV2", "LookupTableSizeV2"})  # the ops by which a step may use a table


@dataclasses.dataclass
class Table:
    """One table as the backend rebuilds it: its kind (the TensorFlow op that creates it), dtypes and entries."""

    name: str
    kind: str  # "HashTableV2" | "MutableHashTableV2" | "MutableHashTableOfTensorsV2"
    key_dtype: Any
    value_dtype: Any
    value_shape: tuple[int, ...]
    keys: Any  # numpy
    values: Any  # numpy
    handle: Any  # the eager resource the traced step captured

    @property
    def size(self) -> int:
        return int(len(self.keys))


def _owners(roots: list[tuple[str, Any]], depth: int = 6) -> dict[int, tuple[str, Any]]:
    """id(resource handle) -> (a readable name, the table object), for every tf.lookup table reachable from
    ``roots`` through attributes, lists and dicts of Keras objects and ``tf.Module``s (breadth first: an object is
    reached by its shortest path)."""
    import tensorflow as tf
    from tensorflow.python.ops import lookup_ops

    found: dict[int, tuple[str, Any]] = {}
    seen: set[int] = set()
    queue = collections.deque((name, root, depth) for name, root in roots)
    while queue:
        name, x, d = queue.popleft()
        if id(x) in seen or d < 0:
            continue
        seen.add(id(x))
        if isinstance(x, lookup_ops.LookupInterface):
            handle = getattr(x, "_resource_handle", None)
            if handle is not None:
                found.setdefault(id(handle), (name, x))
        if isinstance(x, (list, tuple)):
            children = [(f"{name}[{i}]", c) for i, c in enumerate(x)]
        elif isinstance(x, dict):
            children = [(f"{name}.{k}", c) for k, c in x.items()]
        elif hasattr(x, "__dict__") and not isinstance(x, (type, types.ModuleType)) and (
                isinstance(x, (tf.Module, lookup_ops.LookupInterface)) or keras_object(x) or d == depth):
            layer = (getattr(x, "path", None) or getattr(x, "name", None)) if keras_object(x) else None
            children = [(f"{layer or name}/{k}".strip("/"), c) for k, c in vars(x).items()]
        else:
            continue
        queue.extend((child_name, c, d - 1) for child_name, c in children)
    return found


def _kind(table) -> tuple[str, tuple[int, ...]]:
    import tensorflow as tf
    from tensorflow.python.ops import lookup_ops

    if isinstance(table, tf.lookup.experimental.MutableHashTable):
        shape = tuple(int(d) for d in table._value_shape)  # noqa: SLF001 - no public accessor
        return ("MutableHashTableOfTensorsV2" if shape else "MutableHashTableV2"), shape
    if isinstance(table, lookup_ops.InitializableLookupTableBase):  # StaticHashTable
        return "HashTableV2", ()
    return "", ()


def captured_tables(cf, model, module, variable_handles: set[int], source: str) -> list[Table]:
    """The lookup tables the traced step ``cf`` captures, with their entries; every other resource that is not one
    of ``variable_handles`` is a :class:`ModelError`, as is a table the step writes."""
    import tensorflow as tf

    resources = [(external, internal) for external, internal in cf.graph.captures
                 if external.dtype == tf.resource and id(external) not in variable_handles]
    if not resources:
        return []
    globals_ = [(k, v) for k, v in vars(module).items() if not k.startswith("__")]
    owners = _owners([("model", model)] + globals_)
    tables = []
    for external, internal in resources:
        name, owner = owners.get(id(external), ("", None))
        kind, shape = _kind(owner) if owner is not None else ("", ())
        if not kind:
            what = type(owner).__name__ if owner is not None else internal.name
            raise ModelError(f"loss_fn uses a TensorFlow resource that is not a variable or a lookup table ({what})",
                             source, hint="build such resources in dataset_fn, not in the model")
        writes = sorted({op.type for op in internal.consumers()} - READS)
        if writes:
            raise ModelError(f"the step changes the lookup table {name} ({writes[0]}): a replica's table would "
                             "differ from the others'", source, hint="fill the table before training, in build_model")
        keys, values = tf.raw_ops.LookupTableExportV2(table_handle=external, Tkeys=owner.key_dtype,
                                                      Tvalues=owner.value_dtype)
        tables.append(Table(name=name, kind=kind, key_dtype=owner.key_dtype, value_dtype=owner.value_dtype,
                            value_shape=shape, keys=keys.numpy(), values=values.numpy(), handle=external))
    return tables

