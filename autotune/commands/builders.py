"""``autotune builders``: list the strategy builders and presets by alias."""
from __future__ import annotations

from space import builders, format_table


def register(sub) -> None:
    p = sub.add_parser("builders", help="list the classic strategy builders", description=__doc__)
    p.set_defaults(func=run)


def run(args) -> int:
    print(format_table([{"alias": a, "builds": d} for a, d in builders.available()]))
    print("\ncustom builders: --builder module:Class or --builder path/to/file.py[:Class]")
    return 0
