"""Re-planning a running job: its links measured again, the cost model refitted, the candidates ranked again.

The candidates are the search's own (the strategies it measured, its best simulated trials, the classic builders)
and a small simulated round on the refitted model, which starts from them. The links are all that is measured
again: what a change in the cluster moves first, and what takes a few seconds to time between two of the job's
steps. The rest of the calibration stands, and one factor refits it to the job: the step the job measured since the
change over what the refitted model predicts for it.
"""
from __future__ import annotations

import dataclasses
import itertools
import json
import pathlib
import time
from typing import Callable

import optuna

from autotune.adapt._job import strategy_key
from autotune.adapt._types import Plan, Ranked
from autotune.calibration import current_costs, stored_calibration
from autotune.tuner import make_space, refine
from autotune.tuner._record import StudyKeys
from runners.calibrate import Prober
from simulator import Calibration, Scorer, with_links
from space.builders import aliases, build_strategy
from space.cluster import ClusterSpec
from space.errors import BadInput
from space.families import lossy
from space.inventory import Inventory
from space.strategy import Strategy

LINK_SIZES = [256 * 1024, 1024 * 1024]  # the quick calibration's: the fits the job was planned with
LINK_REPEATS = 3
TOP_TRIALS = 40  # the search's best simulated trials taken again
ROUND_TRIALS = 120  # the simulated round on the refitted model
FACTOR_BOUNDS = (0.5, 2.0)  # how far the job's own step may refit the model's predictions


class Replanner:
    """The search's candidates and calibration for one model on one cluster, ranked again on demand."""

    def __init__(self, inventory: Inventory, spec: ClusterSpec, calibration: Calibration,
                 search_dir: pathlib.Path | None = None, *, seed: int = 0, say: Callable[[str], None] = print) -> None:
        self.inventory, self.spec, self.calibration, self.say, self.seed = inventory, spec, calibration, say, seed
        self.space = make_space(inventory, spec, **_space_options(search_dir))
        self.rejected: set[str] = set()  # labels that measured slower than the strategy they replaced
        self.pool = self._pool(search_dir)

    def _pool(self, search_dir: pathlib.Path | None) -> list[tuple[str, Strategy, dict | None]]:
        """(label, strategy, its parameters in the space where it came from a trial) of every candidate."""
        pool: list[tuple[str, Strategy, dict | None]] = []
        for name in aliases():
            try:
                pool.append((name, build_strategy(name, self.inventory, self.spec), None))
            except (BadInput, ValueError):  # a builder that does not apply to this model or cluster
                continue
        if search_dir is not None:
            summary = json.loads((search_dir / "summary.json").read_text())
            for m in summary.get("measured") or []:  # every strategy the search measured, by its label
                pool.append((m["strategy"], Strategy.load(search_dir / m["file"]), None))
            pool += self._trials(search_dir / "simulated.jsonl")
        # a search kept exact (--lossless) is kept so: no compressing candidate replaces its winner
        return [c for c in pool if not (self.space.lossless and lossy(c[1]))]

    def _trials(self, journal: pathlib.Path) -> list[tuple[str, Strategy, dict]]:
        """The search's ``TOP_TRIALS`` best simulated trials, one per parameter set."""
        out: list[tuple[str, Strategy, dict]] = []
        if not journal.is_file():
            return out
        records = [json.loads(line) for line in journal.read_text().splitlines() if line.strip()]
        seen: set[str] = set()
        for r in sorted((r for r in records if r.get("state") == "complete" and not r.get("builders")),
                        key=lambda r: r["predicted_s"]):
            key = repr(sorted(r["params"].items()))
            if key not in seen and len(seen) < TOP_TRIALS:
                seen.add(key)
                out.append((f"trial {r['number']}", self.space.decode(r["params"]), r["params"]))
        return out

    def replan(self, current: Strategy, measured_s: float, cluster) -> Plan:
        """:meth:`measure_links`, then :meth:`plan`: the candidates ranked again, best first."""
        started = time.perf_counter()
        plan = self.plan(current, measured_s, self.measure_links(cluster))
        return dataclasses.replace(plan, seconds=time.perf_counter() - started)

    def measure_links(self, cluster) -> list:
        """Every direction of every pair of nodes timed again (``Prober.link``): a few seconds."""
        p = Prober(cluster, repeats=LINK_REPEATS)
        try:
            return [p.link(a, b, LINK_SIZES) for a, b in itertools.permutations(range(len(self.spec.nodes)), 2)]
        finally:
            p.free()  # not ``reset``: that would close the job's session too

    def plan(self, current: Strategy, measured_s: float, timings: list) -> Plan:
        """Refit to ``timings`` (:meth:`measure_links`) and to the current strategy's step since the change
        (``measured_s``), then rank the candidates and a simulated round; the calibration keeps the new links."""
        self.calibration = with_links(self.calibration, timings, self.spec)
        scorer = Scorer(self.inventory, self.spec, self.calibration)
        raw = scorer.predict(current).step_time_s
        factor = min(max(measured_s / raw, FACTOR_BOUNDS[0]), FACTOR_BOUNDS[1]) if raw > 0 else 1.0
        scored = [(label, s, params, scorer.predict(s).step_time_s) for label, s, params in self.pool
                  if label not in self.rejected]
        scored += self._round(scorer, [params for *_, params, _ in sorted(scored, key=lambda r: r[3]) if params])
        ranked, seen = [], set()
        for label, s, _, t in sorted(scored, key=lambda r: r[3]):
            if (key := strategy_key(s)) not in seen:  # a trial the search also measured, a builder it drew
                seen.add(key)
                ranked.append(Ranked(label, s, t * factor))
        links = {k: float(v) for k, v in self.calibration.link_bandwidth_gbit.items()}
        links |= {f"{a}|*": float(v) for a, v in self.calibration.node_bandwidth_gbit.items()}
        return Plan(links_gbit=links, current_predicted_s=raw * factor, factor=factor, ranked=tuple(ranked))

    def _round(self, scorer: Scorer, start: list[dict]) -> list[tuple]:
        """``ROUND_TRIALS`` candidates of the search's local search on the refitted model, climbed from the best
        candidates' parameters and the classic builders'."""
        starts = start[:TOP_TRIALS // 2] + [params for _, params in self.space.builder_params()]
        return [(f"re-planned {i}", s, params, t) for i, (params, s, t) in
                enumerate(refine(self.space, scorer, starts, candidates=ROUND_TRIALS, seed=self.seed))]


def _space_options(search_dir: pathlib.Path | None) -> dict:
    """The options the search drew its space with (its study's, as ``summary.json`` names it), so its trials'
    parameters decode to the strategies it scored; the search's defaults without one."""
    if search_dir is None or not (search_dir / "summary.json").is_file():
        return {}
    summary = json.loads((search_dir / "summary.json").read_text())
    try:
        study = optuna.load_study(study_name=summary["study_name"], storage=summary["storage"])
    except (KeyError, ValueError, optuna.exceptions.StorageInternalError):
        return {}
    opts = study.user_attrs.get(StudyKeys.SPACE) or {}
    return {k: opts[k] for k in ("reduced", "reduce_above", "sparse_ps_only", "allow_async", "lossless") if k in opts}


def search_dir_of(strategy_path: str | pathlib.Path) -> pathlib.Path | None:
    """The search's output directory ``strategy_path`` is in (its ``summary.json`` beside it), else None."""
    directory = pathlib.Path(strategy_path).resolve().parent
    return directory if (directory / "summary.json").is_file() else None


def outside_search(strategy_path: str | pathlib.Path) -> str:
    """What re-planning a job started from ``strategy_path`` lacks where that is in no search's output directory
    (a note for the job's start), else ''."""
    if search_dir_of(strategy_path) is not None:
        return ""
    return (f"--adapt: {strategy_path} is not in a search's output directory (no summary.json beside it), so "
            "re-planning ranks only the classic builders and a simulated round, not a search's measured strategies "
            "and best trials; to re-plan over those, start from the search's best.pb")


def open_replanner(inventory: Inventory, spec: ClusterSpec, strategy_path: str | pathlib.Path, *,
                   cache_dir: str | None = None, say: Callable[[str], None] = print) -> Replanner:
    """The re-planner of a job started from ``strategy_path``: where that is a search's ``best.pb``, the search's
    candidates and space (else the classic builders: :func:`outside_search` says so); the calibration stored for
    the cluster (the search's), else the spec's nominal values."""
    search_dir = search_dir_of(strategy_path)
    cal = stored_calibration(spec, inventory, cache_dir)
    if cal is None:
        say("adapt: no calibration for this cluster: re-planning starts from the spec's nominal values "
            "(`autotune calibrate` measures one)")
        cal = Calibration.from_spec(spec)
    else:
        cal = current_costs(cal, inventory, spec, say)
    return Replanner(inventory, spec, cal, search_dir, say=say)
