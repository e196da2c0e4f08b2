"""Matplotlib figures of a search's output directory (PNG, Agg backend: no display needed)."""
from __future__ import annotations

import json
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def _save(fig, path: pathlib.Path) -> pathlib.Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def step_times(rows: list[dict], path: pathlib.Path) -> pathlib.Path:
    """Measured (else predicted) step time per strategy: builders vs the winner."""
    labels, measured, predicted, colors = [], [], [], []
    for r in rows:
        labels.append(r["strategy"])
        measured.append(float(r["measured_ms"]) if r["measured_ms"] != "-" else float("nan"))
        predicted.append(float(r["predicted_ms"]) if r["predicted_ms"] != "-" else float("nan"))
        colors.append("tab:green" if r["strategy"].endswith("*") else "tab:blue")
    fig, ax = plt.subplots(figsize=(8, 0.35 * len(labels) + 1.5))
    y = range(len(labels))
    ax.barh([i + 0.2 for i in y], measured, height=0.4, color=colors, label="measured")
    ax.barh([i - 0.2 for i in y], predicted, height=0.4, color="lightgray", label="predicted")
    ax.set_yticks(list(y), labels)
    ax.invert_yaxis()
    ax.set_xlabel("step time (ms)")
    ax.set_title("Step time per strategy (* = winner)")
    ax.legend(loc="lower right")
    return _save(fig, path)


def convergence(trials: pd.DataFrame, path: pathlib.Path) -> pathlib.Path:
    """Best predicted step time so far, over trials and over wall time."""
    done = trials[trials["state"] == "complete"].sort_values("trial")
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.5))
    best = done["predicted_s"].cummin() * 1e3
    a.plot(done["trial"], best, drawstyle="steps-post")
    a.scatter(done["trial"], done["predicted_s"] * 1e3, s=3, alpha=0.25, color="gray")
    a.set_xlabel("trial")
    a.set_ylabel("predicted step time (ms)")
    a.set_yscale("log")
    a.set_title("Search convergence")
    if done["finished_at"].notna().any():
        t = pd.to_numeric(done["finished_at"], errors="coerce")
        b.plot(t - t.min(), best, drawstyle="steps-post")
    b.set_xlabel("wall time (s)")
    b.set_ylabel("best so far (ms)")
    return _save(fig, path)


def predicted_vs_measured(predicted, measured, labels, path: pathlib.Path, title_extra: str = "") -> pathlib.Path:
    fig, ax = plt.subplots(figsize=(5, 5))
    p = [x * 1e3 for x in predicted]
    m = [x * 1e3 for x in measured]
    ax.scatter(p, m)
    for x, y, label in zip(p, m, labels):
        ax.annotate(label, (x, y), fontsize=7, alpha=0.8)
    lo, hi = min(p + m) * 0.9, max(p + m) * 1.1
    ax.plot([lo, hi], [lo, hi], "--", color="gray", linewidth=1)
    ax.set_xlabel("predicted (ms)")
    ax.set_ylabel("measured (ms)")
    ax.set_title("Predicted vs measured" + (f"\n{title_extra}" if title_extra else ""))
    return _save(fig, path)


def search_figures(out: pathlib.Path) -> list[pathlib.Path]:
    """The figures the search writes into its output directory."""
    out = pathlib.Path(out)
    summary = json.loads((out / "summary.json").read_text())
    written = [step_times(summary["rows"], out / "step_times.png")]
    trials = pd.read_csv(out / "trials.csv")
    if len(trials):
        written.append(convergence(trials, out / "convergence.png"))
    prof = trials[trials["measured_s"].notna()]
    if len(prof) >= 2:
        from simulator import kendall_tau, mape

        tau, err = kendall_tau(prof["predicted_s"], prof["measured_s"]), mape(prof["predicted_s"], prof["measured_s"])
        written.append(predicted_vs_measured(list(prof["predicted_s"]), list(prof["measured_s"]),
                                             [str(b) if isinstance(b, str) else f"#{t}" for b, t in
                                              zip(prof["builders"], prof["trial"])],
                                             out / "predicted_vs_measured.png", f"Kendall τ {tau:.2f}, MAPE {err:.0%}"))
    return written
