"""The validation step in the training graph: the traced ``val_dataset_fn`` step imported once more on the chief's
first replica, reading the variables where the strategy keeps them, fed one validation batch per call by the
driver. It is built after the training step and its copies, and nothing of the training step waits on it: a call
that fetches it runs it alone."""
from __future__ import annotations

import dataclasses
import types
from typing import Any, Callable

from runners.transform import _tower
from runners.transform._analysis import TracedAnalysis
from runners.transform._views import Towers


@dataclasses.dataclass
class EvalOps:
    """The validation step's placeholders (one per flat batch tensor), loss and predictions (or ``()``)."""

    feeds: list
    loss: Any
    outputs: Any


def build_eval(traced, towers: Towers, tower_side: Callable[[int], _tower.TowerSide], node: str) -> EvalOps | None:
    """The validation step of ``traced`` on the first replica of the node at address ``node`` (the first replica
    of all where none is there), or None without ``val_dataset_fn``; ``tower_side``: what importing the step as a
    tower reads, once the training step is synchronized. Its reads count no bytes: a step's bytes are what the
    training step runs (``_traffic``), which never waits on it."""
    import tensorflow as tf

    if getattr(traced, "eval_function", None) is None:
        return None
    like = types.SimpleNamespace(step_function=traced.eval_function, element_spec=traced.eval_spec,
                                 trainable=traced.trainable, state=traced.state, sparse=traced.sparse,
                                 path=traced.path, tables=traced.tables)
    an = TracedAnalysis(like)
    flat = tf.nest.flatten(traced.eval_spec, expand_composites=True)
    r = towers.addresses.index(node) if node in towers.addresses else 0
    with tf.compat.v1.device(towers.devices[r]), tf.name_scope("eval"):
        feeds = [tf.compat.v1.placeholder(s.dtype, s.shape, name=f"batch{i}") for i, s in enumerate(flat)]
    loss, outputs, _ = _tower.import_tower(tower_side(r), feeds, an)
    return EvalOps(feeds=feeds, loss=loss, outputs=outputs[0] if outputs else ())
