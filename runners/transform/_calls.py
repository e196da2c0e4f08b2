"""What the functions a traced step calls do with a variable handle it passes them: loops, conditionals and nested
function calls (``While``, ``If``, ``Case``, ``PartitionedCall`` and direct calls) take the handles of the variables
their bodies use as inputs. Read from the GraphDef and its function library, no TensorFlow needed."""
from __future__ import annotations

import dataclasses

LOOPS = frozenset({"While", "StatelessWhile"})
FUNCTIONAL = LOOPS | {"If", "StatelessIf", "Case", "StatelessCase", "PartitionedCall", "StatefulPartitionedCall"}
# inputs of a functional op before the called functions' arguments: a conditional's predicate or branch index
LEADING_INPUTS = {"If": 1, "StatelessIf": 1, "Case": 1, "StatelessCase": 1}
READS = frozenset({"ReadVariableOp", "ResourceGather", "ResourceGatherNd", "VariableShape", "VarIsInitializedOp"})
PASS_ON = frozenset({"Identity"})  # an op whose output is its input's handle


@dataclasses.dataclass(frozen=True)
class HandleUse:
    """How a step uses one variable handle: passed into a called function (``called``), and whether anything might
    write the variable (``written``: any op that is neither a known read nor a call, or a call other than a loop
    that hands the handle back out)."""

    called: bool = False
    written: bool = False

    def __or__(self, other: HandleUse) -> HandleUse:
        return HandleUse(self.called or other.called, self.written or other.written)


def _ref(x: str) -> tuple[str, int]:
    """``"node"``, ``"node:1"`` (graph) or ``"node:output:1"``, ``"arg"`` (function body) -> (node, output index)."""
    parts = x.split(":")
    return parts[0], int(parts[-1]) if len(parts) > 1 else 0


def _called(node, library: dict) -> list[str]:
    """Names of the library functions ``node`` calls: its function attributes, or the node itself."""
    if node.op in library:
        return [node.op]
    names = []
    for attr in node.attr.values():
        if attr.func.name:
            names.append(attr.func.name)
        names += [f.name for f in attr.list.func]
    return [n for n in names if n in library]


class HandleUses:
    """Follows handles through a GraphDef and its library (``graph_def.library``); results are kept per function
    argument, so a body called from several places is read once."""

    def __init__(self, graph_def) -> None:
        self.library = {f.signature.name: f for f in graph_def.library.function}
        self.graph_nodes = list(graph_def.node)
        self._bodies = {name: list(f.node_def) for name, f in self.library.items()}
        self._index: dict[int, dict] = {}
        self._args: dict[tuple[str, int], tuple[HandleUse, bool]] = {}

    def of(self, node_name: str) -> HandleUse:
        """How the step's graph uses the handle that node ``node_name`` (a placeholder) outputs."""
        use, _ = self._follow(self.graph_nodes, (node_name, 0), returns=())
        return use

    def _follow(self, nodes: list, start: tuple[str, int], returns) -> tuple[HandleUse, bool]:
        """(the use of the handle ``start`` of ``nodes``, whether it reaches one of ``returns``)."""
        consumers = self._consumers(nodes)
        use, escapes = HandleUse(), False
        refs, seen = [start], {start}
        while refs:
            ref = refs.pop()
            escapes |= ref in returns
            for node, pos in consumers.get(ref, ()):
                use, out = self._consume(node, pos, use)
                refs += [o for o in out if o not in seen]
                seen.update(out)
        return use, escapes

    def _consumers(self, nodes: list) -> dict:
        """(node, output index) -> the (node, input position) pairs of ``nodes`` that take it; built once a body."""
        key = id(nodes)
        if key not in self._index:
            index: dict = {}
            for node in nodes:
                for pos, x in enumerate(i for i in node.input if not i.startswith("^")):
                    index.setdefault(_ref(x), []).append((node, pos))
            self._index[key] = index
        return self._index[key]

    def _consume(self, node, pos: int, use: HandleUse) -> tuple[HandleUse, list]:
        """``use`` updated by ``node`` taking the handle as input ``pos``; the node's outputs that are the handle."""
        if node.op in READS:
            return use, []
        if node.op in PASS_ON:
            return use, [(node.name, 0)]
        functions = _called(node, self.library)
        if not functions or (node.op not in FUNCTIONAL and node.op not in self.library):
            return use | HandleUse(written=True), []
        arg = pos - LEADING_INPUTS.get(node.op, 0)
        use = use | HandleUse(called=True, written=arg < 0)
        for name in functions:
            inner, escapes = self._argument(name, arg) if arg >= 0 else (HandleUse(), False)
            use = use | inner | HandleUse(written=escapes and node.op not in LOOPS)
        return use, [(node.name, pos)] if node.op in LOOPS else []  # a loop's output i is its input i

    def _argument(self, name: str, arg: int) -> tuple[HandleUse, bool]:
        """How function ``name`` uses its argument ``arg``, and whether it returns it."""
        key = (name, arg)
        if key not in self._args:
            self._args[key] = (HandleUse(called=True, written=True), True)  # a recursive call: assume the worst
            f = self.library[name]
            if arg >= len(f.signature.input_arg):
                return self._args[key]
            returns = {_ref(v) for v in f.ret.values()}
            self._args[key] = self._follow(self._bodies[name], (f.signature.input_arg[arg].name, 0), returns)
        return self._args[key]
