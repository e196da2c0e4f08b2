"""Non-trainable state in the training graph (BatchNorm statistics, a plain ``tf.Variable`` the step assigns).

One canonical copy lives on tower 0's device. In a lockstep step with several towers each tower works on a local
copy refreshed from it, and the canonical copy becomes the mean of the towers' new values (floats; other dtypes
take tower 0's). State the step only reads (a ``Normalization`` layer's statistics) is neither refreshed nor
averaged: every tower keeps the copy it started with. ``b`` is the graph's builder (``_graph._Builder``).
"""
from __future__ import annotations


def build(b) -> None:
    """BatchNorm-like state: one canonical copy on tower 0's device. Lockstep with N > 1: each tower works on
    a local copy refreshed from it, and the canonical becomes the mean of the towers' new values (floats)."""
    tf = b.tf
    b.state_canon, b.state_local, b.state_refresh = [], [], []
    written = list(getattr(b.traced, "state_written", ())) or [True] * len(b.state_values)
    b.state_written = written
    for j, (value, name) in enumerate(zip(b.state_values, b.traced.state_names)):
        canon = b.var(f"state/{name}", value, b.tower_dev[0])
        b.state_canon.append(canon)
        locals_, refresh = [], []
        if b.mode == "lockstep" and b.n > 1:
            # state the step only reads (a Normalization layer's statistics) stays as it starts on every tower
            canon_read = b.read(canon) if written[j] else None
            for r, dev in enumerate(b.tower_dev):
                loc = b.var(f"state_t{r}/{name}", value, dev)
                with tf.compat.v1.device(dev):
                    refresh.append(loc.assign(canon_read, read_value=False) if written[j] else tf.no_op())
                locals_.append(loc)
                if written[j] and b.remote(canon, r):
                    b.moved(b.tower_addr[0], b.tower_addr[r], 2 * value.nbytes)
        b.state_local.append(locals_)
        b.state_refresh.append(refresh)


def synchronize(b, tower_effects: list[list]) -> list:
    """Canonical state <- mean of the towers' new values (float), tower 0's value (other dtypes)."""
    tf = b.tf
    ops = []
    all_effects = [e for es in tower_effects for e in es]
    for j, canon in enumerate(b.state_canon):
        locals_ = b.state_local[j]
        if not locals_ or not b.state_written[j]:
            continue
        with tf.control_dependencies(all_effects):
            values = [b.read(loc) for loc in locals_]
        with tf.compat.v1.device(canon.device):
            new = tf.add_n(values) / len(values) if canon.dtype.is_floating else values[0]
            ops.append(canon.assign(new, read_value=False))
    return ops
