"""The transformer's embedding placed apart from its dense variables (stop 36): writes the eight strategies for a
cluster spec, or predicts them with the calibration kept here and sets the prediction beside ``compare.csv``.

    python benchmarks/experiments/stop36-embedding-placement/placement.py write SPEC OUT_DIR
    autotune compare --model examples/models/transformer.py --spec SPEC --repeats 3 OUT_DIR/*.pb -o OUT
    python benchmarks/experiments/stop36-embedding-placement/placement.py predict
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
    from space.strategy import Strategy, ar_node, ps_node

    emb = next(v.name for v in inv.variables if "embeddings" in v.name)
    chief = spec.chief.cpu_devices[0]

    def psgd(n, group=0):
        return ar_node(n, group=group, compressor="PowerSGDCompressor", powersgd_rank=2)

    def fp16(n, group=0):
        return ar_node(n, group=group, compressor="HorovodCompressor")

    def make(dense, embedding):
        return Strategy.build([embedding(v.name) if v.name == emb else dense(v.name) for v in inv.variables],
                              spec.replicas, builder="stop36-embedding-placement")

    return {"ar": make(ar_node, ar_node), "ar_emb_own": make(ar_node, lambda n: ar_node(n, group=1)),
            "ar_emb_ps": make(ar_node, lambda n: ps_node(n, chief)), "psgd": make(psgd, psgd),
            "psgd_emb_plain": make(psgd, lambda n: ar_node(n, group=1)),
            "psgd_emb_ps": make(psgd, lambda n: ps_node(n, chief)), "fp16": make(fp16, fp16),
            "fp16_emb_own": make(fp16, lambda n: fp16(n, group=1))}


def main(argv: list[str]) -> int:
    return run(argv, HERE, MODEL, strategies, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
