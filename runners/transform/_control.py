"""Control dependencies that cross tasks. Every control edge between two tasks is a message of its own in a step,
so a wait on many ops of other tasks goes through one no-op per device that gathers that device's ops."""
from __future__ import annotations


def gather_per_device(by_device: dict[str, list]) -> list:
    """One op per device of ``by_device`` (device -> ops) that runs that device's ops: the op itself where there is
    one, else a no-op on that device."""
    import tensorflow as tf

    gathered = []
    for device, ops in by_device.items():
        with tf.compat.v1.device(device):
            gathered.append(tf.group(ops) if len(ops) > 1 else ops[0])
    return gathered


def group_by_device(ops: list, name: str):
    """One op that runs every op (or tensor's op) of ``ops``, waiting on one control edge from each device."""
    import tensorflow as tf

    by_device: dict[str, list] = {}
    for x in ops:
        op = getattr(x, "op", x)
        by_device.setdefault(op.device, []).append(op)
    return tf.group(gather_per_device(by_device), name=name)


def reads_gates(reads: list) -> list:
    """What an op must wait on to come after every op of ``reads`` (variable reads): a read of a handle runs where the
    variable is, whatever its own device says, so the reads are gathered per variable device; reads with no device
    known are waited for one by one."""
    by_device: dict[str, list] = {}
    for op in reads:
        by_device.setdefault(op.device or (op.inputs[0].device if op.inputs else ""), []).append(op)
    return by_device.pop("", []) + gather_per_device(by_device)


def after(gates: list, grad):
    """An identity of ``grad`` (dense or ``IndexedSlices``) that waits on ``gates``."""
    import tensorflow as tf

    with tf.control_dependencies(gates):
        if isinstance(grad, tf.IndexedSlices):
            return tf.IndexedSlices(tf.identity(grad.values), tf.identity(grad.indices), grad.dense_shape)
        return tf.identity(grad)
