"""Which of a calibration's anchor steps the cost model needs: the archived fidelity runs predicted again without some.

    python benchmarks/anchor_ablation.py [--runs tests/fixtures/fidelity_runs]

No cluster and no TensorFlow: each archived run (``tests/fixtures/fidelity_runs/<model>-s<seed>/``: 30 strategies
measured on the 3-host testbed and the calibration taken before them) is predicted again by this checkout's cost
model, its residual left out (a search's quick calibration has none):

- with its own anchors; with every anchor but one (the costs that anchor sets fall back to their defaults); with a
  few subsets; with none;
- with another model's anchor costs in place of its own (every other archived model in turn), as a calibration
  that measured the cluster once with one model and reused it for the next would predict.

Prints MAPE and Kendall tau per variant: the median over the runs and the worst run.
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SUBSETS = [("all_reduce", "ps"), ("all_reduce", "ps", "ps_split", "ar_split"), ()]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=pathlib.Path, default=ROOT / "tests" / "fixtures" / "fidelity_runs")
    args = ap.parse_args()
    from autotune import fidelity
    from autotune.calibration import DERIVED
    from autotune.fidelity import _io as fidelity_io
    from simulator import Calibration, Scorer, anchor_costs, calibration_path
    from space.cluster import load_cluster
    from space.model import load_inventory

    runs = {}
    for archive in sorted(d for d in args.runs.iterdir() if d.is_dir()):
        name = archive.name.rsplit("-s", 1)[0]
        spec = load_cluster(archive / name / "cluster.yml")
        inv = load_inventory(ROOT / "examples" / "models" / f"{name}.py", cache_dir=archive / "cache")
        stored = Calibration.load(calibration_path(archive / "cache" / "calibration", spec, inv.model_hash), spec,
                                  inv.model_hash).replace(residual=None)
        runs[archive.name] = (name, spec, inv, stored, fidelity_io.load_measured(archive / name))
    defaults = {k: Calibration.__dataclass_fields__[k].default for k in DERIVED}

    def score(run: str, cal) -> tuple[float, float]:
        _, spec, inv, _, (picked, measured) = runs[run]
        m = fidelity.repredict(Scorer(inv, spec, cal), picked, measured).metrics
        return m["mape"], m["kendall_tau"]

    def only(run: str, keep) -> object:
        _, spec, inv, stored, _ = runs[run]
        cal = stored.replace(anchors_s={k: v for k, v in stored.anchors_s.items() if k in keep},
                             anchor_rounds_s={k: v for k, v in (stored.anchor_rounds_s or {}).items() if k in keep},
                             **defaults)
        return anchor_costs(cal, inv, spec)

    every = sorted({a for *_, stored, _ in runs.values() for a in stored.anchors_s})
    variants = [("every anchor", tuple(every))]
    variants += [(f"all but {a}", tuple(x for x in every if x != a)) for a in every]
    variants += [(" + ".join(s) if s else "none", s) for s in SUBSETS]
    rows = [(label, [score(run, only(run, keep)) for run in runs]) for label, keep in variants]
    borrowed = []
    for run, (name, spec, inv, stored, _) in runs.items():
        own = anchor_costs(stored, inv, spec)
        for donor, (other, d_spec, d_inv, d_stored, _) in runs.items():
            if other != name:
                costs = anchor_costs(d_stored, d_inv, d_spec)
                borrowed.append((run, score(run, own.replace(anchors_s={}, anchor_rounds_s={},
                                                             **{k: getattr(costs, k) for k in DERIVED}))))
    per_run = {run: [s for r, s in borrowed if r == run] for run in runs}
    rows.append(("another model's anchor costs (median over donors)",
                 [(statistics.median(m for m, _ in v), statistics.median(t for _, t in v)) for v in per_run.values()]))
    print(f"{len(runs)} archived runs: {', '.join(runs)}\n")
    print("| anchors | MAPE median | MAPE worst | tau median | tau worst |")
    print("|---|---|---|---|---|")
    for label, scores in rows:
        mape, tau = [m for m, _ in scores], [t for _, t in scores]
        print(f"| {label} | {statistics.median(mape):.1%} | {max(mape):.1%} | {statistics.median(tau):.2f} | "
              f"{min(tau):.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
