"""The closed loop of the profiling stage: after each round, the cost model's correction is refitted on every
strategy measured so far, the simulated pool is scored again, and the next round is the candidates that could
still beat the best measured one once the model's uncertainty about them is counted.

Why: the simulated stage picks exactly the mixes whose prediction errors favour them (the optimizer's curse). A
cost model calibrated on the builders' strategies predicted the builders within 6% on the testbed but the search's
own mixes 36% off, all too fast; every round chosen by that ranking again measures its mistakes. Measurements
taken in this study are the best evidence of where the model is wrong for this model on this cluster.

The correction is ``simulator.fit_residual`` (a linear map of the prediction's parts: compute, exposed
communication, latency, pieces, collectives) fitted on this study's measurements and the calibration's anchor
steps. Each prediction carries a relative error

    sigma(x) = sqrt(s^2 + (G * d(x))^2)

where ``s`` is the refitted model's leave-one-out error on this study's measurements and ``d(x)`` the share of
the model's bytes that ``x`` synchronizes differently from the nearest measured strategy (0: measured; 1:
nothing in common). ``G`` is how wrong the model can be about a strategy it has never seen anything like: the
search's unmeasured mixes were 36% off on average on the testbed, up to 2.1x. A candidate is worth a profiling run
by its expected improvement over the best measured step, E[max(best - X, 0)] with log X normal around the log
of the prediction, sigma wide: a mix predicted fast that the model cannot vouch for is measured only when even its
uncertainty leaves it a real chance to win, and the loop stops when no candidate has one.
"""
from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from autotune.tuner._families import bounds_hold
from autotune.tuner._types import Candidate
from simulator import Scorer, apply_residual, fit_residual, kendall_tau, mape
from space.anchors import anchor_strategies

POOL = 300  # simulated candidates (best predicted first, plus every builder) the loop re-scores each round
UNSEEN_ERROR = 0.35  # G above: relative error of a prediction for a strategy unlike every measured one
MIN_ERROR = 0.03  # floor of s: run-to-run noise of one profiling run (validate-simulator's repeats: 1.4-2.6%)
PRIOR_ERROR = 0.15  # s before there are enough measurements for a leave-one-out estimate
MIN_GAIN = 0.02  # a candidate whose expected improvement is below this share of the best step is not measured
# ridge per coefficient of the refit (intercept, compute, comm, latency, pieces, collectives): every strategy of one
# model computes alike, so a few steps cannot tell a constant from the compute; the constant is held at the
# calibration's value and the compute term carries a level that is off for every strategy (a calibration measured
# while the machine was busy), the other terms what differs between strategies
PENALTY = (1e3, 1.0, 1.0, 1.0, 1.0, 1.0)
RIDGE = 0.05  # of each term's own scale: a term the measurements barely move stays near the calibration's value


@dataclasses.dataclass
class Round:
    """One profiling round: the candidates it measured, and what the model that chose them predicted."""

    index: int
    chosen: list[Candidate]
    predicted_s: list[float]  # by the model that chose them (round 1: the simulated stage's)
    sigma: list[float]  # their relative error estimates (round 1: none, 0)
    residual: dict[str, float] | None  # the correction that model used (round 1: the calibration's)
    stop: str = ""  # why no round followed this one ("" while one may)
    model: str = "calibrated"  # which model chose them: "refit" or "calibrated" (ModelChoice)
    refit_s: list[float] = dataclasses.field(default_factory=list)  # the refit's predictions (none: no refit yet)
    choice: str = ""  # why that model: the leave-one-out errors compared

    def stats(self) -> dict[str, Any]:
        """Predicted vs measured for the candidates of this round that were measured."""
        refit = self.refit_s or [math.nan] * len(self.chosen)
        pairs = [(p, c.measured.median_s, c.predicted_s, r) for c, p, r in zip(self.chosen, self.predicted_s, refit)
                 if c.measured is not None and c.measured.median_s > 0]
        out: dict[str, Any] = {"round": self.index, "chosen": [c.label for c in self.chosen], "measured": len(pairs),
                               "model": self.model}
        if self.choice:
            out["choice"] = self.choice
        if pairs:
            p, m, cal, r = map(list, zip(*pairs))
            out["mape"] = mape(p, m)
            out["mape_calibrated"] = mape(cal, m) if all(map(math.isfinite, cal)) else None
            out["mape_refit"] = mape(r, m) if self.refit_s else None
            tau = kendall_tau(p, m) if len(pairs) >= 2 else float("nan")
            out["kendall_tau"] = None if math.isnan(tau) else tau  # none with one candidate or all tied
            out["predicted_ms"] = [round(x * 1e3, 3) for x in p]
            out["measured_ms"] = [round(x * 1e3, 3) for x in m]
        out["sigma"] = [round(s, 4) for s in self.sigma]
        if self.residual is not None:
            out["residual"] = {k: round(v, 6) for k, v in self.residual.items()}
        if self.stop:
            out["stop"] = self.stop
        return out


@dataclasses.dataclass(frozen=True)
class ModelChoice:
    """The model that predicts a round: the refit, used only where it earns its place, or the calibrated one."""

    name: str  # "refit" | "calibrated"
    residual: dict[str, float] | None  # the correction it applies (the calibrated model: the calibration's)
    refit: dict[str, float]  # the refit's correction, used or not
    error: float  # its relative error estimate (s in the module's docstring)
    loo: float | None  # the refit's leave-one-out error (None: fewer than three measured)
    calibrated: float | None  # the calibrated model's error on the same measurements (None: fewer than three)

    def line(self) -> str:
        """What was compared and which model won, in words."""
        if self.loo is None:
            return "kept the calibrated model: too few measurements for the refit's leave-one-out error"
        against = "" if self.calibrated is None else f" vs the calibrated model's {self.calibrated:.1%}"
        if self.name == "refit":
            return f"refitted: leave-one-out error {self.loo:.1%}{against}"
        return (f"kept the calibrated model: the refit's leave-one-out error {self.loo:.1%} does not beat the "
                f"calibrated model's {self.calibrated:.1%}")


class ClosedLoop:
    """Chooses the profiling rounds after the first (``next_round``) and keeps every round's record."""

    def __init__(self, inventory, cluster, calibration, pool: list[Candidate], round_size: int,
                 say: Callable[[str], None] = lambda _m: None) -> None:
        self.inventory, self.round_size, self.say = inventory, round_size, say
        self.raw = Scorer(inventory, cluster, calibration.replace(residual=None))
        self.prior = dict(calibration.residual) if calibration.residual is not None else None
        seen, self.pool = set(), []
        for c in pool:
            if c.strategy is not None and c.strategy_hash not in seen:
                seen.add(c.strategy_hash)
                self.pool.append(c)
        self._features: dict[str, tuple] = {}
        self._signatures: dict[str, np.ndarray] = {}
        names = [v.name for v in inventory.variables]
        self._var_ix = {n: i for i, n in enumerate(names)}
        weights = np.array([max(float(v.bytes), 1.0) for v in inventory.variables])
        self._weights = weights / weights.sum() if weights.size else weights
        self.anchors = self._anchors(cluster, calibration)
        self.rounds: list[Round] = []

    # ---- what the model knows ----------------------------------------------------------------------------------
    def _anchors(self, cluster, calibration) -> list[tuple[tuple, float]]:
        """The calibration's anchor steps as (features, measured): measured on this cluster for this model."""
        if not calibration.anchors_s or calibration.model_hash != self.inventory.model_hash:
            return []

        try:
            strategies = anchor_strategies(self.inventory, cluster)
        except Exception:  # noqa: BLE001 - an anchor the builders cannot make here is evidence we do without
            return []
        return [(self.raw.predict(strategies[name]).features, float(t))
                for name, t in calibration.anchors_s.items() if name in strategies and t > 0]

    def features(self, c: Candidate) -> tuple:
        h = c.strategy_hash
        if h not in self._features:
            self._features[h] = self.raw.predict(c.strategy).features
        return self._features[h]

    def signature(self, c: Candidate) -> np.ndarray:
        """(V,) one number per variable for how it is synchronized (its whole node_config, partitions included)."""
        h = c.strategy_hash
        if h not in self._signatures:
            sig = np.zeros(len(self._var_ix), np.int64)
            for node in c.strategy.proto.node_config:
                i = self._var_ix.get(node.var_name)
                if i is not None:
                    sig[i] = hash(node.SerializeToString(deterministic=True))
            self._signatures[h] = sig
        return self._signatures[h]

    def distance(self, c: Candidate, measured: list[Candidate]) -> float:
        """The share of the model's bytes ``c`` synchronizes differently from the nearest of ``measured``."""
        if not measured or not self._weights.size:
            return 1.0
        mine = self.signature(c)
        return float(min(self._weights[self.signature(m) != mine].sum() for m in measured))

    # ---- the refit ---------------------------------------------------------------------------------------------
    def refit(self, measured: list[Candidate]) -> tuple[dict[str, float], float | None]:
        """(the correction fitted on ``measured`` and the anchors, its leave-one-out relative error on ``measured``;
        None with fewer than three: too few to tell)."""
        own = [(self.features(c), c.measured.median_s) for c in measured]
        data = own + self.anchors
        X = np.array([f for f, _ in data], float)
        y = np.array([t for _, t in data], float)
        residual = fit_residual(X, y, RIDGE, PENALTY, per_column=True, nonnegative=True)
        if len(own) < 3:
            return residual, None
        errors = []
        for i in range(len(own)):  # leave each of this study's measurements out in turn
            keep = np.arange(len(data)) != i
            r = fit_residual(X[keep], y[keep], RIDGE, PENALTY, per_column=True,
                             nonnegative=True)
            errors.append(float(apply_residual(X[i:i + 1], r)[0]) / y[i] - 1.0)
        return residual, float(np.sqrt(np.mean(np.square(errors))))

    def choose_model(self, measured: list[Candidate]) -> ModelChoice:
        """The refit where its leave-one-out error on ``measured`` beats the calibrated model's error there (the
        simulated stage's predictions, which saw none of them), else the calibrated model."""
        residual, loo = self.refit(measured)
        pairs = [(c.predicted_s, c.measured.median_s) for c in measured if math.isfinite(c.predicted_s)]
        calibrated = float(np.sqrt(np.mean([(p / m - 1.0) ** 2 for p, m in pairs]))) if len(pairs) >= 3 else None
        if loo is not None and (calibrated is None or loo < calibrated):
            return ModelChoice("refit", residual, residual, max(MIN_ERROR, loo), loo, calibrated)
        error = PRIOR_ERROR if calibrated is None else max(MIN_ERROR, calibrated)
        return ModelChoice("calibrated", self.prior, residual, error, loo, calibrated)

    def predict(self, cands: list[Candidate], model: ModelChoice) -> np.ndarray:
        """Step times of ``cands`` by ``model``: the refit's correction, or the simulated stage's predictions."""
        if model.name == "refit":
            return apply_residual(np.array([self.features(c) for c in cands], float), model.residual)
        return np.array([c.predicted_s for c in cands], float)

    def first(self, chosen: list[Candidate]) -> None:
        """Record the first round: the simulated stage's choice and predictions."""
        self.rounds.append(Round(1, list(chosen), [c.predicted_s for c in chosen], [0.0] * len(chosen), self.prior))

    def also_first(self, more: list[Candidate]) -> None:
        """Count ``more`` (measured elsewhere: the calibration's anchor steps) among the first round's."""
        first = self.rounds[0]
        for c in more:
            if all(c is not x for x in first.chosen):
                first.chosen.append(c)
                first.predicted_s.append(c.predicted_s)
                first.sigma.append(0.0)

    def next_round(self, candidates: list[Candidate], left: int) -> list[Candidate]:
        """The next round's candidates (at most ``left`` and ``round_size``), or none: the loop is done."""
        measured = [c for c in candidates if c.measured is not None and c.measured.median_s > 0]
        if not measured or not self.rounds:
            return []
        last = self.rounds[-1]
        if left <= 0 or self.round_size <= 0:
            last.stop = "the profiling budget is spent" if left <= 0 else "no rounds after the first (--round-size 0)"
            return []
        model = self.choose_model(measured)
        done = {c.strategy_hash for c in candidates if c.measured is not None or c.error or c.skipped}
        best = min(c.measured.median_s for c in measured)
        # a lower bound at or above the best step rules a candidate out, whatever the model's uncertainty, where the
        # bounds hold on this cluster (_families.bounds_hold)
        bounded = bounds_hold(measured)
        pool = [c for c in self.pool if c.strategy_hash not in done and not (bounded and c.lower_bound_s >= best)]
        if not pool:
            last.stop = "every candidate of the pool is measured"
            return []
        predicted = self.predict(pool, model)
        sigma = np.array([math.hypot(model.error, UNSEEN_ERROR * self.distance(c, measured)) for c in pool])
        gain = expected_improvement(predicted, sigma, best)
        order = np.argsort(-gain, kind="stable")
        take = [int(i) for i in order[:min(left, self.round_size)] if gain[i] >= MIN_GAIN * best]
        if not take:
            model_best = min(measured, key=lambda c: float(self.predict([c], model)[0]))
            i = int(np.argmin(predicted))
            last.stop = (f"no candidate can beat the best measured ({best * 1e3:.2f} ms) by {MIN_GAIN:.0%} within "
                         f"its uncertainty; {model.name} best unmeasured: {pool[i].label} "
                         f"{predicted[i] * 1e3:.2f} ms +- {sigma[i]:.0%}, {model.name} best measured: "
                         f"{model_best.label}")
            return []
        chosen = [pool[i] for i in take]
        refit_s = apply_residual(np.array([self.features(c) for c in chosen], float), model.refit).tolist()
        self.rounds.append(Round(len(self.rounds) + 1, chosen, [float(predicted[i]) for i in take],
                                 [float(sigma[i]) for i in take], model.residual, model=model.name,
                                 refit_s=refit_s, choice=model.line()))
        self.say(f"round {len(self.rounds)}: {model.line()} (on {len(measured)} measured); "
                 + ", ".join(f"{c.label} {predicted[i] * 1e3:.2f} ms +- {sigma[i]:.0%}" for c, i in zip(chosen, take)))
        return chosen

    def records(self) -> list[dict[str, Any]]:
        return [r.stats() for r in self.rounds]


def expected_improvement(median: np.ndarray, sigma: np.ndarray, best: float) -> np.ndarray:
    """E[max(best - X, 0)] for X = median * exp(sigma * Z), Z standard normal, elementwise (sigma 0: the plain
    improvement).

    The error is relative, so it is taken in the logarithm: a normal error of 50% on a prediction 20 times the
    best step would give that step a few percent of chance to beat the best, which no measurement has ever shown;
    in the logarithm it is six standard deviations away. (The expectation is the value of a put option at strike
    ``best``.)"""
    median, sigma = np.asarray(median, float), np.asarray(sigma, float)
    plain = np.maximum(best - median, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        d2 = np.where(sigma > 0, np.log(best / median) / sigma, 0.0)
    d1 = d2 - sigma
    cdf = np.vectorize(lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0)), otypes=[float])
    value = best * cdf(d2) - median * np.exp(0.5 * sigma * sigma) * cdf(d1) if median.size else median
    return np.where(sigma > 0, np.maximum(value, 0.0), plain)


def round_lines(records: list[dict[str, Any]]) -> list[str]:
    """One line per profiling round for the terminal and the report."""
    lines = []
    for r in records:
        line = f"round {r['round']}: {r['measured']} measured"
        if r.get("mape") is not None:
            line += f", predicted within {r['mape']:.1%} MAPE by the {r.get('model', 'calibrated')} model"
            if r.get("kendall_tau") is not None:
                line += f" (Kendall tau {r['kendall_tau']:.2f})"
            both = [f"{k} {r[f'mape_{k}']:.1%}" for k in ("calibrated", "refit") if r.get(f"mape_{k}") is not None]
            line += f"; MAPE {', '.join(both)}" if both else ""
        if r.get("stop"):
            line += f"; stopped: {r['stop']}"
        lines.append(line)
    return lines
