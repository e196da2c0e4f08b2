"""The ``cluster.yml`` that ``up`` writes: one node per emulated host, one SSH group, pinned host keys, and a
``links`` entry per slow link."""
from __future__ import annotations

import pathlib
from typing import Any

from runners.testbed._plan import SSH_PORT, format_rate
from space.cluster import load_cluster

SSH_GROUP = "testbed"
CLUSTER_FILE = "cluster.yml"


def _source_root() -> str | None:
    """The checkout holding this package when it is not installed (remote processes then need PYTHONPATH)."""
    root = pathlib.Path(__file__).resolve().parents[2]
    return None if "site-packages" in root.parts or "dist-packages" in root.parts else str(root)


def cluster_dict(plan: dict[str, Any], user: str, key_file: str, known_hosts: str) -> dict[str, Any]:
    group: dict[str, Any] = {"username": user, "port": SSH_PORT, "key_file": key_file, "known_hosts": known_hosts}
    if (root := _source_root()) is not None:
        group["shared_envs"] = {"PYTHONPATH": root}
    nodes = [{"address": h["address"], "cpus": [0], "chief": h["index"] == 0, "ssh_config": SSH_GROUP,
              "network_bandwidth": format_rate(h["rate_bit"]), "python": plan["python"],
              "workdir": str(pathlib.Path(plan["dir"]) / h["name"] / "work")}
             for h in plan["hosts"]]
    if plan.get("threads"):
        for n in nodes:
            n["intra_op_threads"] = plan["threads"]
    out = {"nodes": nodes, "ssh": {SSH_GROUP: group}, "known_hosts": known_hosts}
    hosts = plan["hosts"]
    links = [{"from": hosts[a]["address"], "to": hosts[b]["address"], "bandwidth": format_rate(link["rate_bit"])}
             for link in plan.get("links", []) for a, b in [link["hosts"]]]
    if links:  # one entry per pair: a spec's link holds both ways
        out["links"] = links
    return out


def write_cluster(plan: dict[str, Any], user: str, key_file: str, known_hosts: str) -> pathlib.Path:
    """Write ``<dir>/cluster.yml`` and check it with ``space.load_cluster``."""
    import yaml

    path = pathlib.Path(plan["dir"]) / CLUSTER_FILE
    header = (f"# Emulated cluster written by `autotune testbed up` (prefix {plan['prefix']}).\n"
              f"# Remove it with: autotune testbed down --dir {plan['dir']}\n")
    path.write_text(header + yaml.safe_dump(cluster_dict(plan, user, key_file, known_hosts), sort_keys=False))
    load_cluster(path)
    return path
