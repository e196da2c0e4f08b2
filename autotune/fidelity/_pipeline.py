"""``validate-simulator`` as one pipeline: its configuration (each field with a help is also an option of the
command), the calibration it judges, the strategies it draws, their profiling on one started cluster (or the
measurements of an earlier run, ``reuse``), and the report written to the output directory."""
from __future__ import annotations

import dataclasses
import pathlib
import shutil
import sys
from typing import Callable

from autotune._options import count, option, positive_seconds, space_option
from autotune.calibration import current_costs
from autotune.fidelity import _io, _validation
from runners._trace import TRACES
from runners.cluster import start_cluster
from runners.profile import profile_strategy, profile_together
from simulator import Calibration, CalibrationError, Scorer, anchor_costs, calibration_path
from space.cluster import load_cluster
from space.errors import BadInput
from space.model import default_cache_dir, load_inventory, trace_step


@dataclasses.dataclass
class FidelityConfig:
    """What ``validate-simulator`` measures and how (each field with a help is one of its options)."""

    model: str
    spec: str
    strategies: int = option(30, "strategies to profile (30)", type=count(2), metavar="N")
    seed: int | None = option(
        None, "seed of the random samples and of the split (0; with --reuse, the seed the run recorded in its "
              "journal, so a residual is fitted again on the split that run drew)", type=int)
    holdout: float = option(0.3, "held-out fraction with --fit-residual (0.3)")
    fit_residual: bool = option(False, "fit a residual correction on the train split and store it in the "
                                       "calibration")
    calibration: str | None = option(
        None, "calibration file (default: the one `autotune calibrate` stored for this cluster)", metavar="FILE")
    uncalibrated: bool = option(False, "predict with the spec's nominal bandwidths and textbook overheads (no "
                                       "calibration)")
    cache_dir: str | None = option(
        None, "inventory and calibration cache (default: $AUTOTUNE_CACHE_DIR or ~/.cache/autotune)", metavar="DIR")
    steps: int = option(20, "profiled steps per strategy and pass (20)", type=count(1))
    warmup: int = option(3, "warm-up steps per strategy and pass (3)", type=count(0))
    repeats: int = option(2, "passes over the strategies; the steps of all passes are pooled and their agreement "
                             "is reported as the measurement noise (2)", type=count(1), metavar="R")
    together: int = option(
        6, "measure head to head in groups of K strategies whose jobs take turns, each group holding the same "
           "anchor strategy, and divide out the machine's drift between groups; 1 measures one strategy at a time, "
           "each pass in the reverse order of the one before (6)", type=count(1), metavar="K")
    reduced: bool | None = space_option("reduced")
    sparse_ps_only: bool = space_option("sparse_ps_only")
    allow_async: bool = space_option("allow_async")
    lossless: bool = space_option("lossless")
    step_timeout_s: float = option(120.0, "cut a step after S seconds (> 0)", flag="--step-timeout",
                                   type=positive_seconds, metavar="S")
    output: str | None = option(
        None, "where rows.csv, summary.json, table.txt and the PNG go (default runs/validate-<model>-<fp>)",
        flag=("-o", "--output"), metavar="DIR")
    resume: bool = option(False, "go on with the measurements an interrupted run with the same options recorded "
                                 "in -o DIR (measurements.jsonl); only the runs it lacks are profiled")
    reuse: str | None = option(
        None, "re-predict the strategies and measurements saved in DIR by an earlier run (no profiling); with "
              "--fit-residual the residual is reported but not stored", metavar="DIR")
    accept_unknown_hosts: bool = option(False, "accept SSH host keys not in known_hosts")
    trace_top: int = option(
        0, "trace a few steps of the first N strategies on every task after their first pass's timed steps: a "
           "Chrome trace and a summary each in DIR/traces, whose parts the step-by-part table measures (0: none)",
        type=count(0), metavar="N")

    def __post_init__(self) -> None:
        if self.fit_residual and not 0 < self.holdout < 1:
            raise BadInput(f"`0 < --holdout < 1` must hold, but got {self.holdout!r}")
        if self.fit_residual and self.uncalibrated:
            raise BadInput("--fit-residual stores the residual in a calibration file; --uncalibrated has none",
                           hint="run `autotune calibrate` first, or drop --fit-residual")

    @property
    def space_options(self) -> dict:
        return {"reduced": self.reduced, "sparse_ps_only": self.sparse_ps_only, "allow_async": self.allow_async,
                "lossless": self.lossless}


def find_calibration(cfg: FidelityConfig, cluster, inventory):
    """(Calibration, path or None): ``calibration``, else the stored one for this spec (and model); never defaults
    unless ``uncalibrated``."""
    if cfg.uncalibrated:
        return Calibration.from_spec(cluster), None
    if cfg.calibration:
        return Calibration.load(cfg.calibration, cluster=cluster, model_hash=inventory.model_hash), \
            pathlib.Path(cfg.calibration)
    directory = (pathlib.Path(cfg.cache_dir) if cfg.cache_dir else default_cache_dir()) / "calibration"
    for model_hash in (inventory.model_hash, None):
        path = calibration_path(directory, cluster, model_hash)
        if path.is_file():
            return Calibration.load(path, cluster=cluster, model_hash=model_hash), path
    raise CalibrationError(f"no calibration for cluster spec {cluster.source} (fingerprint {cluster.fingerprint}) "
                           f"in {directory}",
                           hint=f"run `autotune calibrate --spec {cluster.source} --model {cfg.model}` first "
                                "(or pass --calibration FILE, or --uncalibrated for nominal defaults)")


def run_fidelity(cfg: FidelityConfig, say: Callable[[str], None] = lambda _m: None,
                 show: Callable[[str], None] = print) -> _validation.Report:
    """Profile (or re-predict) the strategies, score the simulator against them and write the report; ``say`` gets
    the progress, ``show`` the report's table and the files written."""
    cluster = load_cluster(cfg.spec)
    inventory = load_inventory(cfg.model, cache_dir=cfg.cache_dir)
    cal, cal_path = find_calibration(cfg, cluster, inventory)
    if not cfg.reuse:  # a reuse derives the anchor costs again whatever the version (``_reuse``)
        cal = current_costs(cal, inventory, cluster, say)
    if cal.residual is not None and cfg.fit_residual:
        cal = cal.replace(residual=None)  # a new fit replaces the stored one: judge the model itself
        say("ignoring the residual stored in the calibration: --fit-residual fits a new one on raw predictions")
    elif cal.residual is not None:
        say("predictions include the residual stored in the calibration, as `autotune search` uses it "
            "(the raw model is reported too)")
    scorer = Scorer(inventory, cluster, cal)
    if cfg.reuse:
        report, out = _reuse(cfg, scorer, cal_path, say)
    else:
        report, out = _measure(cfg, scorer, cluster, inventory, cal, cal_path, say)
    written = _io.write_outputs(report, out, title=pathlib.Path(cfg.model).stem)
    show(_io.format_report(report))
    table = parts_table(report, scorer, out)
    if table:
        (out / "parts.txt").write_text(table + "\n")
        written.append(out / "parts.txt")
        show("\nstep by part, predicted vs measured (from a trace where --trace-top traced it):\n" + table)
    show(f"\nwrote {', '.join(str(p) for p in written)}")
    return report


def parts_table(report, scorer, out: pathlib.Path) -> str:
    """Each measured strategy's step by part, predicted (``Scorer.breakdown``) beside measured (its trace's parts
    where ``out/traces`` holds one), as :mod:`autotune.parts` lays them out; "" where none was measured."""
    from autotune import parts
    from space.strategy import Strategy

    rows = []
    for r in report.rows:
        if not r.ok or not r.strategy_file or not (out / r.strategy_file).is_file():
            continue
        trace = parts.trace_of(out / TRACES, r.strategy_id)
        rows += parts.rows_for(r.label, scorer.breakdown(Strategy.load(out / r.strategy_file)), r.measured_s, trace)
    return parts.table(rows) if rows else ""


def _measure(cfg: FidelityConfig, scorer, cluster, inventory, cal, cal_path, say):
    """Draw the strategies, profile them on one started cluster (journaled, resumable) and score them."""
    from autotune.tuner import make_space

    space = make_space(inventory, cluster, **cfg.space_options)
    seed = 0 if cfg.seed is None else cfg.seed
    picked = _validation.pick_strategies(inventory, cluster, cfg.strategies, seed=seed, space=space)
    say(f"{len(picked)} strategies ({sum(not label.startswith('random') for label, _ in picked)} builders) from the "
        f"{'reduced' if space.reduced else 'per-variable'} space; calibration {cal_path or 'uncalibrated defaults'}")
    out = pathlib.Path(cfg.output) if cfg.output else \
        pathlib.Path("runs") / f"validate-{pathlib.Path(cfg.model).stem}-{cluster.fingerprint[:8]}"
    journal = _validation.MeasurementJournal(out / "measurements.jsonl", _validation.journal_header(
        picked, model=inventory.model_hash, cluster=cluster.fingerprint, steps=cfg.steps, warmup=cfg.warmup,
        repeats=cfg.repeats, together=cfg.together, seed=seed), resume=cfg.resume)
    if len(journal):
        say(f"resuming: {len(journal)} run(s) recorded in {journal.path}")
    say(f"tracing {cfg.model}")
    traced = trace_step(cfg.model)
    files = _io.save_strategies(picked, out)
    shutil.copyfile(cfg.spec, out / "cluster.yml")  # a reuse needs a spec with this content (a testbed's goes away)
    say(f"starting {len(cluster.nodes)} server(s)")
    trace_ids = {s.proto.id for _, s in picked[:cfg.trace_top]}
    trace_dir = str(out / TRACES) if trace_ids else None
    with start_cluster(cluster, accept_unknown_hosts=cfg.accept_unknown_hosts) as running:
        def profile(strategy):
            trace = trace_dir if strategy.proto.id in trace_ids else None
            trace_ids.discard(strategy.proto.id)  # the first pass traces it
            return profile_strategy(traced, strategy, running, steps=cfg.steps, warmup=cfg.warmup,
                                    step_timeout_s=cfg.step_timeout_s, trace_dir=trace).step_times_s

        def profile_group(strategies):
            rs = profile_together(traced, strategies, running, steps=cfg.steps, warmup=cfg.warmup,
                                  step_timeout_s=cfg.step_timeout_s, trace_dir=trace_dir, trace_ids=set(trace_ids))
            trace_ids.difference_update(r.strategy_id for r in rs)
            return [r.step_times_s for r in rs]

        try:
            report = _validation.run_validation(
                picked, scorer, profile, repeats=cfg.repeats, fit=cfg.fit_residual, holdout=cfg.holdout, seed=seed,
                progress=say, files=files, profile_group=profile_group, together=cfg.together, journal=journal)
        except BaseException:
            if len(journal):
                print(f"validate: the {len(journal)} run(s) measured so far are kept in {journal.path}; the same "
                      "command with --resume goes on from there", file=sys.stderr, flush=True)
            raise
    _validation.since_calibration(report, picked, scorer)
    _validation.anchor_fit(report, scorer)
    if report.residual is not None and cal_path is not None:
        cal.replace(residual=report.residual).save(cal_path)
        say(f"stored the residual in {cal_path}")
    return report, out


def split_seed(given: int | None, src: pathlib.Path, say) -> int:
    """The seed of the train/held-out split for a residual fitted again on the run saved in ``src``: ``given`` if
    any, else the one the run recorded in its journal (the split it drew itself), else 0."""
    recorded = _io.recorded_seed(src)
    if given is not None:
        if recorded is not None and recorded != given:
            say(f"splitting with --seed {given}, not the seed {recorded} that {src} recorded")
        return given
    if recorded is None:
        say(f"{src} recorded no seed (no measurements.jsonl); splitting with seed 0")
        return 0
    say(f"splitting with the seed {src} recorded: {recorded}")
    return recorded


def _reuse(cfg: FidelityConfig, scorer, cal_path, say):
    """Predict the strategies saved in ``cfg.reuse`` again; outputs go to ``cfg.output`` (default: DIR/reuse)."""
    src = pathlib.Path(cfg.reuse)
    picked, measured = _io.load_measured(src)
    cal = scorer.calibration
    if cal.anchors_s:  # the anchor costs as the current cost model derives them from the same anchor steps
        cal = anchor_costs(cal, scorer.inventory, scorer.cluster)
        scorer = Scorer(scorer.inventory, scorer.cluster, cal, scorer.replicas)
        say("re-derived the anchor costs from the calibration's anchor steps: "
            f"{cal.collective_overhead_s * 1e3:.3f} ms per collective, {cal.ar_piece_s * 1e3:.3f} / "
            f"{cal.ps_piece_s * 1e3:.3f} ms per all-reduced / PS piece, "
            f"{cal.powersgd_matrix_s * 1e3:.3f} ms per PowerSGD matrix, PS staggering lost on one server "
            f"{cal.ps_serial_fraction:.2f}")
    say(f"re-predicting {len(picked)} saved strategies of {src}; calibration {cal_path or 'uncalibrated defaults'}")
    seed = split_seed(cfg.seed, src, say) if cfg.fit_residual else 0
    report = _validation.repredict(scorer, picked, measured, fit=cfg.fit_residual, holdout=cfg.holdout, seed=seed)
    _validation.since_calibration(report, picked, scorer)
    _validation.anchor_fit(report, scorer)
    out = pathlib.Path(cfg.output) if cfg.output else src / "reuse"
    if out.resolve() == src.resolve():
        raise BadInput(f"--reuse would overwrite the measurements in {src}", hint="pass another -o DIR")
    if report.residual is not None and cal_path is not None:  # the anchor costs derived above, the new fit
        cal.replace(residual=report.residual).save(cal_path)
        say(f"stored the residual, fitted on {src}'s measurements, in {cal_path}")
    if (src / "strategies").is_dir() and not (out / "strategies").exists():
        shutil.copytree(src / "strategies", out / "strategies")  # the new rows.csv stays reusable
    if (src / "cluster.yml").is_file():
        shutil.copyfile(src / "cluster.yml", out / "cluster.yml")
    if (src / TRACES).is_dir() and not (out / TRACES).exists():
        shutil.copytree(src / TRACES, out / TRACES)  # the measured parts of the step-by-part table
    return report, out
