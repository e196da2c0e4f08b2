"""A model's Keras optimizer as graph ops applied per stored unit (a variable or a shard), equal to ``model.fit``.

What Keras' ``apply`` does around each variable's ``update_step`` is done here in its order: clip the gradient
(``clipvalue``; ``clipnorm`` by the whole variable's norm; ``global_clipnorm`` by every gradient's, both summed by
the caller over the units and devices they span), decay the variable (``weight_decay``), update it (the rules of
:mod:`_rules`), keep its moving average (``use_ema``), count the step. The learning rate is the optimizer's
schedule evaluated in the graph at the unit's own step count.

Slots are created by the caller inside the device scope of their variable (or shard): they live with it. Each
unit counts its own steps (``iterations``, and Nadam's running product): in a synchronous step every unit is
updated exactly once, so the counts agree without a message between the units.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runners.transform import _rules
from space import _optimizers

SCALARS = ("iterations", "u_product")  # per-unit scalar state; the rest of a unit's slots have its shape
ALIASES = {"m": "momentum", "v": "velocity", "t": "iterations"}  # slot names of checkpoints of an older layout


class Optimizer:
    """One optimizer (``TracedStep.optimizer``, its plain config, and ``keras_optimizer``, the Keras object it
    describes) applied per variable or shard."""

    def __init__(self, config: dict[str, Any], keras_optimizer=None) -> None:
        import tensorflow as tf

        self.tf = tf
        self.config = dict(config or _optimizers.DEFAULT)
        self.name = self.config.get("name", "sgd")
        if self.name not in _rules.RULES:
            raise ValueError(f"optimizer name must be one of {sorted(_rules.RULES)}, but got {self.name!r}")
        self.k = keras_optimizer if keras_optimizer is not None else build_keras(self.config)
        self.rule = _rules.RULES[self.name]
        self.clipvalue, self.clipnorm = self.k.clipvalue, self.k.clipnorm
        self.global_clipnorm = self.k.global_clipnorm
        self.no_decay = set(self.config.get("no_weight_decay", ()))
        lr = self.k._learning_rate  # noqa: SLF001 - the schedule itself; the public property evaluates it
        import keras

        self.schedule = lr if isinstance(lr, keras.optimizers.schedules.LearningRateSchedule) else None
        self.lr_value = None if self.schedule is not None else float(lr.numpy() if hasattr(lr, "numpy") else lr)

    # ---- slots -------------------------------------------------------------------------------------------------
    def slot_names(self) -> list[str]:
        names = [s for s, _ in _rules.slots_of(self.name, self.k)] + (["average"] if self.k.use_ema else [])
        return names + ["iterations"] + (["u_product"] if self.name == "nadam" else [])

    def create_slots(self, var, make_variable) -> dict[str, Any]:
        """``make_variable(name, np_value)`` creates a variable in the caller's device scope."""
        shape, dtype = var.shape.as_list(), var.dtype.as_numpy_dtype
        initial = dict(_rules.slots_of(self.name, self.k))
        out = {}
        for s in self.slot_names():
            if s == "iterations":
                value = np.zeros([], np.int64)
            elif s == "u_product":
                value = np.ones([], dtype)
            else:
                value = np.full(shape, initial.get(s, 0.0), dtype)
            out[s] = make_variable(s, value)
        return out

    # ---- what the synchronization must provide ------------------------------------------------------------------
    @property
    def clip_kind(self) -> str | None:
        """``"norm"`` (per variable), ``"global"`` (every variable) or None: which norm the caller sums."""
        return "norm" if self.clipnorm else "global" if self.global_clipnorm else None

    @property
    def _clips(self) -> dict[str, Any]:
        """The config with the Keras object's clipping, which the update applies."""
        return {**self.config, "name": self.name, "clipvalue": self.clipvalue, "clipnorm": self.clipnorm,
                "global_clipnorm": self.global_clipnorm}

    def needs_pieces(self) -> bool:
        """Whether the update reads more of a sparse gradient than its dense sum: squares or absolute values of
        its row pieces, or pieces clipped one by one (then a densified sparse gradient carries those sums too:
        ``space._optimizers.reads_pieces``, the rule the cost model charges them by)."""
        return _optimizers.reads_pieces(self._clips)

    def piece_sums(self, slices, n: int) -> dict[str, Any]:
        """The dense per-row sums one tower's sparse gradient contributes, each n times the tower's share of the
        whole batch's (a mean over the n towers gives the whole batch's): ``sum`` (of the pieces, clipped where
        ``clipvalue`` clips them), and those of ``space._optimizers.piece_sums`` (``sq``, ``ab``)."""
        tf = self.tf
        values = slices.values / n if n > 1 else slices.values
        if self.clipvalue:
            values = tf.clip_by_value(values, -self.clipvalue, self.clipvalue)

        def dense(v):
            whole = tf.convert_to_tensor(tf.IndexedSlices(v, slices.indices, slices.dense_shape))
            return whole * n if n > 1 else whole

        of = {"sq": tf.square, "ab": tf.abs}
        return {"sum": dense(values), **{key: dense(of[key](values)) for key in _optimizers.piece_sums(self._clips)}}

    def grad(self, g) -> _rules.Grad:
        """``g`` (a tensor, ``IndexedSlices``, or :meth:`piece_sums` reduced) as a :class:`_rules.Grad`."""
        tf = self.tf
        if isinstance(g, dict):
            return _rules.Grad(tf, dense_value=g["sum"], sq_value=g.get("sq"), ab_value=g.get("ab"), summed=True)
        if isinstance(g, tf.IndexedSlices):
            return _rules.Grad(tf, slices=g)
        return _rules.Grad(tf, dense_value=g)

    def norm_sq(self, g):
        """The sum of squares Keras takes of a gradient for its norm (a sparse one's: of its row pieces)."""
        tf = self.tf
        grad = g if isinstance(g, _rules.Grad) else self.grad(g)
        if grad.slices is not None:
            return tf.reduce_sum(tf.square(grad.slices.values))
        if grad.sq_value is not None:
            return tf.reduce_sum(grad.sq_value)
        return tf.reduce_sum(tf.square(grad.dense))

    def global_scale(self, total_sq):
        """Keras' ``clip_by_global_norm`` factor from the summed squares of every gradient of the step."""
        tf = self.tf
        norm = tf.sqrt(total_sq)
        c = self.global_clipnorm
        scale = c * tf.minimum(1.0 / norm, 1.0 / c)
        return scale + (norm - norm)  # NaN where the norm is not finite, as Keras makes it

    # ---- the update ---------------------------------------------------------------------------------------------
    def apply(self, var, slots: dict[str, Any], grad, *, name: str = "", clip=None):
        """The op applying ``grad`` (already reduced) to ``var`` (run it on ``var``'s device). ``clip``: the whole
        variable's summed squares (``clipnorm``) or the step's global factor (``global_clipnorm``); ``name``: the
        variable's, for the weight-decay exclusions."""
        tf = self.tf
        it = slots["iterations"].read_value()
        lr = tf.cast(self.learning_rate(it), var.dtype)
        g = self._clipped(self.grad(grad), clip)
        first = []
        if self.k.weight_decay is not None and name not in self.no_decay:
            # after the gradient: a parameter server's update waits for the step's reads through its gradient
            with tf.control_dependencies([g.dense if g.slices is None else g.slices.values]):
                wd = tf.cast(self.k.weight_decay, var.dtype)
                first.append(var.assign_sub(var.read_value() * wd * lr, read_value=False))
        with tf.control_dependencies(first):
            updated = [self.rule(self, var, slots, g, lr, it)]
        if self.k.use_ema:
            with tf.control_dependencies(updated):
                updated = [self._average(var, slots["average"], it)]
        with tf.control_dependencies(updated):
            return slots["iterations"].assign_add(tf.constant(1, tf.int64), read_value=False)

    def _clipped(self, g: _rules.Grad, clip) -> _rules.Grad:
        tf = self.tf
        if self.clipvalue and not g.summed:  # the piece sums come clipped
            low, high = -self.clipvalue, self.clipvalue
            if g.slices is not None:
                s = g.slices
                return _rules.Grad(tf, slices=tf.IndexedSlices(tf.clip_by_value(s.values, low, high), s.indices,
                                                               s.dense_shape))
            return _rules.Grad(tf, dense_value=tf.clip_by_value(g.dense, low, high))
        if clip is None:  # no norm given (the calibration's probe of the update alone)
            return g
        if self.clipnorm:
            pred = clip > 0
            norm = tf.where(pred, tf.sqrt(tf.where(pred, clip, tf.ones_like(clip))), clip)
            c = self.clipnorm
            return self._scaled(g, lambda x: (x * c) / tf.maximum(norm, c), c / tf.maximum(norm, c))
        # global_clipnorm: Keras scales with `*`, which turns row pieces into their dense sum
        return _rules.Grad(tf, dense_value=g.dense * clip)

    def _scaled(self, g: _rules.Grad, fn, factor) -> _rules.Grad:
        tf = self.tf
        if g.slices is not None:
            s = g.slices
            return _rules.Grad(tf, slices=tf.IndexedSlices(fn(s.values), s.indices, s.dense_shape))
        if g.summed:
            return _rules.Grad(tf, dense_value=fn(g.dense), sq_value=g.sq_value * tf.square(factor),
                               ab_value=None if g.ab_value is None else g.ab_value * tf.abs(factor), summed=True)
        return _rules.Grad(tf, dense_value=fn(g.dense))

    def _average(self, var, average, it):
        """Keras' moving average of the variable after its update (and its copy into the variable, every
        ``ema_overwrite_frequency`` steps)."""
        tf = self.tf
        value = var.read_value()
        momentum = tf.cast(tf.not_equal(it, 0), var.dtype) * self.k.ema_momentum
        new = average.assign(momentum * average.read_value() + (1 - momentum) * value, read_value=True)
        every = self.k.ema_overwrite_frequency
        if not every:
            return new
        overwrite = tf.equal((it + 1) % every, 0)
        return var.assign(tf.where(overwrite, new, value), read_value=False)

    def learning_rate(self, it):
        """The learning rate at step count ``it`` (an int64 tensor), as the Keras optimizer evaluates it."""
        if self.schedule is not None:
            return self.schedule(it)
        return self.tf.constant(self.lr_value, self.tf.float32)

    def learning_rate_at(self, step: int) -> float:
        """The learning rate of the update that makes step ``step`` (1-based), evaluated eagerly."""
        return float(self.schedule(max(step - 1, 0))) if self.schedule is not None else self.lr_value

    def keras(self):
        """A fresh Keras optimizer like the model's (the single-device reference; its slots start at zero)."""
        k = self.k
        cfg = {key: value for key, value in k.get_config().items() if key != "name"}
        cfg["learning_rate"] = self.schedule if self.schedule is not None else self.lr_value
        fresh = type(k)(**cfg)
        for attr in ("_exclude_from_weight_decay", "_exclude_from_weight_decay_pattern"):
            if hasattr(k, attr):
                setattr(fresh, attr, getattr(k, attr))
        return fresh


def build_keras(config: dict[str, Any]):
    """The Keras optimizer a plain config describes (a schedule no dict can name becomes its first value)."""
    import keras

    name = config.get("name", "sgd")
    kwargs = {k: v for k, v in config.items() if k not in ("name", "no_weight_decay")}
    lr = kwargs.get("learning_rate", _optimizers.DEFAULT["learning_rate"])
    if isinstance(lr, dict):
        kind = lr.get("schedule")
        args = {k: v for k, v in lr.items() if k != "schedule"}
        cls = getattr(keras.optimizers.schedules, kind, None) if kind in _optimizers.SCHEDULES else None
        kwargs["learning_rate"] = cls(**args) if cls is not None else float(
            args.get("initial_learning_rate", _optimizers.DEFAULT["learning_rate"]))
    else:
        kwargs["learning_rate"] = float(lr)
    if name == "momentum":
        kwargs.setdefault("momentum", 0.9)
    return getattr(keras.optimizers, _optimizers.KERAS_CLASSES[name])(**kwargs)
