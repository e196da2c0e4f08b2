"""``autotune build --builder ALIAS --model m.py --spec cluster.yml -o s.pb``: one classic strategy."""
from __future__ import annotations

from autotune.commands import _common
from space import builders
from space.validate import validate


def register(sub) -> None:
    p = sub.add_parser("build", help="build a strategy with a classic builder", description=__doc__)
    p.add_argument("--builder", required=True, metavar="ALIAS",
                   help=f"one of {', '.join(builders.aliases())}, or module:Class / file.py[:Class]")
    _common.add_model(p)
    _common.add_spec(p)
    p.add_argument("-o", "--output", required=True, metavar="S.PB",
                   help="where to write the strategy (.pb binary, .pbtxt text)")
    p.set_defaults(func=run)


def run(args) -> int:
    _common.writable_file(args.output, "-o")
    cluster = _common.cluster(args)
    inv = _common.inventory(args)
    strategy = builders.build_strategy(args.builder, inv, cluster)
    validate(strategy, inv, cluster, source=f"strategy from builder {args.builder!r}")
    path = strategy.save(args.output)
    print(f"wrote {path} ({args.builder}: {len(strategy.nodes)} variables on {len(strategy.replicas)} replicas)")
    return 0
