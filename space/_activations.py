"""The activations a replica holds through its step: the forward pass's tensors that the backward pass reads, read
from the traced step's graph at one replica's batch.

A step's memory peaks where the backward pass starts: every tensor the gradients need (a layer's input, a ReLU's
output, a softmax) is still held, with the replica's batch. Counting them in the graph gives the bytes at the
traced batch, which is the replica's (``BATCH`` is per replica), without running anything. Tensors whose size the
graph does not know (a ``while`` loop's accumulators, ragged or dynamic shapes) are not counted: an estimate from
below there (``docs/cost_model.md``).
"""
from __future__ import annotations

GRADIENT_SCOPE = "gradient_tape/"  # where ``tf.GradientTape`` names the backward pass's ops
# their outputs alias a variable's or a constant's buffer: nothing the step allocates
_ALIASES = {"ReadVariableOp", "Const", "VarHandleOp", "Identity"}


def _is_backward(op) -> bool:
    return op.name.startswith(GRADIENT_SCOPE) or f"/{GRADIENT_SCOPE}" in op.name


def _bytes(tensor) -> int:
    """The tensor's bytes where its shape and dtype give them, else 0."""
    dtype, shape = tensor.dtype, tensor.shape
    if dtype.name in ("resource", "variant", "string") or shape.rank is None or not shape.is_fully_defined():
        return 0
    n = 1
    for d in shape:
        n *= int(d)
    return n * dtype.size


def saved_activation_bytes(graph) -> int:
    """The bytes of the forward tensors of ``graph`` (a traced step: loss and gradients of one replica's batch)
    that a backward op reads, and of the batch itself (its placeholders)."""
    total = 0
    for op in graph.get_operations():
        if _is_backward(op) or op.type in _ALIASES:
            continue
        for t in op.outputs:
            if op.type == "Placeholder" or any(_is_backward(c) for c in t.consumers()):
                total += _bytes(t)
    return total
