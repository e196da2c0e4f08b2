"""Synchronizers: one class per kind of synchronization, each turning the towers' gradients of the units it takes
into updates (``_apply.Update``) and the ops the step runs besides, and each applying its own updates.

The graph's builder hands every unit of the plan, in the plan's order, to the first synchronizer that accepts it,
then finishes each synchronizer in a fixed order (the collectives' instance keys follow it). The kinds: a parameter
server's units (``_ps.ParameterServer``), all-reduced ones (:class:`AllReduce`: dense, sparse densified with the
per-row sums its update reads, compressed, hierarchical), sparse ones all-gathered (:class:`Gather`), and the
towers' own gradients applied to their own copies, unsynchronized (:class:`Unsynchronized`). docs/design.md,
"Synchronizers", says why.
"""
from __future__ import annotations

import abc
import dataclasses
from typing import Any, Callable

import numpy as np

from runners.transform import _allreduce
from runners.transform._apply import Update
from runners.transform._optimizer import Optimizer
from runners.transform._plan import Unit, VarPlan
from runners.transform._units import Crossings, ReplicatedUnit, Store, Stored

MakeSlots = Callable[[Any, str, str], dict]  # (variable, name prefix, TF device) -> the optimizer's slots of it


@dataclasses.dataclass
class Context:
    """What the synchronizers share of the graph being built."""

    opt: Optimizer
    devices: list[str]  # each tower's TF device
    addresses: list[str]  # each tower's node address
    device_of: Callable[[str], str]  # strategy device -> TF device
    make_var: Callable[[str, np.ndarray, str], Any]  # a variable initialized and destroyed with the trial
    crossings: Crossings
    stores: dict[str, Store] = dataclasses.field(default_factory=dict)  # unit name -> where it is stored

    @property
    def n(self) -> int:
        return len(self.devices)


class Synchronizer(abc.ABC):
    """One kind of synchronization. During the build: :meth:`accepts` asks whether a unit is this kind's (given its
    gradients), :meth:`add` hands it over, in the plan's order, and :meth:`finish`, once after every unit, makes the
    kind's exchange and returns its updates and the other ops of the step; :meth:`apply` then turns one of those
    updates into ops, after the clipping norm it needs is known."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @abc.abstractmethod
    def accepts(self, u: Unit, grads: list) -> bool:
        """Whether unit ``u``, with each tower's gradient ``grads``, is synchronized by this kind."""

    @abc.abstractmethod
    def add(self, p: VarPlan, u: Unit, grads: list) -> None:
        """Take unit ``u`` of ``p``, with each tower's gradient of it."""

    @abc.abstractmethod
    def finish(self) -> tuple[list[Update], list]:
        """The updates of every unit added, and the ops the step runs besides them (state of a compressor)."""

    def apply(self, update: Update, clip) -> list:
        """The ops of ``update``: a tower's update of its own copy, waiting for every tower's reads of the unit."""
        import tensorflow as tf

        # every op of each tower's update waits for every tower's reads, control edges between tasks included.
        # Gated like a PS unit's (its own tower's reads), transformer steps on the 3-host testbed ran 23-49% faster
        # (all_reduce 108 -> 84 ms, nothing synchronized 64 -> 36) but a PS step did not (79 ms): the cost model,
        # calibrated on this, does not follow that yet
        reads = self.ctx.crossings.reads.get(update.unit.name, [])
        with tf.compat.v1.device(update.device), tf.control_dependencies(reads):
            return [self.ctx.opt.apply(update.var, update.slots, update.grad, name=update.plan.name, clip=clip)]


class Replicated(Synchronizer):
    """The kinds whose unit is a copy per tower, each updated by its own tower (:class:`ReplicatedUnit`)."""

    @staticmethod
    def create(ctx: Context, u: Unit, value: np.ndarray, make_slots: MakeSlots) -> ReplicatedUnit:
        """Unit ``u``'s copy (starting at ``value``) and slots on every tower."""
        copies = []
        for r, dev in enumerate(ctx.devices):
            v = ctx.make_var(f"ar/t{r}/{u.name}", value, dev)
            copies.append(Stored(v, make_slots(v, f"ar/t{r}/{u.name}", dev)))
        return ReplicatedUnit(copies)

    def accepts(self, u: Unit, grads: list) -> bool:
        return u.kind == "ar"

    def copy_updates(self, p: VarPlan, u: Unit, grads: list) -> list[Update]:
        """Each tower's update of its copy of ``u`` with ``grads[r]``."""
        copies = self.ctx.stores[u.name].copies
        return [Update(p, u, c.var, c.slots, g, dev, tower=r, by=self)
                for r, (c, g, dev) in enumerate(zip(copies, grads, self.ctx.devices))]


def gathers(u: Unit, grads: list) -> bool:
    """Whether an all-reduce unit's gradients are all-gathered: asked to, and sparse with a static number of rows on
    every tower (a collective keeps the shape of its first step; batches that differ in size leave the gradient to
    the dense all-reduce)."""
    import tensorflow as tf

    return u.gather and all(isinstance(g, tf.IndexedSlices) and g.indices.shape.is_fully_defined()
                            and g.values.shape.is_fully_defined() for g in grads)


class AllReduce(Replicated):
    """All-reduced units (``_allreduce.reduce_units``: fused by group, compressed, hierarchical). A sparse gradient is
    densified; where its update reads more than the sum (``Optimizer.piece_sums``), the per-row sums it reads travel
    as units of their own, uncompressed: fp16 would flush a square's small values."""

    def __init__(self, ctx: Context, coll: _allreduce.Collectives) -> None:
        super().__init__(ctx)
        self.coll = coll
        self.items: list[tuple[Unit, list]] = []  # what the collectives reduce, per-row sums after their unit
        self.units: list[tuple[VarPlan, Unit]] = []
        self.parts: dict[str, dict[str, str]] = {}  # unit -> {per-row sum's key: the name it is reduced under}

    def accepts(self, u: Unit, grads: list) -> bool:
        return u.kind == "ar" and not gathers(u, grads)

    def add(self, p: VarPlan, u: Unit, grads: list) -> None:
        dense, sums = self._densified(grads)
        self.items.append((u, dense))
        self.units.append((p, u))
        if sums is not None:
            self.parts[u.name] = {}
            for key, values in sums.items():
                part = dataclasses.replace(u, name=f"{u.name}#{key}", compressor="NoneCompressor", rank=0)
                self.items.append((part, values))
                self.parts[u.name][key] = part.name

    def _densified(self, grads: list) -> tuple[list, dict | None]:
        """Each tower's dense gradient, and, for a sparse one whose update reads more than its dense sum, the extra
        per-row sums (name -> per tower), else None."""
        import tensorflow as tf

        opt, dense, extra = self.ctx.opt, [], None
        for g, dev in zip(grads, self.ctx.devices):
            with tf.compat.v1.device(dev):
                if isinstance(g, tf.IndexedSlices) and opt.needs_pieces():
                    parts = opt.piece_sums(g, self.ctx.n)
                    dense.append(parts.pop("sum"))
                    extra = extra if extra is not None else {}
                    for key, value in parts.items():
                        extra.setdefault(key, []).append(value)
                else:
                    dense.append(tf.convert_to_tensor(g))
        return dense, extra

    def finish(self) -> tuple[list[Update], list]:
        reduced, effects = _allreduce.reduce_units(self.items, self.coll, self.ctx.make_var)
        updates = []
        for p, u in self.units:
            grads = reduced[u.name]
            if u.name in self.parts:  # the update reads them as the sums of its row pieces
                grads = [{"sum": g, **{key: reduced[part][r] for key, part in self.parts[u.name].items()}}
                         for r, g in enumerate(grads)]
            updates += self.copy_updates(p, u, grads)
        return updates, effects


class Gather(Replicated):
    """Sparse units all-gathered (``_allreduce.gather_units``): rows and indices travel, not the densified table."""

    def __init__(self, ctx: Context, coll: _allreduce.Collectives) -> None:
        super().__init__(ctx)
        self.coll = coll
        self.items: list[tuple[Unit, list]] = []
        self.plans: list[VarPlan] = []

    def accepts(self, u: Unit, grads: list) -> bool:
        return u.kind == "ar" and gathers(u, grads)

    def add(self, p: VarPlan, u: Unit, grads: list) -> None:
        self.items.append((u, grads))
        self.plans.append(p)

    def finish(self) -> tuple[list[Update], list]:
        reduced = _allreduce.gather_units(self.items, self.coll)
        return [x for p, (u, _) in zip(self.plans, self.items) for x in self.copy_updates(p, u, reduced[u.name])], []


class Unsynchronized(Replicated):
    """Nothing synchronized (``build_train_graph(synchronize=False)``): every tower applies its own gradient to its
    own copy, a sparse one left sparse as on a PS; with ``update=False`` none is applied, and one element of each
    gradient is written to a sink instead, so that the gradients are still computed."""

    def __init__(self, ctx: Context, update: bool) -> None:
        super().__init__(ctx)
        self.update = update
        self.items: list[tuple[VarPlan, Unit, list]] = []

    def add(self, p: VarPlan, u: Unit, grads: list) -> None:
        self.items.append((p, u, grads))

    def finish(self) -> tuple[list[Update], list]:
        if self.update:
            return [x for p, u, grads in self.items for x in self.copy_updates(p, u, grads)], []
        import tensorflow as tf

        kept: list[list] = [[] for _ in range(self.ctx.n)]  # one element of each gradient, per tower
        for _, _, grads in self.items:
            for r, dev in enumerate(self.ctx.devices):
                with tf.compat.v1.device(dev):
                    g = grads[r].values if isinstance(grads[r], tf.IndexedSlices) else grads[r]
                    kept[r].append(tf.cast(tf.reshape(g, [-1])[:1], tf.float32))
        sinks = []
        for r, dev in enumerate(self.ctx.devices):
            if kept[r]:
                # Grappler turns an op whose outputs only control edges wait on into a no-op (and so the whole
                # backward pass): one element of each gradient is written
                sink = self.ctx.make_var(f"tower{r}/gradient_sink", np.zeros([1], np.float32), dev)
                with tf.compat.v1.device(dev):
                    sinks.append(sink.assign(tf.add_n(kept[r]), read_value=False))
        return [], sinks
