"""SGD, momentum and Adam as raw resource ops, with Keras 3's update rules (so results equal ``model.fit``).

Slots are created by the caller inside the device scope of their variable (or shard): they live with it.
Sparse gradients (``tf.IndexedSlices``): SGD applies them as a scatter; momentum and Adam follow Keras' dense
semantics (every row's slot decays each step), so they are densified where the variable lives.
"""
from __future__ import annotations

from typing import Any

DEFAULTS = {"sgd": {}, "momentum": {"momentum": 0.9, "nesterov": False},
            "adam": {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}}


class Optimizer:
    """One optimizer configuration (``TracedStep.optimizer``) applied per variable or shard."""

    def __init__(self, config: dict[str, Any]) -> None:
        name = config.get("name", "sgd")
        if name not in DEFAULTS:
            raise ValueError(f"optimizer name must be one of {sorted(DEFAULTS)}, but got {name!r}")
        self.name = name
        self.config = {**DEFAULTS[name], **{k: v for k, v in config.items() if k != "name"}}
        self.learning_rate = float(self.config.get("learning_rate", 0.01))

    def slot_names(self) -> list[str]:
        return {"sgd": [], "momentum": ["momentum"], "adam": ["m", "v", "t"]}[self.name]

    def create_slots(self, var, make_variable) -> dict[str, Any]:
        """``make_variable(name, np_value)`` creates a variable in the caller's device scope."""
        import numpy as np

        shape, dtype = var.shape.as_list(), var.dtype.as_numpy_dtype
        out = {}
        for s in self.slot_names():
            value = np.zeros([], np.float32) if s == "t" else np.zeros(shape, dtype)
            out[s] = make_variable(s, value)
        return out

    def apply(self, var, slots: dict[str, Any], grad):
        """The op applying ``grad`` (already reduced) to ``var``; runs on ``var``'s device."""
        import tensorflow as tf

        raw = tf.raw_ops
        lr = tf.constant(self.learning_rate, var.dtype)
        if isinstance(grad, tf.IndexedSlices):
            if self.name == "sgd":
                return raw.ResourceScatterAdd(resource=var.handle, indices=grad.indices, updates=-lr * grad.values)
            grad = tf.convert_to_tensor(grad)
        if self.name == "sgd":
            return raw.ResourceApplyGradientDescent(var=var.handle, alpha=lr, delta=grad, use_locking=True)
        if self.name == "momentum":
            return raw.ResourceApplyKerasMomentum(var=var.handle, accum=slots["momentum"].handle, lr=lr, grad=grad,
                                                  momentum=tf.constant(float(self.config["momentum"]), var.dtype),
                                                  use_locking=True, use_nesterov=bool(self.config["nesterov"]))
        return self._adam(var, slots, grad, lr)

    def _adam(self, var, slots: dict[str, Any], grad, lr):
        """Keras 3's Adam, op for op. Not ``ResourceApplyAdam``: it takes ``1 - beta_2`` in float32 from a float32
        ``beta_2`` (0.00099998713 for 0.999), where Keras rounds the double 0.001 (0.001): a 1.3e-5 relative
        difference in every second moment, 6.7e-6 in every update."""
        import tensorflow as tf

        dtype = var.dtype
        b1, b2 = float(self.config["beta_1"]), float(self.config["beta_2"])
        t = tf.cast(slots["t"].assign_add(1.0, read_value=True), dtype)
        alpha = lr * tf.sqrt(1 - tf.pow(tf.constant(b2, dtype), t)) / (1 - tf.pow(tf.constant(b1, dtype), t))
        m, v = slots["m"], slots["v"]
        m_new = m.assign_add((grad - m.read_value()) * tf.constant(1 - b1, dtype), read_value=True)
        v_new = v.assign_add((tf.square(grad) - v.read_value()) * tf.constant(1 - b2, dtype), read_value=True)
        return var.assign_sub((m_new * alpha) / (tf.sqrt(v_new) + tf.constant(float(self.config["epsilon"]), dtype)),
                              read_value=False)

    def keras(self):
        """The equivalent Keras optimizer (the single-device reference)."""
        import keras

        c = self.config
        if self.name == "sgd":
            return keras.optimizers.SGD(self.learning_rate)
        if self.name == "momentum":
            return keras.optimizers.SGD(self.learning_rate, momentum=c["momentum"], nesterov=c["nesterov"])
        return keras.optimizers.Adam(self.learning_rate, beta_1=c["beta_1"], beta_2=c["beta_2"], epsilon=c["epsilon"])
