"""Applying a step's synchronized gradients: each unit's update where the unit lives, after the clipping norm it
needs (``runners.transform._optimizer``).

Keras clips before it updates: ``clipnorm`` by each variable's norm, ``global_clipnorm`` by the norm of every
gradient of the step. A partitioned variable's norm spans its shards and the global one every unit, on whatever
devices they are stored: each device sums the squares of its own units' gradients and one device adds the sums.
For the global norm that is the first replica's device (tower 0), where the all-reduced gradients already are, one
scalar in from each parameter server and the factor out to every device that updates; a strategy of all-reduced
variables alone needs no message: every replica holds every reduced gradient and computes the norm itself. An
asynchronous unit's update is one replica's step: its norm is that replica's own gradients'.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from runners.transform._views import Towers


@dataclasses.dataclass
class Update:
    """One unit's update: ``grad`` applied to ``var`` on ``device``. ``tower``: the all-reduce copy's tower (None:
    a parameter server's unit); ``async_tower``: the tower whose own gradient an asynchronous unit applies."""

    plan: Any
    unit: Any
    var: Any
    slots: dict
    grad: Any
    device: str
    tower: int | None = None
    async_tower: int | None = None
    by: Any = None  # the ``_sync.Synchronizer`` that made it, and applies it


def _sum_on(tf, parts: list[tuple[str, Any]], device: str):
    """The sum of scalars ``parts`` (device, tensor): each device's own first, then theirs on ``device``."""
    by_device: dict[str, list] = {}
    for dev, t in parts:
        by_device.setdefault(dev, []).append(t)
    partial = []
    for dev, ts in by_device.items():
        with tf.compat.v1.device(dev):
            partial.append(tf.add_n(ts) if len(ts) > 1 else ts[0])
    with tf.compat.v1.device(device):
        return tf.add_n(partial) if len(partial) > 1 else tf.identity(partial[0])


def clip_inputs(opt, plans: list, towers: Towers, updates: list[Update], tower_grads: list[list]) -> list:
    """Per update, what its clipping reads (``Optimizer.apply``'s ``clip``): the variable's summed squares
    (``clipnorm``), the step's global factor (``global_clipnorm``), or None."""
    import tensorflow as tf

    kind = opt.clip_kind
    out: list = [None] * len(updates)
    if kind is None:
        return out
    squares: dict[int, Any] = {}
    for i, u in enumerate(updates):
        if u.async_tower is None:
            with tf.compat.v1.device(u.device):
                squares[i] = opt.norm_sq(u.grad)
    own: dict[tuple[int, int], Any] = {}  # (tower, variable) -> squares of the tower's own gradient
    for r in sorted({u.async_tower for u in updates if u.async_tower is not None}):
        with tf.compat.v1.device(towers.devices[r]):
            for p in plans:
                own[(r, p.index)] = opt.norm_sq(tower_grads[r][p.index])
    if kind == "norm":
        return _per_variable(towers, updates, squares, own)
    return _global(opt, towers, updates, squares, own)


def _per_variable(towers: Towers, updates: list[Update], squares: dict, own: dict) -> list:
    import tensorflow as tf

    out: list = [None] * len(updates)
    groups: dict[tuple, list[int]] = {}
    for i, u in enumerate(updates):
        if u.async_tower is not None:
            out[i] = own[(u.async_tower, u.plan.index)]
        else:
            groups.setdefault((u.plan.index, u.tower), []).append(i)
    for (_, tower), members in groups.items():
        device = towers.devices[tower] if tower is not None else updates[members[0]].device
        total = _sum_on(tf, [(updates[i].device, squares[i]) for i in members], device)
        for i in members:
            out[i] = total
    return out


def _global(opt, towers: Towers, updates: list[Update], squares: dict, own: dict) -> list:
    import tensorflow as tf

    out: list = [None] * len(updates)
    for r in {u.async_tower for u in updates if u.async_tower is not None}:
        with tf.compat.v1.device(towers.devices[r]):
            scale = opt.global_scale(tf.add_n([v for (t, _), v in own.items() if t == r]))
        for i, u in enumerate(updates):
            if u.async_tower == r:
                out[i] = scale
    synced = [i for i, u in enumerate(updates) if u.async_tower is None]
    if not synced:
        return out
    on_servers = [i for i in synced if updates[i].tower is None]
    reducing = sorted({updates[i].tower for i in synced if updates[i].tower is not None})
    if not on_servers:  # every replica reduces every gradient: each computes the norm on its own
        for r in reducing:
            mine = [i for i in synced if updates[i].tower == r]
            with tf.compat.v1.device(towers.devices[r]):
                scale = opt.global_scale(_sum_on(tf, [(updates[i].device, squares[i]) for i in mine],
                                                 towers.devices[r]))
            for i in mine:
                out[i] = scale
        return out
    first = [i for i in synced if updates[i].tower in (None, reducing[0] if reducing else None)]
    hub = towers.devices[0]
    total = _sum_on(tf, [(updates[i].device, squares[i]) for i in first], hub)
    # the other towers' squares equal the first's, but what they read (their members of the collectives that
    # reduce the per-row sums) must run in the step too, or the first tower's members wait for them forever
    rest = [squares[i] for i in synced if i not in first]
    with tf.compat.v1.device(hub), tf.control_dependencies(rest):
        scale = opt.global_scale(total)
    for i in synced:
        out[i] = scale
    return out


def apply_all(opt, plans: list, towers: Towers, updates: list[Update],
              tower_grads: list[list]) -> tuple[list, list[list]]:
    """The update ops, each made by the synchronizer of its update: (those of a lockstep step, per tower those of its
    asynchronous units)."""
    clips = clip_inputs(opt, plans, towers, updates, tower_grads)
    common: list = []
    per_tower: list[list] = [[] for _ in range(towers.n)]
    for u, clip in zip(updates, clips):
        ops = u.by.apply(u, clip)
        if u.async_tower is None:
            common += ops
        else:
            per_tower[u.async_tower] += ops
    return common, per_tower
