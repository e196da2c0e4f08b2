"""Argument helpers shared by the sub-commands."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile

from space.cluster import ClusterSpec, load_cluster
from space.errors import BadInput
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
    p.add_argument("--lossless", action="store_true",
                   help="exact synchronizers only: no gradient compression (fp16, error feedback, PowerSGD)")


def space_options(args: argparse.Namespace) -> dict:
    """``reduced`` / ``sparse_ps_only`` / ``allow_async`` / ``lossless`` of :func:`add_space_options`, as keyword
    arguments."""
    return {"reduced": {"auto": None, "yes": True, "no": False}[args.reduced],
            "sparse_ps_only": args.sparse_ps_only, "allow_async": args.allow_async, "lossless": args.lossless}


def inventory(args: argparse.Namespace) -> Inventory:
    from space.model import load_inventory

    return load_inventory(args.model, cache_dir=args.cache_dir)


def cluster(args: argparse.Namespace) -> ClusterSpec:
    return load_cluster(args.spec)


def print_json(data) -> None:
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")


def positive_seconds(text: str) -> float:
    """An argparse type: seconds > 0 (a timeout of 0 or less would cut every step at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0 seconds, got {text}")
    return value


# the most steps a job may ask for: TensorFlow counts steps and batches in 64-bit integers
MAX_STEPS = 2**63 - 1


def count(low: int, high: int = MAX_STEPS):
    """An argparse type: an integer in ``low..high``, checked when the command line is read (before any work)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be an integer >= {low}, got {text}")
        if value > high:
            raise argparse.ArgumentTypeError(f"must be at most {high} (a 64-bit count), got {text}")
        return value

    parse.__name__ = f"integer >= {low}"  # argparse names the type in its own messages
    return parse


def writable_dir(path: str | os.PathLike, option: str) -> pathlib.Path:
    """``path`` as a directory this process can write into (made if missing), checked before any work."""
    p = pathlib.Path(path)
    if p.exists() and not p.is_dir():
        raise BadInput(f"{option} {p} is a file, not a directory", hint=f"give {option} a directory (new or existing)")
    try:
        p.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=p):
            pass
    except OSError as e:
        raise BadInput(f"cannot write to {option} {p}: {e.strerror or e}",
                       hint=f"give {option} a directory you can write to") from None
    return p


def writable_file(path: str | os.PathLike, option: str) -> pathlib.Path:
    """``path`` as a file this process can create or replace (its directory made if missing), checked first."""
    p = pathlib.Path(path)
    if p.is_dir():
        raise BadInput(f"{option} {p} is a directory, not a file", hint=f"give {option} a file name")
    writable_dir(p.parent if str(p.parent) else ".", f"{option}'s directory")
    if p.exists() and not os.access(p, os.W_OK):
        raise BadInput(f"cannot write to {option} {p}: Permission denied", hint=f"give {option} a file you can write")
    return p
