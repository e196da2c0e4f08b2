"""Where each unit of the plan is stored, and what a step records of the reads that cross to it.

A parameter server's unit is one variable (and its optimizer slots) on the server, with a proxy on every other
node that reads it when the strategy replicates it locally; an all-reduced unit is one copy (and slots) per tower.
Either way each tower reads one variable of it (:attr:`ServerUnit.tower_vars`, :attr:`ReplicatedUnit.tower_vars`),
and one variable is the whole unit's value and slots (:attr:`~ServerUnit.primary`): the server's, or tower 0's
copy.
"""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


@dataclasses.dataclass
class Stored:
    """A variable and its optimizer slots (slot name -> variable)."""

    var: Any
    slots: dict


@dataclasses.dataclass
class ServerUnit:
    """A parameter server's unit: the variable on the server, and a proxy per other node that reads a copy of it
    (node address -> variable; empty without local replication)."""

    server: Stored
    proxies: dict[str, Any]
    tower_vars: list  # per tower: its node's proxy, else the server's variable

    @property
    def primary(self) -> Stored:
        return self.server


@dataclasses.dataclass
class ReplicatedUnit:
    """An all-reduced unit: one copy per tower, each updated by its tower with the reduced gradient."""

    copies: list[Stored]

    @property
    def tower_vars(self) -> list:
        return [c.var for c in self.copies]

    @property
    def primary(self) -> Stored:
        return self.copies[0]


Store = ServerUnit | ReplicatedUnit


@dataclasses.dataclass
class Crossings:
    """What the towers' import records for the synchronizers and the bytes ledger: each unit's reads in the step (its
    update waits for them), the ids each gather of a unit sends, per tower, and the elements per step of tensors whose
    size depends on the batch's ids (``TrainGraph.expected_elements``)."""

    reads: dict[str, list] = dataclasses.field(default_factory=dict)  # unit name -> read ops of this step
    gather_ids: dict[tuple[str, int], list] = dataclasses.field(default_factory=dict)  # (unit, tower) -> ids sent
    expected: dict[str, float] = dataclasses.field(default_factory=dict)

    def read(self, unit: str, op) -> None:
        self.reads.setdefault(unit, []).append(op)

    def gathered(self, unit: str, r: int, ids) -> None:
        self.gather_ids.setdefault((unit, r), []).append(ids)

    def expect(self, t, rows: float) -> None:
        """Tensor ``t``, whose leading dimension depends on the batch's ids, has ``rows`` rows per step (as expected
        from the traced step's rows: a shard's share of them)."""
        if not t.shape.is_fully_defined():
            self.expected[t.name] = rows * int(np.prod(t.shape.as_list()[1:]))


def read(v):
    """A read of variable ``v`` on its own device."""
    import tensorflow as tf

    with tf.compat.v1.device(v.device):
        return tf.raw_ops.ReadVariableOp(resource=v.handle, dtype=v.dtype)
