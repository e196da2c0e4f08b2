"""A FLOP estimate of a traced graph: matmuls and convolutions exactly, every other op one FLOP per output."""
from __future__ import annotations

import math


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


def graph_flops(graph, _depth: int = 0) -> float:
    """Sum of per-op FLOP estimates over ``graph`` (one replica's forward + backward), and over the bodies of the
    functions it calls (a ``tf.function`` method of a ``tf.Module`` is one call op in the step's graph)."""
    total = 0.0
    for op in graph.get_operations():
        body = _called_graph(op) if _depth < 8 else None
        total += graph_flops(body, _depth + 1) if body is not None else _op_flops(op)
    return float(total)


def _called_graph(op):
    """The graph of the function a call op runs, where the tracing process still holds it."""
    if op.type not in ("PartitionedCall", "StatefulPartitionedCall"):
        return None
    try:
        fn = op.graph._get_function(op.get_attr("f").name)  # noqa: SLF001 - the traced functions' registry
    except (ValueError, AttributeError):
        return None
    return getattr(fn, "graph", None)


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

    known = ancestors([loss], set())  # the forward pass
    waits, flops = [], 0.0
    for g in reversed(grads):  # the last variable first: each waits for its own ops and the later ones'
        new = ancestors(parts(g), known)
        known |= new
        flops += sum(_op_flops(op) for op in new)
        waits.append(flops)
    total = waits[-1] if waits else 0.0
    if total <= 0:
        return [1.0] * len(grads)
    return [w / total for w in reversed(waits)]
