"""Choosing which simulated candidates to profile: the best predicted, kept diverse."""
from __future__ import annotations

from typing import Any, Sequence


def param_distance(a: dict[str, Any], b: dict[str, Any]) -> float:
    """Fraction of parameters (union of both trials' names) on which two trials differ."""
    keys = set(a) | set(b)
    if not keys:
        return 0.0
    return sum(a.get(k) != b.get(k) for k in keys) / len(keys)


def diverse_top_k(candidates: Sequence[tuple[float, dict[str, Any], Any]], k: int,
                  min_distance: float = 0.05) -> list[Any]:
    """From ``(predicted, params, item)`` pick up to ``k`` items, best predicted first, skipping any whose
    parameters are within ``min_distance`` of one already picked (near-duplicates measure the same thing).
    Falls back to the next best when too few diverse ones exist."""
    ordered = sorted(candidates, key=lambda c: c[0])
    picked: list[tuple[float, dict, Any]] = []
    for cand in ordered:
        if len(picked) >= k:
            break
        if all(param_distance(cand[1], p[1]) >= min_distance for p in picked):
            picked.append(cand)
    for cand in ordered:  # not enough diverse ones: fill with the best of the rest
        if len(picked) >= k:
            break
        if all(cand is not p for p in picked):
            picked.append(cand)
    return [c[2] for c in picked]
