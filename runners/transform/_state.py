"""Non-trainable state (BatchNorm statistics, seed generators, a plain ``tf.Variable`` the step assigns): one
canonical copy on tower 0's device, a local copy per tower, and how each step refreshes the locals and brings the
towers' new values back. State the step only reads (a ``Normalization`` layer's statistics) is neither refreshed nor
brought back: every tower keeps the copy it started with."""
from __future__ import annotations

import numpy as np

from runners.transform._units import read
from runners.transform._views import StateCopies, Towers, TrialResources


def build_state(traced, values: list[np.ndarray], towers: Towers, res: TrialResources) -> StateCopies:
    """BatchNorm-like state: one canonical copy on tower 0's device. With N > 1 each tower works on a local copy
    refreshed from it before its step. Lockstep, the canonical becomes the mean of the towers' new values
    (floats); tower by tower, each tower writes its own new value back after its step. Either way a step moves
    written state once to each remote tower and back, however often the model reads or updates it. ``values``: each
    state variable's start."""
    import tensorflow as tf

    canons, all_locals, all_refresh = [], [], []
    written_all = tuple(getattr(traced, "state_written", ())) or (True,) * len(values)
    for j, (value, name) in enumerate(zip(values, traced.state_names)):
        canon = res.make_var(f"state/{name}", value, towers.devices[0])
        canons.append(canon)
        locals_, refresh = [], []
        if towers.n > 1:
            written = written_all[j]
            canon_read = read(canon) if written and towers.mode == "lockstep" else None
            for r, dev in enumerate(towers.devices):
                loc = res.make_var(f"state_t{r}/{name}", value, dev)
                with tf.compat.v1.device(dev):
                    if not written:  # read only: every tower keeps its copy as it starts
                        refresh.append(tf.no_op())
                    else:
                        fresh = canon_read if canon_read is not None else read(canon)
                        refresh.append(loc.assign(fresh, read_value=False))
                locals_.append(loc)
        all_locals.append(tuple(locals_))
        all_refresh.append(tuple(refresh))
    return StateCopies(canon=tuple(canons), local=tuple(all_locals), refresh=tuple(all_refresh), written=written_all)


def sync_state(state: StateCopies, towers: Towers, tower_effects: list[list]) -> tuple[list, list[list]]:
    """Canonical state <- the towers' new values: lockstep, their mean (floats) or tower 0's (other dtypes), ops
    of the step; tower by tower, each tower's own, ops of its step. Returns (lockstep ops, per-tower ops)."""
    import tensorflow as tf

    ops: list = []
    per_tower: list[list] = [[] for _ in range(towers.n)]
    all_effects = [e for es in tower_effects for e in es]
    for j, canon in enumerate(state.canon):
        locals_ = state.local[j]
        if not locals_ or not state.written[j]:
            continue
        if towers.mode == "threads":
            for r, loc in enumerate(locals_):
                with tf.control_dependencies(tower_effects[r]):
                    value = read(loc)
                with tf.compat.v1.device(canon.device):
                    per_tower[r].append(canon.assign(value, read_value=False))
            continue
        with tf.control_dependencies(all_effects):
            values = [read(loc) for loc in locals_]
        with tf.compat.v1.device(canon.device):
            new = tf.add_n(values) / len(values) if canon.dtype.is_floating else values[0]
            ops.append(canon.assign(new, read_value=False))
    return ops, per_tower
