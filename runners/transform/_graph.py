"""Build ONE distributed training graph for a Strategy (in-graph replication, driven by one client).

The traced step (``space.model.trace_step``) is imported once per tower (``_tower``): its batch placeholders are fed
by the tower's ``dataset_fn(r, N)`` pipeline (built eagerly, ``_input``), its variable handles are mapped to the
variables the strategy places (PS variable, per-node proxy, or the tower's all-reduce copy), reads of a partitioned
variable become a concat of its shards, and an embedding read (``ReadVariableOp`` + ``GatherV2``) becomes a
``ResourceGather`` on each shard's device. Then each unit's gradients are synchronized and applied by the
synchronizer of its kind (``_sync``, ``_ps``).

Naming: everything of tower r is under ``tower{r}/``; stored units are ``<var>`` or ``<var>/part_k`` under
``ps/``, ``ar/t{r}/``, ``proxy/<node>/``; state under ``state/``. All resources live in one container per trial.
"""
from __future__ import annotations

import dataclasses
import functools
import re
from typing import Callable

import numpy as np

from runners.transform import (_allreduce, _apply, _control, _eval, _input, _partition, _ps, _repeat, _state,
                               _sync, _tables, _tower, _traffic)
from runners.transform._analysis import TracedAnalysis
from runners.transform._optimizer import ALIASES, Optimizer
from runners.transform._plan import Unit, VarPlan, execution_mode, node_address, plan_strategy
from runners.transform._units import Crossings, read
from runners.transform._views import StateCopies, Towers, TrialResources
from space.cluster import hierarchical_units
from space.errors import RunError
from space.strategy import Strategy


@dataclasses.dataclass
class TrainGraph:
    """The built graph and the handles the driver needs."""

    graph: object
    mode: str  # "lockstep" | "threads"
    staleness: int
    num_towers: int
    global_batch: int
    init_ops: list
    init_feed: dict
    train_op: object  # lockstep: one op for a whole step
    tower_train_ops: list  # threads: one op per tower step
    tower_losses: list
    loss: object
    var_values: dict  # strategy name -> tensor assembling the variable (tower 0's copy for all-reduce)
    state_values: dict
    destroy_op: object
    container: str
    slot_values: dict = dataclasses.field(default_factory=dict)  # variable -> {slot: tensor}, whole (tower 0's)
    inputs: list = dataclasses.field(default_factory=list)  # each tower's ``_input.TowerInput``
    feeds: list = dataclasses.field(default_factory=list)  # each tower's batch placeholders (fed towers only)
    steps: _repeat.StepOps | None = None  # lockstep: the step's ops and their copies (several steps per call)
    task_addresses: dict = dataclasses.field(default_factory=dict)  # TF task name -> node address
    # tensor name -> elements per step of a tensor whose size depends on the batch's ids (rows gathered or pushed)
    expected_elements: dict = dataclasses.field(default_factory=dict)
    evaluation: _eval.EvalOps | None = None  # the validation step, on the chief's replica (``val_dataset_fn``)

    @functools.cached_property
    def traffic(self) -> dict[tuple[str, str], float]:
        """Bytes one step sends from node a to node b, read from the graph (:func:`_traffic.step_traffic`)."""
        return _traffic.step_traffic(self)

    @property
    def bytes_per_step(self) -> float:
        """Bytes one step moves between nodes."""
        return float(sum(self.traffic.values()))

    @property
    def bytes_by_node(self) -> dict[str, float]:
        """Node address -> bytes its NIC sends and receives per step."""
        return _traffic.by_node(self.traffic)

    def feed(self, towers=None, copies: int = 1) -> dict | None:
        """The feed of the next ``copies`` steps of ``towers`` (default all): the next batches of each fed one."""
        import tensorflow as tf

        out: dict = {}
        for c in range(copies):
            placeholders = self.feeds if c == 0 else self.steps.feeds[c]
            for r in range(self.num_towers) if towers is None else towers:
                if placeholders[r]:
                    out.update(_input.next_feed(tf, self.inputs[r], placeholders[r]))
        return out or None

    def repeat(self, copies: int) -> None:
        """Build copies of the step up to ``copies`` steps per call (lockstep only; :mod:`_repeat`)."""
        if self.steps is None:
            raise ValueError(f"several steps per call need a lockstep strategy, but got mode {self.mode!r}")
        _repeat.add_copies(self.graph, self.steps, copies)


@dataclasses.dataclass
class Start:
    """Where a job starts instead of the traced model's values: a checkpoint's variables, state and optimizer slots
    (by strategy name, whole: strategy-free), and the batches each tower's pipeline has already served."""

    values: dict  # trainable variable name -> array
    state: dict  # state name -> array
    slots: dict  # trainable variable name -> {slot name: array (whole variable's shape; "t" a scalar)}
    batches_done: list  # per tower (or one int for all)


def _checked(values: dict, name: str, like: np.ndarray) -> np.ndarray:
    if name not in values:
        raise RunError(f"the checkpoint has no variable {name!r}", hint="resume from a checkpoint of this model")
    value = np.asarray(values[name])
    if value.shape != like.shape:
        raise RunError(f"the checkpoint's {name!r} has shape {value.shape}, the model's {like.shape}",
                       hint="resume from a checkpoint of this model")
    return value.astype(like.dtype, copy=False)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-/]", "_", name.replace(":0", "")).strip("/")


_STORAGE = {"ps": _ps.ParameterServer, "ar": _sync.Replicated}  # unit kind -> the class that creates its variables


class _Builder:
    def __init__(self, traced, strategy: Strategy, device_of: Callable[[str], str], key_base: int,
                 container: str, synchronize: bool = True, update: bool = True, start: Start | None = None,
                 replica_units: list[list[int]] | None = None) -> None:
        import tensorflow as tf

        self.tf = tf
        self.traced = traced
        self.replicas = strategy.replicas
        self.n = len(self.replicas)
        self.tower_dev = [device_of(r) for r in self.replicas]
        self.tower_addr = [node_address(r) for r in self.replicas]
        if replica_units is None:  # one unit per node
            by_node: dict[str, list[int]] = {}
            for r, addr in enumerate(self.tower_addr):
                by_node.setdefault(addr, []).append(r)
            replica_units = list(by_node.values())
        self.replica_units = hierarchical_units(replica_units)  # None: hierarchical all-reduces run flat
        self.device_of = device_of
        self.plans = plan_strategy(strategy, traced.names, [tuple(v.shape) for v in traced.trainable],
                                   traced.sparse)
        self.mode, self.staleness = execution_mode(self.plans)
        self.opt = Optimizer(traced.optimizer, getattr(traced, "keras_optimizer", None))
        self.key_base = key_base
        self.synchronize = synchronize
        self.update = update
        self.values = [v.numpy() for v in traced.trainable]  # eager, before entering the graph
        self.state_values = [v.numpy() for v in traced.state]
        self.start_slots = {}
        skip = 0
        if start is not None:
            self.values = [_checked(start.values, n, v) for n, v in zip(traced.names, self.values)]
            self.state_values = [_checked(start.state, n, v) for n, v in zip(traced.state_names, self.state_values)]
            self.start_slots, skip = start.slots, start.batches_done
        self.inputs = _input.tower_inputs(traced, self.n, skip)  # the user's dataset_fn, under TF2 semantics
        self.container = container
        self.init_feed: dict = {}
        self.init_ops: list = []
        self.resources: list = []  # (handle, device) to destroy at the end of the trial
        self.crossings = Crossings()  # the towers' reads and gathers, and the elements expected of what crosses
        self.ctx = _sync.Context(self.opt, self.tower_dev, self.tower_addr, device_of, self.var, self.crossings)
        self.towers = Towers(tuple(self.replicas), tuple(self.tower_dev), tuple(self.tower_addr), self.mode, device_of)
        self.trial = TrialResources(container, self.init_feed, self.init_ops, self.resources, self.var)
        self.state: StateCopies | None = None  # ``create_state``'s
        self.tables: tuple = ()  # per lookup table, each tower's handle (``create_state``'s)

    # ---- variables -----------------------------------------------------------------------------------
    def var(self, name: str, value: np.ndarray, device: str):
        tf = self.tf
        with tf.compat.v1.device(device):
            ph = tf.compat.v1.placeholder(tf.as_dtype(value.dtype), value.shape, name=f"{_safe(name)}/init")
            v = tf.Variable(ph, name=_safe(name), trainable=False)
        self.init_feed[ph] = value
        self.init_ops.append(v.initializer)
        self.resources.append((v.handle, device))
        return v

    @staticmethod
    def slice_value(value: np.ndarray, u: Unit) -> np.ndarray:
        if not value.shape:
            return value
        index = [slice(None)] * value.ndim
        index[u.axis] = slice(u.offset, u.offset + u.size)
        return np.ascontiguousarray(value[tuple(index)])

    def create_units(self) -> None:
        """Every unit's variables and slots, as its kind stores them (``_STORAGE``)."""
        for p in self.plans:
            value = self.values[p.index]
            for u in p.units:
                make_slots = functools.partial(self._slots, p=p, u=u)
                self.ctx.stores[u.name] = _STORAGE[u.kind].create(self.ctx, u, self.slice_value(value, u), make_slots)

    def create_state(self) -> None:
        """The non-trainable state's copies and each tower's lookup tables."""
        self.state = _state.build_state(self.traced, self.state_values, self.towers, self.trial)
        self.tables = _tables.build_tables(self.traced, self.towers, self.trial)

    def _slots(self, v, prefix: str, device: str, p: VarPlan, u: Unit) -> dict:
        """The optimizer's slots of unit ``u`` of ``p``: zeros, or the unit's part of the start's slots."""
        start = dict(self.start_slots.get(p.name, {}))
        for old, new in ALIASES.items():  # a checkpoint of an older layout names some slots otherwise
            if old in start and new not in start:
                start[new] = start.pop(old)

        def make(s: str, zero: np.ndarray):
            value = zero if s not in start else start[s] if not zero.shape else self.slice_value(start[s], u)
            if np.shape(value) != zero.shape:
                raise RunError(f"the checkpoint's {s!r} slot of {p.name!r} has shape {np.shape(value)}, not "
                               f"{zero.shape}", hint="a checkpoint of this model and optimizer resumes this job")
            return self.var(f"{prefix}/{s}", np.asarray(value, zero.dtype), device)

        return self.opt.create_slots(v, make)

    def expect_rows(self, grad, p: VarPlan, u: Unit) -> None:
        """A sparse gradient of unit ``u`` of ``p``: the traced rows, ``u``'s share of them."""
        if isinstance(grad, self.tf.IndexedSlices):
            rows = (self.traced.gather_rows[p.index] or 0) * u.size / max(p.shape[0], 1)
            self.crossings.expect(grad.values, rows)
            self.crossings.expect(grad.indices, rows)

    # ---- towers --------------------------------------------------------------------------------------
    def build_datasets(self) -> list:
        """Each tower's flat batch tensors; the placeholders of fed towers go to ``self.feeds``."""
        batches = []
        self.feeds: list[list] = []
        for r, (inp, dev) in enumerate(zip(self.inputs, self.tower_dev)):
            with self.tf.compat.v1.get_default_graph().container(""):
                batch, phs = _input.build_tower_batch(self.tf, inp, dev, f"input{r}", f"{self.container}_input{r}",
                                                      self.init_feed, self.init_ops, self.resources)
            batches.append(batch)
            self.feeds.append(phs)
        return batches

    def tower_side(self, r: int) -> _tower.TowerSide:
        """What importing the step as tower ``r`` reads of this graph, and where it records what crosses."""
        return _tower.TowerSide(r, self.tower_dev[r], {name: s.tower_vars[r] for name, s in self.ctx.stores.items()},
                                [handles[r] for handles in self.tables], self.state.tower_reads(r), self.plans,
                                self.values,
                                self.traced.gather_rows, self.var, self.crossings)

    # ---- synchronization -----------------------------------------------------------------------------
    def synchronizers(self, tower_grads: list[list]) -> list[_sync.Synchronizer]:
        """The kinds of synchronization of this graph, each unit taken by the first that accepts it, finished in
        this order."""
        ps = _ps.ParameterServer(self.ctx, tower_grads)
        if not self.synchronize:
            return [ps, _sync.Unsynchronized(self.ctx, self.update)]
        coll = _allreduce.Collectives(self.tower_dev, self.key_base, units=self.replica_units)
        return [ps, _sync.AllReduce(self.ctx, coll), _sync.Gather(self.ctx, coll)]

    def sync(self, tower_grads: list[list]) -> tuple[list, list[list]]:
        """Each unit's gradients synchronized and applied by its synchronizer. Returns (ops of a lockstep step,
        per-tower ops for async units)."""
        syncs = self.synchronizers(tower_grads)
        unit_grads = self._unit_grads(tower_grads)
        for p in self.plans:
            for u in p.units:
                grads = unit_grads[u.name]
                next(s for s in syncs if s.accepts(u, grads)).add(p, u, grads)
        updates, common = [], []
        for s in syncs:
            made, effects = s.finish()
            updates += made
            common += effects
        applied, per_tower = _apply.apply_all(self.opt, self.plans, self.towers, updates, tower_grads)
        return common + applied, per_tower

    def _unit_grads(self, tower_grads: list[list]) -> dict[str, list]:
        """Unit name -> each tower's gradient of it (split per shard on the tower)."""
        out: dict[str, list] = {}
        for p in self.plans:
            for r, dev in enumerate(self.tower_dev):
                with self.tf.compat.v1.device(dev):
                    parts = _partition.split_grad(tower_grads[r][p.index], p)
                for u, g in zip(p.units, parts):
                    self.expect_rows(g, p, u)
                    out.setdefault(u.name, []).append(g)
        return out

    def var_values(self) -> dict:
        """Tensors assembling each variable whole (a PS unit's, else tower 0's copy)."""
        out = {}
        for p in self.plans:
            reads = [read(self.ctx.stores[u.name].primary.var) for u in p.units]
            with self.tf.compat.v1.device(self.tower_dev[0]):
                out[p.name] = _partition.concat_read(reads, p)
        return out

    def state_read(self) -> dict:
        """Each state variable's canonical value."""
        return {name: read(canon) for name, canon in zip(self.traced.state_names, self.state.canon)}

    def destroy_op(self):
        """The op that destroys every resource of the trial."""
        tf = self.tf
        destroy = []
        for handle, dev in self.resources:
            with tf.compat.v1.device(dev):
                destroy.append(tf.raw_ops.DestroyResourceOp(resource=handle, ignore_lookup_error=True))
        return tf.group(destroy, name="destroy_trial_resources")

    def slot_values(self) -> dict:
        """Tensors assembling each variable's optimizer slots whole (a PS unit's, else tower 0's copy's)."""
        out: dict = {}
        for p in self.plans:
            slots = [self.ctx.stores[u.name].primary.slots for u in p.units]
            out[p.name] = {}
            for s in self.opt.slot_names():
                reads = [read(unit_slots[s]) for unit_slots in slots]
                with self.tf.compat.v1.device(self.tower_dev[0]):
                    out[p.name][s] = reads[0] if not reads[0].shape.rank else _partition.concat_read(reads, p)
        return out


def _per_replica_batch(traced) -> int:
    """The traced step's batch: the first leaf's leading dimension (1 for a batch of scalars)."""
    import tensorflow as tf

    leaves = tf.nest.flatten(traced.sample_batch)
    return int(leaves[0].shape[0]) if leaves and leaves[0].shape.rank else 1


def build_train_graph(traced, strategy: Strategy, device_of: Callable[[str], str], key_base: int,
                      container: str | None = None, synchronize: bool = True, update: bool = True,
                      start: Start | None = None, key_limit: int | None = None,
                      replica_units: list[list[int]] | None = None, evaluation: str | None = None) -> TrainGraph:
    """Build the training graph of ``strategy`` for ``traced`` (a ``space.model.TracedStep``).

    Args:
        device_of: strategy device (``"127.0.0.2:CPU:0"``) -> TF device (``RunningCluster.task_device``).
        key_base: first collective key of this trial (``RunningCluster.next_instance_key_base()``).
        container: resource container of this trial's variables (default derived from ``key_base``).
        synchronize: ``False`` leaves out the all-reduces: every tower applies its own gradient to its own copy
            (an all-reduce strategy then trains N independent models). Not training anyone wants; it is the
            lockstep step with nothing on the wire, what ``autotune calibrate`` times as the replicas' compute.
        update: ``False`` (with ``synchronize=False`` only) computes every tower's gradients and applies none: the
            lockstep step less the optimizer's work, what sets the share of that compute the updates take.
        start: begin from a checkpoint (:class:`Start`) instead of the traced model's values.
        key_limit: first collective instance key the trial may not use (default ``key_base + 2**20``); copies of the
            step (:meth:`TrainGraph.repeat`) take keys of their own.
        replica_units: the replica units (indices into the strategy's replicas) a hierarchical all-reduce reduces
            inside first (``ClusterSpec.replica_units``); default one unit per node.
        evaluation: the address of the node (the chief's) whose first replica runs the validation step of a model
            with ``val_dataset_fn`` (``_eval``); None: no validation step.
    """
    import tensorflow as tf

    container = container or f"autotune_{key_base}"
    an = TracedAnalysis(traced)
    if synchronize and not update:
        raise ValueError("update=False needs synchronize=False: a synchronized step applies what it reduces")
    b = _Builder(traced, strategy, device_of, key_base, container, synchronize, update, start, replica_units)
    g = tf.Graph()
    with g.as_default(), g.container(container):
        b.create_units()
        b.create_state()
        batches = b.build_datasets()
        losses, grads, effects = map(list, zip(*(_tower.import_tower(b.tower_side(r), batches[r], an)
                                                 for r in range(b.n))))
        common, per_tower = b.sync(grads)
        state_ops, state_per_tower = _state.sync_state(b.state, b.towers, effects)
        per_tower = [ops + state for ops, state in zip(per_tower, state_per_tower)]
        with tf.compat.v1.device(b.tower_dev[0]):
            mean_loss = tf.add_n(losses) / b.n if b.n > 1 else tf.identity(losses[0])
        train_op = _control.group_by_device(common + state_ops + [o for ops in per_tower for o in ops]
                                            + [e for es in effects for e in es], name="train_step")
        tower_ops = [_control.group_by_device(per_tower[r] + effects[r] + ([] if b.mode == "threads" else common),
                                              name=f"tower{r}_step") for r in range(b.n)]
        steps = None
        if b.mode == "lockstep":
            steps = _repeat.StepOps(_repeat.step_ops(g, b.init_ops, 0), [train_op], [mean_loss], [b.feeds],
                                    key_base, key_limit if key_limit is not None else key_base + (1 << 20))
        evaluation = _eval.build_eval(traced, b.towers, b.tower_side, evaluation) if evaluation is not None else None
        var_values, state_values, slot_values = b.var_values(), b.state_read(), b.slot_values()
        destroy_op = b.destroy_op()
    return TrainGraph(graph=g, mode=b.mode, staleness=b.staleness, num_towers=b.n,
                      global_batch=_per_replica_batch(traced) * b.n,
                      init_ops=b.init_ops, init_feed=b.init_feed, train_op=train_op, tower_train_ops=tower_ops,
                      tower_losses=losses, loss=mean_loss, var_values=var_values, state_values=state_values,
                      destroy_op=destroy_op, container=container, inputs=b.inputs, feeds=b.feeds,
                      slot_values=slot_values, steps=steps, task_addresses=_traffic.task_addresses(b.towers, b.plans),
                      expected_elements=dict(b.crossings.expected), evaluation=evaluation)
