"""The transformer's PS shards on one server against shards spread over the three servers (stop 39).
``write SPEC OUT_DIR`` saves the seven strategies for a cluster spec, to be measured with ``autotune compare --model
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
SHARDS = 4  # as calibrate's ``ps_split`` anchor


def strategies(inv, spec) -> dict:
    from space.strategy import Strategy, partitioned_node, ps_node

    servers = [n.cpu_devices[0] for n in spec.nodes]

    def make(place, *, split: bool, proxy: bool = False):
        """Every variable on PS; ``place(i, j)``: the server of shard j of the i-th variable (j = 0 whole). With
        ``split``, those with at least ``SHARDS`` rows in that many shards."""
        nodes = []
        for i, v in enumerate(inv.variables):
            if split and v.shape and v.shape[0] >= SHARDS:
                parts = [ps_node(v.name, servers[place(i, j)], local_replication=proxy) for j in range(SHARDS)]
                nodes.append(partitioned_node(v.name, v.shape, 0, parts))
            else:
                nodes.append(ps_node(v.name, servers[place(i, 0)], local_replication=proxy))
        return Strategy.build(nodes, spec.replicas, builder="stop39-spread-pieces")

    chief = lambda i, j: 0
    by_variable = lambda i, j: i % len(servers)  # a variable's shards on its own server
    by_shard = lambda i, j: (i + j) % len(servers)  # a variable's shards over every server
    return {"ps": make(chief, split=False), "ps4": make(chief, split=True),
            "rr": make(by_variable, split=False), "rr4_own": make(by_variable, split=True),
            "rr4_spread": make(by_shard, split=True),
            "rr_proxy": make(by_variable, split=False, proxy=True),
            "rr4_spread_proxy": make(by_shard, split=True, proxy=True)}


def main(argv: list[str]) -> int:
    return run(argv, HERE, MODEL, strategies, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
