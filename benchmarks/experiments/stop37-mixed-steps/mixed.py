"""PS steps of the transformer with one or two small variables all-reduced (stop 37). ``write SPEC OUT_DIR`` saves
the eight strategies for a cluster spec, to be measured with ``autotune compare --model
examples/models/transformer.py --spec SPEC --repeats 3 OUT_DIR/*.pb -o OUT``; ``predict`` predicts them with the
calibration kept here and sets each prediction beside ``compare.csv`` (see README.md).
"""
from __future__ import annotations

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from _experiment import ROOT  # it puts the repository on the path
from _experiment import main as run

MODEL = ROOT / "examples" / "models" / "transformer.py"
HEAD = ("transformer/head/kernel:0", "transformer/head/bias:0")  # ready first in the backward pass
FIRST = ("transformer/positions:0",)  # read first, ready last


def strategies(inv, spec) -> dict:
    from space.builders import build_strategy
    from space.strategy import Strategy, ar_node, partitioned_node, ps_node

    chief = spec.chief.cpu_devices[0]
    spread = {n.var_name: n.PSSynchronizer.reduction_destination
              for n in build_strategy("ps_lb", inv, spec).proto.node_config}

    def make(place, shards: int = 1, reduced: tuple = ()):
        nodes = []
        for v in inv.variables:
            if v.name in reduced:
                nodes.append(ar_node(v.name))
            elif shards > 1 and v.shape and v.shape[0] >= shards:
                nodes.append(partitioned_node(v.name, v.shape, 0, [ps_node(v.name, place(v.name))] * shards))
            else:
                nodes.append(ps_node(v.name, place(v.name)))
        return Strategy.build(nodes, spec.replicas, builder="stop37-mixed-steps")

    def on_chief(_name):
        return chief

    return {"ps": make(on_chief), "ps_ar_head": make(on_chief, reduced=HEAD),
            "ps_ar_first": make(on_chief, reduced=FIRST), "ps2": make(on_chief, 2),
            "ps2_ar_head": make(on_chief, 2, HEAD), "ps2_ar_first": make(on_chief, 2, FIRST),
            "ps_lb": make(spread.get), "ps_lb_ar_head": make(spread.get, reduced=HEAD)}


def main(argv: list[str]) -> int:
    return run(argv, HERE, MODEL, strategies, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
