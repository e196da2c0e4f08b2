"""Stage 2: profile the chosen candidates on the real cluster and put the measurements into the study."""
from __future__ import annotations

import dataclasses
import logging

from autotune.search import _study

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Measurement:
    median_s: float
    p10_s: float
    p90_s: float
    examples_per_s: float
    bytes_per_step: float = 0.0


class ClusterProfiler:
    """Starts the cluster's servers once and profiles strategies on them (fresh collective keys per trial)."""

    def __init__(self, inventory, cluster, cfg) -> None:
        self.inventory, self.cluster, self.cfg = inventory, cluster, cfg
        self._running = None
        self._session = None

    def __enter__(self) -> "ClusterProfiler":
        from runners.cluster import start_cluster
        from space.model import trace_step

        self._traced = trace_step(self.cfg.model)  # once per search: every candidate reuses the trace
        self._running = start_cluster(self.cluster, accept_unknown_hosts=self.cfg.accept_unknown_hosts)
        return self

    def profile(self, strategy) -> Measurement:
        from runners.profile import profile_strategy

        r = profile_strategy(self._traced, strategy, self._running, steps=self.cfg.steps, warmup=self.cfg.warmup)
        return Measurement(median_s=r.median_s, p10_s=r.p10_s, p90_s=r.p90_s, examples_per_s=r.examples_per_s,
                           bytes_per_step=r.bytes_per_step)

    def __exit__(self, *exc) -> None:
        if self._running is not None:
            self._running.close()
            self._running = None


def _already_measured(study) -> dict[str, Measurement]:
    out = {}
    for t in study.trials:
        a = t.user_attrs
        if a.get("stage") == "profiled" and a.get("strategy_hash"):
            out[a["strategy_hash"]] = Measurement(a["measured_s"], a.get("p10_s", a["measured_s"]),
                                                  a.get("p90_s", a["measured_s"]), a.get("examples_per_s", 0.0),
                                                  a.get("bytes_per_step", 0.0))
    return out


def profile_candidates(candidates, study, dists, inventory, cluster, cfg, factory, progress, multi, sim):
    """Profile each candidate not measured before (in this study, by any process sharing it).

    Returns ``(profiling runs done, interrupted)``; every finished measurement is already in the study.
    """
    known = _already_measured(study)
    todo = []
    for c in candidates:
        if c.strategy_hash in known:
            c.measured = known[c.strategy_hash]
        else:
            todo.append(c)
    if not todo:
        return 0, False
    runs = 0
    progress.start(len(todo), "profiling")
    try:
        with (factory or ClusterProfiler)(inventory, cluster, cfg) as profiler:
            for c in todo:
                c.measured = profiler.profile(c.strategy)
                runs += 1
                m = c.measured
                value = [m.median_s, sim.wire_mb(c)] if multi else m.median_s
                _study.record(study, dists, c.params, value,
                              {"stage": "profiled", "predicted_s": c.predicted_s, "measured_s": m.median_s,
                               "p10_s": m.p10_s, "p90_s": m.p90_s, "examples_per_s": m.examples_per_s,
                               "bytes_per_step": m.bytes_per_step, "builders": c.builders,
                               "sim_trial": c.trial, "strategy_hash": c.strategy_hash})
                progress.update(last=f"{c.label} {m.median_s * 1e3:.1f}ms")
    except KeyboardInterrupt:
        return runs, True
    finally:
        progress.close()
    return runs, False
