"""``autotune train --model m.py --spec cluster.yml --strategy s.pb --steps N --checkpoint DIR``."""
from __future__ import annotations

from autotune.commands import _common


def register(sub) -> None:
    p = sub.add_parser("train", help="train with a strategy on the cluster and save a checkpoint",
                       description=__doc__)
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    _common.add_spec(p)
    p.add_argument("--strategy", required=True, metavar="S.PB", help="strategy file (.pb or .pbtxt)")
    p.add_argument("--steps", type=int, required=True, help="training steps")
    p.add_argument("--checkpoint", default=None, metavar="DIR",
                   help="save the single-device model's weights here (model.weights.h5 for Keras models)")
    p.add_argument("--step-timeout", type=_common.positive_seconds, default=120.0, metavar="S",
                   help="cut a step after S seconds (> 0)")
    p.set_defaults(func=run)


def run(args) -> int:
    from runners.cluster import start_cluster
    from runners.profile import prepare
    from runners.train import train_strategy
    from space.errors import BadInput

    if args.steps < 1:
        raise BadInput(f"`--steps >= 1` must hold, but got {args.steps}")
    if args.checkpoint:
        _common.writable_dir(args.checkpoint, "--checkpoint")
    traced, strategy, spec = prepare(args.model, args.spec, args.strategy)
    with start_cluster(spec) as cluster:
        result = train_strategy(traced, strategy, cluster, steps=args.steps, checkpoint_dir=args.checkpoint,
                                step_timeout_s=args.step_timeout, log=print)
    last = f"final loss {result.losses[-1]:.5f}, " if result.losses else ""
    print(f"trained {result.steps} steps in {result.seconds:.2f} s; {last}"
          + (f"checkpoint {result.checkpoint}" if result.checkpoint else "no checkpoint (--checkpoint DIR)"))
    return 0
