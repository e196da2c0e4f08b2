"""What the experiments' scripts share: ``write SPEC OUT_DIR`` saves their strategies for a cluster spec; ``predict``
predicts them with the calibration kept beside the script (``cluster.yml``, ``cache/``), no residual, and sets each
prediction beside the median step ``compare.csv`` measured."""
from __future__ import annotations

import csv
import pathlib
import sys
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def main(argv: list[str], here: pathlib.Path, model: pathlib.Path, strategies: Callable, usage: str) -> int:
    from space.cluster import load_cluster
    from space.model import load_inventory

    if argv[:1] == ["write"] and len(argv) == 3:
        spec = load_cluster(argv[1])
        for name, s in strategies(load_inventory(model), spec).items():
            print(s.save(pathlib.Path(argv[2]) / f"{name}.pb"))
        return 0
    if argv != ["predict"]:
        print(usage, file=sys.stderr)
        return 2
    from simulator import Calibration, Scorer, calibration_path

    spec = load_cluster(here / "cluster.yml")
    inv = load_inventory(model, cache_dir=here / "cache")
    cal = Calibration.load(calibration_path(here / "cache" / "calibration", spec, inv.model_hash), spec,
                           inv.model_hash)
    scorer = Scorer(inv, spec, cal.replace(residual=None))
    with open(here / "compare.csv") as fh:
        measured = {r["strategy"]: float(r["median_ms"]) for r in csv.DictReader(fh)}
    print(f"{'strategy':<16}{'predicted ms':>13}{'measured ms':>13}{'error':>8}")
    for name, s in strategies(inv, spec).items():
        p = scorer.predict(s).raw_step_time_s * 1e3
        print(f"{name:<16}{p:>13.2f}{measured[name]:>13.2f}{p / measured[name] - 1:>+8.0%}")
    return 0
