"""No blind family: the best predicted member of every synchronizer family (``space.families``) is profiled in the
first round, unless its lower bound shows it cannot beat a step already measured.

Why: a cost model that is wrong about one mechanism is wrong about all of its members alike, so ranking by
prediction alone can leave a whole family unmeasured. On an NCF recommender on the 3-host testbed the model
predicted the ``all_reduce`` builder (sparse gradients all-gathered) at 44.8 ms and the search never profiled it;
trained, it ran at 29.7 ms, within noise of the winner. One run per family bounds what such an error can cost: the
refitted rounds then see that family's real step and correct the model for all of its members.
"""
from __future__ import annotations

from typing import Any, Iterable

from autotune.tuner._types import Candidate
from space.families import COMPRESSED, FAMILIES, HIERARCHICAL


def representatives(pool: Iterable[Candidate]) -> dict[str, Candidate]:
    """The best predicted member of each pure family found in ``pool`` (mixes are not a family of their own)."""
    best: dict[str, Candidate] = {}
    for c in pool:
        if c.strategy is None:
            continue
        f = c.family
        if f in FAMILIES and (f not in best or c.predicted_s < best[f].predicted_s):
            best[f] = c
    return best


def with_representatives(first: list[Candidate], reps: dict[str, Candidate], size: int,
                         limit: int) -> list[Candidate]:
    """The first round: ``first`` with every representative it lacks appended last, best predicted first, so that
    their lower bounds meet the steps measured before them. To stay within ``size``, the last of ``first`` that are
    not representatives give way, down to its first two (the model's own best guesses); beyond that the round takes
    runs from the later rounds, never more than ``limit`` (the runs left before the confirmation)."""
    have = {c.trial for c in first}  # a simplified trial stands for the trial it came from
    missing = sorted((c for c in reps.values() if c.trial not in have), key=lambda c: c.predicted_s)
    standing = {c.trial for c in reps.values()}
    keep = list(first)
    while len(keep) + len(missing) > size:
        drop = next((i for i in range(len(keep) - 1, 1, -1) if keep[i].trial not in standing), None)
        if drop is None:
            break
        del keep[drop]
    return (keep + missing)[:max(limit, 0)]


def records(candidates: list[Candidate], reps: dict[str, Candidate], *, tiered: bool, lossless: bool,
            unmeasured: str) -> list[dict[str, Any]]:
    """Per family, whether it was measured and why (not): for the summary, the report and the terminal.
    ``unmeasured``: why a representative that was neither ruled out nor failed went unmeasured."""
    out = []
    for f in FAMILIES:
        members = [c for c in candidates if c.strategy is not None and c.family == f]
        measured = [c for c in members if c.measured is not None]
        rep = reps.get(f)
        row: dict[str, Any] = {"family": f, "representative": rep.label if rep else None,
                               "predicted_ms": round(rep.predicted_s * 1e3, 3) if rep else None}
        if measured:
            best = min(measured, key=lambda c: c.measured.median_s)
            row.update(status="measured", best=best.label, measured_ms=round(best.measured.median_s * 1e3, 3),
                       why=f"{len(measured)} member(s) profiled")
        elif rep is None:
            row.update(status="absent", why=_absent(f, tiered, lossless))
        elif rep.skipped:
            row.update(status="ruled out", why=rep.skipped)
        elif rep.error:
            row.update(status="failed", why=rep.error)
        else:
            row.update(status="not measured", why=unmeasured)
        out.append(row)
    return out


def _absent(f: str, tiered: bool, lossless: bool) -> str:
    if f == COMPRESSED and lossless:
        return "--lossless keeps the search to exact synchronizers"
    if f == HIERARCHICAL and not tiered:
        return "the cluster has no nodes or racks of several replicas to all-reduce inside first"
    return "no strategy of this family in the space for this model"


def lines(rows: list[dict[str, Any]]) -> list[str]:
    """One line per family for the terminal and the report."""
    out = []
    for r in rows:
        if r["status"] == "measured":
            out.append(f"family {r['family']}: measured, best {r['best']} {r['measured_ms']:.2f} ms")
        else:
            head = f"family {r['family']}: {r['status']}"
            if r["representative"]:
                head += f" ({r['representative']}, predicted {r['predicted_ms']:.2f} ms)"
            out.append(f"{head}: {r['why']}")
    return out


def bounds_hold(measured: Iterable[Candidate]) -> bool:
    """Whether the lower bounds are bounds on this cluster: no measured step fell below its own. A cost model on the
    spec's nominal values (no calibration) can put a strategy's floor above what it measures; such a floor rules
    nothing out."""
    return all(c.measured.median_s >= c.lower_bound_s for c in measured
               if c.measured is not None and c.lower_bound_s and c.measured.median_s > 0)


def ruled_out(c: Candidate, best_measured_s: float | None) -> str:
    """Why ``c`` need not run: its lower bound cannot beat ``best_measured_s`` (else "")."""
    if best_measured_s is None or not c.lower_bound_s or c.lower_bound_s < best_measured_s:
        return ""
    return (f"its lower bound {c.lower_bound_s * 1e3:.2f} ms cannot beat the best measured step "
            f"({best_measured_s * 1e3:.2f} ms)")

