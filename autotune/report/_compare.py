"""Profile strategies side by side on one started cluster, in interleaved repeats (s1, s2, s3, then s2, s3, s1, ...).

Interleaving spreads a slow minute of the machine over every strategy instead of charging it to one, and one
cluster for all means the same servers, ports and warm caches for each.
"""
from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import statistics
from typing import Callable, Sequence

import pandas as pd

from autotune.report.figures import _save, plt
from runners.cluster import start_cluster
from runners.profile import profile_strategy
from space.cluster import load_cluster
from space.errors import BadInput, RunError, failure_line
from space.model import inventory_from_trace, trace_step
from space.strategy import Strategy
from space.validate import validate


@dataclasses.dataclass
class Comparison:
    """Step times of every strategy: pooled over repeats, and the median of each repeat."""

    labels: list[str]
    step_times: dict[str, list[float]]
    repeat_medians: dict[str, list[float]]
    examples_per_s: dict[str, list[float]]
    run_order: list[str]
    errors: dict[str, str] = dataclasses.field(default_factory=dict)  # label -> why it failed (first line)

    @property
    def measured(self) -> list[str]:
        """The labels with step times (a strategy that failed in every repeat has none)."""
        return [lbl for lbl in self.labels if self.step_times[lbl]]

    def table(self) -> pd.DataFrame:
        """median, p10/p90 (pooled steps), spread of the repeats' medians, throughput, speedup vs the first measured;
        a strategy that failed is a row with its error."""
        rows = []
        measured = self.measured
        first = statistics.median(self.step_times[measured[0]]) if measured else float("nan")
        for label in self.labels:
            if not self.step_times[label]:
                rows.append({"strategy": label, "error": self.errors.get(label, "not measured")})
                continue
            t = sorted(self.step_times[label])
            med = statistics.median(t)
            reps = self.repeat_medians[label]
            rows.append({"strategy": label, "median_ms": round(med * 1e3, 3),
                         "p10_ms": round(_quantile(t, 0.1) * 1e3, 3), "p90_ms": round(_quantile(t, 0.9) * 1e3, 3),
                         "repeat_spread_ms": round((max(reps) - min(reps)) * 1e3, 3), "repeats": len(reps),
                         "steps": len(t), "examples_per_s": round(statistics.median(self.examples_per_s[label]), 1),
                         "speedup_vs_first": round(first / med, 3)})
            if label in self.errors:
                rows[-1]["error"] = self.errors[label]
        return pd.DataFrame(rows)

    def plot(self, path: str | pathlib.Path, title: str = "") -> pathlib.Path:
        """Box plot of the pooled step times, each repeat's median as a dot; the first strategy is the reference."""
        labels = self.measured
        n = len(labels)
        fig, ax = plt.subplots(figsize=(9, 0.6 * n + 1.8))
        data = [[x * 1e3 for x in self.step_times[lbl]] for lbl in labels]
        ax.boxplot(data, vert=False, widths=0.5, showfliers=True, flierprops={"markersize": 3, "alpha": 0.4},
                   medianprops={"color": "black"})
        for i, lbl in enumerate(labels, start=1):
            meds = [x * 1e3 for x in self.repeat_medians[lbl]]
            ax.scatter(meds, [i] * len(meds), color="tab:orange", s=22, zorder=3,
                       label="median of one repeat" if i == 1 else None)
        tab = self.table()
        tab = tab[tab["strategy"].isin(labels)]
        ax.set_yticks(range(1, n + 1), [f"{r.strategy}\n{r.median_ms:.2f} ms, {r.speedup_vs_first:.2f}x"
                                        for r in tab.itertuples()], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("step time (ms)")
        ax.grid(True, axis="x", alpha=0.2)
        ax.legend(fontsize=8, loc="lower right")
        reps = tab["repeats"].iloc[0]
        ax.set_title(title or f"Step time per strategy ({reps} interleaved repeats; speedup vs {labels[0]})",
                     fontsize=10)
        return _save(fig, path)


def _quantile(s: list[float], q: float) -> float:
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def strategy_labels(paths: Sequence[str | pathlib.Path]) -> list[str]:
    """File names without suffix, or the paths themselves where two names coincide."""
    stems = [pathlib.Path(p).stem for p in paths]
    return [s if stems.count(s) == 1 else str(p) for s, p in zip(stems, paths)]


def compare_strategies(model: str, spec: str, strategies: Sequence[str | pathlib.Path], *,
                       labels: Sequence[str] | None = None, repeats: int = 3, steps: int = 20, warmup: int = 5,
                       step_timeout_s: float = 120.0, start_timeout_s: float = 60.0,
                       accept_unknown_hosts: bool = False, log: Callable[[str], None] | None = None) -> Comparison:
    """Profile every strategy file ``repeats`` times, interleaved, on one cluster started from ``spec``.

    Every strategy is checked against the model and the cluster before any server starts.
    """
    if len(strategies) < 1:
        raise BadInput("no strategy to compare", hint="give one or more strategy files (.pb / .pbtxt)")
    if repeats < 1 or steps < 1 or warmup < 0:
        raise BadInput(f"`repeats >= 1 and steps >= 1 and warmup >= 0` must hold, but got "
                       f"({repeats=}, {steps=}, {warmup=})")
    labels = list(labels) if labels else strategy_labels(strategies)
    if len(labels) != len(strategies) or len(set(labels)) != len(labels):
        raise BadInput(f"labels must be distinct, one per strategy, but got {labels}")
    say = log or (lambda _m: None)
    cluster_spec = load_cluster(spec)
    loaded = [Strategy.load(p) for p in strategies]
    traced = trace_step(model)
    inventory = inventory_from_trace(traced)
    for s, p in zip(loaded, strategies):
        validate(s, inventory, cluster_spec, source=str(p))
    result = Comparison(labels=labels, step_times={lbl: [] for lbl in labels},
                        repeat_medians={lbl: [] for lbl in labels}, examples_per_s={lbl: [] for lbl in labels},
                        run_order=[])

    with contextlib.ExitStack() as stack:
        running = None
        pairs = list(zip(labels, loaded))
        for r in range(repeats):
            # each repeat starts one strategy later: no strategy always runs right after the same one (what a
            # strategy leaves behind on the servers, e.g. a PS's pending updates, would bias its successor)
            shift = r % len(pairs)
            for label, strategy in pairs[shift:] + pairs[:shift]:
                if label in result.errors:
                    continue  # failed once: a strategy that cannot run is not retried every repeat
                if running is None:
                    running = stack.enter_context(start_cluster(cluster_spec, timeout_s=start_timeout_s,
                                                                accept_unknown_hosts=accept_unknown_hosts))
                try:
                    m = profile_strategy(traced, strategy, running, steps=steps, warmup=warmup,
                                         step_timeout_s=step_timeout_s)
                except Exception as e:  # noqa: BLE001 - one strategy failing is a row of the table, not the end
                    result.errors[label] = failure_line(e)
                    say(f"repeat {r + 1}/{repeats} {label}: failed: {result.errors[label]}")
                    if isinstance(e, RunError):  # the servers may be in a bad state: start them again
                        stack.close()
                        running = None
                    continue
                result.step_times[label].extend(m.step_times_s)
                result.repeat_medians[label].append(m.median_s)
                result.examples_per_s[label].append(m.examples_per_s)
                result.run_order.append(label)
                say(f"repeat {r + 1}/{repeats} {label}: median {m.median_s * 1e3:.2f} ms")
    if not result.measured:
        first = next(iter(result.errors.items()))
        raise RunError(f"every strategy failed; the first, {first[0]}: {first[1]}")
    return result
