"""Digest of every training graph the graph transform builds for a set of models and the classic builders, so that
two versions of the code can be shown to build the same graphs (a refactoring that must change no graph).

    PYTHONPATH=OLD_TREE python3 benchmarks/graphdef_digest.py --out /tmp/old.json
    PYTHONPATH=NEW_TREE python3 benchmarks/graphdef_digest.py --out /tmp/new.json --against /tmp/old.json

Each graph is built against the loopback spec's devices (no server starts) with a fixed collective key base and
container, and digested from its deterministic serialization. ``--against`` prints a table of equal and differing
graphs per model and exits 1 where any differs.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODELS = ("models/mlp", "models/recommender", "models/cnn", "zoo/structured_data_lookups", "zoo/normalization_dropout")


def digests(models: list[str]) -> dict[str, str]:
    from runners.transform._graph import build_train_graph
    from space.builders import aliases, build_strategy
    from space.cluster import load_cluster
    from space.errors import BadInput
    from space.model import inventory_from_trace, trace_step

    spec = load_cluster(ROOT / "examples" / "clusters" / "localhost.yml")
    addresses = [n.address for n in spec.nodes]

    def device_of(device: str) -> str:
        address, _, rest = device.partition(":")
        return f"/job:worker/replica:0/task:{addresses.index(address)}/device:{rest}"

    out = {}
    for model in models:
        traced = trace_step(ROOT / "examples" / f"{model}.py")
        inventory = inventory_from_trace(traced)
        for alias in aliases():
            try:
                strategy = build_strategy(alias, inventory, spec)
            except (BadInput, ValueError):  # a builder that does not apply to this model
                continue
            graph = build_train_graph(traced, strategy, device_of, key_base=1000, container="digest").graph
            data = graph.as_graph_def().SerializeToString(deterministic=True)
            out[f"{model}/{alias}"] = hashlib.sha256(data).hexdigest()[:16]
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default=",".join(MODELS), help="comma-separated, under examples/")
    p.add_argument("--out", required=True, help="where to write the digests (JSON)")
    p.add_argument("--against", default=None, help="digests of another version to compare with")
    args = p.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    found = digests(args.models.split(","))
    pathlib.Path(args.out).write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
    print(f"{len(found)} graphs digested into {args.out}")
    if args.against is None:
        return 0
    other = json.loads(pathlib.Path(args.against).read_text())
    print(f"{'model':34} {'graphs':>6} {'equal':>6} {'differ':>6}")
    for model in args.models.split(","):
        keys = [k for k in found if k.startswith(model + "/")]
        same = sum(found[k] == other.get(k) for k in keys)
        print(f"{model:34} {len(keys):6d} {same:6d} {len(keys) - same:6d}")
    differ = [k for k in found if found[k] != other.get(k)] + [k for k in other if k not in found]
    print(f"{len(found) - len(differ)} of {len(found)} graphs equal"
          + (f"; differ: {', '.join(differ)}" if differ else ""))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
