"""What the experiments' scripts share: ``write SPEC OUT_DIR`` saves their strategies for a cluster spec; ``predict``
predicts them with the calibration kept beside the script (``cluster.yml``, ``cache/``), no residual, and sets each
prediction beside the median step ``compare.csv`` measured (and, where a later ``compare2.csv`` measured it again,
those medians after it)."""
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
    from simulator import Scorer

    spec, inv, cal = kept_calibration(here, model)
    scorer = Scorer(inv, spec, cal.replace(residual=None))
    measured: dict[str, list[float]] = {}  # per strategy, its median step in each compare run (compare*.csv)
    for path in sorted(here.glob("compare*.csv")):
        with open(path) as fh:
            for r in csv.DictReader(fh):
                measured.setdefault(r["strategy"], []).append(float(r["median_ms"]))
    print(f"{'strategy':<16}{'predicted ms':>13}{'measured ms':>13}{'error':>8}  measured again")
    for name, s in strategies(inv, spec).items():
        p = scorer.predict(s).raw_step_time_s * 1e3
        first, *again = measured[name]
        print(f"{name:<16}{p:>13.2f}{first:>13.2f}{p / first - 1:>+8.0%}  " + " ".join(f"{m:.2f}" for m in again))
    return 0


def kept_calibration(here: pathlib.Path, model: pathlib.Path, say: Callable[[str], None] | None = None):
    """(cluster spec, inventory, calibration) kept beside an experiment's script, the calibration's costs as this
    checkout's cost model derives them from its anchor steps (as ``search`` does with a file an older calibrate
    wrote; ``say`` gets the line that says so, stderr by default)."""
    from autotune.calibration import current_costs
    from simulator import Calibration, calibration_path
    from space.cluster import load_cluster
    from space.model import load_inventory

    spec = load_cluster(here / "cluster.yml")
    inv = load_inventory(model, cache_dir=here / "cache")
    cal = Calibration.load(calibration_path(here / "cache" / "calibration", spec, inv.model_hash), spec,
                           inv.model_hash)
    return spec, inv, current_costs(cal, inv, spec, say or (lambda line: print(line, file=sys.stderr)))
