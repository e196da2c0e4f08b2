"""Fidelity metrics against hand-computed values, and the fits the measurement side uses."""
from __future__ import annotations

import math

import numpy as np
import pytest

from simulator import (apply_residual, fidelity, fit_alpha_beta, fit_residual, kendall_tau, mape, top1_regret,
                       topk_regret)
from simulator._calibration import RESIDUAL_KEYS


@pytest.mark.parametrize("a,b,expected", [
    ([1, 2, 3], [10, 20, 30], 1.0),
    ([1, 2, 3], [30, 20, 10], -1.0),
    ([1, 2, 3], [1, 3, 2], 1 / 3),  # 2 concordant, 1 discordant pair
    ([1, 1, 2], [1, 2, 3], 2 / math.sqrt(2 * 3)),  # tau-b: one tie in a
], ids=["same", "reversed", "one-swap", "tie"])
def test_kendall_tau(a, b, expected):
    assert kendall_tau(a, b) == pytest.approx(expected)


def test_kendall_tau_of_constant_is_nan():
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))


@pytest.mark.parametrize("pred,meas,expected", [
    ([110, 90], [100, 100], 0.10),
    ([1.0, 3.0], [2.0, 2.0], 0.5),
    ([5.0], [5.0], 0.0),
], ids=["ten-percent", "half", "exact"])
def test_mape(pred, meas, expected):
    assert mape(pred, meas) == pytest.approx(expected)


def test_mape_rejects_non_positive_measurements():
    with pytest.raises(ValueError, match="> 0"):
        mape([1.0], [0.0])


@pytest.mark.parametrize("pred,meas,expected", [
    ([1, 2, 3], [1.5, 1.0, 2.0], 0.5),  # predicted best (index 0) is 1.5 s, measured best 1.0 s
    ([3, 1, 2], [1.5, 1.0, 2.0], 0.0),
], ids=["wrong-pick", "right-pick"])
def test_top1_regret(pred, meas, expected):
    assert top1_regret(pred, meas) == pytest.approx(expected)


@pytest.mark.parametrize("k,expected", [(1, 1.0), (2, 0.5), (3, 0.0), (9, 0.0)])
def test_topk_regret_is_the_best_measured_among_the_k_predicted_fastest(k, expected):
    pred = [1.0, 2.0, 3.0, 4.0]  # predicted order: a, b, c, d
    meas = [4.0, 3.0, 2.0, 2.5]  # measured best is c (2.0 s), third in the prediction
    assert topk_regret(pred, meas, k) == pytest.approx(expected)
    if k == 1:
        assert top1_regret(pred, meas) == pytest.approx(expected)


def test_topk_regret_takes_prediction_ties_in_order_and_rejects_k_below_one():
    assert topk_regret([1.0, 1.0, 2.0], [3.0, 1.0, 2.0], 1) == pytest.approx(2.0)  # the first of the tie
    with pytest.raises(ValueError, match="k >= 1"):
        topk_regret([1.0], [1.0], 0)


def test_fidelity_bundles_the_metrics():
    f = fidelity([1, 2, 3], [1.1, 2.2, 2.7])
    assert f == pytest.approx({"kendall_tau": 1.0, "mape": (0.1 / 1.1 + 0.2 / 2.2 + 0.3 / 2.7) / 3,
                               "top1_regret": 0.0, "top5_regret": 0.0, "n": 3.0})


def test_metrics_reject_unequal_lengths():
    with pytest.raises(ValueError, match="equally long"):
        kendall_tau([1, 2], [1, 2, 3])


def test_fit_residual_recovers_a_known_correction():
    rng = np.random.default_rng(0)
    f = np.column_stack([rng.uniform(0.1, 1, 40), rng.uniform(0, 2, 40), rng.uniform(0, 0.1, 40),
                         rng.integers(0, 80, 40) * 1e-3, rng.integers(0, 40, 40) * 1e-3])
    y = 0.02 + 1.1 * f[:, 0] + 1.3 * f[:, 1] + 2.0 * f[:, 2] + 0.4 * f[:, 3] + 1.5 * f[:, 4]
    res = fit_residual(f, y, ridge=1e-9)
    assert res == pytest.approx({"intercept": 0.02, "compute": 1.1, "comm": 1.3, "latency": 2.0, "pieces": 0.4,
                                 "collectives": 1.5}, abs=1e-5)
    np.testing.assert_allclose(apply_residual(f, res), y, atol=1e-6)


def test_fit_residual_on_three_features_leaves_the_counts_out():
    """Callers with (compute, comm, latency) only: the counts read as zero and their coefficients stay 0."""
    rng = np.random.default_rng(1)
    f = np.column_stack([rng.uniform(0.1, 1, 30), rng.uniform(0, 2, 30), rng.uniform(0, 0.1, 30)])
    y = 0.01 + f[:, 0] + 1.2 * f[:, 1] + 0.5 * f[:, 2]
    res = fit_residual(f, y, ridge=1e-9)
    assert res["pieces"] == pytest.approx(0, abs=1e-9) and res["collectives"] == pytest.approx(0, abs=1e-9)
    assert res["comm"] == pytest.approx(1.2, abs=1e-5)
    legacy = {k: res[k] for k in ("intercept", "compute", "comm", "latency")}  # a residual without the counts
    np.testing.assert_allclose(apply_residual(f, legacy), y, atol=1e-6)


def test_fit_residual_stays_near_identity_when_compute_is_constant():
    f = np.column_stack([np.full(10, 0.5), np.linspace(0.1, 1, 10), np.zeros(10)])
    res = fit_residual(f, f[:, 0] + 1.2 * f[:, 1])
    assert res["comm"] == pytest.approx(1.2, rel=0.02) and abs(res["latency"]) < 1e-6
    np.testing.assert_allclose(apply_residual(f, res), f[:, 0] + 1.2 * f[:, 1], rtol=0.02)


def _parts(n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.uniform(0.05, 0.1, n), rng.uniform(0.01, 0.3, n), rng.uniform(0, 0.02, n),
                            rng.integers(0, 80, n) * 1e-3, rng.integers(0, 40, n) * 1e-3])


def _short_and_long(rng, short: int, long: int) -> tuple[np.ndarray, np.ndarray]:
    """Short steps (5-13 ms) whose communication the model undercounts by 30%, beside long ones (200-300 ms) it
    gets right on average, measured with 5% noise: a model's fp16 and PowerSGD steps beside its PS steps."""
    def parts(n, comm):
        return np.column_stack([rng.uniform(0.003, 0.005, n), rng.uniform(*comm, n), np.zeros(n),
                                rng.integers(0, 20, n) * 1e-3, np.zeros(n)])
    fs, fl = parts(short, (0.002, 0.008)), parts(long, (0.2, 0.3))
    ys = (fs[:, 0] + 1.3 * fs[:, 1]) * rng.lognormal(0, 0.02, short)
    yl = (fl[:, 0] + fl[:, 1]) * rng.lognormal(0, 0.05, long)
    return np.vstack([fs, fl]), np.r_[ys, yl]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_residual_is_not_set_by_the_longest_steps(seed):
    """Fitted to relative errors, the correction serves the short steps as well as the long: on strategies it never
    saw it errs less than a least-squares fit in seconds, which the long steps' noise sets."""
    rng = np.random.default_rng(seed)
    f, y = _short_and_long(rng, 20, 5)
    unseen_f, unseen_y = _short_and_long(rng, 200, 50)
    X = np.column_stack([np.ones(len(y)), f])
    in_seconds = dict(zip(RESIDUAL_KEYS, np.linalg.lstsq(X, y, rcond=None)[0]))
    relative = fit_residual(f, y, ridge=1e-9)
    assert mape(apply_residual(unseen_f, relative), unseen_y) < mape(apply_residual(unseen_f, in_seconds), unseen_y)
    assert mape(apply_residual(unseen_f, relative), unseen_y) < 0.06  # the raw model: 26%


def test_fit_residual_rejects_a_step_that_is_not_positive():
    f = _parts(6, 0)
    with pytest.raises(ValueError, match="> 0"):
        fit_residual(f, np.r_[f[:5, 0] + f[:5, 1], 0.0])


def test_fit_alpha_beta():
    sizes = np.array([1e5, 1e6, 4e6])
    alpha, gbit = fit_alpha_beta(sizes, 1e-3 + sizes / 25e6)
    assert alpha == pytest.approx(1e-3) and gbit == pytest.approx(0.2)


def test_fit_alpha_beta_needs_two_sizes():
    with pytest.raises(ValueError, match="two different message sizes"):
        fit_alpha_beta([1e6, 1e6], [0.1, 0.1])


def test_a_nonnegative_fit_holds_a_term_at_zero_and_fits_the_others():
    # steps that get faster with more latency, as a few noisy measurements can make them look
    rng = np.random.default_rng(3)
    f = np.column_stack([np.full(6, 0.010), rng.uniform(0.002, 0.02, 6), rng.uniform(0.001, 0.004, 6),
                         np.zeros(6), rng.uniform(0.0, 0.002, 6)])
    y = f[:, 0] + f[:, 1] - 0.5 * f[:, 2] + 2 * f[:, 4]
    free = fit_residual(f, y, 1e-6, per_column=True)
    held = fit_residual(f, y, 1e-6, per_column=True, nonnegative=True)
    assert free["latency"] < -0.3
    assert held["latency"] == 0.0 and min(v for k, v in held.items() if k != "intercept") >= 0.0
    # the held term is as if its feature were absent; the others are fitted without it
    without = fit_residual(np.column_stack([f[:, :2], np.zeros(6), f[:, 3:]]), y, 1e-6, per_column=True)
    for k in ("compute", "comm", "collectives"):
        assert held[k] == pytest.approx(without[k], rel=1e-6, abs=1e-9)
