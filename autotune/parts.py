"""The cost model's step by part held against the measured one, strategy by strategy: so that a wrong prediction is
located (compute, the links, the rest) and not only sized.

Predicted parts come from ``Scorer.breakdown``; measured ones from the trace of a few steps (``runners._trace``)
where there is one, else only the measured step. Each pair is the same quantity (docs/tracing.md, "Like with like"):

- ``compute``: predicted, the slowest tower's compute, a calibrated step's wall (its ops and the gaps between them);
  measured, the traced step's instants where some task computes or nothing at all is recorded (ops and gaps), as a
  share of the timed step;
- ``comm``: predicted, the exposed communication with its fixed overheads (latencies, barriers); measured, the
  instants where no task computes but a transfer is under way or a task waits in a collective, as a share of the
  timed step;
- ``other``: predicted, the residual's correction; not measured (the trace has no such part);
- ``busiest link``: the link with the most wire time in the trace (its busy time without each transfer's latency,
  which the model charges to ``fixed_s``, not to the link) against the seconds the model keeps that link busy
  (not a part of the step: links are busy while towers compute).

The measured parts are of one step swept over every task at once, scaled to add up to the timed median: a traced
call runs one step, with a whole call's cost and tracing's own (0.96-2.1 times the timed step on the examples), while
the prediction is a step of a timed call of several. The trace gives the step's shares, the timing its length. The
busiest link is not scaled (it is not a part of the step).

A part is flagged where it is off by more than ``OFF`` and is at least ``MIN_SHARE`` of the step: a smaller part off
by as much moves the step by less than the measurement's own noise.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
from typing import Mapping

from simulator import Breakdown, LinkPart

OFF = 0.25  # relative error beyond which a part is flagged
MIN_SHARE = 0.05  # parts smaller than this share of the step are never flagged
STACKED = ("compute", "comm", "other")  # the parts a bar stacks, bottom up
LINK = "busiest link"


@dataclasses.dataclass(frozen=True)
class PartRow:
    """One part of one strategy's step: predicted and measured seconds (``None``: not measured)."""

    strategy: str
    part: str
    predicted_s: float
    measured_s: float | None
    step_s: float  # the measured step (the predicted one where nothing was measured): what "share" is of

    @property
    def off(self) -> float | None:
        """measured / predicted - 1 (None where either is missing or the prediction is 0)."""
        if self.measured_s is None or self.predicted_s <= 0:
            return None
        return self.measured_s / self.predicted_s - 1.0

    @property
    def flagged(self) -> bool:
        big = max(self.predicted_s, self.measured_s or 0.0) >= MIN_SHARE * self.step_s
        if self.measured_s is not None and self.predicted_s <= 0:
            return big and self.measured_s > 0
        return self.off is not None and abs(self.off) > OFF and big


def predicted_parts(b: Breakdown) -> dict[str, float]:
    return {"compute": b.compute_s, "comm": b.comm_s + b.fixed_s, "other": b.correction_s}


def measured_parts(trace, step_s: float | None = None) -> dict[str, float]:
    """The traced step's parts from a ``runners._step_stats.TraceSummary`` (see the module's docstring), scaled to
    ``step_s`` (the timed median) where given; none from a summary without the step swept as a whole."""
    st = trace.step
    if st is None or st.span_s <= 0:
        return {}
    scale = step_s / st.span_s if step_s is not None and step_s > 0 else 1.0
    return {"compute": (st.compute_s + st.idle_s) * scale, "comm": st.comm_s * scale}


def busiest_wire(trace):
    """The trace's link with the most wire time (None where no link has one)."""
    timed = [link for link in trace.links if link.wire_s is not None]
    return max(timed, key=lambda x: (x.wire_s, x.busy_s)) if timed else None


def rows_for(label: str, b: Breakdown, measured_s: float | None, trace=None) -> list[PartRow]:
    """The step, its parts and the busiest link of one strategy (``trace``: its TraceSummary, or None)."""
    step = measured_s if measured_s is not None else b.step_s
    rows = [PartRow(label, "step", b.step_s, measured_s, step)]
    measured = measured_parts(trace, measured_s) if trace is not None else {}
    rows += [PartRow(label, k, v, measured.get(k), step) for k, v in predicted_parts(b).items()]
    top = busiest_wire(trace) if trace is not None else None
    if top is not None:
        predicted = {(p.src, p.dst): p.seconds for p in b.links}.get((top.src, top.dst), 0.0)
        rows.append(PartRow(label, f"{LINK} {top.src}->{top.dst}", predicted, top.wire_s, step))
    elif b.busiest_link is not None:
        p = b.busiest_link
        rows.append(PartRow(label, f"{LINK} {p.src}->{p.dst}", p.seconds, None, step))
    return rows


def table(rows: list[PartRow]) -> str:
    """The rows as text: ms predicted and measured, the error, and a ``!`` on flagged parts."""
    lines = [f"{'strategy':28} {'part':36} {'predicted ms':>12} {'measured ms':>12} {'off':>7}"]
    for r in rows:
        measured = "-" if r.measured_s is None else f"{r.measured_s * 1e3:.3f}"
        off = "-" if r.off is None else f"{r.off:+.0%}"
        lines.append(f"{r.strategy[:28]:28} {r.part[:36]:36} {r.predicted_s * 1e3:12.3f} {measured:>12} {off:>7}"
                     + ("  !" if r.flagged else ""))
    flagged = sum(r.flagged for r in rows)
    lines.append(f"{flagged} part(s) off by more than {OFF:.0%} (!), of those at least {MIN_SHARE:.0%} of the step")
    return "\n".join(lines)


def trace_of(directory: pathlib.Path, strategy_id: str):
    """The trace summary ``runners._trace`` wrote for ``strategy_id`` under ``directory``; None where there is none
    or it cannot be read (a cut file: the table goes on without its measured parts)."""
    from runners._trace import load_summary, trace_paths

    path = trace_paths(directory, strategy_id)[1]
    try:
        return load_summary(path) if path.is_file() else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def breakdown_to_dict(b: Breakdown) -> dict:
    return dataclasses.asdict(b)


def breakdown_from_dict(d: Mapping) -> Breakdown:
    fields = dict(d)
    fields["links"] = tuple(LinkPart(**x) for x in d["links"])
    fields["tower_compute_s"] = dict(d["tower_compute_s"])
    return Breakdown(**fields)


def write_parts(path: pathlib.Path, entries: list[dict]) -> None:
    """``parts.json``: one entry per strategy, ``{"label", "strategy_id", "measured_s", "breakdown"}``."""
    path.write_text(json.dumps(entries, indent=1))


def read_parts(path: pathlib.Path) -> list[dict]:
    """The entries of a ``parts.json`` (their breakdowns as :class:`Breakdown`); [] where it is missing or cut."""
    try:
        entries = json.loads(path.read_text())
        return [{**e, "breakdown": breakdown_from_dict(e["breakdown"])} for e in entries]
    except (OSError, ValueError, KeyError, TypeError):
        return []


def parts_figure(rows: list[PartRow], path: pathlib.Path) -> pathlib.Path:
    """A stacked bar per strategy and side (predicted, measured) of :data:`STACKED`; a measured step without a
    trace is one grey block. A flagged part is outlined in red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    labels = list(dict.fromkeys(r.strategy for r in rows))
    colours = {"compute": "#4c72b0", "comm": "#dd8452", "other": "#8c8c8c"}
    fig, ax = plt.subplots(figsize=(max(5.0, 1.4 * len(labels) + 2), 4.2))
    for i, label in enumerate(labels):
        mine = {r.part: r for r in rows if r.strategy == label}
        for side, dx in (("predicted", -0.2), ("measured", 0.2)):
            bottom = 0.0
            if side == "measured" and all(mine[k].measured_s is None for k in STACKED):
                step = mine["step"].measured_s
                if step is not None:
                    ax.bar(i + dx, step * 1e3, 0.38, color="#d0d0d0", edgecolor="k", linewidth=0.4)
                continue
            for k in STACKED:
                v = mine[k].predicted_s if side == "predicted" else (mine[k].measured_s or 0.0)
                ax.bar(i + dx, max(v, 0.0) * 1e3, 0.38, bottom=bottom, color=colours[k],
                       edgecolor="red" if mine[k].flagged else "k", linewidth=2.0 if mine[k].flagged else 0.4)
                bottom += max(v, 0.0) * 1e3
            step = mine["step"].measured_s
            if side == "measured" and step is not None:  # the timed median, beside the traced step's parts
                ax.hlines(step * 1e3, i + dx - 0.19, i + dx + 0.19, colors="k", linestyles="--", linewidth=1.2)
    ax.set_xticks(range(len(labels)), [f"{x[:18]}\npred | meas" for x in labels], fontsize=8)
    ax.set_ylabel("ms per step")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.1)
    ax.set_title(f"Predicted vs measured step by part (red: off by > {OFF:.0%})")
    handles = [Patch(facecolor=c, edgecolor="k", linewidth=0.4, label=k) for k, c in colours.items()]
    handles.append(Line2D([], [], color="k", linestyle="--", label="measured median"))
    ax.legend(handles=handles, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
