"""The transformer's embedding placed apart from its dense variables (stop 36): writes the eight strategies for a
cluster spec, or predicts them with the calibration kept here and sets the prediction beside ``compare.csv``.

    python benchmarks/experiments/stop36-embedding-placement/placement.py write SPEC OUT_DIR
    autotune compare --model examples/models/transformer.py --spec SPEC --repeats 3 OUT_DIR/*.pb -o OUT
    python benchmarks/experiments/stop36-embedding-placement/placement.py predict
"""
from __future__ import annotations

import csv
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
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
    from space.cluster import load_cluster
    from space.model import load_inventory

    if argv[:1] == ["write"] and len(argv) == 3:
        spec = load_cluster(argv[1])
        for name, s in strategies(load_inventory(MODEL), spec).items():
            print(s.save(pathlib.Path(argv[2]) / f"{name}.pb"))
        return 0
    if argv != ["predict"]:
        print(__doc__, file=sys.stderr)
        return 2
    from simulator import Calibration, Scorer, calibration_path

    spec = load_cluster(HERE / "cluster.yml")
    inv = load_inventory(MODEL, cache_dir=HERE / "cache")
    cal = Calibration.load(calibration_path(HERE / "cache" / "calibration", spec, inv.model_hash), spec,
                           inv.model_hash)
    scorer = Scorer(inv, spec, cal.replace(residual=None))
    with open(HERE / "compare.csv") as fh:
        measured = {r["strategy"]: float(r["median_ms"]) for r in csv.DictReader(fh)}
    print(f"{'strategy':<16}{'predicted ms':>13}{'measured ms':>13}{'error':>8}")
    for name, s in strategies(inv, spec).items():
        p = scorer.predict(s).raw_step_time_s * 1e3
        print(f"{name:<16}{p:>13.2f}{measured[name]:>13.2f}{p / measured[name] - 1:>+8.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
