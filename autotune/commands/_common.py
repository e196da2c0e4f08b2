"""Argument helpers shared by the sub-commands."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile

from autotune._options import MAX_STEPS, count, positive_seconds  # noqa: F401 - the commands' argparse types
from space.cluster import ClusterSpec, load_cluster
from space.errors import BadInput
from space.inventory import Inventory
from space.model import load_inventory


def add_model(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, metavar="M.PY", help="model file (see README: model contract)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="inventory cache (default: $AUTOTUNE_CACHE_DIR or ~/.cache/autotune)")


def add_spec(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--spec", required=required, metavar="CLUSTER.YML", help="cluster spec")


def inventory(args: argparse.Namespace) -> Inventory:
    return load_inventory(args.model, cache_dir=args.cache_dir)


def cluster(args: argparse.Namespace) -> ClusterSpec:
    return load_cluster(args.spec)


def print_json(data) -> None:
    json.dump(data, sys.stdout, indent=1)
    sys.stdout.write("\n")



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
