"""``autotune validate-simulator --model m.py --spec cluster.yml --strategies N``: simulator vs the real cluster.

Profiles N strategies (the classic builders, then random samples of the space ``autotune search`` draws from, with
the same space options) on one started cluster in passes of head-to-head groups (``--together``), predicts each
with the stored calibration, and reports Kendall tau, MAPE and top-1 regret, and the measurement's own noise (one
pass against another), with a table, a CSV and a predicted-vs-measured plot. ``--fit-residual`` fits a correction
on a train split, stores it in the calibration file, and reports the fidelity before and after on the held-out
strategies.
"""
from __future__ import annotations

import pathlib
import shutil
import sys

from autotune.commands import _common
from space.errors import BadInput


def register(sub) -> None:
    p = sub.add_parser("validate-simulator", help="compare the simulator's predictions with profiled step times",
                       description=__doc__)
    p.add_argument("--model", required=True, metavar="M.PY", help="model file")
    p.add_argument("--spec", required=True, metavar="CLUSTER.YML", help="cluster spec")
    p.add_argument("--strategies", type=int, default=30, metavar="N", help="strategies to profile (30)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed of the random samples and of the split (0; with --reuse, the seed the run recorded in "
                        "its journal, so a residual is fitted again on the split that run drew)")
    p.add_argument("--holdout", type=float, default=0.3, help="held-out fraction with --fit-residual (0.3)")
    p.add_argument("--fit-residual", action="store_true",
                   help="fit a residual correction on the train split and store it in the calibration")
    p.add_argument("--calibration", default=None, metavar="FILE",
                   help="calibration file (default: the one `autotune calibrate` stored for this cluster)")
    p.add_argument("--uncalibrated", action="store_true",
                   help="predict with the spec's nominal bandwidths and textbook overheads (no calibration)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="inventory and calibration cache (default: $AUTOTUNE_CACHE_DIR or ~/.cache/autotune)")
    p.add_argument("--steps", type=int, default=20, help="profiled steps per strategy and pass (20)")
    p.add_argument("--warmup", type=int, default=3, help="warm-up steps per strategy and pass (3)")
    p.add_argument("--repeats", type=int, default=2, metavar="R",
                   help="passes over the strategies; the steps of all passes are pooled and their agreement is "
                        "reported as the measurement noise (2)")
    p.add_argument("--together", type=int, default=6, metavar="K",
                   help="measure head to head in groups of K strategies whose jobs take turns, each group holding "
                        "the same anchor strategy, and divide out the machine's drift between groups; 1 measures "
                        "one strategy at a time, each pass in the reverse order of the one before (6)")
    _common.add_space_options(p)
    p.add_argument("--step-timeout", type=_common.positive_seconds, default=120.0, metavar="S",
                   help="cut a step after S seconds (> 0)")
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="where rows.csv, summary.json, table.txt and the PNG go (default runs/validate-<model>-<fp>)")
    p.add_argument("--resume", action="store_true",
                   help="go on with the measurements an interrupted run with the same options recorded in -o DIR "
                        "(measurements.jsonl); only the runs it lacks are profiled")
    p.add_argument("--reuse", default=None, metavar="DIR",
                   help="re-predict the strategies and measurements saved in DIR by an earlier run (no profiling); "
                        "with --fit-residual the residual is reported but not stored")
    p.add_argument("--accept-unknown-hosts", action="store_true", help="accept SSH host keys not in known_hosts")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def find_calibration(args, cluster, inventory):
    """(Calibration, path or None): --calibration, else the stored one for this spec (and model); never defaults
    unless --uncalibrated."""
    from simulator import Calibration, CalibrationError, calibration_path
    from space.model import default_cache_dir

    if args.uncalibrated:
        if args.fit_residual:
            raise BadInput("--fit-residual stores the residual in a calibration file; --uncalibrated has none",
                           hint="run `autotune calibrate` first, or drop --fit-residual")
        return Calibration.from_spec(cluster), None
    if args.calibration:
        return Calibration.load(args.calibration, cluster=cluster, model_hash=inventory.model_hash), \
            pathlib.Path(args.calibration)
    directory = (pathlib.Path(args.cache_dir) if args.cache_dir else default_cache_dir()) / "calibration"
    for model_hash in (inventory.model_hash, None):
        path = calibration_path(directory, cluster, model_hash)
        if path.is_file():
            return Calibration.load(path, cluster=cluster, model_hash=model_hash), path
    raise CalibrationError(f"no calibration for cluster spec {cluster.source} (fingerprint {cluster.fingerprint}) "
                           f"in {directory}",
                           hint=f"run `autotune calibrate --spec {cluster.source} --model {args.model}` first "
                                "(or pass --calibration FILE, or --uncalibrated for nominal defaults)")


def run(args) -> int:
    from autotune import fidelity, fidelity_io
    from autotune.tuner import make_space
    from simulator import Scorer
    from space.cluster import load_cluster
    from space.model import load_inventory

    if args.steps < 1 or args.warmup < 0 or args.strategies < 2 or args.repeats < 1 or args.together < 1:
        raise BadInput(f"`--strategies >= 2, --steps >= 1, --warmup >= 0, --repeats >= 1, --together >= 1` must "
                       f"hold, but got ({args.strategies}, {args.steps}, {args.warmup}, {args.repeats}, "
                       f"{args.together})")
    if args.fit_residual and not 0 < args.holdout < 1:
        raise BadInput(f"`0 < --holdout < 1` must hold, but got {args.holdout!r}")
    if args.output:
        _common.writable_dir(args.output, "-o")
    say = (lambda _m: None) if args.quiet else (lambda m: print(f"validate: {m}", file=sys.stderr, flush=True))
    cluster = load_cluster(args.spec)
    inventory = load_inventory(args.model, cache_dir=args.cache_dir)
    cal, cal_path = find_calibration(args, cluster, inventory)
    if not args.reuse:  # --reuse derives the anchor costs again whatever the version (``_reuse``)
        from autotune.calibration import current_costs

        cal = current_costs(cal, inventory, cluster, say)
    if cal.residual is not None and args.fit_residual:
        cal = cal.replace(residual=None)  # a new fit replaces the stored one: judge the model itself
        say("ignoring the residual stored in the calibration: --fit-residual fits a new one on raw predictions")
    elif cal.residual is not None:
        say("predictions include the residual stored in the calibration, as `autotune search` uses it "
            "(the raw model is reported too)")
    scorer = Scorer(inventory, cluster, cal)
    if args.reuse:
        return _reuse(args, scorer, cal_path, say)
    space = make_space(inventory, cluster, **_common.space_options(args))
    seed = 0 if args.seed is None else args.seed
    picked = fidelity.pick_strategies(inventory, cluster, args.strategies, seed=seed, space=space)
    say(f"{len(picked)} strategies ({sum(not label.startswith('random') for label, _ in picked)} builders) from the "
        f"{'reduced' if space.reduced else 'per-variable'} space; calibration {cal_path or 'uncalibrated defaults'}")
    out = pathlib.Path(args.output) if args.output else \
        pathlib.Path("runs") / f"validate-{pathlib.Path(args.model).stem}-{cluster.fingerprint[:8]}"

    journal = fidelity.MeasurementJournal(out / "measurements.jsonl", fidelity.journal_header(
        picked, model=inventory.model_hash, cluster=cluster.fingerprint, steps=args.steps, warmup=args.warmup,
        repeats=args.repeats, together=args.together, seed=seed), resume=args.resume)
    if len(journal):
        say(f"resuming: {len(journal)} run(s) recorded in {journal.path}")

    from runners.cluster import start_cluster
    from runners.profile import profile_strategy, profile_together
    from space.model import trace_step

    say(f"tracing {args.model}")
    traced = trace_step(args.model)

    files = fidelity_io.save_strategies(picked, out)
    shutil.copyfile(args.spec, out / "cluster.yml")  # --reuse needs a spec with this content (a testbed's goes away)
    say(f"starting {len(cluster.nodes)} server(s)")
    with start_cluster(cluster, accept_unknown_hosts=args.accept_unknown_hosts) as running:
        def profile(strategy):
            return profile_strategy(traced, strategy, running, steps=args.steps, warmup=args.warmup,
                                    step_timeout_s=args.step_timeout).step_times_s

        def profile_group(strategies):
            return [r.step_times_s for r in profile_together(traced, strategies, running, steps=args.steps,
                                                             warmup=args.warmup, step_timeout_s=args.step_timeout)]

        try:
            report = fidelity.run_validation(picked, scorer, profile, repeats=args.repeats, fit=args.fit_residual,
                                             holdout=args.holdout, seed=seed, progress=say, files=files,
                                             profile_group=profile_group, together=args.together, journal=journal)
        except BaseException:
            if len(journal):
                print(f"validate: the {len(journal)} run(s) measured so far are kept in {journal.path}; the same "
                      "command with --resume goes on from there", file=sys.stderr, flush=True)
            raise
    fidelity.since_calibration(report, picked, scorer)
    fidelity.anchor_fit(report, scorer)
    if report.residual is not None and cal_path is not None:
        cal.replace(residual=report.residual).save(cal_path)
        say(f"stored the residual in {cal_path}")
    written = fidelity_io.write_outputs(report, out, title=pathlib.Path(args.model).stem)
    print(fidelity_io.format_report(report))
    print(f"\nwrote {', '.join(str(p) for p in written)}")
    return 0


def split_seed(given: int | None, src: pathlib.Path, say) -> int:
    """The seed of the train/held-out split for a residual fitted again on the run saved in ``src``: ``--seed`` if
    given, else the one the run recorded in its journal (the split it drew itself), else 0."""
    from autotune import fidelity_io

    recorded = fidelity_io.recorded_seed(src)
    if given is not None:
        if recorded is not None and recorded != given:
            say(f"splitting with --seed {given}, not the seed {recorded} that {src} recorded")
        return given
    if recorded is None:
        say(f"{src} recorded no seed (no measurements.jsonl); splitting with seed 0")
        return 0
    say(f"splitting with the seed {src} recorded: {recorded}")
    return recorded


def _reuse(args, scorer, cal_path, say) -> int:
    """Predict the strategies saved in ``args.reuse`` again; outputs go to -o (default: DIR/reuse)."""
    from autotune import fidelity, fidelity_io

    src = pathlib.Path(args.reuse)
    picked, measured = fidelity_io.load_measured(src)
    cal = scorer.calibration
    if cal.anchors_s:  # the anchor costs as the current cost model derives them from the same anchor steps
        from simulator import Scorer, anchor_costs

        cal = anchor_costs(cal, scorer.inventory, scorer.cluster)
        scorer = Scorer(scorer.inventory, scorer.cluster, cal, scorer.replicas)
        say("re-derived the anchor costs from the calibration's anchor steps: "
            f"{cal.collective_overhead_s * 1e3:.3f} ms per collective, {cal.ar_piece_s * 1e3:.3f} / "
            f"{cal.ps_piece_s * 1e3:.3f} ms per all-reduced / PS piece, "
            f"{cal.powersgd_matrix_s * 1e3:.3f} ms per PowerSGD matrix, PS staggering lost on one server "
            f"{cal.ps_serial_fraction:.2f}")
    say(f"re-predicting {len(picked)} saved strategies of {src}; calibration {cal_path or 'uncalibrated defaults'}")
    seed = split_seed(args.seed, src, say) if args.fit_residual else 0
    report = fidelity.repredict(scorer, picked, measured, fit=args.fit_residual, holdout=args.holdout, seed=seed)
    fidelity.since_calibration(report, picked, scorer)
    fidelity.anchor_fit(report, scorer)
    out = pathlib.Path(args.output) if args.output else src / "reuse"
    if out.resolve() == src.resolve():
        raise BadInput(f"--reuse would overwrite the measurements in {src}", hint="pass another -o DIR")
    if report.residual is not None and cal_path is not None:  # the anchor costs derived above, the new fit
        cal.replace(residual=report.residual).save(cal_path)
        say(f"stored the residual, fitted on {src}'s measurements, in {cal_path}")
    if (src / "strategies").is_dir() and not (out / "strategies").exists():
        shutil.copytree(src / "strategies", out / "strategies")  # the new rows.csv stays reusable
    if (src / "cluster.yml").is_file():
        shutil.copyfile(src / "cluster.yml", out / "cluster.yml")
    written = fidelity_io.write_outputs(report, out, title=pathlib.Path(args.model).stem)
    print(fidelity_io.format_report(report))
    print(f"\nwrote {', '.join(str(p) for p in written)}")
    return 0
