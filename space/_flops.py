"""A FLOP estimate of a traced graph: matmuls and convolutions exactly, every other op one FLOP per output; the
functions an op runs counted in: a loop's as often as it runs (``space._control_flow``), a conditional's costlier
branch."""
from __future__ import annotations

import contextlib
import dataclasses
import math
import re

import numpy as np

from space._control_flow import WHILE, TripCount, function_graph, loop, small, static_value


def _elems(shape) -> int:
    dims = shape.as_list() if shape.rank is not None else []
    return math.prod(d or 1 for d in dims)


def _op_flops(op) -> float:
    t = op.type
    try:
        if t == "MatMul":
            a = op.inputs[0].shape
            k = a[0] if op.get_attr("transpose_a") else a[1]
            return 2.0 * _elems(op.outputs[0].shape) * (k or 1)
        if t in ("BatchMatMulV2", "BatchMatMulV3", "BatchMatMul"):
            a = op.inputs[0].shape
            adj = op.get_attr("adj_x")
            k = a[-2] if adj else a[-1]
            return 2.0 * _elems(op.outputs[0].shape) * (k or 1)
        if t in ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "DepthwiseConv2dNative"):
            # every variant does as many multiply-adds as the forward conv: out_elems * kh * kw * cin
            if t == "Conv2DBackpropFilter":
                kshape = op.outputs[0].shape
                out = op.inputs[2].shape
            else:
                kshape = op.inputs[1].shape
                out = op.outputs[0].shape if t != "Conv2DBackpropInput" else op.inputs[2].shape
            kh, kw, cin = (kshape[0] or 1), (kshape[1] or 1), (kshape[2] or 1)
            return 2.0 * _elems(out) * kh * kw * (cin if t != "DepthwiseConv2dNative" else 1)
    except (ValueError, IndexError, TypeError):
        pass
    return float(sum(_elems(o.shape) for o in op.outputs if o.dtype.is_floating))


@dataclasses.dataclass(frozen=True)
class FlopCount:
    """FLOPs of a graph, and where its control flow made them an estimate: ``unknown_loops`` loops whose trip
    count the graph does not fix were counted once (the step computes at least this); ``capped_loops`` loops were
    counted to their ``maximum_iterations`` though a condition on data may end them sooner, and
    ``uneven_branches`` conditionals by their costlier branch, ``branch_excess`` FLOPs above their cheapest (the
    step computes at most this)."""

    flops: float = 0.0
    unknown_loops: int = 0
    capped_loops: int = 0
    uneven_branches: int = 0
    branch_excess: float = 0.0

    def __add__(self, other: "FlopCount") -> "FlopCount":
        return FlopCount(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other))))

    def times(self, n: int) -> "FlopCount":
        """This count for ``n`` runs (a loop's body): the FLOPs scale, the places an estimate was made do not."""
        return dataclasses.replace(self, flops=self.flops * n, branch_excess=self.branch_excess * n)

    @property
    def lower_bound(self) -> bool:
        """The step may compute more: a loop of unknown length was counted once."""
        return self.unknown_loops > 0

    @property
    def note(self) -> str:
        """What the count may miss or overstate, for a person; empty where control flow made it no estimate
        (conditionals whose branches differ by under 1% of the count are not worth a word)."""
        parts, upper = [], []
        if self.unknown_loops:
            parts.append(f"at least: {_count(self.unknown_loops, 'loop')} of unknown length counted once")
        if self.capped_loops:
            upper.append(f"{_count(self.capped_loops, 'loop')} counted to maximum_iterations")
        if self.uneven_branches and self.branch_excess >= 0.01 * self.flops:
            upper.append(f"{_count(self.uneven_branches, 'conditional')} counted by the costlier branch "
                         f"(up to {self.branch_excess / self.flops:.0%} of the count)")
        if upper:
            parts.append("at most: " + ", ".join(upper))
        return "; ".join(parts)


def _count(n: int, what: str) -> str:
    return f"a {what}" if n == 1 else f"{n} {what}s"


def count_flops(graph) -> FlopCount:
    """FLOPs of ``graph`` (one replica's forward + backward): every op's estimate, the bodies of the functions it
    calls (a ``tf.function`` method of a ``tf.Module`` is one call op in the step's graph), a loop's body and
    condition times its trip count, a conditional's costlier branch (an upper estimate where branches differ), all
    nested."""
    return _Counter().graph(graph, _captured_values(graph))


def graph_flops(graph) -> float:
    """:func:`count_flops`' total."""
    return count_flops(graph).flops


MAX_NESTING = 16  # functions within functions counted; deeper calls count as one op
_CALLS = ("PartitionedCall", "StatefulPartitionedCall")
_IFS = ("If", "StatelessIf")
_CASES = ("Case", "StatelessCase")
_GRADIENT_LOOP = re.compile(r"(.+)_grad_\d+$")  # while_v2 names a gradient loop's body after its forward loop's


class _Counter:
    """One count: it remembers each forward loop's trip count by its body's name, for the gradient loop that
    runs as often but inside another function (a loop in a function called in a loop), where the forward loop's
    counter reaches it through the outer loop's accumulators."""

    def __init__(self) -> None:
        self.forward_trips: dict[str, TripCount] = {}

    def graph(self, graph, known: dict, depth: int = 0) -> FlopCount:
        """``graph``'s FLOPs; ``known`` maps the names of its inputs to their values where a caller fixes them."""
        total = FlopCount()
        for op in graph.get_operations():
            total += self.op(op, known, depth)
        return total

    def op(self, op, known: dict, depth: int = 0) -> FlopCount:
        """FLOPs of one op: a call, a loop or a conditional with the functions it runs."""
        if depth < MAX_NESTING:
            if op.type in _CALLS:
                inner = function_graph(op, "f")
                if inner is not None:
                    return self.graph(inner, _arguments(op.inputs, inner, known), depth + 1)
            elif op.type in WHILE:
                return self.loop(op, known, depth)
            elif op.type in _IFS:
                branches = [function_graph(op, "then_branch"), function_graph(op, "else_branch")]
                return self.branches(op, branches, lambda pred: 0 if pred else 1, known, depth)
            elif op.type in _CASES:
                n = len(op.node_def.attr["branches"].list.func)
                branches = [function_graph(op, "branches", i) for i in range(n)]
                return self.branches(op, branches, lambda i: i if 0 <= i < n else n - 1, known, depth)
        return FlopCount(_op_flops(op))

    def loop(self, op, known: dict, depth: int) -> FlopCount:
        """A ``While`` op's body and condition times its trip count; the body once, noted, where that is
        unknown."""
        lp = loop(op, known)
        if lp is None:  # its functions are gone: the op alone, a loop of unknown length
            return FlopCount(_op_flops(op), unknown_loops=1)
        body = self.graph(lp.body, lp.bound_inputs(lp.body), depth + 1)
        cond = self.graph(lp.cond, lp.bound_inputs(lp.cond), depth + 1)
        trips = self.trips(op, lp)
        if trips.count is None:
            return body + cond + FlopCount(unknown_loops=1)
        counted = body.times(trips.count) + cond.times(trips.count + 1)
        return counted + FlopCount(capped_loops=1) if trips.capped else counted

    def trips(self, op, lp) -> TripCount:
        trips = lp.trips()
        name = op.get_attr("body").name
        forward = _GRADIENT_LOOP.match(name)
        if trips.count is None and forward:
            trips = self.forward_trips.get(forward.group(1), trips)
        self.forward_trips[name.removesuffix("_rewritten")] = trips  # its gradient is named after it unrewritten
        return trips

    def branches(self, op, branches: list, chosen, known: dict, depth: int) -> FlopCount:
        """A conditional's FLOPs: the branch its selector (input 0) picks where that is fixed, else the
        costliest."""
        if not branches or any(b is None for b in branches):
            return FlopCount(_op_flops(op))
        counts = [self.graph(b, _arguments(op.inputs[1:], b, known), depth + 1) for b in branches]
        selector = static_value(op.inputs[0], known)
        if selector is not None and selector.size == 1:
            return counts[chosen(selector.item())]
        costliest = max(counts, key=lambda c: c.flops)
        excess = costliest.flops - min(c.flops for c in counts)
        return costliest + FlopCount(uneven_branches=1, branch_excess=excess) if excess > 0 else costliest


def _arguments(inputs, inner, known: dict) -> dict:
    """The values of function graph ``inner``'s arguments that a caller passes from ``inputs`` and fixes."""
    out = {}
    for arg, value in zip(inner.inputs, inputs):
        v = static_value(value, known) if small(value) else None
        if v is not None:
            out[arg.name] = v
    return out


def _captured_values(graph) -> dict:
    """The values of the small constants a traced function captured from eager code (a loop's limit)."""
    out = {}
    for external, internal in getattr(graph, "captures", ()):
        if external.dtype.is_numpy_compatible and small(external):
            with contextlib.suppress(Exception):  # a symbolic tensor has no value to read
                out[internal.name] = np.asarray(external.numpy())
    return out


def gradient_ready(loss, grads) -> list[float]:
    """When each gradient of ``grads`` (in the model's order, the first layer first) is ready, as a share of the
    backward pass's FLOPs: those of the backward ops it depends on (ops the loss does not depend on) and of every
    later variable's, over every gradient's. The later layers' gradients come first, and on busy cores their
    weight gradients run before the input gradients reach an earlier layer, so a gradient waits for theirs too.

    A dense layer at the top of a CNN holds most of its parameters but gets its gradient after a sliver of the
    backward pass; by parameters it would come three quarters of the way through. An ``IndexedSlices``' values and
    indices both count; 1.0 each where the backward pass has no FLOPs.
    """

    def ancestors(tensors, known: set) -> set:
        """The ops ``tensors`` depend on that are not in ``known`` (whose own ancestors are all known)."""
        new, stack = set(), [t.op for t in tensors]
        while stack:
            op = stack.pop()
            if op in new or op in known:
                continue
            new.add(op)
            stack.extend(t.op for t in op.inputs)
            stack.extend(op.control_inputs)
        return new

    def parts(g) -> list:
        return [g.values, g.indices] if hasattr(g, "indices") and hasattr(g, "values") else [g]

    counter, values = _Counter(), _captured_values(loss.graph)
    counter.graph(loss.graph, values)  # the forward loops' trip counts, for their gradient loops
    known = ancestors([loss], set())  # the forward pass
    waits, flops = [], 0.0
    for g in reversed(grads):  # the last variable first: each waits for its own ops and the later ones'
        new = ancestors(parts(g), known)
        known |= new
        flops += sum(counter.op(op, values).flops for op in new)
        waits.append(flops)
    total = waits[-1] if waits else 0.0
    if total <= 0:
        return [1.0] * len(grads)
    return [w / total for w in reversed(waits)]
