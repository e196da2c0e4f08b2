"""The transformer's embedding in 1 to 16 shards on a parameter server, its dense variables all-reduced, and six
random mixes of the kept run of seed 126 that put the embedding on a PS (stop 38). ``write SPEC OUT_DIR`` saves the
sixteen strategies for a cluster spec, to be measured with ``autotune compare --model
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
EMBEDDING = "transformer/tokens/embeddings:0"  # sparse: its rows are gathered where each shard lives
DENSE_SPLIT = "transformer/block0/ff1/kernel:0"  # 64 x 128, for eight dense shards beside the whole embedding
KEPT = ROOT / "benchmarks" / "fidelity_runs" / "transformer-s126"
# random mixes of seeds 126-127 the cost model of stop 37 predicted 17-26% fast, each with the embedding on a PS
REPLAYS = {"r126_random6": "transformer/strategies/random6.pb", "r126_random9": "transformer/strategies/random9.pb",
           "r126_random1": "transformer/strategies/random1.pb",
           "r127_random13": "transformer-fresh/strategies/random13.pb",
           "r127_random10": "transformer-fresh/strategies/random10.pb",
           "r127_random11": "transformer-fresh/strategies/random11.pb"}


def strategies(inv, spec) -> dict:
    from space.strategy import Strategy, ar_node, partitioned_node, ps_node

    servers = [n.cpu_devices[0] for n in spec.nodes]
    chief = spec.chief.cpu_devices[0]

    def make(shards: int, *, proxy: bool = False, spread: bool = False, split_dense: int = 1, server: str = chief):
        nodes = []
        for v in inv.variables:
            if v.name == EMBEDDING:
                parts = [ps_node(v.name, servers[i % len(servers)] if spread else server, local_replication=proxy)
                         for i in range(shards)]
                nodes.append(partitioned_node(v.name, v.shape, 0, parts) if shards > 1 else parts[0])
            elif v.name == DENSE_SPLIT and split_dense > 1:
                nodes.append(partitioned_node(v.name, v.shape, 0, [ps_node(v.name, chief)] * split_dense))
            else:
                nodes.append(ar_node(v.name))
        return Strategy.build(nodes, spec.replicas, builder="stop38-sparse-shards")

    return {"emb1": make(1), "emb2": make(2), "emb4": make(4), "emb8": make(8), "emb16": make(16),
            "emb8_proxy": make(8, proxy=True), "emb8_spread": make(8, spread=True),
            "emb1_dense8": make(1, split_dense=8), "emb1_h2": make(1, server=servers[2]),
            "emb16_h2": make(16, server=servers[2]), **{name: replay(KEPT / path, spec) for name, path in REPLAYS.items()}}


def replay(path: pathlib.Path, spec):
    """A kept run's strategy on this experiment's cluster: the n-th node's devices become this one's n-th."""
    from space.cluster import load_cluster
    from space.strategy import Strategy

    kept = load_cluster(path.parents[1] / "cluster.yml")
    text = Strategy.load(path).to_text()
    for old, new in zip(kept.nodes, spec.nodes):
        text = text.replace(f'"{old.address}:', f'"{new.address}:')
    return Strategy.from_text(text, str(path))


def main(argv: list[str]) -> int:
    return run(argv, HERE, MODEL, strategies, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
