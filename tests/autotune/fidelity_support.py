"""Helpers shared by the fidelity harness' tests (imported as ``fidelity_support``)."""
from __future__ import annotations

import pathlib

from autotune import fidelity

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "models" / "mlp.py"
LOCAL = ROOT / "examples" / "clusters" / "localhost.yml"


def mlp_local(inventories, clusters, n):
    """A scorer of the mlp on the local cluster's nominal bandwidths, and the harness's first n picks."""
    from simulator import Calibration, Scorer

    inv, spec = inventories("mlp"), clusters["localhost"]
    return Scorer(inv, spec, Calibration.from_spec(spec)), fidelity.pick_strategies(inv, spec, n, seed=0)


def rows(measured, predicted, comm=None):
    comm = comm if comm is not None else [p * 0.5 for p in predicted]
    return [fidelity.Row(label=f"s{i}", strategy_id=f"id{i}", predicted_s=p, raw_s=p, compute_s=p - c, comm_s=c,
                         latency_s=0.0, measured_s=m) for i, (m, p, c) in enumerate(zip(measured, predicted, comm))]
