"""Running the user's code without changing the model: every variable an object holds, and a block after which
they all have their values back (a first loss run eagerly must not train). TensorFlow is imported inside."""
from __future__ import annotations

import collections
import contextlib
import types


def reachable_variables(obj, depth: int = 5) -> list:
    """The ``tf.Variable``s an object holds: those Keras or ``tf.Module`` tracks, and plain ones set as attributes
    (Keras 3 does not track those), searched through attributes, lists and dicts, breadth first (an object is
    reached by its shortest path, so the depth limit cannot hide one reached first by a longer one)."""
    import tensorflow as tf

    found: dict[int, object] = {}
    seen: set[int] = set()
    queue = collections.deque([(obj, depth)])
    while queue:
        x, d = queue.popleft()
        if id(x) in seen or d < 0:
            continue
        seen.add(id(x))
        if isinstance(x, tf.Variable):
            found.setdefault(id(x.handle), x)
            continue
        inner = getattr(x, "_value", None)  # a Keras variable
        if isinstance(inner, tf.Variable):
            found.setdefault(id(inner.handle), inner)
            continue
        if isinstance(x, (list, tuple)):
            children = list(x)
        elif isinstance(x, dict):
            children = list(x.values())
        elif hasattr(x, "__dict__") and not isinstance(x, (type, types.ModuleType)) and (
                isinstance(x, tf.Module) or keras_object(x) or d == depth):
            children = list(getattr(x, "variables", None) or []) + list(vars(x).values())
        else:
            continue
        queue.extend((c, d - 1) for c in children)
    return list(found.values())


class values_kept:
    """Within the block, user code may run eagerly (the first loss), but no variable keeps what it assigned: those
    that existed get their values back, those created inside (lazily built layers) their initial values."""

    def __init__(self, model) -> None:
        self.model = model

    def __enter__(self) -> "values_kept":
        import tensorflow as tf

        self.saved = [(v, v.numpy()) for v in reachable_variables(self.model)]
        self.created: list = []

        def creator(next_creator, **kwargs):
            v = next_creator(**kwargs)
            with contextlib.suppress(Exception):  # a variable whose value cannot be read yet is left alone
                self.created.append((v, v.numpy()))
            return v

        self._scope = tf.variable_creator_scope(creator)
        self._scope.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._scope.__exit__(*exc)
        for v, value in self.saved + self.created:
            with contextlib.suppress(Exception):
                v.assign(value)


def keras_object(x) -> bool:
    """Whether ``x`` is of a Keras class, a user's subclass of one (a custom layer) included."""
    return any(c.__module__.startswith(("keras", "tf_keras")) for c in type(x).__mro__)
