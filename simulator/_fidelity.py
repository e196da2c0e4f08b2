"""Fidelity of the simulator against measurements: rank and error metrics, and the fits that improve it."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from simulator._calibration import IDENTITY_RESIDUAL, RESIDUAL_KEYS
from simulator._prediction import Prediction


def _pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    if x.shape != y.shape or x.size == 0:
        raise ValueError(f"two equally long non-empty sequences are needed, but got sizes {x.size} and {y.size}")
    return x, y


def kendall_tau(a: Sequence[float], b: Sequence[float]) -> float:
    """Kendall's tau-b (ties handled): +1 when both order every pair alike, -1 when opposite."""
    x, y = _pair(a, b)
    i, j = np.triu_indices(x.size, k=1)
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    nx, ny = np.count_nonzero(dx), np.count_nonzero(dy)
    if nx == 0 or ny == 0:
        return float("nan")
    return float((dx * dy).sum() / np.sqrt(float(nx) * float(ny)))


def mape(predicted: Sequence[float], measured: Sequence[float]) -> float:
    """Mean absolute percentage error as a fraction (0.1 = 10%), relative to the measurements."""
    p, m = _pair(predicted, measured)
    if (m <= 0).any():
        raise ValueError("measured times must be > 0 for MAPE")
    return float(np.mean(np.abs(p - m) / m))


def top1_regret(predicted: Sequence[float], measured: Sequence[float]) -> float:
    """How much slower the predicted best is than the measured best, as a fraction (0 = picked the best)."""
    return topk_regret(predicted, measured, 1)


def topk_regret(predicted: Sequence[float], measured: Sequence[float], k: int) -> float:
    """How much slower the measured best of the ``k`` predicted fastest is than the measured best, as a fraction:
    what a search that profiles its ``k`` best predictions and keeps the fastest would lose (ties in the
    prediction are taken in the given order)."""
    if k < 1:
        raise ValueError(f"`k >= 1` must hold, but got {k}")
    p, m = _pair(predicted, measured)
    picked = np.argsort(p, kind="stable")[:k]
    return float(m[picked].min() / m.min() - 1.0)


def fidelity(predicted: Sequence[float], measured: Sequence[float]) -> dict[str, float]:
    """Every metric at once: ``{"kendall_tau", "mape", "top1_regret", "top5_regret", "n"}``; ``top5_regret`` is
    what a search profiling its five best predictions would lose (``autotune search`` profiles ``--top-k 5``)."""
    return {"kendall_tau": kendall_tau(predicted, measured), "mape": mape(predicted, measured),
            "top1_regret": top1_regret(predicted, measured),
            "top5_regret": topk_regret(predicted, measured, 5), "n": float(len(measured))}


def features(predictions: Sequence[Prediction] | np.ndarray) -> np.ndarray:
    """(n, 5) array of ``Prediction.features`` (compute, exposed communication, latency, pieces, collectives).

    An array with only the first three columns (older callers) gets zero counts."""
    width = len(RESIDUAL_KEYS) - 1
    if isinstance(predictions, np.ndarray):
        f = np.atleast_2d(predictions.astype(float))
        if f.shape[1] == 3:
            f = np.column_stack([f, np.zeros((f.shape[0], width - 3))])
        if f.shape[1] != width:
            raise ValueError(f"features need 3 or {width} columns, but got {f.shape[1]}")
        return f
    return np.array([p.features for p in predictions], float).reshape(-1, width)


def fit_residual(predictions: Sequence[Prediction] | np.ndarray, measurements: Sequence[float],
                 ridge: float = 1e-3, penalty: Sequence[float] | None = None,
                 per_column: bool = False, nonnegative: bool = False) -> dict[str, float]:
    """Fit measured ~ c0 + c1*compute + c2*comm + c3*latency + c4*pieces + c5*collectives by least squares of each
    strategy's error relative to its measured step (the terms of MAPE), pulled toward the identity.

    The two counts (synchronized pieces beyond one per variable, collectives per step; see
    ``Prediction.features``) carry what each extra tensor costs the step beyond its bytes: graph ops, RPC and
    launch work, which on CPU-bound hosts the base model undercounts. The ridge term (relative to the data's
    scale) keeps coefficients near (0, 1, 1, 0, 0, 0) when features are collinear, e.g. the compute time is the
    same for every strategy of one model. ``penalty`` scales the ridge per coefficient (in ``RESIDUAL_KEYS``
    order): a few measurements of one model cannot tell a constant from its compute, and a large penalty on those
    two leaves the differences between strategies to the terms that differ. ``per_column`` makes each
    coefficient's ridge relative to its own column's scale instead of the mean's (the constant's column, one over
    each step, dwarfs the others'), so that a weight of one pulls every term alike. ``nonnegative`` keeps every
    term but the constant at zero or above (a step cannot get faster with more communication): a few
    measurements otherwise buy a fit with large opposite coefficients on two correlated terms, which cancel on the
    measured strategies and nowhere else. Store the result as ``Calibration.residual``.

    Relative, not in seconds: one model's steps span 10-20 times (the mlp's 9 ms PowerSGD step, its 140 ms PS
    ones), and a fit in seconds lets the longest few set the coefficients and chase their noise. No cross-validated
    choice of one factor on the whole step either: on ~21 train strategies it picks the factor where the fit does
    better on new ones. ``docs/design.md`` has the measured comparison.
    """
    f = features(predictions)
    y = np.asarray(measurements, float).ravel()
    if f.shape[0] != y.size or y.size == 0:
        raise ValueError(f"one measurement per prediction is needed, but got {f.shape[0]} and {y.size}")
    if (y <= 0).any():
        raise ValueError("measured times must be > 0 for a residual fit")
    X = np.column_stack([np.ones(y.size), f]) / y[:, None]  # each row in units of its own measured step
    prior = np.array([IDENTITY_RESIDUAL[k] for k in RESIDUAL_KEYS])
    gram = X.T @ X
    lam = ridge * max(np.trace(gram) / X.shape[1], 1e-12)
    weight = np.ones(len(prior)) if penalty is None else np.asarray(penalty, float)
    if weight.shape != prior.shape or (weight < 0).any():
        raise ValueError(f"`penalty` needs {len(prior)} non-negative weights, but got {penalty!r}")
    if per_column:
        lam = ridge * np.maximum(np.diag(gram), 1e-12 * max(np.trace(gram), 1e-12))
    a, b = gram + np.diag(lam * weight), X.sum(axis=0) + lam * weight * prior
    free = np.ones(len(prior), bool)
    coef = np.zeros(len(prior))
    while True:  # active set: a term driven below zero is held at zero and the rest solved again
        coef[:] = 0.0
        coef[free] = np.linalg.solve(a[np.ix_(free, free)], b[free])
        negative = free & (coef < 0) & (np.arange(len(prior)) > 0)
        if not nonnegative or not negative.any():
            break
        free[int(np.argmin(np.where(negative, coef, np.inf)))] = False
    return {k: float(c) for k, c in zip(RESIDUAL_KEYS, coef)}


def apply_residual(predictions: Sequence[Prediction] | np.ndarray, residual: dict[str, float]) -> np.ndarray:
    """Corrected step times for raw predictions (what a Scorer with ``residual`` in its calibration returns)."""
    f = features(predictions)
    c = [residual.get(k, 0.0) for k in RESIDUAL_KEYS]
    return np.maximum(c[0] + f @ np.array(c[1:]), 0.0)


def fit_alpha_beta(sizes_bytes: Sequence[float], seconds: Sequence[float]) -> tuple[float, float]:
    """Fit t = alpha + size / B to a few message sizes: returns (alpha seconds, B in Gbit/s)."""
    s, t = _pair(sizes_bytes, seconds)
    if s.size < 2 or np.ptp(s) == 0:
        raise ValueError("at least two different message sizes are needed to separate latency and bandwidth")
    slope, alpha = np.polyfit(s, t, 1)
    if slope <= 0:
        raise ValueError(f"time does not grow with message size (slope {slope:.3g} s/byte); measure larger messages")
    return max(float(alpha), 0.0), float(8.0 / slope / 1e9)
