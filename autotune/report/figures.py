"""Matplotlib figures of a search (PNG, Agg backend: no display needed).

``search_figures(out)`` is what ``autotune search`` writes into its output directory; ``autotune report``
adds the per-variable map of the winner (:mod:`autotune.report._varmap`).
"""
from __future__ import annotations

import json
import math
import pathlib

import matplotlib

from autotune.report._source import load_output_dir
from simulator import kendall_tau, mape

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402
import pandas as pd  # noqa: E402

_MINOR = FuncFormatter(lambda v, _p: f"{v:g}" if f"{v:g}"[0] in "25" else "")  # label 2x and 5x on log axes
BUILDER, SEARCH, WINNER, PREDICTED = "tab:blue", "tab:orange", "tab:green", "#c8c8c8"


def _save(fig, path: pathlib.Path, tight: bool = True) -> pathlib.Path:
    """Write a PNG; ``tight=False`` for figures whose legends sit outside the axes (cropped to fit instead)."""
    path = pathlib.Path(path)
    if tight:
        fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches=None if tight else "tight")
    plt.close(fig)
    return path


def _color(row) -> str:
    return WINNER if row["winner"] else BUILDER if row["is_builder"] else SEARCH


def step_time_figure(candidates: pd.DataFrame, path: pathlib.Path, lower_bound_s: float | None = None) -> pathlib.Path:
    """Measured step time per strategy (p10-p90 whiskers) next to its prediction; builders vs the winner."""
    c = candidates.assign(_m=candidates["measured_s"].fillna(math.inf)).sort_values(["_m", "predicted_s"])
    any_measured = c["measured_s"].notna().any()
    n = len(c)
    fig, ax = plt.subplots(figsize=(9, 0.32 * n + 1.9))
    y = list(range(n))
    colors = [_color(r) for _, r in c.iterrows()]
    if any_measured:
        m = c["measured_s"] * 1e3
        err = [(m - c["p10_s"] * 1e3).clip(lower=0).fillna(0), (c["p90_s"] * 1e3 - m).clip(lower=0).fillna(0)]
        ax.barh([i - 0.2 for i in y], m.fillna(0), height=0.4, color=colors, xerr=err, capsize=2,
                error_kw={"elinewidth": 0.8}, label="measured (p10-p90)")
        ax.barh([i + 0.2 for i in y], c["predicted_s"] * 1e3, height=0.4, color=PREDICTED, label="predicted")
        for i, (mv, pv) in enumerate(zip(m, c["predicted_s"] * 1e3)):
            if math.isnan(mv):
                ax.text(pv, i - 0.2, "  not measured", va="center", fontsize=7, color="gray")
    else:
        ax.barh(y, c["predicted_s"] * 1e3, height=0.6, color=colors)
    for i, (mv, pv) in enumerate(zip(c["measured_s"] * 1e3, c["predicted_s"] * 1e3)):
        v = mv if not math.isnan(mv) else pv
        ax.text(v, i - (0.2 if any_measured else 0), f" {v:.2f}", va="center", fontsize=7)
    if lower_bound_s:
        ax.axvline(lower_bound_s * 1e3, color="black", linestyle=":", linewidth=1)
        ax.text(lower_bound_s * 1e3, -0.7, " lower bound", fontsize=7, va="bottom")
    ax.set_yticks(y, [lbl + (" *" if w else "") for lbl, w in zip(c["label"], c["winner"])], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("step time (ms)")
    ax.set_xlim(0, ax.get_xlim()[1] * 1.08)
    what = "Measured step time per strategy" if any_measured else \
        "Predicted step time per strategy (nothing measured: --simulate-only)"
    ax.set_title(f"{what}; * = winner", fontsize=10)
    from matplotlib.patches import Patch

    handles = [Patch(color=BUILDER, label="builder"), Patch(color=SEARCH, label="search candidate"),
               Patch(color=WINNER, label="winner")]
    if any_measured:
        handles.append(Patch(color=PREDICTED, label="predicted"))
    ax.legend(handles=handles, loc="upper right", fontsize=8)
    return _save(fig, path)


def convergence_figure(trials: pd.DataFrame, path: pathlib.Path, lower_bound_s: float | None = None,
                       note: str = "") -> pathlib.Path:
    """Best predicted step time so far, over trials (every trial dotted) and over wall time."""
    done = trials[trials["state"] == "complete"].sort_values("trial")
    pruned = trials[trials["state"] != "complete"]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8))
    best = done["predicted_s"].cummin() * 1e3
    a.scatter(done["trial"], done["predicted_s"] * 1e3, s=6, alpha=0.35, color="gray", label="trial")
    if len(pruned):
        a.scatter(pruned["trial"], pruned["predicted_s"] * 1e3, s=6, marker="x", alpha=0.3, color="tab:red",
                  label="pruned")
    is_b = done["builders"].astype(str) != ""
    a.scatter(done.loc[is_b, "trial"], done.loc[is_b, "predicted_s"] * 1e3, s=16, color=BUILDER, label="builder")
    a.plot(done["trial"], best, drawstyle="steps-post", color=WINNER, linewidth=2, label="best so far")
    t = pd.to_numeric(done["finished_at"], errors="coerce")
    if t.notna().any():
        b.plot(t - t.min(), best, drawstyle="steps-post", color=WINNER, linewidth=2)
        b.scatter(t - t.min(), done["predicted_s"] * 1e3, s=6, alpha=0.35, color="gray")
    for ax in (a, b):
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
        ax.yaxis.set_minor_formatter(_MINOR)
        ax.set_ylabel("predicted step time (ms)")
        ax.grid(True, which="both", alpha=0.2)
        if lower_bound_s:
            ax.axhline(lower_bound_s * 1e3, color="black", linestyle=":", linewidth=1, label="lower bound")
    a.set_xlabel("trial")
    b.set_xlabel("wall time since the first trial (s)")
    a.set_title("Search convergence: best so far over trials" + (f"\n{note}" if note else ""), fontsize=10)
    b.set_title("... and over wall time", fontsize=10)
    a.legend(fontsize=7, loc="upper right")
    return _save(fig, path)


def predicted_vs_measured(predicted, measured, labels, path: pathlib.Path, title_extra: str = "") -> pathlib.Path:
    """Scatter of predicted vs measured step time (ms) against the y = x line; one label per point."""
    fig, ax = plt.subplots(figsize=(6, 6))
    p = [x * 1e3 for x in predicted]
    m = [x * 1e3 for x in measured]
    ax.scatter(p, m, s=28, color=BUILDER, zorder=3)
    for x, y, label in zip(p, m, labels):
        ax.annotate(str(label), (x, y), xytext=(4, 3), textcoords="offset points", fontsize=7, alpha=0.85)
    lo, hi = min(p + m) * 0.8, max(p + m) * 1.25
    ax.plot([lo, hi], [lo, hi], "--", color="gray", linewidth=1, label="predicted = measured")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    if hi / lo > 5:  # times an order of magnitude apart: log axes keep the small ones apart
        ax.set_xscale("log")
        ax.set_yscale("log")
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
            axis.set_minor_formatter(_MINOR)
    ax.set_xlabel("predicted step time (ms)")
    ax.set_ylabel("measured step time (ms)")
    ax.grid(True, alpha=0.2)
    ax.legend(fontsize=8, loc="upper left")
    ax.set_title("Predicted vs measured" + (f"\n{title_extra}" if title_extra else ""), fontsize=10)
    return _save(fig, path)


def fidelity_figure(candidates: pd.DataFrame, path: pathlib.Path) -> pathlib.Path:
    """Predicted vs measured with Kendall τ and MAPE; with fewer than 2 measurements, a figure that says so."""
    prof = candidates[candidates["measured_s"].notna() & candidates["predicted_s"].notna()]
    if len(prof) < 2:
        fig, ax = plt.subplots(figsize=(6, 3))
        ax.axis("off")
        ax.text(0.5, 0.5, f"Predicted vs measured: {len(prof)} measured strategy(ies), 2 needed.\n"
                "Run the search without --simulate-only,\nor `autotune compare` the strategies.",
                ha="center", va="center", fontsize=10)
        return _save(fig, path)

    tau, err = kendall_tau(list(prof["predicted_s"]), list(prof["measured_s"])), mape(list(prof["predicted_s"]),
                                                                                        list(prof["measured_s"]))
    return predicted_vs_measured(list(prof["predicted_s"]), list(prof["measured_s"]), list(prof["label"]), path,
                                 f"Kendall τ {tau:.2f}, MAPE {err:.0%} ({len(prof)} strategies)")


def search_figures(out: pathlib.Path) -> list[pathlib.Path]:
    """The figures the search writes into its output directory (the map comes with ``autotune report``)."""
    out = pathlib.Path(out)
    run = load_output_dir(out)
    written = [step_time_figure(run.candidates, out / "step_times.png", run.lower_bound_s)]
    if len(run.trials):
        written.append(convergence_figure(run.trials, out / "convergence.png", run.lower_bound_s))
    if len(run.measured) >= 2:
        written.append(fidelity_figure(run.candidates, out / "predicted_vs_measured.png"))
    return written


def trace_figure(trace_path: pathlib.Path, path: pathlib.Path, title: str = "") -> pathlib.Path:
    """A Gantt chart of a Chrome trace (``autotune profile --trace``): one row per lane (each task's ops, what it
    received), every event a bar, coloured by kind (transfers, collectives, the rest), time from the first event."""
    from matplotlib.patches import Patch

    trace = json.loads(pathlib.Path(trace_path).read_text()).get("traceEvents", [])
    names = {e["pid"]: e["args"]["name"] for e in trace if e.get("ph") == "M" and e.get("name") == "process_name"}
    events = [e for e in trace if e.get("ph") == "X" and e.get("dur") is not None]
    lanes = sorted({e["pid"] for e in events}, key=lambda p: names.get(p, str(p)))
    t0 = min((e["ts"] for e in events), default=0)
    fig, ax = plt.subplots(figsize=(10, 0.55 * len(lanes) + 1.6))
    colours = {"transfer": "tab:orange", "collective": "tab:red", "op": "tab:blue"}
    for row, pid in enumerate(lanes):
        received = " transfers" in names.get(pid, "")
        for kind, colour in colours.items():
            bars = [((e["ts"] - t0) / 1e3, max(e["dur"], 1) / 1e3) for e in events
                    if e["pid"] == pid and ("transfer" if received else _event_kind(e)) == kind]
            if bars:
                ax.broken_barh(bars, (row - 0.4, 0.8), facecolors=colour, alpha=0.75)
    short = [names.get(p, str(p)).replace("/job:worker/replica:0/", "").replace("/device:", " ")
             .removesuffix(" Compute") for p in lanes]
    ax.set_yticks(range(len(lanes)), short, fontsize=8)
    ax.set_xlabel("ms from the first traced event")
    ax.set_title(title or "Traced steps per task")
    ax.legend(handles=[Patch(color=c, alpha=0.75, label=k) for k, c in colours.items()], fontsize=8,
              loc="upper right")
    return _save(fig, path)


def _event_kind(event: dict) -> str:
    return "collective" if "Collective" in str(event.get("args", {}).get("op", "")) else "op"
