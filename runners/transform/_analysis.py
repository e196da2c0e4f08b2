"""What a traced training step looks like, whatever the strategy: its batch inputs, the variable handles it
captures, each trainable variable's reads and the embedding gathers on them, what the functions it calls (loops,
conditionals) do with the handles, its outputs and side effects, and its GraphDef ready to import once per tower
(devices and colocation hints cleared, the static shapes of its tensors kept)."""
from __future__ import annotations

from runners.transform._calls import FUNCTIONAL, HandleUse, HandleUses
from space.errors import RunError


def _uses_of(g, placeholder: str, sparse: bool) -> tuple[list[str], list[str], list[str]]:
    """(its reads, its other consumers, the row gathers of its reads) of a variable's placeholder in graph ``g``; the
    gathers only where the variable's gradient is sparse and every consumer of every read is such a gather."""
    import tensorflow as tf

    reads, others, gathers, gatherable = [], [], [], True
    for op in g.get_operation_by_name(placeholder).outputs[0].consumers():
        if op.type != "ReadVariableOp":
            others.append(op.name)
            continue
        reads.append(op.name)
        for c in op.outputs[0].consumers():
            if c.type == "GatherV2" and c.inputs[0] is op.outputs[0] and c.get_attr("batch_dims") == 0 \
                    and tf.get_static_value(c.inputs[2]) == 0:
                gathers.append(c.name)
            else:
                gatherable = False
    return reads, others, (gathers if gatherable and gathers and sparse else [])


class TracedAnalysis:
    """What the traced step looks like: inputs, captured variable handles, reads, gathers."""

    def __init__(self, traced) -> None:
        import tensorflow as tf

        cf = traced.step_function
        g = cf.graph
        n_batch = len(tf.nest.flatten(traced.element_spec, expand_composites=True))
        self.batch_inputs = [t.name for t in cf.inputs[:n_batch]]
        by_handle = {id(v.handle): ("var", i) for i, v in enumerate(traced.trainable)}
        by_handle.update({id(v.handle): ("state", j) for j, v in enumerate(traced.state)})
        self.placeholders: dict[tuple, str] = {}
        self.constants: dict[str, object] = {}  # placeholder -> value of a captured constant (a regularizer's factor)
        tables = {id(t.handle): j for j, t in enumerate(getattr(traced, "tables", ()))}
        self.tables: dict[int, str] = {}  # lookup table (``traced.tables`` index) -> its placeholder
        for external, internal in g.captures:
            key = by_handle.get(id(external))
            if key is not None:
                self.placeholders[key] = internal.op.name
            elif id(external) in tables:
                self.tables[tables[id(external)]] = internal.op.name
            elif external.dtype != tf.resource and hasattr(external, "numpy"):
                self.constants[internal.op.name] = external.numpy()
            else:
                raise RunError(f"loss_fn uses a TensorFlow resource that is not a model variable ({internal.name}, "
                               f"captured from {getattr(external, 'name', type(external).__name__)}), {traced.path}",
                               hint="build lookup tables and other resources in dataset_fn, not in the model")
        self.reads: dict[int, list[str]] = {}
        self.gathers: dict[int, list[str]] = {}
        self.others: dict[int, list[str]] = {}
        for i in range(len(traced.trainable)):
            ph = self.placeholders.get(("var", i))
            if ph is not None:
                self.reads[i], self.others[i], self.gathers[i] = _uses_of(g, ph, traced.sparse[i])
        self.trainable_reads = {r for rs in self.reads.values() for r in rs}
        self.outputs = [t.name for t in cf.outputs]
        self.effects = [op.name for op in g.control_outputs if op.type != "ReadVariableOp"]
        self.structured_outputs = cf.structured_outputs
        # each op's static shapes as traced go along (``_output_shapes``, which the import merges into what it infers):
        # a shape set from Python is in no op, and without it the import infers less. A lookup table's values take
        # their keys' shape by ``set_shape`` alone; imported, a lookup has ids of unknown rank, and so has what follows
        # them, up to the gradient of the Dense layer after them, which then crosses to its PS with a shape unknown
        gdef = g.as_graph_def(add_shapes=True)
        for node in gdef.node:
            node.device = ""
            if "_class" in node.attr:
                del node.attr["_class"]  # colocation hints from tracing would pin ops to the tracing device
            keep = [x for x in node.input if not (x.startswith("^") and x[1:] in self.trainable_reads)]
            del node.input[:]
            node.input.extend(keep)  # reads of trainable variables need no ordering (nothing writes them)
        self.graph_def = gdef
        uses = HandleUses(gdef)
        self.uses: dict[tuple, HandleUse] = {key: uses.of(ph) for key, ph in self.placeholders.items()}
        self.functional = FUNCTIONAL | set(uses.library)  # op types that call a function of the library

    def copied(self, i: int) -> bool:
        """Whether trainable variable ``i`` is passed to a called function that only reads it: a tower-local
        copy, filled once a step, can stand for it there (a loop's body would read it once per iteration)."""
        use = self.uses.get(("var", i), HandleUse())
        return use.called and not use.written
