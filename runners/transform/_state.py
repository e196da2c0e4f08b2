"""Non-trainable state (BatchNorm statistics, seed generators, a plain ``tf.Variable`` the step assigns): one
canonical copy on tower 0's device, a local copy per tower, and how each step refreshes the locals and brings the
towers' new values back. State the step only reads (a ``Normalization`` layer's statistics) is neither refreshed nor
brought back: every tower keeps the copy it started with. ``b`` is the graph's builder (``_graph._Builder``)."""
from __future__ import annotations

from runners.transform._units import read


def build_state(b) -> None:
    """BatchNorm-like state: one canonical copy on tower 0's device. With N > 1 each tower works on a local copy
    refreshed from it before its step. Lockstep, the canonical becomes the mean of the towers' new values
    (floats); tower by tower, each tower writes its own new value back after its step. Either way a step moves
    written state once to each remote tower and back, however often the model reads or updates it."""
    tf = b.tf
    b.state_canon, b.state_local, b.state_refresh = [], [], []
    b.state_written = list(getattr(b.traced, "state_written", ())) or [True] * len(b.state_values)
    for j, (value, name) in enumerate(zip(b.state_values, b.traced.state_names)):
        canon = b.var(f"state/{name}", value, b.tower_dev[0])
        b.state_canon.append(canon)
        locals_, refresh = [], []
        if b.n > 1:
            written = b.state_written[j]
            canon_read = read(canon) if written and b.mode == "lockstep" else None
            for r, dev in enumerate(b.tower_dev):
                loc = b.var(f"state_t{r}/{name}", value, dev)
                with tf.compat.v1.device(dev):
                    if not written:  # read only: every tower keeps its copy as it starts
                        refresh.append(tf.no_op())
                    else:
                        fresh = canon_read if canon_read is not None else read(canon)
                        refresh.append(loc.assign(fresh, read_value=False))
                locals_.append(loc)
        b.state_local.append(locals_)
        b.state_refresh.append(refresh)


def sync_state(b, tower_effects: list[list]) -> tuple[list, list[list]]:
    """Canonical state <- the towers' new values: lockstep, their mean (floats) or tower 0's (other dtypes), ops
    of the step; tower by tower, each tower's own, ops of its step. Returns (lockstep ops, per-tower ops)."""
    tf = b.tf
    ops: list = []
    per_tower: list[list] = [[] for _ in range(b.n)]
    all_effects = [e for es in tower_effects for e in es]
    for j, canon in enumerate(b.state_canon):
        locals_ = b.state_local[j]
        if not locals_ or not b.state_written[j]:
            continue
        if b.mode == "threads":
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
