"""``autotune search --model m.py --spec cluster.yml``: find the best strategy and write it with a report."""
from __future__ import annotations

import pathlib
import sys

from autotune._signals import interrupted_code
from autotune.commands import _common


def register(sub) -> None:
    from autotune.tuner._study import SAMPLERS

    p = sub.add_parser("search", help="search the best strategy (simulated, then profiled on the cluster)",
                       description=__doc__)
    _common.add_model(p)
    _common.add_spec(p)
    p.add_argument("-o", "--output", default=None, metavar="DIR",
                   help="output directory (default: runs/<model>-<cluster fingerprint>)")
    p.add_argument("--trials", type=int, default=2000, help="simulated trials in all, resumed ones included (2000)")
    p.add_argument("--top-k", type=int, default=5, help="diverse candidates to profile, plus the best builder (5)")
    p.add_argument("--profile-builders", type=int, default=5, metavar="N",
                   help="also profile up to N builders predicted within --builder-band of the best builder (5)")
    p.add_argument("--builder-band", type=float, default=1.5, metavar="X",
                   help="builders predicted within X times the best builder are profiled (1.5)")
    p.add_argument("--max-profiles", type=int, default=10, metavar="N",
                   help="profiling runs on the cluster in all, confirmation included (10)")
    p.add_argument("--round-size", type=int, default=2, metavar="N",
                   help="after the first round, refit the cost model on what was measured and profile up to N "
                        "candidates per round that could still win; 0 profiles the first round only (2)")
    p.add_argument("--confirm", type=int, default=3, metavar="N",
                   help="re-measure up to N candidates measured within --confirm-within of the best (the best "
                        "builder among them), head to head, and choose the fastest there; 0 turns it off (3)")
    p.add_argument("--confirm-steps", type=_common.count(1), default=None, metavar="N",
                   help="timed steps of each contender in the head-to-head, in 10 turns (default 3 x --steps)")
    p.add_argument("--run-noise", type=float, default=0.02, metavar="F",
                   help="how much one job's head-to-head median moves from one comparison to the next, beyond its "
                        "steps' spread; a mix must beat the best builder by twice the resulting standard error "
                        "(0.02)")
    p.add_argument("--confirm-within", type=float, default=0.25, metavar="F",
                   help="relative distance to the best measured that counts as a tie worth re-measuring (0.25)")
    p.add_argument("--budget", type=_duration, default=None, metavar="TIME",
                   help="bound the whole search, calibration included, e.g. 90s, 3m, 1h: it plans its rounds to fit, "
                        "ends with the best measured strategy and says what it left unmeasured")
    p.add_argument("--time-budget", type=float, default=None, metavar="SECONDS",
                   help="stop the simulated stage after this long")
    p.add_argument("--storage", default=None, metavar="URL",
                   help="Optuna storage, any SQLAlchemy URL (default: sqlite:///DIR/study.db)")
    p.add_argument("--study-name", default=None, help="study name (default: <model>-<cluster fingerprint>)")
    p.add_argument("--resume", action="store_true",
                   help="continue the search in DIR (keeps every finished trial); with --storage/--study-name, join "
                        "the searchers sharing that study")
    p.add_argument("--claim-grace", type=_common.positive_seconds, default=30.0, metavar="S",
                   help="a searcher on a shared study that gives no sign of life for S seconds is gone: the "
                        "candidates it claimed are profiled by the others (30)")
    p.add_argument("--seed", type=int, default=None,
                   help="sampler seed: same seed, same trials (default: the n-th searcher on the study uses n)")
    p.add_argument("--sampler", choices=SAMPLERS, default="tpe",
                   help="tpe (default), cmaes, nsga2 (step time vs bytes on the wire), random")
    p.add_argument("--simulate-only", action="store_true", help="skip profiling on the cluster")
    p.add_argument("--prune-ratio", type=float, default=2.0,
                   help="prune candidates predicted slower than this x the best so far (2.0)")
    _common.add_space_options(p)
    p.add_argument("--calibration", default=None, metavar="FILE",
                   help="calibration file (default: the one `autotune calibrate` stored for this cluster)")
    p.add_argument("--no-calibrate", dest="calibrate", action="store_false",
                   help="where no calibration is stored for the cluster, use the spec's nominal values instead of "
                        "measuring a quick calibration first (about a minute)")
    p.add_argument("--steps", type=_common.count(1), default=20, help="profiled steps per candidate (20)")
    p.add_argument("--warmup", type=_common.count(0), default=5, help="warm-up steps per candidate (5)")
    p.add_argument("--accept-unknown-hosts", action="store_true", help="accept SSH host keys not in known_hosts")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=run)


def _duration(text: str) -> float:
    import argparse

    from autotune.tuner._budget import parse_duration

    try:
        return parse_duration(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def run(args) -> int:
    from autotune.tuner import SearchConfig, run_search

    output = args.output
    if output is not None:
        _common.writable_dir(output, "-o")
    if output is None:
        from space.cluster import load_cluster

        output = pathlib.Path("runs") / f"{pathlib.Path(args.model).stem}-{load_cluster(args.spec).fingerprint[:8]}"
    cfg = SearchConfig(model=args.model, spec=args.spec, output=output, trials=args.trials, top_k=args.top_k,
                       builders_to_profile=args.profile_builders, builder_band=args.builder_band,
                       max_profiles=args.max_profiles, round_size=args.round_size, confirm=args.confirm,
                       confirm_within=args.confirm_within,
                       confirm_steps=args.confirm_steps, run_noise=args.run_noise,
                       time_budget_s=args.time_budget, budget_s=args.budget, storage=args.storage,
                       study_name=args.study_name,
                       resume=args.resume, seed=args.seed, sampler=args.sampler, simulate_only=args.simulate_only,
                       prune_ratio=args.prune_ratio, **_common.space_options(args), calibration=args.calibration,
                       calibrate=args.calibrate,
                       cache_dir=args.cache_dir,
                       steps=args.steps, warmup=args.warmup, accept_unknown_hosts=args.accept_unknown_hosts,
                       claim_grace_s=args.claim_grace)
    result = run_search(cfg, progress=not args.quiet)
    if not result.interrupted:
        return 0
    print(f"interrupted: {result.simulated} simulated trials and {result.profiled} profiling runs kept in "
          f"{result.output}; continue with the same command and --resume", file=sys.stderr)
    return interrupted_code()
