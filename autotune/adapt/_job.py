"""``train --adapt``: a training job that watches its step time and changes strategy when the cluster changes.

The job runs in segments, one strategy each, on one running cluster. A :class:`Watch` is told every step: it feeds
the change detector and, on a lasting change, re-plans at once, between two calls (the links timed again, the cost
model refitted, the candidates ranked again). A candidate predicted faster by more than what a switch costs (the
segment's own start: building the executors, the probe calls) ends the segment at a checkpoint, and the next one
resumes from it under the new strategy: exactly, as any resume under another strategy does. Otherwise the detector
takes the new level as its reference and the job goes on. Every decision goes to ``train.json`` (``adapt``), the log
and TensorBoard (``<logdir>/adapt``).

A switch is checked once the new strategy's reference is in: slower than the step it replaced, the job switches back
(and the replaced strategy's rival is not proposed again).
"""
from __future__ import annotations

import dataclasses
import pathlib
import time
from typing import Callable, Protocol

from autotune.adapt._detect import Change, ChangeDetector
from autotune.adapt._types import Checked, Decision, Plan, Weighed
from runners.train import TrainResult, load_checkpoint, train_strategy, update_index, write_scalars
from space.errors import RunError
from space.strategy import Strategy

MARGIN = 1.05  # a candidate must be predicted this much faster than the step measured since the change
BACK_TOLERANCE = 0.03  # a new strategy slower than the one it replaced by more than this goes back
SWITCH_COST_FACTOR = 1.5  # a switch costs the segment's start and a checkpoint: its measured build, with room


class Planner(Protocol):
    """What re-plans: ``replan(current, measured_s, cluster)`` -> a :class:`Plan`, its best candidate first;
    ``rejected``: labels it must not propose again."""

    rejected: set[str]

    def replan(self, current: Strategy, measured_s: float, cluster) -> Plan: ...


@dataclasses.dataclass(frozen=True)
class Segment:
    label: str
    strategy: Strategy
    previous: tuple[str, Strategy, float] | None = None  # what it replaced: label, strategy, its step since the change


class Watch:
    """One segment's watcher: a step callback, and :meth:`stop` for ``train_strategy``."""

    def __init__(self, segment: Segment, planner: Planner, cluster, steps: int, say: Callable[[str], None],
                 record: Callable[[Decision], None], detector: Callable[[], ChangeDetector] = ChangeDetector) -> None:
        self.segment, self.planner, self.cluster, self.steps, self.say = segment, planner, cluster, steps, say
        self.record, self.make_detector = record, detector
        self.detector = detector()
        self.started = time.perf_counter()
        self.build_s: float | None = None  # the segment's start: its first step came this long after it began
        self.next: Segment | None = None
        self.checked = segment.previous is None

    def stop(self) -> bool:
        return self.next is not None

    def __call__(self, info) -> None:
        if self.build_s is None:
            self.build_s = time.perf_counter() - self.started
        if self.next is not None:
            return
        change = self.detector.add(info.step_time_s)
        if not self.checked and self.detector.reference_s is not None:
            self._check(info.step)
        elif change is not None:
            self._replan(info.step, change)

    def _check(self, step: int) -> None:
        """The first reference of a switched-to strategy against the step it replaced."""
        self.checked = True
        label, strategy, replaced_s = self.segment.previous
        now = self.detector.reference_s
        checked = Checked(measured_s=now, replaced=label, replaced_s=replaced_s)
        if now > replaced_s * (1 + BACK_TOLERANCE):
            self.planner.rejected.add(self.segment.label)
            self.next = Segment(label, strategy)
            self.record(Decision(step, "back", self.segment.label, checked=checked))
            self.say(f"adapt: {self.segment.label} measures {now * 1e3:.2f} ms, slower than {label}'s "
                     f"{replaced_s * 1e3:.2f} ms: switching back at the next checkpoint")
        else:
            self.record(Decision(step, "checked", self.segment.label, checked=checked))
            self.say(f"adapt: {self.segment.label} measures {now * 1e3:.2f} ms (it replaced {label} at "
                     f"{replaced_s * 1e3:.2f} ms)")

    def _replan(self, step: int, change: Change) -> None:
        self.say(f"adapt: {change.line()}; re-planning")
        started = time.perf_counter()
        try:
            plan = self.planner.replan(self.segment.strategy, change.after_s, self.cluster)
        except RunError:  # the cluster failed (a server died): the job cannot go on either
            raise
        except Exception as e:  # noqa: BLE001 - a re-planning that fails must not end the job it serves
            self.record(Decision(step, "failed", self.segment.label, error=f"{type(e).__name__}: {e}"))
            self.say(f"adapt: re-planning failed ({type(e).__name__}: {e}); keeping {self.segment.label}")
            self.detector = self.make_detector()
            return
        spent = time.perf_counter() - started
        label, strategy, predicted_s = plan.best.label, plan.best.strategy, plan.best.predicted_s
        remaining = self.steps - step
        cost = SWITCH_COST_FACTOR * (self.build_s or 0.0)
        gain = (change.after_s - predicted_s) * remaining
        other = not same_strategy(strategy, self.segment.strategy)
        switch = other and predicted_s * MARGIN < change.after_s and gain > cost
        weighed = Weighed(change=change, plan=plan, remaining_steps=remaining, predicted_gain_s=gain,
                          switch_cost_s=cost, replanning_s=spent)
        self.record(Decision(step, "switch" if switch else "stay", self.segment.label, weighed=weighed))
        if switch:
            self.next = Segment(label, strategy, previous=(self.segment.label, self.segment.strategy, change.after_s))
            self.say(f"adapt: switching to {label} at the next checkpoint (predicted {predicted_s * 1e3:.2f} ms "
                     f"against {change.after_s * 1e3:.2f} ms now: {gain:.1f} s saved over {remaining} steps, for "
                     f"about {cost:.1f} s)")
        else:
            why = ("it is the best candidate" if not other else
                   f"the best, {label} at {predicted_s * 1e3:.2f} ms, would save {gain:.1f} s for about {cost:.1f} s")
            self.say(f"adapt: keeping {self.segment.label}: {why}")
            self.detector = self.make_detector()  # the new level becomes the reference


def adaptive_train(traced, strategy: Strategy, cluster, planner: Planner, *, steps: int, checkpoint_dir: str,
                   label: str = "the given strategy", resume_from=None, log: Callable[[str], None] | None = None,
                   callbacks=(), detector: Callable[[], ChangeDetector] = ChangeDetector,
                   on_decision: Callable[[Decision], None] | None = None, **train_options) -> tuple[TrainResult, list]:
    """Train to ``steps`` in segments, re-planning on a lasting change (``train_options`` as ``train_strategy``'s).
    Returns the last segment's result (its losses and step times those of every segment) and the decisions."""
    say = log or (lambda _m: None)
    out = pathlib.Path(checkpoint_dir)
    decisions: list[Decision] = []

    def record(d: Decision) -> None:
        decisions.append(d)
        update_index(out, adapt=[x.to_dict() for x in decisions])  # the checkpoints keep it: ``KEPT_KEYS``
        if train_options.get("logdir"):
            write_scalars(str(pathlib.Path(train_options["logdir"]) / "adapt"), d.scalars(), d.step)
        if on_decision is not None:
            on_decision(d)

    first_step = resume_from.step if resume_from is not None else 0
    segment, losses, times, started = Segment(label, strategy), [], [], time.perf_counter()
    while True:
        watch = Watch(segment, planner, cluster, steps, say, record, detector)
        result = train_strategy(traced, segment.strategy, cluster, steps=steps, checkpoint_dir=str(out),
                                resume_from=resume_from, log=log, callbacks=[*callbacks, watch], stop=watch.stop,
                                **train_options)
        losses += result.losses
        times += result.step_times_s
        if watch.next is None or result.steps >= steps:
            break
        segment, resume_from = watch.next, load_checkpoint(out)
        say(f"adapt: resuming at step {resume_from.step} under {segment.label}")
    result = dataclasses.replace(result, losses=losses, step_times_s=times, seconds=time.perf_counter() - started,
                                 start_step=first_step)
    return result, decisions


def strategy_key(s: Strategy) -> tuple:
    """What a strategy does: every variable's synchronization and the replicas (its id and provenance aside)."""
    return tuple(n.SerializeToString(deterministic=True) for n in s.proto.node_config), tuple(s.replicas)


def same_strategy(a: Strategy, b: Strategy) -> bool:
    return strategy_key(a) == strategy_key(b)
