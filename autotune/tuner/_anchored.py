"""The calibration's anchor steps as the search's own measurements.

The calibration times a few whole strategies of the model (``space.anchors``: ``ps``, ``ps_lb``, PowerSGD, ...) to
set the cost model's per-piece and per-collective costs. Where one of them is also a candidate of the search (a
builder, a simulated trial: the same variables synchronized the same way), its step is already measured on this
cluster: the search takes it as a first-round measurement instead of profiling the strategy again.
"""
from __future__ import annotations

import math

from autotune.tuner._measurement import Measurement
from space.anchors import anchor_strategies

SOURCE = "calibration"  # Measurement.source of a step the calibration measured


def content_key(strategy) -> bytes:
    """What a strategy does, without where it came from (its id and provenance): two strategies with one key
    synchronize every variable alike."""
    p = type(strategy.proto)()
    p.CopyFrom(strategy.proto)
    p.ClearField("id")
    p.ClearField("provenance")
    return p.SerializeToString(deterministic=True)


def calibration_steps(inventory, cluster, calibration) -> dict[bytes, Measurement]:
    """Per content key, a measurement of each anchor step the calibration timed for this model (none where it was
    another model's, or timed none)."""
    if calibration is None or not calibration.anchors_s or calibration.model_hash != inventory.model_hash:
        return {}
    try:
        strategies = anchor_strategies(inventory, cluster)
    except Exception:  # noqa: BLE001 - an anchor the builders cannot make here is one the search measures itself
        return {}
    out = {}
    for name, t in calibration.anchors_s.items():
        if name in strategies and t > 0 and math.isfinite(t):
            rounds = tuple(float(x) for x in calibration.anchor_rounds_s.get(name, ()) if x > 0)
            out[content_key(strategies[name])] = Measurement(
                median_s=float(t), p10_s=min(rounds, default=t), p90_s=max(rounds, default=t),
                examples_per_s=0.0, step_times_s=rounds, source=f"{SOURCE}: {name}")
    return out


def matching(pool, steps: dict[bytes, Measurement]) -> list:
    """(candidate, measurement) for the first candidate of ``pool`` with each anchor's strategy."""
    out, seen = [], set()
    for c in pool:
        if c.strategy is None:
            continue
        key = content_key(c.strategy)
        if key in steps and key not in seen:
            seen.add(key)
            out.append((c, steps[key]))
    return out
