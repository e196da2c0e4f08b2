"""The report's pandas tables: every trial, and the strategies that were compared (builders vs candidates).

Speedup vs the best builder compares measurements when both sides were measured, else predictions; the
``basis`` column says which, so a predicted speedup is never read as a measured one.
"""
from __future__ import annotations

import math

import pandas as pd

from autotune.report._source import Run
from space import format_table


def _best_builder(run: Run) -> tuple[float | None, str]:
    """The reference of the speedup column: best measured builder, else best predicted builder."""
    b = run.candidates[run.candidates["is_builder"]]
    if b["measured_s"].notna().any():
        return float(b["measured_s"].min()), "measured"
    if b["predicted_s"].notna().any():
        return float(b["predicted_s"].min()), "predicted"
    return None, ""


def _speedups(frame: pd.DataFrame, run: Run) -> pd.DataFrame:
    ref, ref_basis = _best_builder(run)
    measured = frame["measured_s"].notna()
    basis = measured.map({True: "measured", False: "predicted"})
    if ref_basis == "measured":
        b = run.candidates[run.candidates["is_builder"]]
        pred_ref = float(b["predicted_s"].min())
        ref_for = measured.map({True: ref, False: pred_ref})
    else:
        basis[:] = "predicted"
        ref_for = pd.Series(ref, index=frame.index, dtype=float)
    time = frame["measured_s"].where(basis == "measured", frame["predicted_s"])
    out = pd.DataFrame(index=frame.index)
    out["speedup_vs_best_builder"] = (ref_for / time).round(3) if ref else math.nan
    out["x_lower_bound"] = (time / run.lower_bound_s).round(3) if run.lower_bound_s else math.nan
    out["basis"] = basis
    return out


def candidates_table(run: Run) -> pd.DataFrame:
    """Builders and carried-out candidates, fastest first (measured, then predicted); winner marked ``*``."""
    c = run.candidates
    df = pd.DataFrame({"strategy": c["label"] + c["winner"].map({True: " *", False: ""}),
                       "kind": c["is_builder"].map({True: "builder", False: "search"}),
                       "trial": c["trial"], "family": c["family"].fillna(""),
                       "lossy": c["lossy"].map({True: "lossy", False: "-"}).fillna("-"),
                       "predicted_ms": (c["predicted_s"] * 1e3).round(3),
                       "measured_ms": (c["measured_s"] * 1e3).round(3),
                       "p10_ms": (c["p10_s"] * 1e3).round(3), "p90_ms": (c["p90_s"] * 1e3).round(3)})
    df = df.join(_speedups(c, run))
    if c["error"].fillna("").astype(bool).any():  # a candidate whose profiling failed says why
        df["error"] = c["error"].fillna("")
    order = c["measured_s"].fillna(math.inf).to_numpy(), c["predicted_s"].to_numpy()
    df = df.iloc[sorted(range(len(df)), key=lambda i: (order[0][i], order[1][i]))]
    return df.reset_index(drop=True)


def trials_table(run: Run) -> pd.DataFrame:
    """Every simulated trial in trial order, with the same speedup and lower-bound columns."""
    t = run.trials
    df = pd.DataFrame({"trial": t["trial"], "state": t["state"], "builders": t["builders"],
                       "predicted_ms": (t["predicted_s"] * 1e3).round(4),
                       "measured_ms": (t["measured_s"] * 1e3).round(4), "wire_mb": t["wire_mb"]})
    return df.join(_speedups(t, run))


def to_markdown(df: pd.DataFrame) -> str:
    """A GitHub-flavoured markdown table (pandas' own needs the optional ``tabulate``)."""
    def cell(v) -> str:
        if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
            return ""
        return str(v).replace("|", "\\|")

    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "|" + "|".join("---:" if pd.api.types.is_numeric_dtype(df[c]) else "---" for c in df.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join([head, rule, *body]) + "\n"


def to_text(df: pd.DataFrame) -> str:
    """The terminal form: left-aligned columns, blanks instead of NaN / <NA>."""
    return format_table(df.astype(object).where(df.notna(), "").to_dict("records"), list(df.columns))
