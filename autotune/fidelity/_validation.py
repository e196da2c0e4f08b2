"""The simulator's fidelity harness: pick strategies, profile and predict them, score the agreement.

Split so that everything except the profiling itself runs without TensorFlow: ``pick_strategies`` (the classic
builders the search space expresses, then random samples of that space: the population ``autotune search`` ranks),
``evaluate`` (metrics on all rows, and with a residual fit, before/after on a held-out split); the table, CSV,
JSON and PNG are written by ``autotune.fidelity._io``. ``run_validation`` joins them with a ``profile(strategy) ->
step times`` callable: the real cluster in the CLI, a fake in tests. It profiles every strategy in ``repeats``
passes, each in the reverse order of the one before, so a slow minute of the machine is spread over the strategies
rather than charged to one, and reports how well the passes agree with each other: the measurement's own noise,
the ceiling of any simulator's agreement.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
from typing import Any, Callable, Sequence

import numpy as np

from autotune.fidelity._journal import MeasurementJournal
from simulator import COUNT_UNIT_S, apply_residual, fidelity, fit_residual, kendall_tau, mape
from simulator import anchor_fit as simulated_anchor_fit
from space.anchors import anchor_strategies
from space.errors import AutotuneError, BadInput
from space.validate import validate


@dataclasses.dataclass
class Row:
    """One strategy: what the simulator said and what the cluster did (seconds)."""

    label: str
    strategy_id: str
    predicted_s: float  # with the calibration's residual, if it has one
    raw_s: float  # before any residual
    compute_s: float
    comm_s: float
    latency_s: float
    pieces: int = 0  # synchronized tensors beyond one per variable
    collectives: int = 0  # all-reduce collectives per step
    measured_s: float = math.nan
    p10_s: float = math.nan
    p90_s: float = math.nan
    split: str = "all"  # "train" | "holdout" with --fit-residual
    corrected_s: float = math.nan  # with the residual fitted here
    error: str = ""
    strategy_file: str = ""  # strategies/<label>.pb beside rows.csv (what --reuse predicts again)
    repeat_medians: str = ""  # median seconds of each pass, ";"-separated

    @property
    def repeats(self) -> list[float]:
        return [float(x) for x in self.repeat_medians.split(";") if x]

    @property
    def ok(self) -> bool:
        return not self.error and self.measured_s > 0


@dataclasses.dataclass
class Report:
    rows: list[Row]
    metrics: dict[str, float]  # all measured rows, predictions as the calibration gives them
    holdout_before: dict[str, float] | None = None
    holdout_after: dict[str, float] | None = None
    residual: dict[str, float] | None = None
    noise: dict[str, float] | None = None  # one pass's medians against another's (mean over pairs of passes)
    raw_metrics: dict[str, float] | None = None  # without the calibration's residual, when it has one
    since_calibration: float | None = None  # the machine's speed: steps measured here over the same ones calibrated
    metrics_at_calibration: dict[str, float] | None = None  # ``metrics`` with that ratio divided out
    # the calibration's own anchor steps: name -> (measured, as this cost model predicts them), see ``anchor_fit``
    anchor_fit: dict[str, tuple[float, float]] | None = None


def strategy_key(strategy) -> str:
    """Content hash of a strategy, ignoring its id and provenance (two builders may coincide)."""
    msg = type(strategy.proto)()
    msg.CopyFrom(strategy.proto)
    msg.ClearField("id")
    msg.ClearField("provenance")
    return hashlib.sha256(msg.SerializeToString(deterministic=True)).hexdigest()[:16]


def pick_strategies(inventory, cluster, n: int, seed: int = 0, max_tries: int | None = None,
                    space=None) -> list[tuple[str, Any]]:
    """``n`` distinct ``(label, Strategy)``: every classic builder that ``space`` expresses (the ones the search
    starts from), then random samples of ``space`` (default: the space ``autotune search`` uses by default)."""
    import optuna

    from autotune.tuner import make_space

    if n < 2:
        raise BadInput(f"`--strategies >= 2` must hold, but got {n}", hint="Kendall tau needs at least two points")
    space = space if space is not None else make_space(inventory, cluster)
    out: dict[str, tuple[str, Any]] = {}
    for alias, params in space.builder_params():
        if len(out) >= n:
            break
        s = space.decode(params)
        try:
            validate(s, inventory, cluster, source=f"builder {alias!r}")
        except AutotuneError:
            continue
        out.setdefault(strategy_key(s), (alias, s))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    tries = 0
    limit = max_tries if max_tries is not None else 50 * n
    while len(out) < n and tries < limit:
        tries += 1
        trial = study.ask()
        s = space.suggest(trial)
        study.tell(trial, 0.0)
        out.setdefault(strategy_key(s), (f"random{trial.number}", s))
    return list(out.values())


def predict_rows(scorer, picked: Sequence[tuple[str, Any]]) -> list[Row]:
    rows = []
    for label, s in picked:
        p = scorer.predict(s)
        rows.append(Row(label=label, strategy_id=s.proto.id, predicted_s=p.step_time_s, raw_s=p.raw_step_time_s,
                        compute_s=p.compute_s, comm_s=p.exposed_comm_s, latency_s=p.latency_s, pieces=p.pieces,
                        collectives=p.collectives))
    return rows


def split_holdout(n: int, fraction: float, seed: int = 0) -> np.ndarray:
    """Boolean mask of the held-out rows: ``round(fraction * n)`` of them, at least 2, leaving at least 2 to fit."""
    if not 0 < fraction < 1:
        raise BadInput(f"`0 < --holdout < 1` must hold, but got {fraction!r}")
    if n < 4:
        raise BadInput(f"a residual fit with a held-out split needs at least 4 measured strategies, but got {n}",
                       hint="raise --strategies")
    k = min(max(2, round(fraction * n)), n - 2)
    mask = np.zeros(n, bool)
    mask[np.random.default_rng(seed).permutation(n)[:k]] = True
    return mask


def measurement_noise(rows: list[Row]) -> dict[str, float] | None:
    """How well the passes agree: Kendall tau and MAPE of one pass's medians against another's, averaged over
    every pair of passes (None with fewer than two passes or two strategies)."""
    good = [r.repeats for r in rows if r.ok and len(r.repeats) >= 2]
    passes = min((len(x) for x in good), default=0)
    if len(good) < 2 or passes < 2:
        return None
    m = np.array([x[:passes] for x in good])
    pairs = [(i, j) for i in range(passes) for j in range(i + 1, passes)]
    return {"kendall_tau": float(np.mean([kendall_tau(m[:, j], m[:, i]) for i, j in pairs])),
            "mape": float(np.mean([mape(m[:, j], m[:, i]) for i, j in pairs])), "n": float(len(good)),
            "passes": float(passes)}


def evaluate(rows: list[Row], *, fit: bool = False, holdout: float = 0.3, seed: int = 0) -> Report:
    """Fidelity of the measured rows; with ``fit`` a residual on the train split, scored on the held-out one."""
    good = [r for r in rows if r.ok]
    if len(good) < 2:
        raise AutotuneError(f"only {len(good)} strategies were measured; fidelity needs at least 2")
    pred = np.array([r.predicted_s for r in good])
    meas = np.array([r.measured_s for r in good])
    report = Report(rows=rows, metrics=fidelity(pred, meas), noise=measurement_noise(rows))
    raw = np.array([r.raw_s for r in good])
    if not np.allclose(raw, pred, rtol=1e-12, atol=0.0):
        report.raw_metrics = fidelity(raw, meas)
    if not fit:
        return report
    mask = split_holdout(len(good), holdout, seed)
    feats = np.array([[r.compute_s, r.comm_s, r.latency_s, r.pieces * COUNT_UNIT_S, r.collectives * COUNT_UNIT_S]
                      for r in good])
    residual = fit_residual(feats[~mask], meas[~mask])
    corrected = apply_residual(feats, residual)
    for r, held, c in zip(good, mask, corrected):
        r.split, r.corrected_s = ("holdout" if held else "train"), float(c)
    report.residual = residual
    report.holdout_before = fidelity(raw[mask], meas[mask])
    report.holdout_after = fidelity(corrected[mask], meas[mask])
    return report


def anchor_fit(report: Report, scorer) -> None:
    """The calibration's own anchor steps as the scorer's cost model predicts them (``simulator.anchor_fit``):
    a step it misses says the strategies like it will be predicted off by about as much, whatever this run
    measures. Nothing without anchors."""
    cal = scorer.calibration
    if cal.anchors_s:
        report.anchor_fit = simulated_anchor_fit(cal, scorer.inventory, scorer.cluster) or None


def since_calibration(report: Report, picked: Sequence[tuple[str, Any]], scorer) -> None:
    """How much slower the machine ran here than when it was calibrated, from the strategies ``calibrate`` timed as
    anchors (``scorer.calibration.anchors_s``) and this run measured too (the ``all_reduce`` builder is the
    ``all_reduce`` anchor): measured now over then, their geometric mean; and the metrics with that ratio divided
    out of every measurement. The cost model cannot know that a shared machine sped up or slowed down since its
    calibration; this tells the two apart. Nothing without anchors, or when no pick is one of them."""
    anchors_s = scorer.calibration.anchors_s
    if not anchors_s:
        return
    names = {strategy_key(s): name for name, s in anchor_strategies(scorer.inventory, scorer.cluster).items()
             if anchors_s.get(name, 0.0) > 0}
    ratios = [r.measured_s / anchors_s[names[strategy_key(s)]] for (_, s), r in zip(picked, report.rows)
              if r.ok and strategy_key(s) in names]
    if not ratios:
        return
    speed = float(np.exp(np.mean(np.log(ratios))))
    good = [r for r in report.rows if r.ok]
    report.since_calibration = speed
    report.metrics_at_calibration = fidelity(np.array([r.predicted_s for r in good]),
                                             np.array([r.measured_s / speed for r in good]))


def pass_order(n: int, p: int) -> list[int]:
    """The order of pass ``p`` over ``n`` strategies: forward, then backward, each pair of passes shifted by one,
    so every strategy's mean position over two passes is the same (a slow drift of the machine cancels)."""
    shift = (p // 2) % max(n, 1)
    forward = list(range(shift, n)) + list(range(shift))
    return forward if p % 2 == 0 else forward[::-1]


def group_plan(n: int, anchor: int, size: int, passes: int, seed: int = 0) -> list[list[list[int]]]:
    """Head-to-head groups for every pass: each group is ``anchor`` followed by up to ``size - 1`` other strategies,
    the others shuffled anew in every pass (seeded), so each pass compares each strategy with different ones."""
    if size < 2:
        raise BadInput(f"`--together >= 2` must hold for head-to-head groups, but got {size}")
    others = [i for i in range(n) if i != anchor]
    k = max(1, math.ceil(len(others) / (size - 1)))
    plan = []
    for p in range(passes):
        shuffled = np.random.default_rng([seed, p]).permutation(others)
        plan.append([[anchor, *map(int, chunk)] for chunk in np.array_split(shuffled, k) if len(chunk)])
    return plan


def fit_drift(obs: Sequence[tuple[int, int, float]]) -> tuple[dict[int, float], dict[int, float]]:
    """Split head-to-head medians into a time per strategy and a factor per group: ``t[i, g] = T[i] * D[g]``.

    ``obs`` holds ``(strategy, group, median seconds)``. The factors are the machine's speed during each comparison
    (a slow minute makes every strategy in it slower alike); they are fitted by least squares in log space and
    scaled to a geometric mean of 1, so ``T`` is each strategy's time at the machine's average speed. Groups must
    be linked through shared strategies (``group_plan``'s anchor links them all).
    """
    logs = [(i, g, math.log(t)) for i, g, t in obs if t > 0]
    strategies = sorted({i for i, _, _ in logs})
    groups = sorted({g for _, g, _ in logs})
    si = {i: k for k, i in enumerate(strategies)}
    gi = {g: len(strategies) + k for k, g in enumerate(groups)}
    a = np.zeros((len(logs) + 1, len(strategies) + len(groups)))
    y = np.zeros(len(logs) + 1)
    for r, (i, g, x) in enumerate(logs):
        a[r, si[i]] = a[r, gi[g]] = 1.0
        y[r] = x
    a[-1, len(strategies):] = 1.0  # sum of log factors = 0
    sol = np.linalg.lstsq(a, y, rcond=None)[0]
    return ({i: math.exp(sol[si[i]]) for i in strategies}, {g: math.exp(sol[gi[g]]) for g in groups})


def journal_header(picked: Sequence[tuple[str, Any]], **settings) -> dict:
    """What a journal's measurements are of: the strategies (label and content key, in order) and ``settings``."""
    return {"journal": 1, "strategies": [[label, strategy_key(s)] for label, s in picked], **settings}


def run_validation(picked, scorer, profile: Callable[[Any], Sequence[float]] | None = None, *, repeats: int = 1,
                   fit: bool = False, holdout: float = 0.3, seed: int = 0,
                   progress: Callable[[str], None] = lambda _m: None,
                   files: dict[str, str] | None = None,
                   profile_group: Callable[[list[Any]], Sequence[Sequence[float]]] | None = None,
                   together: int = 1, journal: MeasurementJournal | None = None) -> Report:
    """Predict every picked strategy, measure each in ``repeats`` passes, pool the passes, then ``evaluate``.

    Measured one at a time (``profile(strategy)`` returns one run's step times) or, with ``together >= 2``, head to
    head in groups of ``together`` (``profile_group(strategies)`` returns each one's step times; see
    ``measure_together``). A failure is recorded on its row and the strategy is not run again.
    ``files`` (label -> saved strategy file, see ``save_strategies``) is recorded on the rows for ``--reuse``.
    ``journal`` records every run as it ends, and answers the runs it already holds (``--resume``).
    """
    journal = journal if journal is not None else MeasurementJournal(None, {})
    if repeats < 1:
        raise BadInput(f"`--repeats >= 1` must hold, but got {repeats}")
    rows = predict_rows(scorer, picked)
    for r in rows:
        r.strategy_file = (files or {}).get(r.label, "")
    if together >= 2:
        if profile_group is None:
            raise BadInput("head-to-head groups need a group profiler")
        measure_together(rows, [s for _, s in picked], profile_group, size=together, repeats=repeats, seed=seed,
                         progress=progress, journal=journal)
    else:
        if profile is None:
            raise BadInput("measuring one strategy at a time needs a profiler")
        _measure_serially(rows, [s for _, s in picked], profile, repeats, progress, journal)
    if journal.replayed:
        progress(f"resumed: {journal.replayed} run(s) taken from the journal, not measured again")
    for row in rows:
        if row.error:
            row.measured_s = math.nan
    return evaluate(rows, fit=fit, holdout=holdout, seed=seed)


def _journaled(journal: MeasurementJournal, key: tuple,
               measure: Callable[[], list[list[float]]]) -> list[list[float]] | str:
    """The journal's record of ``key``; else ``measure()``, a failure as its one-line message, recorded."""
    got = journal.get(key)
    if got is None:
        try:
            got = measure()
        except AutotuneError as e:
            got = str(e).splitlines()[0][:200]
        journal.put(key, got)
    return got


def _set_measured(row: Row, steps: Sequence[float], medians: Sequence[float]) -> None:
    pooled = np.asarray(steps, float)
    row.measured_s = float(np.median(pooled))
    row.p10_s, row.p90_s = (float(x) for x in np.quantile(pooled, [0.1, 0.9]))
    row.repeat_medians = ";".join(f"{m:.6g}" for m in medians)


def _measure_serially(rows: list[Row], strategies: list, profile, repeats: int, progress,
                      journal: MeasurementJournal) -> None:
    """One strategy at a time, each pass in the reverse order of the one before (``pass_order``)."""
    steps: list[list[float]] = [[] for _ in rows]
    medians: list[list[float]] = [[] for _ in rows]
    done, total = 0, repeats * len(rows)
    for p in range(repeats):
        for i in pass_order(len(rows), p):
            row = rows[i]
            done += 1
            if row.error:
                continue
            def run(s=strategies[i]) -> list[list[float]]:
                times = [float(t) for t in profile(s)]
                if not times:
                    raise AutotuneError("the run returned no step times")
                return [times]

            got = _journaled(journal, ("run", p, row.label), run)
            if isinstance(got, str):
                row.error = got
                progress(f"[{done}/{total}] {row.label}: FAILED: {row.error}")
                continue
            times = got[0]
            steps[i] += times
            medians[i].append(float(np.median(times)))
            _set_measured(row, steps[i], medians[i])
            pass_note = f" (pass {p + 1}/{repeats})" if repeats > 1 else ""
            progress(f"[{done}/{total}] {row.label}{pass_note}: predicted {row.predicted_s * 1e3:.1f} ms, "
                     f"measured {medians[i][-1] * 1e3:.1f} ms")


def _first_that_runs(rows: list[Row], one, progress: Callable[[str], None]) -> int | None:
    """The anchor: the first strategy that runs at all alone (those that fail before it are marked failed)."""
    for i, row in enumerate(rows):
        got = one([i], "alone")
        if isinstance(got, str):
            row.error = got
            progress(f"{row.label}: FAILED: {got}")
            continue
        progress(f"anchor of every comparison: {row.label} ({np.median(got[0]) * 1e3:.1f} ms alone)")
        return i
    return None


def measure_together(rows: list[Row], strategies: list, profile_group, *, size: int, repeats: int, seed: int = 0,
                     progress: Callable[[str], None] = lambda _m: None,
                     journal: MeasurementJournal | None = None) -> None:
    """Measure head to head: in every pass the strategies are split into groups of ``size`` whose jobs take turns
    (``profile_group``), each group holding the first strategy that runs (the anchor) and others drawn anew.

    Within a group the machine's drift falls on every strategy alike; between groups it does not, so each group's
    speed factor is fitted (``fit_drift``) and divided out: the anchor, present in every group, ties them together.
    A row's ``measured_s`` is its fitted time; its passes and spread are its step times with their group's factor
    divided out. A group that fails is measured again as pairs (anchor, member), to find the one that fails.
    """
    journal = journal if journal is not None else MeasurementJournal(None, {})

    def one(group: list[int], *where) -> list[list[float]] | str:
        def compare() -> list[list[float]]:
            out = [[float(t) for t in times] for times in profile_group([strategies[i] for i in group])]
            if len(out) != len(group) or not all(out):
                raise AutotuneError("the comparison returned no step times")
            return out

        return _journaled(journal, (*where, *(rows[i].label for i in group)), compare)

    anchor = _first_that_runs(rows, one, progress)
    if anchor is None:
        return
    plan = group_plan(len(rows), anchor, size, repeats, seed)
    steps: dict[tuple[int, int], list[float]] = {}  # (strategy, comparison) -> its step times there
    pass_of: dict[int, int] = {}
    total = sum(len(groups) for groups in plan)
    done = 0
    for p, groups in enumerate(plan):
        for j, group in enumerate(groups):
            done += 1
            group = [i for i in group if not rows[i].error]
            if len(group) < 2:
                continue
            got = one(group, "group", p, j)
            if isinstance(got, str):  # find the member that fails: (anchor, member) pairs
                progress(f"[{done}/{total}] comparison of {len(group)} failed ({got}); measuring its members in pairs")
                runs = []
                for i in group[1:]:
                    pair = one([anchor, i], "pair", p, j)
                    if isinstance(pair, str):
                        rows[i].error = pair
                        progress(f"{rows[i].label}: FAILED: {pair}")
                    else:
                        runs.append(([anchor, i], pair))
            else:
                runs = [(group, got)]
                progress(f"[{done}/{total}] pass {p + 1}/{repeats}: " + ", ".join(
                    f"{rows[i].label} {np.median(t) * 1e3:.1f}" for i, t in zip(group, got)) + " ms")
            for members, times in runs:
                g = len(pass_of)
                pass_of[g] = p
                steps.update(((i, g), t) for i, t in zip(members, times))
    factor = _divide_out_drift(rows, steps, pass_of)
    if factor:
        progress(f"machine speed between comparisons varied {min(factor.values()):.2f}-{max(factor.values()):.2f}x "
                 "(divided out)")


def repredict(scorer, picked: Sequence[tuple[str, Any]], measured: Sequence[Row], *, fit: bool = False,
              holdout: float = 0.3, seed: int = 0) -> Report:
    """Predict saved strategies again (after a model or calibration change) against their saved measurements."""
    rows = predict_rows(scorer, picked)
    for r, old in zip(rows, measured):
        r.measured_s, r.p10_s, r.p90_s, r.error, r.strategy_file, r.repeat_medians = (
            old.measured_s, old.p10_s, old.p90_s, old.error, old.strategy_file, old.repeat_medians)
    return evaluate(rows, fit=fit, holdout=holdout, seed=seed)


def _divide_out_drift(rows: list[Row], steps: dict[tuple[int, int], list[float]],
                      pass_of: dict[int, int]) -> dict[int, float]:
    """Fit each comparison's speed factor (``fit_drift``), divide it out of its step times, and set each row's
    passes and fitted time; returns the factors."""
    time_of, factor = fit_drift([(i, g, float(np.median(t))) for (i, g), t in steps.items() if not rows[i].error])
    per_pass: dict[int, dict[int, list[float]]] = {}  # strategy -> pass -> step times, its group's factor divided out
    for (i, g), t in steps.items():
        if i in time_of:
            per_pass.setdefault(i, {}).setdefault(pass_of[g], []).extend(x / factor[g] for x in t)
    for i, passes in per_pass.items():
        _set_measured(rows[i], [x for _, v in sorted(passes.items()) for x in v],
                      [float(np.median(v)) for _, v in sorted(passes.items())])
        rows[i].measured_s = time_of[i]
    return factor
