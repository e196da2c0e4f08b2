"""The transformer's `ps` step with every variable split in 1 to 16 shards on one parameter server (stop 38).
``write SPEC OUT_DIR`` saves the eight strategies for a cluster spec, to be measured with ``autotune compare --model
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


def strategies(inv, spec) -> dict:
    from space.strategy import Strategy, partitioned_node, ps_node

    servers = [n.cpu_devices[0] for n in spec.nodes]

    def make(shards: int, *, proxy: bool = False, server: int = 0):
        """Every variable on one server; those with at least ``shards`` rows in that many shards."""
        nodes = []
        for v in inv.variables:
            part = ps_node(v.name, servers[server], local_replication=proxy)
            nodes.append(partitioned_node(v.name, v.shape, 0, [part] * shards)
                         if shards > 1 and v.shape and v.shape[0] >= shards else part)
        return Strategy.build(nodes, spec.replicas, builder="stop38-ps-pieces")

    return {"ps": make(1), "ps2": make(2), "ps4": make(4), "ps8": make(8), "ps16": make(16),
            "ps_proxy": make(1, proxy=True), "ps16_proxy": make(16, proxy=True), "ps16_h1": make(16, server=1)}


def main(argv: list[str]) -> int:
    return run(argv, HERE, MODEL, strategies, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
