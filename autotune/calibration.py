"""A stored calibration brought up to this version's cost model before anything predicts with it.

``autotune calibrate`` stores the anchor steps it timed (``Calibration.anchors_s``) beside the costs it derived from
them, and the version of the cost model that derived them (``Calibration.cost_model``). A later version may derive
other costs from the same steps (each cost is what makes the model's prediction of a step, or of the difference of
two, meet the measurement), so a file derived by another version is derived again here, from its own steps, with no
new measurement and nothing replaced by defaults, and the caller's progress line says so.
"""
from __future__ import annotations

from collections.abc import Callable

from space.cluster import ClusterSpec
from space.inventory import Inventory


def current_costs(cal, inventory: Inventory, cluster: ClusterSpec, say: Callable[[str], None]):
    """``cal`` with its anchor costs as this version's cost model derives them from its stored anchor steps (the
    same object when it has none, or when this version derived them). A stored residual is kept: it was fitted to
    the older model's predictions, which the line says, with how to fit it again without measuring."""
    from runners.calibrate import anchor_costs
    from simulator import COST_MODEL_VERSION

    if not cal.anchors_s or cal.cost_model == COST_MODEL_VERSION:
        return cal
    new = anchor_costs(cal, inventory, cluster)
    changed = [f"{name} {_value(getattr(cal, name))} -> {_value(getattr(new, name))}" for name in DERIVED
               if moved(getattr(cal, name), getattr(new, name))]
    line = (f"calibration {cal.source} was derived by cost model {cal.cost_model or 1}; the anchor costs derived "
            f"again by this version's ({COST_MODEL_VERSION}) from its {len(cal.anchors_s)} anchor steps: "
            + ("; ".join(changed) if changed else f"none moved by more than {MOVED:.1%}"))
    if cal.residual is not None:
        line += (" (its residual was fitted to the older model's predictions: `autotune validate-simulator --reuse "
                 "RUN_DIR --fit-residual` fits it again from a run's measurements, without profiling)")
    say(line)
    return new


# the fields ``anchor_costs`` sets, in the order its line names them
DERIVED = ("collective_bandwidth_factor", "collective_overhead_s", "ar_piece_s", "ps_piece_s", "ps_serial_fraction",
           "ps_spread_serial", "ps_spread_busiest", "powersgd_matrix_s")


MOVED = 1e-3  # a cost that moves less is the solver's tolerance (each solve starts from the stored value)


def moved(old, new) -> bool:
    """Whether a derived cost moved beyond the solver's tolerance (by more than ``MOVED`` of itself, and 1e-9)."""
    if old is None or new is None:
        return old is not new
    return abs(new - old) > MOVED * max(abs(old), abs(new)) and abs(new - old) > 1e-9


def _value(x) -> str:
    return "none" if x is None else f"{x:.4g}"
