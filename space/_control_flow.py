"""Reading a traced graph's control flow: the functions an op runs, and how many times a ``While`` loop runs its
body where the graph alone tells.

A loop's condition is read as a boolean expression over its loop variables. A comparison ``i < n`` (``<=``, ``>``,
``>=``) counts iterations where ``i`` is a counter (the body adds a constant to it, and it starts at a known value)
and ``n`` is known before the loop runs: a constant, or a loop variable the body passes on unchanged.
``tf.while_loop``'s ``maximum_iterations`` is such a comparison (of a hidden loop counter), as is a Keras RNN's
``time < timesteps``; a gradient loop runs as many times as its forward loop's counter says. Values are found by
folding the few ops such limits are made of (``tf.get_static_value``, reductions, arithmetic, a finished loop's
counter).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

MAX_DEPTH = 32  # how deep values are folded through ops
_PASS_THROUGH = ("Identity", "Snapshot", "StopGradient")
_BINARY = {"AddV2": np.add, "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "FloorDiv": np.floor_divide,
           "FloorMod": np.mod, "Maximum": np.maximum, "Minimum": np.minimum, "Less": np.less,
           "LessEqual": np.less_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal, "Equal": np.equal,
           "NotEqual": np.not_equal, "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or}
_REDUCE = {"Max": np.max, "Min": np.min, "Sum": np.sum, "Prod": np.prod, "All": np.all, "Any": np.any}
_FLIPPED = {"Less": "Greater", "LessEqual": "GreaterEqual", "Greater": "Less", "GreaterEqual": "LessEqual"}
WHILE = ("While", "StatelessWhile")


def function_graph(op, attr: str, index: int | None = None):
    """The graph of the function ``op`` runs by its attribute ``attr`` (the ``index``-th of a list attribute such
    as a ``Case``'s branches), where the tracing process still holds it; else ``None``."""
    try:
        fn = op.get_attr(attr)
        name = (fn[index] if index is not None else fn).name
    except (ValueError, IndexError, AttributeError, TypeError):
        return None
    graph = op.graph
    while graph is not None:  # a function a nested graph calls may be registered in an enclosing one only
        try:
            found = graph._get_function(name)  # noqa: SLF001 - the traced functions' registry
        except (ValueError, AttributeError):
            found = None
        if found is not None:
            return getattr(found, "graph", None)
        graph = getattr(graph, "outer_graph", None)
    return None


def strip(t):
    """``t`` with the ops that only pass it on (``Identity``) looked through."""
    while t.op.type in _PASS_THROUGH and t.op.inputs:
        t = t.op.inputs[0]
    return t


def static_value(t, known: dict, _depth: int = 0):
    """The value (a numpy array) of graph tensor ``t`` if the graph fixes it, else ``None``. ``known`` maps the
    names of the graph's inputs (a function's arguments) to the values its caller passes, where those are known."""
    if t.name in known:
        return known[t.name]
    op = t.op
    if _depth > MAX_DEPTH:
        return None
    if op.type in _PASS_THROUGH or op.type == "Cast":
        v = static_value(op.inputs[0], known, _depth + 1)
        return v if v is None or op.type != "Cast" else v.astype(t.dtype.as_numpy_dtype)
    if op.type in _BINARY or op.type in _REDUCE:
        args = [static_value(x, known, _depth + 1) for x in op.inputs]
        if any(a is None for a in args):
            return None
        if op.type in _BINARY:
            return np.asarray(_BINARY[op.type](*args))
        axes = tuple(np.atleast_1d(args[1]).astype(int).tolist())
        if not axes:
            return args[0]
        return np.asarray(_REDUCE[op.type](args[0], axis=axes, keepdims=bool(op.get_attr("keep_dims"))))
    if op.type in ("StridedSlice", "Pack"):
        args = [static_value(x, known, _depth + 1) for x in op.inputs]
        if any(a is None for a in args):
            return None
        return _strided_slice(op, *args) if op.type == "StridedSlice" else np.stack(args, axis=op.get_attr("axis"))
    if op.type in WHILE:
        value, capped = _loop_output(op, t.value_index, known, _depth)
        return None if capped else value
    if not small(t, 10_000):  # a limit is not folded out of a large constant: reading one costs a copy
        return None
    import tensorflow as tf

    try:
        v = tf.get_static_value(t)
    except (TypeError, ValueError, NotImplementedError):
        return None
    return None if v is None else np.asarray(v)


def _strided_slice(op, x, begin, end, strides):
    """``x[begin:end:strides]`` as the op slices it, for the masks a shape's slice uses; ``None`` for others."""
    if op.get_attr("ellipsis_mask") or op.get_attr("new_axis_mask") or np.ndim(begin) != 1:
        return None
    masks = [op.get_attr(m) for m in ("begin_mask", "end_mask", "shrink_axis_mask")]
    index = []
    for i, (b, e, s) in enumerate(zip(begin.tolist(), end.tolist(), strides.tolist())):
        if masks[2] >> i & 1:
            index.append(b)
        else:
            index.append(slice(None if masks[0] >> i & 1 else b, None if masks[1] >> i & 1 else e, s))
    try:
        return np.asarray(np.asarray(x)[tuple(index)])
    except (IndexError, TypeError, ValueError):
        return None


def _scalar(v) -> float | None:
    return float(np.asarray(v).reshape(())) if v is not None and np.size(v) == 1 else None


@dataclasses.dataclass(frozen=True)
class TripCount:
    """How many times a loop runs its body: ``count`` (``None``: unknown); ``capped`` when that is only an upper
    limit (``maximum_iterations``, with a condition on data that may end the loop sooner)."""

    count: int | None
    capped: bool = False


@dataclasses.dataclass
class _Loop:
    """A ``While`` op with its functions, and the values known in the graph it lives in and in its functions."""

    op: object
    cond: object
    body: object
    known: dict  # the enclosing graph's

    def __post_init__(self) -> None:
        self.invariant = {}  # position -> value of the loop variables the body passes on unchanged
        self.at_most = {}  # the same where only an upper limit is known: a capped loop's counter
        for i, (arg, res) in enumerate(zip(self.body.inputs, self.body.outputs)):
            if i < len(self.op.inputs) and strip(res).name == arg.name and small(self.op.inputs[i]):
                v = static_value(self.op.inputs[i], self.known)
                if v is not None:
                    self.invariant[i] = v
                    continue
                source = strip(self.op.inputs[i])
                if source.op.type in WHILE:
                    v, capped = _loop_output(source.op, source.value_index, self.known, 0)
                    if v is not None and capped:
                        self.at_most[i] = v

    def bound_inputs(self, graph) -> dict:
        """The known values of ``graph``'s (the cond's or the body's) arguments: the unchanged loop variables'."""
        return {graph.inputs[i].name: v for i, v in self.invariant.items() if i < len(graph.inputs)}

    def trips(self) -> TripCount:
        kind, value = self.truth(self.cond.outputs[0], self.bound_inputs(self.cond), 0)
        if kind == "const":  # always true: something else ends it (or nothing); never true: the body never runs
            return TripCount(None if value else 0)
        return TripCount(*value) if kind == "trips" else TripCount(None)

    def truth(self, t, known: dict, depth: int) -> tuple:
        """What the condition's boolean ``t`` is: ("const", bool), ("trips", (n, capped)) -- true for the first n
        iterations only -- or ("unknown", None)."""
        t = strip(t)
        v = _scalar(static_value(t, known))
        if v is not None:
            return "const", bool(v)
        op = t.op
        if depth > MAX_DEPTH:
            return "unknown", None
        if op.type in ("LogicalAnd", "LogicalOr"):
            a, b = (self.truth(x, known, depth + 1) for x in op.inputs)
            return _both(a, b) if op.type == "LogicalAnd" else _either(a, b)
        if op.type in _FLIPPED:
            return self.comparison(op, known)
        return "unknown", None

    def comparison(self, op, known: dict) -> tuple:
        x, y = op.inputs
        for counter, limit, relation in ((x, y, op.type), (y, x, _FLIPPED[op.type])):
            start_step = self.counter(counter)
            if start_step is None:
                continue
            end, capped = _scalar(static_value(limit, known)), False
            if end is None and relation in ("Less", "LessEqual"):  # a larger end only makes more iterations
                end, capped = _scalar(self.at_most.get(self.position(limit))), True
            n = None if end is None else _iterations(*start_step, end, relation)
            if n is not None:
                return "trips", (n, capped)
        return "unknown", None

    def position(self, t) -> int | None:
        """Which loop variable the condition's argument ``t`` is."""
        names = [x.name for x in self.cond.inputs]
        t = strip(t)
        return names.index(t.name) if t.name in names else None

    def counter(self, t) -> tuple[float, float] | None:
        """(start, step) of the condition's argument ``t`` if it is a counter: a known start, a constant step."""
        i = self.position(t)
        return None if i is None else self.counter_at(i)

    def counter_at(self, i: int) -> tuple[float, float] | None:
        if i >= len(self.body.outputs) or i >= len(self.op.inputs):
            return None
        update, arg = strip(self.body.outputs[i]), self.body.inputs[i].name
        if update.op.type not in ("AddV2", "Add", "Sub"):
            return None
        a, b = update.op.inputs
        if strip(a).name == arg:
            step = static_value(b, self.bound_inputs(self.body))
        elif strip(b).name == arg and update.op.type != "Sub":
            step = static_value(a, self.bound_inputs(self.body))
        else:
            return None
        start, step = _scalar(static_value(self.op.inputs[i], self.known)), _scalar(step)
        if start is None or step is None:
            return None
        return start, -step if update.op.type == "Sub" else step


def loop(op, known: dict) -> _Loop | None:
    """The ``While`` op ``op`` read with the values ``known`` in its graph; ``None`` without its functions."""
    cond, body = function_graph(op, "cond"), function_graph(op, "body")
    if cond is None or body is None or not cond.outputs:
        return None
    return _Loop(op, cond, body, known)


def _iterations(start: float, step: float, end: float, relation: str) -> int | None:
    """How many of start, start + step, ... satisfy ``value RELATION end`` before the first that does not."""
    if relation in ("Greater", "GreaterEqual"):  # counting down: mirror it
        start, step, end = -start, -step, -end
        relation = "Less" if relation == "Greater" else "LessEqual"
    if step <= 0:
        return None  # this comparison never ends the loop
    span = (end - start) / step
    return max(0, math.ceil(span) if relation == "Less" else math.floor(span) + 1)


def _both(a: tuple, b: tuple) -> tuple:
    """``a and b``: the loop stops at the first false one; an unknown side may only stop it sooner."""
    for x, y in ((a, b), (b, a)):
        if x[0] == "const":
            return y if x[1] else x
    if a[0] == "trips" and b[0] == "trips":
        return "trips", (min(a[1][0], b[1][0]), a[1][1] or b[1][1])
    for x in (a, b):
        if x[0] == "trips":
            return "trips", (x[1][0], True)
    return "unknown", None


def _either(a: tuple, b: tuple) -> tuple:
    """``a or b``: the loop runs while either holds."""
    for x, y in ((a, b), (b, a)):
        if x[0] == "const":
            return x if x[1] else y
    if a[0] == "trips" and b[0] == "trips" and not (a[1][1] or b[1][1]):
        return "trips", (max(a[1][0], b[1][0]), False)
    return "unknown", None


def _loop_output(op, index: int, known: dict, depth: int) -> tuple:
    """(value, capped) a finished loop leaves in loop variable ``index``: an unchanged one's, or a counter's last
    (capped: at most that, where the loop may end before its ``maximum_iterations``); value ``None`` if unknown."""
    lp = loop(op, known) if depth <= MAX_DEPTH else None
    if lp is None:
        return None, False
    if index in lp.invariant:
        return lp.invariant[index], False
    start_step = lp.counter_at(index)
    trips = lp.trips() if start_step is not None else TripCount(None)
    if trips.count is None or (trips.capped and start_step[1] < 0):  # counting down: fewer trips end higher
        return None, False
    start, step = start_step
    return np.asarray(start + trips.count * step).astype(op.outputs[index].dtype.as_numpy_dtype), trips.capped


def small(t, limit: int = 64) -> bool:
    """Whether ``t`` has a static shape of at most ``limit`` elements: a loop's limit may be one, a batch is not."""
    n = t.shape.num_elements() if t.shape.rank is not None else None
    return n is not None and n <= limit
