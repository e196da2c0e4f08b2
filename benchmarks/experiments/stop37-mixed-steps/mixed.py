"""PS steps of the transformer with one or two small variables all-reduced (stop 37): writes the strategies for a
cluster spec, or predicts them with the calibration kept here and sets the prediction beside ``compare.csv``.

    python benchmarks/experiments/stop37-mixed-steps/mixed.py write SPEC OUT_DIR
    autotune compare --model examples/models/transformer.py --spec SPEC --repeats 3 OUT_DIR/*.pb -o OUT
    python benchmarks/experiments/stop37-mixed-steps/mixed.py predict
"""
from __future__ import annotations

import csv
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))
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
