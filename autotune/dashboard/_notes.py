"""The dashboard's notes on a search's trials: each carried-out candidate's strategy map (variable -> synchronizer),
its predicted against its measured step time and, for a profiled one, its step by part (the cost model's, beside the
trace's where the search traced it: ``autotune.parts``), written as optuna-dashboard notes (Markdown) on its
trials."""
from __future__ import annotations

import math
import pathlib
import re
from typing import Any, Iterable, Mapping

from autotune.tuner._record import RECORDS, TrialRecord

MAX_ROWS = 40  # a note is kept in the study's attributes, 2 kB a piece: a large model's map is cut, best.pbtxt is whole
NOTED_STAGES = RECORDS  # the search's records
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")


def md(text: Any) -> str:
    """``text`` as literal Markdown inline text: every character Markdown (and the HTML in it) would read escaped,
    line breaks made spaces, so a variable's name can neither format a note nor break its table."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _ms(seconds: Any) -> str:
    return f"{seconds * 1e3:.2f} ms" if isinstance(seconds, (int, float)) and math.isfinite(seconds) else "-"


def _times(rec: TrialRecord) -> list[str]:
    predicted, measured = rec.predicted_s, rec.measured_s
    line = f"predicted **{_ms(predicted)}**, measured **{_ms(measured)}**"
    if isinstance(predicted, (int, float)) and isinstance(measured, (int, float)) and predicted > 0 \
            and math.isfinite(predicted) and math.isfinite(measured):
        line += f" (measured / predicted {measured / predicted:.2f})"
    lines = [line]
    if rec.head_to_head_s:
        lines.append(f"head to head in the confirmation: {_ms(rec.head_to_head_s)}")
    if rec.error:
        lines.append(f"profiling failed: {md(rec.error)}")
    return lines


def _breakdown_table(breakdown: Mapping[str, Any]) -> list[str]:
    """Per part its predicted seconds, or a (predicted, measured or None) pair: a measured column where some part
    was measured."""
    pairs = {k: tuple(v) if isinstance(v, (tuple, list)) else (v, None) for k, v in breakdown.items()}
    if all(m is None for _, m in pairs.values()):
        rows = [f"| {md(part)} | {_ms(p)} |" for part, (p, _) in pairs.items()]
        return ["", "**predicted step, by part**", "", "| part | time |", "| --- | ---: |", *rows]
    rows = []
    for part, (p, m) in pairs.items():
        ratio = f"{m / p:.2f}" if isinstance(m, (int, float)) and isinstance(p, (int, float)) and p > 0 else "-"
        rows.append(f"| {md(part)} | {_ms(p)} | {_ms(m)} | {ratio} |")
    return ["", "**step by part**, predicted and traced (docs/tracing.md)", "",
            "| part | predicted | measured | measured / predicted |", "| --- | ---: | ---: | ---: |", *rows]


def trial_parts(output: str | pathlib.Path, candidates: Iterable) -> dict[str, dict[str, tuple]]:
    """Per profiled candidate's strategy hash, its parts as :func:`annotate` takes them: part -> (predicted seconds,
    measured seconds or None), from the ``parts.json`` of the search's ``output`` and the traces beside it."""
    from autotune import parts
    from runners._trace import TRACES

    out = pathlib.Path(output)
    hashes = {c.strategy.proto.id: c.strategy_hash for c in candidates if c.strategy is not None}
    found = {}
    for e in parts.read_parts(out / "parts.json"):
        if e.get("strategy_id") in hashes:
            rows = parts.rows_for(e["label"], e["breakdown"], e["measured_s"], parts.trace_of(out / TRACES,
                                                                                            e["strategy_id"]))
            found[hashes[e["strategy_id"]]] = {r.part: (r.predicted_s, r.measured_s) for r in rows if r.part != "step"}
    return found


def _map_table(strategy, inventory) -> list[str]:
    rows = strategy.summary_rows(inventory)
    shown = [f"| {md(r['variable'].strip())} | {md(r['MB']) or '-'} | {md(r['partition']) or '-'} | "
             f"{md(r['synchronizer'])} |" for r in rows[:MAX_ROWS]]
    more = ["", f"... and {len(rows) - MAX_ROWS} more rows (the whole strategy: `autotune show` on its file)"] \
        if len(rows) > MAX_ROWS else []
    return ["", "**strategy map**", "", "| variable | MB | partition | synchronizer |", "| --- | ---: | --- | --- |",
            *shown, *more]


def note_body(label: str, attrs: Mapping[str, Any], strategy=None, inventory=None,
              breakdown: Mapping[str, float] | None = None) -> str:
    """The Markdown note of one trial: what it is (label, stage, family, lossy), its times, its step by part, its
    strategy map. ``breakdown``: part -> predicted seconds, or -> (predicted, measured or None) (:func:`trial_parts`);
    without it the note has the totals only."""
    head = f"### {md(label)}"
    rec = TrialRecord.from_attrs(attrs)
    tags = [f"stage **{md(rec.stage or '?')}**", f"family **{md(rec.family or '?')}**",
            "**lossy** (compresses gradients)" if rec.lossy else "lossless"]
    if rec.builders:
        tags.append("builder " + ", ".join(md(b) for b in rec.builders))
    lines = [head, "", " · ".join(tags), "", *_times(rec)]
    if breakdown:
        lines += _breakdown_table(breakdown)
    if strategy is not None:
        lines += _map_table(strategy, inventory)
    return "\n".join(lines) + "\n"


STUDY_COLUMNS = ("strategy", "family", "lossy", "predicted_ms", "measured_ms", "head_to_head_ms")


def study_note(winner: str, rows: Iterable[Mapping[str, Any]]) -> str:
    """The study's Markdown note: the search's winner line and its table of builders and candidates (family, lossy,
    predicted and measured step), as the terminal showed them."""
    rows = list(rows)
    columns = [c for c in STUDY_COLUMNS if any(c in r for r in rows)]
    lines = [f"**{md(winner)}**", "", "| " + " | ".join(md(c) for c in columns) + " |",
             "| " + " | ".join("---" if c in ("strategy", "family", "lossy") else "---:" for c in columns) + " |"]
    lines += ["| " + " | ".join(md(r.get(c, "-")) for c in columns) + " |" for r in rows[:MAX_ROWS]]
    return "\n".join(lines) + "\n"


def annotate(study, candidates: Iterable, inventory=None, breakdowns: Mapping[str, Mapping] | None = None,
             summary: str | None = None) -> int:
    """Write the note of every trial of ``study`` that records one of ``candidates`` (matched by strategy hash), and
    ``summary`` as the study's own; a note that already says the same is left alone. Returns the notes written.
    Needs optuna-dashboard."""
    import optuna
    from optuna_dashboard import get_note, save_note

    by_hash = {c.strategy_hash: c for c in candidates if c.strategy is not None}
    written = 0
    for t in study.get_trials(deepcopy=False):
        rec = TrialRecord.of(t)
        c = by_hash.get(rec.strategy_hash)
        if c is None or rec.stage not in NOTED_STAGES:
            continue
        body = note_body(c.label, t.user_attrs, c.strategy, inventory,
                         (breakdowns or {}).get(c.strategy_hash))
        trial = optuna.trial.Trial(study, t._trial_id)  # a finished trial's handle: notes are keyed by trial id
        if get_note(trial) != body:
            save_note(trial, body)
            written += 1
    if summary is not None and get_note(study) != summary:
        save_note(study, summary)
        written += 1
    return written
