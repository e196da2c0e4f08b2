"""The model inventory: plain data about a model's variables, with no TensorFlow objects.

Produced by :func:`space.model.load_inventory` (which traces the model with TensorFlow) and consumed by
builders, the search space and the simulator, none of which import TensorFlow.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import Any, Iterable

from space._optimizers import SPARSE_UPDATES, piece_sums
from space.errors import ModelError

INVENTORY_VERSION = 7


@dataclasses.dataclass(frozen=True)
class VariableInfo:
    """One model variable as the strategy sees it.

    ``gather_rows`` is, for a variable whose gradient is sparse, the number of rows gathered per step
    (an upper bound on rows touched); ``None`` for dense gradients. ``grad_ready`` is when its gradient is ready,
    as the share of the backward pass's FLOPs it waits for (``space._flops.gradient_ready``); ``None`` unknown.
    ``gathers`` is how many embedding lookups read it per step where every read of it is one (its rows can be
    gathered where it lives), else 0; ``rows_vary``: its sparse gradient's rows vary with the batch's shape (no
    all-gather can carry them). Both say what the backend sends for it.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    trainable: bool = True
    sparse: bool = False
    gather_rows: int | None = None
    grad_ready: float | None = None
    gathers: int | None = None
    rows_vary: bool = False

    @property
    def num_elements(self) -> int:
        return math.prod(self.shape) if self.shape else 1

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE.get(self.dtype, 4)

    @property
    def bytes(self) -> int:
        return self.num_elements * self.itemsize

    @property
    def row_bytes(self) -> int:
        """Bytes of one slice along axis 0 (a row of an embedding table)."""
        return self.bytes // self.shape[0] if self.shape and self.shape[0] else self.bytes

    @property
    def rows_touched(self) -> int | None:
        """Rows one step's sparse gradient covers (``gather_rows``, at most the table's); ``None`` when dense."""
        if self.sparse and self.gather_rows is not None and self.shape:
            return min(self.gather_rows, self.shape[0])
        return None

    @property
    def touched_elements(self) -> int:
        """Elements of the rows one step's gradient covers: every element of a dense variable."""
        rows = self.rows_touched
        return self.num_elements if rows is None else rows * (self.num_elements // max(self.shape[0], 1))

    def updated_elements(self, optimizer_name: str) -> int:
        """Elements the optimizer writes in one step: the rows touched where plain SGD or Adagrad scatters a sparse
        gradient, every element otherwise (the other optimizers densify it, as Keras does)."""
        return self.touched_elements if optimizer_name in SPARSE_UPDATES else self.num_elements


@dataclasses.dataclass(frozen=True)
class TableInfo:
    """A lookup table the step reads (a ``StringLookup`` in the model): on every replica, not synchronized."""

    name: str
    kind: str
    key_dtype: str
    value_dtype: str
    size: int


_ITEMSIZE = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int32": 4, "int64": 8,
             "int8": 1, "uint8": 1, "bool": 1, "complex64": 8, "complex128": 16}


@dataclasses.dataclass(frozen=True)
class Inventory:
    """Everything the strategy space and the simulator need to know about one model."""

    model_path: str
    model_hash: str
    variables: tuple[VariableInfo, ...]  # trainable, in the model's order
    state: tuple[VariableInfo, ...] = ()  # non-trainable (BatchNorm statistics, ...)
    flops_per_step: float = 0.0  # forward + backward of one replica's batch
    batch_size: int = 0
    optimizer: dict[str, Any] = dataclasses.field(default_factory=dict)
    flops_lower_bound: bool = False  # a loop of unknown length was counted once: the step computes more
    flops_note: str = ""  # where control flow made ``flops_per_step`` an estimate, for a person
    tables: tuple[TableInfo, ...] = ()
    notes: tuple[str, ...] = ()  # what a person should know of how autotune runs the model, said once per command
    activation_bytes: int = 0  # the forward tensors one replica's backward pass reads, at its batch
    input_bytes: int = 0  # a replica's dataset as it travels to its server: its serialized graph
    graph_ops: int = 0  # the traced step's ops (one replica's loss and gradients): what a job's runtime grows with
    version: int = INVENTORY_VERSION

    def __post_init__(self) -> None:
        names = [v.name for v in self.variables]
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise ModelError(f"two trainable variables share the name {dup!r}", self.model_path)

    @property
    def names(self) -> list[str]:
        return [v.name for v in self.variables]

    @property
    def total_bytes(self) -> int:
        return sum(v.bytes for v in self.variables)

    @property
    def optimizer_name(self) -> str:
        return (self.optimizer or {}).get("name", "sgd")

    @property
    def piece_sums(self) -> tuple[str, ...]:
        """The dense per-row sums the optimizer reads of a sparse gradient all-reduced densified, each all-reduced
        beside it (``space._optimizers.piece_sums``)."""
        return piece_sums(self.optimizer)

    def variable(self, name: str) -> VariableInfo:
        for v in self.variables:
            if v.name == name:
                return v
        raise KeyError(name)

    @property
    def fingerprint(self) -> str:
        """Identifies the model's variable layout: strategies are portable between equal fingerprints."""
        blob = json.dumps([[v.name, list(v.shape), v.dtype] for v in self.variables]).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    # ---- plain data ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for key in ("variables", "state"):
            for v in d[key]:
                v["shape"] = list(v["shape"])
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Inventory":
        def var(x: dict) -> VariableInfo:
            return VariableInfo(**{**x, "shape": tuple(x["shape"])})

        return cls(model_path=d["model_path"], model_hash=d["model_hash"],
                   variables=tuple(var(x) for x in d["variables"]), state=tuple(var(x) for x in d["state"]),
                   flops_per_step=float(d["flops_per_step"]), batch_size=int(d["batch_size"]),
                   optimizer=dict(d.get("optimizer") or {}), flops_lower_bound=bool(d.get("flops_lower_bound")),
                   flops_note=str(d.get("flops_note") or ""), tables=tuple(TableInfo(**t) for t in d.get("tables", ())),
                   notes=tuple(d.get("notes") or ()), activation_bytes=int(d.get("activation_bytes") or 0),
                   input_bytes=int(d.get("input_bytes") or 0), graph_ops=int(d.get("graph_ops") or 0),
                   version=int(d.get("version", INVENTORY_VERSION)))

    @classmethod
    def from_json(cls, text: str) -> "Inventory":
        return cls.from_dict(json.loads(text))

    @classmethod
    def synthetic(cls, shapes: Iterable[tuple[str, tuple[int, ...]]], sparse: Iterable[str] = (),
                  batch_size: int = 32, flops_per_step: float = 1e6) -> "Inventory":
        """An inventory built from names and shapes alone (tests, simulator benchmarks)."""
        sparse = set(sparse)
        variables = tuple(VariableInfo(name=n, shape=tuple(s), dtype="float32", sparse=n in sparse,
                                       gather_rows=batch_size if n in sparse else None) for n, s in shapes)
        return cls(model_path="<synthetic>", model_hash="synthetic", variables=variables,
                   batch_size=batch_size, flops_per_step=flops_per_step)
