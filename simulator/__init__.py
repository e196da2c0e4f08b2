"""autotune's cost-model simulator: predicted step time of a strategy, its lower bound, calibration (from what
``autotune calibrate`` measured), fidelity.

Pure Python + numpy; importing it never imports TensorFlow. For a search build one :class:`Scorer` and call
``predict`` / ``score_many`` / ``score_choices``; the module-level :func:`predict` reuses the last Scorer.
"""
from __future__ import annotations

from space.cluster import ClusterSpec
from space.inventory import Inventory
from space.strategy import Strategy
from simulator._anchor_costs import (ANCHOR_MISFIT, ANCHOR_PAIRS, PIECE_PAIRS, RESOLVED_SE, anchor_costs, anchor_fit,
                                     anchor_misfits, borrowed_piece_cost, pair_difference, resolved)
from simulator._bound import distance, floor_s, lower_bound
from simulator._calibration import (COST_MODEL_VERSION, Calibration, CalibrationError, StaleCalibration,
                                    calibration_path, link_key)
from simulator._fidelity import (apply_residual, features, fidelity, fit_alpha_beta, fit_residual, kendall_tau, mape,
                                 top1_regret, topk_regret)
from simulator._from_measurements import (LinkFit, fit_link, powersgd_constants, powersgd_flops, to_calibration,
                                          with_links)
from simulator._prediction import COUNT_UNIT_S, Bound, Distance, Prediction
from simulator._breakdown import Breakdown, LinkPart
from simulator._choices import Choices
from simulator._memory import PARTS as MEMORY_PARTS, MemoryPlan, Misfit, NodeMemory, fit_job_memory
from simulator._scorer import Scorer

__all__ = ["predict", "Scorer", "Choices", "Prediction", "Calibration", "CalibrationError", "StaleCalibration",
           "calibration_path", "link_key", "lower_bound", "floor_s", "distance", "Bound", "Distance", "kendall_tau",
           "mape",
           "top1_regret", "topk_regret", "fidelity", "fit_residual", "apply_residual", "features", "fit_alpha_beta",
           "COUNT_UNIT_S", "COST_MODEL_VERSION",
           # calibrate's measurements -> a Calibration
           "to_calibration", "with_links", "LinkFit", "fit_link", "powersgd_constants", "powersgd_flops",
           # the anchor steps -> their costs, and how well those predict them
           "anchor_costs", "anchor_fit", "anchor_misfits", "ANCHOR_MISFIT", "ANCHOR_PAIRS", "PIECE_PAIRS",
           "RESOLVED_SE", "pair_difference", "resolved", "borrowed_piece_cost",
           # what a strategy keeps resident per node (Scorer.memory)
           "MemoryPlan", "NodeMemory", "Misfit", "MEMORY_PARTS", "fit_job_memory",
           # the predicted step by part (Scorer.breakdown)
           "Breakdown", "LinkPart"]

_last: tuple[Inventory, ClusterSpec, Calibration, Scorer] | None = None


def predict(strategy: Strategy, inventory: Inventory, cluster: ClusterSpec, calibration: Calibration) -> Prediction:
    """Predicted step time of ``strategy`` and its parts; reuses the Scorer of the previous call's inputs."""
    global _last
    if _last is None or not (_last[0] is inventory and _last[1] is cluster and _last[2] is calibration):
        _last = (inventory, cluster, calibration, Scorer(inventory, cluster, calibration))
    return _last[3].predict(strategy)
