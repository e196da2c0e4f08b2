"""Parameter-server synchronization: reduce the towers' gradients on the PS device, or apply each as it comes.

Averaging rule (sync): the update is the mean over replicas of each replica's gradient,
``g = (1/N) * sum_r grad L_r`` where ``L_r`` is the loss of replica r's batch. With mean-reduced losses and no
cross-example coupling this is the gradient of the global batch's loss (what single-device training computes).
Async: each tower's own gradient is applied, unscaled, without waiting for the others (``aggregate([g], 1, ...)``).
"""
from __future__ import annotations

import numpy as np

from runners.transform import _control, _traffic
from runners.transform._apply import Update
from runners.transform._plan import Unit, VarPlan, node_address
from runners.transform._sync import Context, MakeSlots, Synchronizer
from runners.transform._units import ServerUnit, Stored, read


def aggregate(grads: list, n: int, shape: tuple[int, ...]):
    """Mean of the towers' gradients (runs on the server); sparse ones stay sparse (concatenated rows, values scaled
    by 1/n), their dense shape the variable's ``shape``, made here rather than sent by a tower."""
    import tensorflow as tf

    if all(isinstance(g, tf.IndexedSlices) for g in grads):
        values = tf.concat([g.values for g in grads], 0) if len(grads) > 1 else grads[0].values
        indices = tf.concat([g.indices for g in grads], 0) if len(grads) > 1 else grads[0].indices
        return tf.IndexedSlices(values / n if n > 1 else values, indices, tf.constant(shape, tf.int64))
    dense = [tf.convert_to_tensor(g) for g in grads]
    return tf.add_n(dense) / n if n > 1 else dense[0]


class ParameterServer(Synchronizer):
    """A parameter server's units: the towers' mean applied once on the server (sync), or each tower's own gradient
    applied in its own step (async); after an update, the unit's proxies are refreshed from the server."""

    def __init__(self, ctx: Context, tower_grads: list[list]) -> None:
        super().__init__(ctx)
        self.tower_grads = tower_grads
        self.updates: list[Update] = []
        self._read_gates: dict[tuple, list] = {}  # (unit, tower) -> what its update's gradient waits on
        self._tower_deps: dict[int, set[str]] = {}  # tower -> the ops its gradients depend on (``_tower_ops``)

    @staticmethod
    def create(ctx: Context, u: Unit, value: np.ndarray, make_slots: MakeSlots) -> ServerUnit:
        """Unit ``u``'s variable (starting at ``value``) and slots on its server, and its proxies (one per other node
        a tower is on) when the strategy replicates it locally."""
        dev = ctx.device_of(u.device)
        v = ctx.make_var(f"ps/{u.name}", value, dev)
        server = Stored(v, make_slots(v, f"ps/{u.name}", dev))
        proxies: dict = {}
        if u.proxy:
            for r, addr in enumerate(ctx.addresses):
                if addr != node_address(u.device) and addr not in proxies:
                    proxies[addr] = ctx.make_var(f"proxy/{addr}/{u.name}", value, ctx.devices[r])
        return ServerUnit(server, proxies, [proxies.get(addr, v) for addr in ctx.addresses])

    def accepts(self, u: Unit, grads: list) -> bool:
        return u.kind == "ps"

    def add(self, p: VarPlan, u: Unit, grads: list) -> None:
        """The update of ``u``: the towers' mean applied once, or each tower's own gradient in its step (its dense
        shape, for a sparse one, made on the server)."""
        import tensorflow as tf

        grads = [self._with_sent_ids(g, u, r) for r, g in enumerate(grads)]
        server = self.ctx.stores[u.name].server
        v, slots = server.var, server.slots
        with tf.compat.v1.device(v.device):
            if u.sync:
                self.updates.append(Update(p, u, v, slots, aggregate(grads, self.ctx.n, u.shape), v.device, by=self))
                return
            self.updates += [Update(p, u, v, slots, aggregate([g], 1, u.shape), v.device, async_tower=r, by=self)
                             for r, g in enumerate(grads)]

    def finish(self) -> tuple[list[Update], list]:
        return self.updates, []

    def apply(self, update: Update, clip) -> list:
        """The update on the server, after the reads it must not overtake, then the refresh of the unit's proxies
        (an asynchronous update's: its own tower's node's alone)."""
        import tensorflow as tf

        u, tower = update.unit, update.async_tower
        with tf.compat.v1.device(update.device):
            grad = self._after_reads(u, update.grad, tower=tower)
            op = self.ctx.opt.apply(update.var, update.slots, grad, name=update.plan.name, clip=clip)
        return self._refresh_proxies(u, op, only=None if tower is None else self.ctx.addresses[tower])

    def _with_sent_ids(self, grad, u: Unit, r: int):
        """Tower ``r``'s sparse gradient of ``u``, its ids those the unit's one gather already sent (the same ids in
        the same order): the server has them, the push carries the rows alone. A unit gathered twice (a table shared
        by two lookups) has a gradient whose ids are the lookups' ids in an order of its own: sent with it."""
        import tensorflow as tf

        ids = self.ctx.crossings.gather_ids.get((u.name, r), [])
        if len(ids) != 1 or not isinstance(grad, tf.IndexedSlices):
            return grad
        return tf.IndexedSlices(grad.values, ids[0], grad.dense_shape)

    def _after_reads(self, u: Unit, grad, tower: int | None = None):
        """``grad``, made to wait for every read of ``u`` in this step, so that its update never overtakes a tower's
        read; ``tower``: only that tower's reads (an asynchronous update is part of its tower's step alone, and a
        wait on another tower's read would run that read, an embedding's gather with its batch, again).

        Only this identity of the gradient, the update's input, waits, and for the reads of each device it waits on
        one no-op there: a unit read on other nodes (a proxied one) then costs one cross-task control edge per
        node. Waiting on every read with every op of the update (aggregation, the optimizer's constants) put 6,965
        cross-task control edges into a transformer strategy with 272 proxied shards, each its own message."""
        reads = self.ctx.crossings.reads.get(u.name, [])
        if tower is not None:
            mine = self._tower_ops(tower)
            reads = [x for x in reads if x.name in mine]
        if not reads:
            return grad
        key = (u.name, tower)
        if key not in self._read_gates:
            self._read_gates[key] = _control.reads_gates(reads)
        return _control.after(self._read_gates[key], grad)

    def _tower_ops(self, r: int) -> set[str]:
        """Names of the ops tower ``r``'s gradients depend on (its step's reads among them)."""
        import tensorflow as tf

        if r not in self._tower_deps:
            tensors = [t for g in self.tower_grads[r]
                       for t in ((g.values, g.indices) if isinstance(g, tf.IndexedSlices) else (g,))]
            self._tower_deps[r] = {op.name for op in _traffic.ancestors(tensors)}
        return self._tower_deps[r]

    def _refresh_proxies(self, u: Unit, apply, only: str | None = None) -> list:
        """``apply``, and the ops copying its result into the unit's proxies (those of node ``only``, if given)."""
        import tensorflow as tf

        store = self.ctx.stores[u.name]
        if not store.proxies:
            return [apply]
        ops = [apply]
        with tf.control_dependencies([apply]):
            fresh = read(store.server.var)
            for addr, proxy in store.proxies.items():
                if only is None or addr == only:
                    with tf.compat.v1.device(proxy.device):
                        ops.append(proxy.assign(fresh, read_value=False))
        return ops
