"""Fidelity metrics against hand-computed values, and the fits the measurement side uses."""
from __future__ import annotations

import math

import numpy as np
import pytest

from simulator import (apply_residual, choose_residual, fidelity, fit_alpha_beta, fit_residual, kendall_tau, mape,
                       scale_residual, top1_regret, topk_regret)


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
    legacy = {k: res[k] for k in ("intercept", "compute", "comm", "latency")}  # a calibration file of before
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


def test_scale_residual_is_one_factor_on_the_whole_step():
    f = _parts(12, 0)
    res = scale_residual(f, 0.9 * (f[:, 0] + f[:, 1]))
    assert res == pytest.approx({"intercept": 0, "compute": 0.9, "comm": 0.9, "latency": 0, "pieces": 0,
                                 "collectives": 0})
    np.testing.assert_allclose(apply_residual(f, res), 0.9 * (f[:, 0] + f[:, 1]))


def test_choose_residual_keeps_one_factor_where_the_linear_fit_would_fit_noise():
    """A model 10% slow everywhere, measured with 8% noise: six coefficients on 21 strategies chase the noise
    through the counts and latency; cross-validation sees it and keeps the factor, which also does better on 200
    strategies it never saw."""
    rng = np.random.default_rng(4)
    f = _parts(221, 1)
    y = 0.9 * (f[:, 0] + f[:, 1]) * rng.lognormal(0, 0.08, len(f))
    res, form, errors = choose_residual(f[:21], y[:21])
    assert form == "scale" and errors["scale"] < errors["linear"]
    unseen = {k: mape(apply_residual(f[21:], r), y[21:]) for k, r in
              (("picked", res), ("linear", fit_residual(f[:21], y[:21])))}
    assert unseen["picked"] < unseen["linear"]


def test_choose_residual_takes_the_linear_fit_where_the_error_has_structure():
    f = _parts(30, 2)
    y = 0.02 + 1.1 * f[:, 0] + 1.3 * f[:, 1] + 2.0 * f[:, 2] + 0.4 * f[:, 3] + 1.5 * f[:, 4]
    res, form, errors = choose_residual(f, y)
    assert form == "linear" and errors["linear"] < errors["scale"] / 2  # the ridge keeps it a little off
    assert mape(apply_residual(f, res), y) < mape(apply_residual(f, scale_residual(f, y)), y) / 2


def test_choose_residual_with_few_measurements_fits_linearly_without_checking():
    f = _parts(8, 3)
    res, form, errors = choose_residual(f, f[:, 0] + f[:, 1])
    assert form == "linear" and errors == {} and res == fit_residual(f, f[:, 0] + f[:, 1])


def test_fit_alpha_beta():
    sizes = np.array([1e5, 1e6, 4e6])
    alpha, gbit = fit_alpha_beta(sizes, 1e-3 + sizes / 25e6)
    assert alpha == pytest.approx(1e-3) and gbit == pytest.approx(0.2)


def test_fit_alpha_beta_needs_two_sizes():
    with pytest.raises(ValueError, match="two different message sizes"):
        fit_alpha_beta([1e6, 1e6], [0.1, 0.1])
