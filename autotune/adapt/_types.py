"""What an adaptive job's parts hand each other: a re-planning's :class:`Plan` and the job's :class:`Decision`s.

Both are frozen: the watcher reads a plan and records a decision; ``train.json``, the log and TensorBoard read the
decision. ``to_dict`` is the one place that spells their JSON.
"""
from __future__ import annotations

import dataclasses

from autotune.adapt._detect import Change
from space.strategy import Strategy


@dataclasses.dataclass(frozen=True)
class Ranked:
    """A candidate of a re-planning: where it came from, what it is, its step on the model refitted to the job."""

    label: str
    strategy: Strategy
    predicted_s: float


@dataclasses.dataclass(frozen=True)
class Plan:
    """One re-planning: what the links measured, the refit, and the candidates, best first."""

    links_gbit: dict[str, float]  # link key -> Gbit/s measured now
    current_predicted_s: float  # the running strategy, refitted model
    factor: float  # the job's measured step over the model's prediction for it
    ranked: tuple[Ranked, ...]
    seconds: float = 0.0  # what the re-planning took, links included

    @property
    def best(self) -> Ranked:
        return self.ranked[0]

    def to_dict(self, top: int = 5) -> dict:
        return {"links_gbit": {k: round(v, 4) for k, v in self.links_gbit.items()},
                "current_predicted_ms": _ms(self.current_predicted_s), "factor": round(self.factor, 4),
                "candidates": [{"strategy": r.label, "predicted_ms": _ms(r.predicted_s)} for r in self.ranked[:top]],
                "seconds": round(self.seconds, 2)}


@dataclasses.dataclass(frozen=True)
class Weighed:
    """A re-planning's verdict: the change that prompted it, its best candidate, and the gain against the cost."""

    change: Change
    plan: Plan
    remaining_steps: int
    predicted_gain_s: float
    switch_cost_s: float
    replanning_s: float

    def to_dict(self) -> dict:
        return {"change": {"since_step": self.change.since_step, "before_ms": _ms(self.change.before_s),
                           "after_ms": _ms(self.change.after_s)},
                "best": self.plan.best.label, "best_predicted_ms": _ms(self.plan.best.predicted_s),
                "remaining_steps": self.remaining_steps, "predicted_gain_s": round(self.predicted_gain_s, 3),
                "switch_cost_s": round(self.switch_cost_s, 3), "replanning_s": round(self.replanning_s, 3),
                "plan": self.plan.to_dict()}


@dataclasses.dataclass(frozen=True)
class Checked:
    """A switched-to strategy's first measured level against the step of the strategy it replaced."""

    measured_s: float
    replaced: str
    replaced_s: float

    def to_dict(self) -> dict:
        return {"measured_ms": _ms(self.measured_s), "replaced": self.replaced, "replaced_ms": _ms(self.replaced_s)}


EVENTS = ("switch", "stay", "back", "checked", "failed")


@dataclasses.dataclass(frozen=True)
class Decision:
    """What the job decided at ``step`` while running ``strategy`` (a label).

    ``event``: "switch" or "stay" after a re-planning (``weighed``), "back" or "checked" once a switch is measured
    (``checked``), "failed" where the re-planning raised (``error``)."""

    step: int
    event: str
    strategy: str
    weighed: Weighed | None = None
    checked: Checked | None = None
    error: str | None = None

    def __post_init__(self) -> None:
        if self.event not in EVENTS:
            raise ValueError(f"`event` must be one of {', '.join(EVENTS)}, but got {self.event!r}")

    def to_dict(self) -> dict:
        out: dict = {"step": self.step, "event": self.event, "strategy": self.strategy}
        if self.weighed is not None:
            out |= self.weighed.to_dict()
        if self.checked is not None:
            out |= self.checked.to_dict()
        if self.error is not None:
            out["error"] = self.error
        return out

    def scalars(self) -> dict[str, float]:
        """The decision as TensorBoard scalars: whether it switched (1) or kept (0), and the steps it weighed."""
        out = {"adapt/switched": float(self.event in ("switch", "back"))}
        if self.weighed is not None:
            out |= {"adapt/step_before_change_ms": _ms(self.weighed.change.before_s),
                    "adapt/step_after_change_ms": _ms(self.weighed.change.after_s),
                    "adapt/best_candidate_predicted_ms": _ms(self.weighed.plan.best.predicted_s)}
        if self.checked is not None:
            out["adapt/switched_to_measured_ms"] = _ms(self.checked.measured_s)
        return out


def _ms(seconds: float) -> float:
    return round(seconds * 1e3, 3)
