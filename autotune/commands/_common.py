"""Argument helpers shared by the sub-commands."""
from __future__ import annotations

import argparse
import json
import sys

from space.cluster import ClusterSpec, load_cluster
from space.inventory import Inventory


def add_model(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="inventory cache (default: $AUTOTUNE_CACHE_DIR or ~/.cache/autotune)")


def add_spec(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--spec", required=required, metavar="CLUSTER.YML", help="cluster spec")


def add_space_options(p: argparse.ArgumentParser) -> None:
    """The options of the strategy space (``autotune search`` and ``validate-simulator`` draw from the same one)."""
    p.add_argument("--reduced", choices=["auto", "yes", "no"], default="auto",
                   help="per-class instead of per-variable choices (auto: above 16 variables)")
    p.add_argument("--sparse-ps-only", action="store_true", help="keep sparse-gradient variables on PS")
    p.add_argument("--allow-async", action="store_true",
                   help="also asynchronous PS and bounded staleness (changes training dynamics)")


def space_options(args: argparse.Namespace) -> dict:
    """``reduced`` / ``sparse_ps_only`` / ``allow_async`` of :func:`add_space_options`, as keyword arguments."""
    return {"reduced": {"auto": None, "yes": True, "no": False}[args.reduced],
            "sparse_ps_only": args.sparse_ps_only, "allow_async": args.allow_async}


def inventory(args: argparse.Namespace) -> Inventory:
    from space.model import load_inventory

    return load_inventory(args.model, cache_dir=args.cache_dir)


def cluster(args: argparse.Namespace) -> ClusterSpec:
    return load_cluster(args.spec)


def print_json(data) -> None:
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")
