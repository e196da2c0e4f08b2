"""Export a strategy for other launchers: a plain, versioned JSON description, the TF_CONFIG of each node, or the
launch files that run it with ``autotune train`` under a scheduler (an sbatch script, Kubernetes manifests).

Every export returns what the target format cannot carry (:attr:`Export.dropped`), one line per feature
naming the variables, so nothing is lost silently. JSON carries everything; TF_CONFIG carries the cluster only.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Any, Sequence

from autotune import _job_files
from space.cluster import parse_device
from space.errors import BadInput, StrategyError
from space.proto import strategy_pb2 as pb
from space.strategy import Compressor, Node, Spec, Strategy, ar_node, partition_axis, ps_node

FORMAT = "autotune-strategy"
TF_CONFIG_FORMAT = "autotune-tf-config"
SCHEMA_VERSION = 1
TARGETS = ("json", "tf-config", "slurm", "k8s")
DEFAULT_PORT = 2222
JOB = "worker"
_COMPRESSORS = {"NoneCompressor": "none", "HorovodCompressor": "fp16", "HorovodCompressorEF": "fp16_ef",
                "PowerSGDCompressor": "powersgd"}
_SYNC_FIELDS = ("synchronizer", "destination", "sync", "staleness", "local_replication", "group", "spec",
                "compressor", "powersgd_rank", "gather_sparse", "hierarchical")


@dataclasses.dataclass
class Export:
    """The exported document and the features of the strategy it could not express."""

    target: str
    document: dict[str, Any]
    dropped: list[str]
    body: str | None = None  # a launch file's text, where the target is not JSON

    def text(self) -> str:
        return self.body if self.body is not None else json.dumps(self.document, indent=1) + "\n"


# ---- JSON ------------------------------------------------------------------------------------------------

def _sync_to_dict(node) -> dict[str, Any]:
    kind = node.WhichOneof("synchronizer")
    if kind == "PSSynchronizer":
        s = node.PSSynchronizer
        return {"synchronizer": "ps", "destination": s.reduction_destination, "sync": s.sync,
                "staleness": s.staleness, "local_replication": s.local_replication}
    if kind == "AllReduceSynchronizer":
        s = node.AllReduceSynchronizer
        out = {"synchronizer": "all_reduce", "group": s.group, "spec": Spec.Name(s.spec).lower(),
               "compressor": _COMPRESSORS[Compressor.Name(s.compressor)]}
        if out["compressor"] == "powersgd":
            out["powersgd_rank"] = s.powersgd_rank or 1
        if s.gather_sparse:
            out["gather_sparse"] = True
        if s.hierarchical:
            out["hierarchical"] = True
        return out
    return {"synchronizer": None}


def to_json(strategy) -> dict[str, Any]:
    """Schema 1: ``variables`` in the strategy's order; an unsharded variable carries its synchronizer fields,
    a sharded one ``shards``, ``partition_axis``, ``partitioner`` and one entry per shard in ``parts``."""
    from google.protobuf.json_format import MessageToDict

    variables = []
    for n in strategy.proto.node_config:
        if n.partitioner:
            axis, shards = partition_axis(n.partitioner)
            variables.append({"name": n.var_name, "shards": len(n.part_config) or shards, "partition_axis": axis,
                              "partitioner": n.partitioner,
                              "parts": [{"name": p.var_name, **_sync_to_dict(p)} for p in n.part_config]})
        else:
            variables.append({"name": n.var_name, "shards": 1, **_sync_to_dict(n)})
    return {"format": FORMAT, "schema_version": SCHEMA_VERSION, "id": strategy.proto.id,
            "replicas": list(strategy.proto.graph_config.replicas),
            "provenance": MessageToDict(strategy.proto.provenance, preserving_proto_field_name=True),
            "variables": variables}


def _sync_from_dict(d: dict[str, Any], where: str):
    kind = d.get("synchronizer")
    if kind == "ps":
        return ps_node("", d["destination"], sync=d.get("sync", True), staleness=d.get("staleness", 0),
                       local_replication=d.get("local_replication", False))
    if kind == "all_reduce":
        names = {v: k for k, v in _COMPRESSORS.items()}
        if d.get("compressor", "none") not in names:
            raise BadInput(f"unknown compressor {d.get('compressor')!r} of {where}",
                           hint=f"use one of {', '.join(sorted(names))}")
        rank = d.get("powersgd_rank", 0) if d.get("compressor") == "powersgd" else 0
        return ar_node("", group=d.get("group", 0), spec=d.get("spec", "auto").upper(),
                       compressor=names[d.get("compressor", "none")], powersgd_rank=rank,
                       gather_sparse=bool(d.get("gather_sparse", False)),
                       hierarchical=bool(d.get("hierarchical", False)))
    if kind is None:
        return Node()
    raise BadInput(f"unknown synchronizer {kind!r} of {where}", hint="use ps or all_reduce")


def from_json(doc: dict[str, Any], source: str = "<json>"):
    """The ``space.strategy.Strategy`` of a schema-1 document (the inverse of :func:`to_json`)."""
    from google.protobuf.json_format import ParseDict

    if doc.get("format") != FORMAT:
        raise BadInput(f"not an {FORMAT} document (format {doc.get('format')!r})", source)
    if doc.get("schema_version") != SCHEMA_VERSION:
        raise BadInput(f"schema_version {doc.get('schema_version')!r} is not supported", source,
                       hint=f"this autotune reads schema_version {SCHEMA_VERSION}")
    msg = pb.Strategy(id=doc.get("id", ""))
    msg.graph_config.replicas.extend(doc.get("replicas", []))
    ParseDict(doc.get("provenance", {}), msg.provenance)
    for v in doc.get("variables", []):
        node = msg.node_config.add()
        if "parts" in v:
            node.var_name, node.partitioner = v["name"], v["partitioner"]
            for p in v["parts"]:
                part = node.part_config.add()
                part.CopyFrom(_sync_from_dict(p, f"variable {p['name']!r}"))
                part.var_name = p["name"]
        else:
            node.CopyFrom(_sync_from_dict(v, f"variable {v['name']!r}"))
            node.var_name = v["name"]
    return Strategy(msg)


# ---- TF_CONFIG -------------------------------------------------------------------------------------------

def _names(names: Sequence[str], limit: int | None) -> str:
    short = [n.removesuffix(":0") for n in names]
    if limit is not None and len(short) > limit:
        return ", ".join(short[:limit]) + f" (+{len(short) - limit} more)"
    return ", ".join(short)


def tf_config_dropped(strategy, limit: int | None = None) -> list[str]:
    """What TF_CONFIG cannot express of ``strategy``: every per-variable setting, grouped by feature."""
    tensors = [(p if n.partitioner else n) for n in strategy.proto.node_config for p in (n.part_config or [n])]
    by: dict[str, list[str]] = {}

    def add(key: str, name: str) -> None:
        by.setdefault(key, []).append(name)

    for t in tensors:
        d = _sync_to_dict(t)
        if d["synchronizer"] == "ps":
            add(f"PS placement on {d['destination']}", t.var_name)
            if not d["sync"]:
                add(f"asynchronous PS updates, staleness {d['staleness']}" if d["staleness"] else
                    "asynchronous PS updates, unbounded staleness", t.var_name)
            if d["local_replication"]:
                add("local replication (per-node PS proxies)", t.var_name)
        elif d["synchronizer"] == "all_reduce":
            add(f"all-reduce group {d['group']}" + ("" if d["spec"] == "auto" else f" ({d['spec']})"), t.var_name)
            if d["compressor"] != "none":
                add(f"{d['compressor']} compression" + (f", PowerSGD rank {d['powersgd_rank']}"
                                                        if d["compressor"] == "powersgd" else ""), t.var_name)
            if d.get("gather_sparse"):
                add("all-gathered sparse gradient", t.var_name)
            if d.get("hierarchical"):
                add("hierarchical all-reduce (inside each unit of replicas, then across)", t.var_name)
    lines = [f"per-variable synchronization of {len(strategy.proto.node_config)} variables "
             "(TF_CONFIG describes the cluster only):"]
    lines += [f"  {key}: {_names(names, limit)}" for key, names in sorted(by.items())]
    for n in strategy.proto.node_config:
        if n.partitioner:
            axis, shards = partition_axis(n.partitioner)
            lines.append(f"  partitioning: {n.var_name.removesuffix(':0')} into {shards} shards along axis {axis}")
    lines.append(f"  replica devices: {', '.join(strategy.proto.graph_config.replicas) or '-'}")
    return lines


def _strategy_addresses(strategy) -> list[str]:
    seen: list[str] = []
    devices = list(strategy.proto.graph_config.replicas)
    for n in strategy.proto.node_config:
        for p in (n.part_config or [n]):
            if p.WhichOneof("synchronizer") == "PSSynchronizer":
                devices.append(p.PSSynchronizer.reduction_destination)
    for d in devices:
        address = parse_device(d)[0]
        if address not in seen:
            seen.append(address)
    return seen


def to_tf_config(strategy, spec=None, ports: int | Sequence[int] = DEFAULT_PORT) -> Export:
    """One TF_CONFIG per node for job ``worker``, task ``i`` = the ``i``-th node of ``spec`` (the order
    ``autotune train`` uses). Without a spec, nodes come in the order the strategy first names them."""
    used = _strategy_addresses(strategy)
    notes = []
    if spec is not None:
        nodes = [(n.address, n.hostname, n.chief) for n in spec.nodes]
        missing = [a for a in used if a not in {n[0] for n in nodes}]
        if missing:
            raise StrategyError(f"the strategy uses {', '.join(missing)}, which the cluster spec lacks",
                                hint="export with the spec the strategy was built for")
    else:
        nodes = [(a, None, i == 0) for i, a in enumerate(used)]
        notes.append("no --spec: tasks are in the order the strategy first names each address, the first is chief")
    port_list = [ports] * len(nodes) if isinstance(ports, int) else list(ports)
    if len(port_list) != len(nodes) or any(not 0 < p < 65536 for p in port_list):
        raise BadInput(f"`one port in 1..65535 per node (or one for all)` must hold, but got {port_list} for "
                       f"{len(nodes)} nodes", hint="--port 2222 or --port 2222,2223,...")
    workers = [f"{a}:{p}" for (a, _h, _c), p in zip(nodes, port_list)]
    tasks = []
    for i, (address, hostname, chief) in enumerate(nodes):
        cfg = {"cluster": {JOB: workers}, "task": {"type": JOB, "index": i}}
        tasks.append({"index": i, "address": address, "hostname": hostname, "chief": chief,
                      "TF_CONFIG": json.dumps(cfg, separators=(",", ":"))})
    dropped = tf_config_dropped(strategy)
    doc = {"format": TF_CONFIG_FORMAT, "schema_version": SCHEMA_VERSION, "strategy_id": strategy.proto.id,
           "cluster": {JOB: workers}, "chief_task": next(i for i, n in enumerate(nodes) if n[2]), "tasks": tasks,
           "notes": notes, "dropped": dropped}
    return Export(target="tf-config", document=doc, dropped=dropped)


def export(strategy, target: str, spec=None, ports: int | Sequence[int] = DEFAULT_PORT, **job) -> Export:
    """Export ``strategy`` to ``target`` (one of :data:`TARGETS`); ``job``: what a launch file needs (``model``,
    ``steps``, ``checkpoint``; for k8s ``image``, ``name``, ``kind``)."""
    if target in ("slurm", "k8s"):
        return _job_file(strategy, target, spec, ports, job)
    if target == "json":
        return Export(target="json", document=to_json(strategy), dropped=[])
    if target == "tf-config":
        return to_tf_config(strategy, spec, ports)
    raise BadInput(f"unknown export target {target!r}", hint=f"use one of {', '.join(sorted(TARGETS))}")


def check_job(target: str, spec, job: dict[str, Any]) -> None:
    """Refuse (:class:`BadInput`) a job name or path that a launch file of ``target`` cannot carry, before any
    work: the name's rules are the scheduler's, and a k8s name's length bound depends on the nodes of ``spec``."""
    name = _job_name(job)
    if target == "slurm":
        _job_files.check_slurm_name(name)
    elif target == "k8s" and spec is not None and (job.get("kind") or "job") in _job_files.K8S_KINDS:
        _job_files.check_k8s_name(name, job.get("kind") or "job", len(spec.nodes))
    if target in ("slurm", "k8s") and job.get("checkpoint"):
        _job_files.check_path(job["checkpoint"], "--checkpoint")


def _job_name(job: dict[str, Any]) -> str:
    # an empty --name is refused by the name's rules, not replaced by the default
    return _job_files.DEFAULT_NAME if job.get("name") is None else job["name"]


def _job_file(strategy, target: str, spec, ports, job: dict[str, Any]) -> Export:
    if spec is None or not job.get("model"):
        raise BadInput(f"--to {target} needs --spec and --model", hint=f"autotune export S.PB --to {target} --spec "
                       "cluster.yml --model m.py" + (" --image IMAGE" if target == "k8s" else ""))
    if target == "slurm":
        body = _job_files.sbatch_script(job.get("strategy_path") or "strategy.pb", spec, model=job["model"],
                                        steps=job["steps"], checkpoint=job.get("checkpoint"), name=_job_name(job))
        return Export(target=target, document={"nodes": len(spec.nodes)}, dropped=[], body=body)
    if not job.get("image"):
        raise BadInput("--to k8s needs --image: a container image with autotune and what the model imports",
                       hint="--image registry.example/autotune:latest")
    if not isinstance(ports, int):
        raise BadInput("--to k8s takes one --port: task i listens on PORT + i", hint="--port 2222")
    docs = _job_files.k8s_documents(strategy, spec, model=job["model"], steps=job["steps"], image=job["image"],
                                    name=_job_name(job), kind=job.get("kind") or "job", port=ports,
                                    checkpoint=job.get("checkpoint"))
    return Export(target=target, document={"documents": docs}, dropped=[],
                  body=_job_files.dump_yaml(docs))
