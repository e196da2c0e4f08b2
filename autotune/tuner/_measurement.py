"""What a profiling run measured, and how the measurements decide: pooled runs, the contenders re-measured head to
head, and the noise rule that keeps the best builder against a mix no faster than the comparison can tell.

One measurement of a step time on a shared machine is noisy, so picking the minimum of several single measurements
favours whichever got lucky: on the emulated testbed the same strategy measured a few seconds apart differs by
10-20%, because the machine's speed drifts over seconds, while steps within one run agree to a few percent. The
confirmation (:class:`autotune.tuner._stage.ProfilingStage`) spends the runs left in the budget on the best, the best
builder and the candidates closest to them, measured head to head (their jobs take turns, so the drift falls on all
of them alike), and the winner is the fastest in that comparison.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from autotune.tuner._record import MEASURED, TrialRecord

NOISE_Z = 2.0  # a mix displaces the best builder only when faster head to head by this many standard errors


def median_se(times) -> float:
    """Standard error of the median of ``times``: 1.2533 sigma / sqrt(n), sigma from the interquartile range (robust
    to the odd slow step); 0 with fewer than 4 steps."""
    if len(times) < 4:
        return 0.0
    q25, q75 = np.percentile(np.asarray(times, float), [25, 75])
    return float(1.2533 * (q75 - q25) / 1.349 / np.sqrt(len(times)))


@dataclasses.dataclass(frozen=True)
class Measurement:
    median_s: float
    p10_s: float
    p90_s: float
    examples_per_s: float
    bytes_per_step: float = 0.0
    step_times_s: tuple[float, ...] = ()
    runs: int = 1  # profiling runs pooled into this measurement
    head_to_head_s: float = 0.0  # median in the confirmation's head-to-head comparison (0: not confirmed)
    head_to_head_se_s: float = 0.0  # standard error of that median, from its steps' spread (0: unknown)
    steps_per_call: int = 0  # the steps per call it was measured at, which training of it runs (0: unknown)
    # its first run's wall time by phase (runners.profile.PhaseClock.split; empty: not split)
    phases_s: dict = dataclasses.field(default_factory=dict, compare=False)
    source: str = ""  # where it was measured when not by a profiling run here ("calibration: <anchor>")


def pooled(a: Measurement, b: Measurement) -> Measurement:
    """Two measurements of one strategy as one: the quantiles of every timed step when both kept their steps,
    else the run-weighted mean of the medians (and the wider spread); the steps per call of the first that recorded
    one (a calibration's anchor step records none: its head-to-head's are what training of it runs)."""
    runs = a.runs + b.runs
    if a.step_times_s and b.step_times_s:
        times = np.asarray(a.step_times_s + b.step_times_s)
        median, p10, p90 = (float(np.percentile(times, q)) for q in (50, 10, 90))
    else:
        median = (a.median_s * a.runs + b.median_s * b.runs) / runs
        p10, p90 = min(a.p10_s, b.p10_s), max(a.p90_s, b.p90_s)
    examples = a.examples_per_s * a.median_s / median if median > 0 else a.examples_per_s  # global batch / step
    return Measurement(median, p10, p90, examples, a.bytes_per_step, a.step_times_s + b.step_times_s, runs,
                       steps_per_call=a.steps_per_call or b.steps_per_call, phases_s=a.phases_s, source=a.source)


def _or(value, default):
    return default if value is None else value


def measurement_of(r: TrialRecord) -> Measurement:
    """The measurement a profiled or confirmed record holds (its ``measured_s`` set)."""
    m = r.measured_s
    return Measurement(m, _or(r.p10_s, m), _or(r.p90_s, m), _or(r.examples_per_s, 0.0), _or(r.bytes_per_step, 0.0),
                       tuple(r.step_times_s or ()), r.pooled_runs, _or(r.head_to_head_s, 0.0),
                       _or(r.head_to_head_se_s, 0.0), _or(r.steps_per_call, 0), dict(r.phases_s or {}),
                       _or(r.source, ""))


def measured_in(study) -> dict[str, Measurement]:
    """Per strategy hash, the measurement that pooled the most runs (a confirmation supersedes its first run)."""
    out: dict[str, Measurement] = {}
    for t in study.trials:
        r = TrialRecord.of(t)
        if r.stage in MEASURED and r.strategy_hash and r.measured_s is not None:
            m = measurement_of(r)
            if r.strategy_hash not in out or m.runs > out[r.strategy_hash].runs:
                out[r.strategy_hash] = m
    return out


def contenders(measured: list, n: int, within: float) -> list:
    """The candidates to re-measure: those within ``within`` (relative) of the best measured, at most ``n``: the
    best first, then the best builder among them (the reference the search must beat), then the others by
    their step time; none when fewer than two qualify (a clear winner needs no confirmation)."""
    if n < 2:
        return []
    ranked = sorted(measured, key=lambda c: c.measured.median_s)
    close = [c for c in ranked if c.measured.median_s <= ranked[0].measured.median_s * (1 + within)]
    builder = next((c for c in close if c.builders), None)
    if builder is not None:
        close = [close[0]] + ([builder] if builder is not close[0] else []) + [c for c in close[1:] if c is not builder]
    close = close[:n]
    return close if len(close) >= 2 else []


def _confirmed_time(c) -> float:
    return c.measured.head_to_head_s or c.measured.median_s


def choose(measured: list, within: float, run_noise: float = 0.0):
    """The winner among measured candidates: the fastest, except that a single measurement within ``within``
    of a confirmed one does not displace it; then the fastest in the confirmation's head-to-head wins, except
    that a mix faster than the best builder there by less than the comparison's noise does not displace it."""
    return decide(measured, within, run_noise)[0]


def decide(measured: list, within: float, run_noise: float = 0.0):
    """``choose``'s winner and, when the noise rule kept a builder, a line saying so (else "").

    The noise rule: each head-to-head median has a standard error from its own steps' spread and, beyond that,
    ``run_noise`` (relative): one job's median moves that much from one comparison to the next (the order the
    jobs were built in, where their memory landed, the moments its turns saw). The difference of two medians
    has the root sum of squares of both; a mix must be faster than the best builder by ``NOISE_Z`` of those,
    else the builder, as fast as far as the comparison can tell and a known quantity, is kept.
    """
    best = min(measured, key=lambda c: c.measured.median_s)
    confirmed = [c for c in measured
                 if c.measured.runs >= 2 and c.measured.median_s <= best.measured.median_s * (1 + within)]
    if not confirmed:
        return best, ""
    winner = min(confirmed, key=_confirmed_time)
    builder = min((c for c in confirmed if c.builders), key=_confirmed_time, default=None)
    if builder is None or winner.builders:
        return winner, ""
    w, b = winner.measured, builder.measured
    margin = NOISE_Z * float(np.hypot(np.hypot(w.head_to_head_se_s, run_noise * w.head_to_head_s),
                                      np.hypot(b.head_to_head_se_s, run_noise * b.head_to_head_s)))
    if w.head_to_head_s and b.head_to_head_s and b.head_to_head_s - w.head_to_head_s <= margin:
        return builder, (f"kept {builder.label}: {winner.label} was {1 - w.head_to_head_s / b.head_to_head_s:.1%} "
                         f"faster head to head, within the comparison's noise ({NOISE_Z:g} standard errors: "
                         f"{margin / b.head_to_head_s:.1%})")
    return winner, ""


def confidence(measured: list, winner, run_noise: float = 0.0) -> str:
    """How sure the pick is, in one line: the winner against the runner-up (the fastest other measured candidate,
    compared head to head where both were), their difference against its noise (``NOISE_Z`` standard errors of the
    difference, each median's from its steps' spread and ``run_noise``)."""
    others = [c for c in measured if c is not winner and c.measured is not None]
    if winner.measured is None or not others:
        return "the only measured candidate: nothing to compare the pick with"
    h2h = winner.measured.head_to_head_s > 0

    def timed(c) -> tuple[float, float]:
        m = c.measured
        if h2h and m.head_to_head_s > 0:
            return m.head_to_head_s, m.head_to_head_se_s
        return m.median_s, median_se(m.step_times_s)

    runner = min(others, key=lambda c: timed(c)[0])
    (tw, sw), (tr, sr) = timed(winner), timed(runner)
    gap = tr / tw - 1.0
    noise = NOISE_Z * float(np.hypot(np.hypot(sw, run_noise * tw), np.hypot(sr, run_noise * tr))) / tw
    if gap > noise:
        return f"winner faster than the runner-up ({runner.label}) by {gap:.1%} (noise +-{noise:.1%})"
    if -gap > noise:  # a faster one the head-to-head did not hold: its single run is all that says so
        return (f"not sure: {runner.label} measured {-gap:.1%} faster than the winner (noise +-{noise:.1%}) in a run "
                f"the head-to-head did not repeat; compare them (`autotune compare`) or search with a larger budget")
    simpler = bool(winner.builders) and not runner.builders
    return (f"a tie within noise: {winner.label} and {runner.label} differ by {abs(gap):.1%} (noise +-{noise:.1%}); "
            + ("kept the simpler" if simpler else "kept the faster measured"))


def confirm_reserve(cfg) -> int:
    """Profiling runs kept back for the confirmation: ``confirm`` when the budget still leaves two candidates to
    compare, else none."""
    return cfg.confirm if cfg.confirm >= 2 and cfg.max_profiles - cfg.confirm >= 2 else 0
