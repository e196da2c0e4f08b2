"""Keras 3's update rules, one function per optimizer, as graph ops on one stored unit (a variable or a shard).

Each rule computes what the Keras optimizer's ``update_step`` computes, op for op where the rounding shows: a
constant Keras takes as a Python double (``1 - self.beta_1``) is rounded from the double, one it casts first
(``ops.cast(self.beta_1, dtype)``) is subtracted in the variable's dtype. A value read after a write is the write's
own result (``read_value=True``): the graph has no automatic control dependencies.

A sparse gradient reaches a rule as a :class:`Grad`. Keras squares (or takes the absolute value of) a sparse
gradient row piece by row piece before it sums the pieces of one row, so a row looked up twice in a batch adds two
squares to Adam's second moment, not the square of their sum: ``Grad.sq`` and ``Grad.ab`` are those sums.
"""
from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass
class Grad:
    """A unit's gradient as an update reads it: ``dense`` (a tensor), ``slices`` (row pieces, duplicates kept), or
    the per-row sums of a sparse gradient that was densified before it was all-reduced (``dense``, ``sq``,
    ``ab``)."""

    tf: Any
    dense_value: Any = None
    slices: Any = None
    sq_value: Any = None
    ab_value: Any = None
    summed: bool = False  # the per-row sums of a densified sparse gradient (``Optimizer.piece_sums``)

    @property
    def sparse(self) -> bool:
        """Whether the gradient is made of row pieces (its squares are not the square of its sum)."""
        return self.slices is not None or self.summed

    def _pieces(self, fn):
        s = self.slices
        return self.tf.convert_to_tensor(self.tf.IndexedSlices(fn(s.values), s.indices, s.dense_shape))

    @property
    def dense(self):
        if self.dense_value is None:
            self.dense_value = self.tf.convert_to_tensor(self.slices)
        return self.dense_value

    @property
    def sq(self):
        if self.sq_value is None:
            self.sq_value = self._pieces(self.tf.square) if self.slices is not None else self.tf.square(self.dense)
        return self.sq_value

    @property
    def ab(self):
        if self.ab_value is None:
            self.ab_value = self._pieces(self.tf.abs) if self.slices is not None else self.tf.abs(self.dense)
        return self.ab_value


def _c(tf, x, dtype):
    return tf.constant(x, dtype)


def sgd(o, var, slots, g: Grad, lr, it):
    tf = o.tf
    if "momentum" not in slots:
        if g.slices is not None:  # Keras scatters a sparse gradient: only its rows change
            s = g.slices
            return tf.raw_ops.ResourceScatterSub(resource=var.handle, indices=s.indices, updates=s.values * lr)
        return var.assign_sub(g.dense * lr, read_value=False)
    momentum = _c(tf, o.k.momentum, var.dtype)
    m = slots["momentum"]
    m_new = m.assign(m.read_value() * momentum - g.dense * lr, read_value=True)
    if o.k.nesterov:
        return var.assign_add(m_new * momentum - g.dense * lr, read_value=False)
    return var.assign_add(m_new, read_value=False)


def adam(o, var, slots, g: Grad, lr, it):
    tf, dtype, k = o.tf, var.dtype, o.k
    step = tf.cast(it + 1, dtype)
    b1_power = tf.pow(_c(tf, k.beta_1, dtype), step)
    b2_power = tf.pow(_c(tf, k.beta_2, dtype), step)
    alpha = lr * tf.sqrt(1 - b2_power) / (1 - b1_power)
    m, v = slots["momentum"], slots["velocity"]
    m_new = m.assign_add((g.dense - m.read_value()) * _c(tf, 1 - k.beta_1, dtype), read_value=True)
    v_new = v.assign_add((g.sq - v.read_value()) * _c(tf, 1 - k.beta_2, dtype), read_value=True)
    if k.amsgrad:
        v_hat = slots["velocity_hat"]
        v_new = v_hat.assign(tf.maximum(v_hat.read_value(), v_new), read_value=True)
    return var.assign_sub((m_new * alpha) / (tf.sqrt(v_new) + _c(tf, k.epsilon, dtype)), read_value=False)


def adagrad(o, var, slots, g: Grad, lr, it):
    tf, dtype = o.tf, var.dtype
    acc, eps = slots["accumulator"], _c(tf, o.k.epsilon, dtype)
    if g.slices is not None:  # Keras scatters both: the accumulator's rows, then the variable's
        s = g.slices
        added = tf.raw_ops.ResourceScatterAdd(resource=acc.handle, indices=s.indices, updates=tf.square(s.values))
        with tf.control_dependencies([added]):
            rows = tf.raw_ops.ResourceGather(resource=acc.handle, indices=s.indices, dtype=dtype)
        step = (lr * s.values) / tf.sqrt(rows + eps)
        return tf.raw_ops.ResourceScatterSub(resource=var.handle, indices=s.indices, updates=step)
    acc_new = acc.assign_add(g.sq, read_value=True)
    return var.assign_sub((lr * g.dense) / tf.sqrt(acc_new + eps), read_value=False)


def rmsprop(o, var, slots, g: Grad, lr, it):
    tf, dtype, k = o.tf, var.dtype, o.k
    rho, eps = k.rho, _c(tf, k.epsilon, dtype)
    velocity = slots["velocity"]
    v_new = velocity.assign(_c(tf, rho, dtype) * velocity.read_value() + _c(tf, 1 - rho, dtype) * g.sq,
                            read_value=True)
    if k.centered:
        avg = slots["average_gradient"]
        avg_new = avg.assign(_c(tf, rho, dtype) * avg.read_value() + _c(tf, 1 - rho, dtype) * g.dense,
                             read_value=True)
        denominator = v_new - tf.square(avg_new) + eps
    else:
        denominator = v_new + eps
    increment = (lr * g.dense) / tf.sqrt(denominator)
    if k.momentum > 0:
        mom = slots["momentum"]
        mom_new = mom.assign(_c(tf, k.momentum, dtype) * mom.read_value() + increment, read_value=True)
        return var.assign_sub(mom_new, read_value=False)
    return var.assign_sub(increment, read_value=False)


def adadelta(o, var, slots, g: Grad, lr, it):
    tf, dtype, k = o.tf, var.dtype, o.k
    rho, eps = k.rho, _c(tf, k.epsilon, dtype)
    acc_g, acc_d = slots["accumulated_grad"], slots["accumulated_delta_var"]
    acc_d_old = acc_d.read_value()
    acc_g_new = acc_g.assign(_c(tf, rho, dtype) * acc_g.read_value() + _c(tf, 1 - rho, dtype) * g.sq,
                             read_value=True)
    rms_d, rms_g = tf.sqrt(acc_d_old + eps), tf.sqrt(acc_g_new + eps)
    delta = tf.negative((rms_d * g.dense) / rms_g)
    # a sparse gradient's pieces each make a delta of their own, squared one by one
    delta_sq = (tf.square(rms_d) * g.sq) / tf.square(rms_g) if g.sparse else tf.square(delta)
    update = acc_d.assign(_c(tf, rho, dtype) * acc_d_old + _c(tf, 1 - rho, dtype) * delta_sq, read_value=False)
    with tf.control_dependencies([update]):
        return var.assign_add(lr * delta, read_value=False)


def adamax(o, var, slots, g: Grad, lr, it):
    tf, dtype, k = o.tf, var.dtype, o.k
    step = tf.cast(it + 1, dtype)
    b1_power = tf.pow(_c(tf, k.beta_1, dtype), step)
    m, u = slots["momentum"], slots["norm"]
    m_new = m.assign_add((g.dense - m.read_value()) * _c(tf, 1 - k.beta_1, dtype), read_value=True)
    u_new = u.assign(tf.maximum(_c(tf, k.beta_2, dtype) * u.read_value(), g.ab), read_value=True)
    return var.assign_sub((lr * m_new) / ((1 - b1_power) * (u_new + _c(tf, k.epsilon, dtype))), read_value=False)


def nadam(o, var, slots, g: Grad, lr, it):
    tf, dtype, k = o.tf, var.dtype, o.k
    u_product = slots["u_product"]
    decay_now = 1.0 - 0.5 * tf.pow(_c(tf, 0.96, u_product.dtype), tf.cast(it + 1, u_product.dtype))
    u_product_t = tf.cast(u_product.assign(u_product.read_value() * _c(tf, k.beta_1, u_product.dtype) * decay_now,
                                           read_value=True), dtype)
    step, next_step = tf.cast(it + 1, dtype), tf.cast(it + 2, dtype)
    decay = _c(tf, 0.96, dtype)
    beta_1, beta_2 = _c(tf, k.beta_1, dtype), _c(tf, k.beta_2, dtype)
    u_t = beta_1 * (1.0 - 0.5 * tf.pow(decay, step))
    u_t_1 = beta_1 * (1.0 - 0.5 * tf.pow(decay, next_step))
    u_product_t_1 = u_product_t * u_t_1
    beta_2_power = tf.pow(beta_2, step)
    m, v = slots["momentum"], slots["velocity"]
    m_new = m.assign_add((g.dense - m.read_value()) * (1 - beta_1), read_value=True)
    v_new = v.assign_add((g.sq - v.read_value()) * (1 - beta_2), read_value=True)
    m_hat = (u_t_1 * m_new) / (1 - u_product_t_1) + ((1 - u_t) * g.dense) / (1 - u_product_t)
    v_hat = v_new / (1 - beta_2_power)
    return var.assign_sub((m_hat * lr) / (tf.sqrt(v_hat) + _c(tf, k.epsilon, dtype)), read_value=False)


def ftrl(o, var, slots, g: Grad, lr, it):
    tf, dtype, k = o.tf, var.dtype, o.k
    accum, linear = slots["accumulator"], slots["linear"]
    power = _c(tf, -k.learning_rate_power, dtype)
    l2_reg = k.l2_regularization_strength + k.beta / (2.0 * lr)
    value, accum_old = var.read_value(), accum.read_value()
    grad_to_use = g.dense + _c(tf, 2 * k.l2_shrinkage_regularization_strength, dtype) * value
    new_accum = accum_old + g.sq
    linear_new = linear.assign_add(
        grad_to_use - ((tf.pow(new_accum, power) - tf.pow(accum_old, power)) / lr) * value, read_value=True)
    quadratic = tf.pow(new_accum, power) / lr + 2 * l2_reg
    l1 = _c(tf, k.l1_regularization_strength, dtype)
    clipped = tf.clip_by_value(linear_new, -l1, l1)
    updated = var.assign((clipped - linear_new) / quadratic, read_value=False)
    return tf.group(updated, accum.assign(new_accum, read_value=False))


def lion(o, var, slots, g: Grad, lr, it):
    tf, dtype, k = o.tf, var.dtype, o.k
    beta_1, beta_2 = _c(tf, k.beta_1, dtype), _c(tf, k.beta_2, dtype)
    m = slots["momentum"]
    m_old = m.read_value()
    updated = var.assign_sub(lr * tf.sign(m_old * beta_1 + g.dense * (1.0 - beta_1)), read_value=False)
    with tf.control_dependencies([updated]):
        return m.assign(m_old * beta_2 + g.dense * (1.0 - beta_2), read_value=False)


RULES = {"sgd": sgd, "momentum": sgd, "adam": adam, "adamw": adam, "adagrad": adagrad, "rmsprop": rmsprop,
         "adadelta": adadelta, "adamax": adamax, "nadam": nadam, "ftrl": ftrl, "lion": lion}


def slots_of(name: str, k) -> list[tuple[str, float]]:
    """The per-variable slots of optimizer ``name`` (Keras' names for them) and their initial values."""
    if name in ("sgd", "momentum"):
        return [("momentum", 0.0)] if k.momentum else []
    if name in ("adam", "adamw"):
        return [("momentum", 0.0), ("velocity", 0.0)] + ([("velocity_hat", 0.0)] if k.amsgrad else [])
    if name == "adagrad":
        return [("accumulator", k.initial_accumulator_value)]
    if name == "rmsprop":
        return [("velocity", 0.0)] + ([("momentum", 0.0)] if k.momentum > 0 else []) \
            + ([("average_gradient", 0.0)] if k.centered else [])
    if name == "adadelta":
        return [("accumulated_grad", 0.0), ("accumulated_delta_var", 0.0)]
    if name == "adamax":
        return [("momentum", 0.0), ("norm", 0.0)]
    if name == "nadam":
        return [("momentum", 0.0), ("velocity", 0.0)]
    if name == "ftrl":
        return [("accumulator", k.initial_accumulator_value), ("linear", 0.0)]
    return [("momentum", 0.0)]  # lion

