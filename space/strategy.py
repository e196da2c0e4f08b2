"""The ``Strategy`` wrapper: build, save / load (binary ``.pb`` or text ``.pbtxt``), summarize, validate.

The message itself is ``space.proto.strategy_pb2.Strategy`` (AutoDist's wire format plus new fields).
"""
from __future__ import annotations

import datetime
import pathlib
import uuid
from typing import Iterable, Sequence

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from space._table import format_table
from space.errors import StrategyError
from space.proto import strategy_pb2 as pb

PSSynchronizer = pb.PSSynchronizer
AllReduceSynchronizer = pb.AllReduceSynchronizer
Node = pb.Strategy.Node
Spec = pb.AllReduceSynchronizer.Spec
Compressor = pb.AllReduceSynchronizer.Compressor
TEXT_SUFFIXES = (".pbtxt", ".txt", ".textproto")

COMPRESSOR_SHORT = {"NoneCompressor": "none", "HorovodCompressor": "fp16",
                    "HorovodCompressorEF": "fp16+ef", "PowerSGDCompressor": "powersgd"}


# ---- node constructors -------------------------------------------------------------------------------

def ps_node(var_name: str, destination: str, *, sync: bool = True, local_replication: bool = False,
            staleness: int = 0) -> Node:
    node = Node(var_name=var_name)
    node.PSSynchronizer.reduction_destination = destination
    node.PSSynchronizer.sync = sync
    node.PSSynchronizer.local_replication = local_replication
    node.PSSynchronizer.staleness = staleness
    return node


def ar_node(var_name: str, *, group: int = 0, spec: str | int = "AUTO", compressor: str | int = "NoneCompressor",
            powersgd_rank: int = 0, gather_sparse: bool = False, hierarchical: bool = False) -> Node:
    node = Node(var_name=var_name)
    node.AllReduceSynchronizer.gather_sparse = gather_sparse
    node.AllReduceSynchronizer.hierarchical = hierarchical
    node.AllReduceSynchronizer.group = group
    node.AllReduceSynchronizer.spec = Spec.Value(spec) if isinstance(spec, str) else spec
    node.AllReduceSynchronizer.compressor = Compressor.Value(compressor) if isinstance(compressor, str) else compressor
    node.AllReduceSynchronizer.powersgd_rank = powersgd_rank
    return node


def shard_name(var_name: str, index: int) -> str:
    """AutoDist's name for shard ``index`` of ``var_name`` ("w:0" -> "w/part_1:0")."""
    base = var_name[:-2] if var_name.endswith(":0") else var_name
    return f"{base}/part_{index}:0"


def partitioner_string(ndims: int, axis: int, shards: int) -> str:
    return ",".join(str(shards if a == axis else 1) for a in range(max(ndims, 1)))


def parse_partitioner(text: str) -> list[int]:
    """``"4,1"`` -> ``[4, 1]``; ``ValueError`` when malformed."""
    try:
        splits = [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"partitioner {text!r} is not a comma-separated list of integers") from None
    if any(s < 1 for s in splits):
        raise ValueError(f"partitioner {text!r} has a split count below 1")
    return splits


def partition_axis(text: str) -> tuple[int, int]:
    """The one axis a partitioner splits and its shard count; ``(0, 1)`` when nothing is split."""
    splits = parse_partitioner(text)
    split_axes = [(a, s) for a, s in enumerate(splits) if s > 1]
    if len(split_axes) > 1:
        raise ValueError(f"partitioner {text!r} splits more than one axis; only one axis may be split")
    return split_axes[0] if split_axes else (0, 1)


def shard_sizes(dim: int, shards: int) -> list[int]:
    """Sizes of ``shards`` slices of ``dim``: the first ``dim % shards`` get one extra (TF's rule)."""
    q, r = divmod(dim, shards)
    return [q + (1 if i < r else 0) for i in range(shards)]


def partitioned_node(var_name: str, shape: Sequence[int], axis: int, parts: Sequence[Node]) -> Node:
    node = Node(var_name=var_name, partitioner=partitioner_string(len(shape), axis, len(parts)))
    for i, part in enumerate(parts):
        p = node.part_config.add()
        p.CopyFrom(part)
        p.var_name = shard_name(var_name, i)
    return node


def describe_sync(node: Node) -> str:
    """One short phrase: 'PS 10.0.0.1:CPU:0 sync', 'AR g3 ring fp16', ..."""
    kind = node.WhichOneof("synchronizer")
    if kind == "PSSynchronizer":
        s = node.PSSynchronizer
        mode = "sync" if s.sync else "async"
        if s.staleness:
            mode += f" stale={s.staleness}"
        return f"PS {s.reduction_destination} {mode}" + (" proxy" if s.local_replication else "")
    if kind == "AllReduceSynchronizer":
        s = node.AllReduceSynchronizer
        comp = COMPRESSOR_SHORT[Compressor.Name(s.compressor)]
        if s.compressor == Compressor.Value("PowerSGDCompressor"):
            comp += f" r={s.powersgd_rank or 1}"
        return f"AR g{s.group} {Spec.Name(s.spec).lower()} {comp}" + (" gather" if s.gather_sparse else "") \
            + (" hier" if s.hierarchical else "")
    return "-"


class Strategy:
    """A strategy: one ``Node`` per trainable variable plus the replica list."""

    def __init__(self, proto: pb.Strategy | None = None) -> None:
        self.proto = proto if proto is not None else pb.Strategy()
        if not self.proto.id:
            self.proto.id = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%S") + \
                "-" + uuid.uuid4().hex[:6]

    @classmethod
    def build(cls, nodes: Iterable[Node], replicas: Iterable[str], *, builder: str = "") -> "Strategy":
        s = cls()
        s.proto.node_config.extend(nodes)
        s.proto.graph_config.replicas.extend(replicas)
        if builder:
            s.proto.provenance.builder = builder
        return s

    # ---- access ----------------------------------------------------------------------------------
    @property
    def nodes(self) -> list[Node]:
        return list(self.proto.node_config)

    @property
    def replicas(self) -> list[str]:
        return list(self.proto.graph_config.replicas)

    def node(self, var_name: str) -> Node:
        for n in self.proto.node_config:
            if n.var_name == var_name:
                return n
        raise KeyError(var_name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Strategy) and self.proto == other.proto

    # ---- serialization ---------------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        return self.proto.SerializeToString(deterministic=True)

    def to_text(self) -> str:
        return text_format.MessageToString(self.proto)

    @classmethod
    def from_bytes(cls, data: bytes, source: str = "<bytes>") -> "Strategy":
        msg = pb.Strategy()
        try:
            msg.ParseFromString(data)
        except DecodeError as e:
            raise StrategyError(f"not a Strategy protobuf ({e})", source,
                                hint="pass a .pb written by autotune/AutoDist, or a .pbtxt text file") from None
        return cls(msg)

    @classmethod
    def from_text(cls, text: str, source: str = "<text>") -> "Strategy":
        msg = pb.Strategy()
        try:
            text_format.Parse(text, msg)
        except text_format.ParseError as e:
            raise StrategyError(f"not a Strategy in text format ({e})", source) from None
        return cls(msg)

    def save(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write binary for ``.pb`` (and anything else), text format for ``.pbtxt``/``.txt``."""
        p = pathlib.Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        if p.suffix in TEXT_SUFFIXES:
            tmp.write_text(self.to_text())
        else:
            tmp.write_bytes(self.to_bytes())
        tmp.replace(p)  # atomic: a crash never leaves half a strategy file
        return p

    @classmethod
    def load(cls, path: str | pathlib.Path) -> "Strategy":
        p = pathlib.Path(path)
        hint = "pass a .pb written by autotune build/search (or AutoDist), or a .pbtxt text file"
        try:
            data = p.read_bytes()
        except FileNotFoundError:
            raise StrategyError(f"strategy file not found: {p}", hint=hint) from None
        except IsADirectoryError:
            raise StrategyError(f"the strategy file {p} is a directory", hint=hint) from None
        except OSError as e:
            raise StrategyError(f"cannot read the strategy file {p}: {e.strerror or e}", hint=hint) from None
        if not data.strip():  # an empty message parses as a strategy of nothing, with no id
            raise StrategyError(f"empty strategy file: {p}", hint=hint)
        if p.suffix in TEXT_SUFFIXES:
            return cls.from_text(data.decode("utf-8", errors="replace"), str(p))
        return cls.from_bytes(data, str(p))

    # ---- display ---------------------------------------------------------------------------------
    def summary_rows(self, inventory=None) -> list[dict]:
        """One row per variable (and per shard): name, MB, partition, synchronizer."""
        rows = []
        for n in self.proto.node_config:
            mb = ""
            if inventory is not None and n.var_name in inventory.names:
                mb = f"{inventory.variable(n.var_name).bytes / 1e6:.3f}"
            if n.partitioner:
                syncs = sorted({describe_sync(p) for p in n.part_config})
                rows.append({"variable": n.var_name, "MB": mb, "partition": n.partitioner,
                             "synchronizer": "; ".join(syncs) if len(syncs) <= 2 else f"{len(syncs)} kinds"})
                for p in n.part_config:
                    rows.append({"variable": "  " + p.var_name, "MB": "", "partition": "",
                                 "synchronizer": describe_sync(p)})
            else:
                rows.append({"variable": n.var_name, "MB": mb, "partition": "", "synchronizer": describe_sync(n)})
        return rows

    def summary(self, inventory=None) -> str:
        prov = self.proto.provenance
        head = [f"strategy {self.proto.id}" + (f" (builder: {prov.builder})" if prov.builder else ""),
                f"replicas: {', '.join(self.replicas) or '-'}"]
        if prov.predicted_step_time_s:
            head.append(f"predicted step: {prov.predicted_step_time_s * 1e3:.2f} ms")
        if prov.measured_step_time_s:
            head.append(f"measured step: {prov.measured_step_time_s * 1e3:.2f} ms")
        return "\n".join(head) + "\n" + format_table(self.summary_rows(inventory))
