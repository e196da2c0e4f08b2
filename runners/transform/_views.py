"""What the training graph's builder shows each of its parts, one view per purpose, instead of the builder itself.

A part (the state copies, the lookup tables, the updates, the validation step, the traffic's task map) reads the
view it needs and returns what it made; the builder keeps the results. No part sets anything on the builder, and
each view says in its type what a part may touch. A tower's import has its own view, ``_tower.TowerSide``.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

import numpy as np


@dataclasses.dataclass(frozen=True)
class Towers:
    """Where the towers run and how they step."""

    replicas: tuple[str, ...]  # the strategy's replica devices ("127.0.0.2:CPU:0")
    devices: tuple[str, ...]  # each tower's TF device
    addresses: tuple[str, ...]  # each tower's node address
    mode: str  # "lockstep" (one call steps every tower) or "threads" (each tower steps on its own)
    device_of: Callable[[str], str]  # a strategy device -> its TF device

    @property
    def n(self) -> int:
        return len(self.devices)


@dataclasses.dataclass(frozen=True)
class TrialResources:
    """What a trial creates and must initialize, and destroy at its end. The lists and the feed are filled in
    place by the parts that create variables, tables and inputs; the view itself never changes."""

    container: str
    init_feed: dict  # placeholder -> its value, fed to the initializers
    init_ops: list
    resources: list  # (handle, device) of every resource to destroy
    make_var: Callable[[str, np.ndarray, str], Any]  # a variable initialized and destroyed with the trial


@dataclasses.dataclass(frozen=True)
class StateCopies:
    """Each non-trainable state variable's canonical copy (tower 0's device), and with several towers, its local
    copy per tower and the op refreshing it before the tower's step (``_state``)."""

    canon: tuple  # per state variable
    local: tuple[tuple, ...]  # per state variable, per tower (empty with one tower)
    refresh: tuple[tuple, ...]  # likewise: the op refreshing the local copy
    written: tuple[bool, ...]  # per state variable, whether the step writes it

    def tower_reads(self, r: int) -> list[tuple[Any, Any]]:
        """Per state variable, what tower ``r``'s step reads and the op refreshing it (None: the canonical)."""
        return [(local[r], refresh[r]) if local else (canon, None)
                for canon, local, refresh in zip(self.canon, self.local, self.refresh)]
