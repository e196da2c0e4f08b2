"""``autotune show s.pb``: a strategy file as a table (``--text`` for protobuf text format); with ``--model`` and
``--spec``, also each node's memory need beside the bytes it sends and receives per step."""
from __future__ import annotations

import argparse

from autotune._fits import node_table
from autotune.commands import _common
from space.strategy import Strategy
from space.validate import validate


def register(sub) -> None:
    p = sub.add_parser("show", help="print a strategy file", description=__doc__)
    p.add_argument("strategy", metavar="S.PB", help="strategy file (.pb or .pbtxt)")
    p.add_argument("--text", action="store_true", help="print the protobuf text format")
    p.add_argument("--model", default=None, metavar="M.PY", help="also validate against this model and show sizes")
    p.add_argument("--spec", default=None, metavar="CLUSTER.YML", help="also validate against this cluster")
    p.add_argument("--cache-dir", default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def run(args) -> int:
    strategy = Strategy.load(args.strategy)
    if args.text:
        print(strategy.to_text(), end="")
        return 0
    inv = cluster = None
    if args.model:
        inv = _common.inventory(args)
        if args.spec:
            cluster = _common.cluster(args)
            validate(strategy, inv, cluster, source=args.strategy)
    print(strategy.summary(inv))
    if cluster is not None:
        print()
        print(node_table(inv, cluster, strategy))
    return 0
