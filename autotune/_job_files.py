"""Launch files that run a strategy with ``autotune train`` under a scheduler: an sbatch script for Slurm, and
Kubernetes manifests (an indexed Job with a headless Service, or a Kubeflow TFJob).

On Kubernetes the pods start the servers themselves (pod i serves task i at ``port + i``, with the cluster
definition the driver would have made) and pod 0 also runs the driver, whose spec says ``launcher: external``: it
only connects to them. The driver's pod succeeding ends the job, and the job's end removes the other pods.
"""
from __future__ import annotations

import json
import pathlib
import shlex
from typing import Any

from runners.cluster import JOB, server_args
from space.cluster import parse_device
from space.errors import BadInput
from space.strategy import Strategy

K8S_KINDS = ("job", "tfjob")
MOUNT = "/etc/autotune"
LABEL = "autotune.job"


def _train_argv(python: str, model: str, spec: str, strategy: str, steps: int, checkpoint: str | None) -> list[str]:
    argv = [python, "-m", "autotune", "train", "--model", model, "--spec", spec, "--strategy", strategy,
            "--steps", str(steps)]
    return argv + (["--checkpoint", checkpoint] if checkpoint else [])


def sbatch_script(strategy: str, spec, *, model: str, steps: int, checkpoint: str | None = None,
                  python: str = "python3", name: str = "autotune-train") -> str:
    """An sbatch script (``strategy``: the file's path) on the nodes of ``spec`` (by Slurm name): the driver runs in
    the batch step and starts the servers through srun (``--spec slurm``), so the job's nodes are the cluster."""
    nodes = len(spec.nodes)
    gpus = {len(n.gpus) for n in spec.nodes}
    names = ",".join(n.hostname or n.address for n in spec.nodes)  # the nodes the strategy names, by Slurm name
    lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f"#SBATCH --nodes={nodes}", f"#SBATCH --nodelist={names}",
             "#SBATCH --ntasks-per-node=1"]
    if gpus != {0}:
        lines.append(f"#SBATCH --gpus-per-node={max(gpus)}")
    strategy_path = str(pathlib.Path(strategy).resolve())
    lines += [f"# strategy {pathlib.Path(strategy).name} on {nodes} nodes; autotune starts one server per node in a "
              "step of this job", "set -euo pipefail",
              "exec " + shlex.join(_train_argv(python, str(pathlib.Path(model).resolve()), "slurm", strategy_path,
                                               steps, checkpoint))]
    return "\n".join(lines) + "\n"


def readdress(strategy, old: list[str], new: list[str]):
    """A copy of ``strategy`` whose devices name node ``new[i]`` where they named ``old[i]``."""
    out = Strategy.from_bytes(strategy.to_bytes())
    where = dict(zip(old, new))

    def move(device: str) -> str:
        address, kind, index = parse_device(device)
        if address not in where:
            raise BadInput(f"the strategy names device {device}, on no node of the spec",
                           hint="export with the spec the strategy was built for")
        return f"{where[address]}:{kind}:{index}"

    replicas = [move(d) for d in out.proto.graph_config.replicas]
    del out.proto.graph_config.replicas[:]
    out.proto.graph_config.replicas.extend(replicas)
    for n in out.proto.node_config:
        for p in list(n.part_config) + [n]:
            if p.WhichOneof("synchronizer") == "PSSynchronizer":
                p.PSSynchronizer.reduction_destination = move(p.PSSynchronizer.reduction_destination)
    return out


def _pod_addresses(name: str, kind: str, n: int) -> list[str]:
    # an indexed Job's pod i is <job>-<i> under the Service's subdomain; a TFJob's worker i has a Service <job>-worker-i
    return [f"{name}-{i}.{name}" if kind == "job" else f"{name}-worker-{i}" for i in range(n)]


def _run_script(spec, addresses: list[str], port: int, train: list[str], python: str) -> str:
    """The pods' entry point: the index (the Job's, or TF_CONFIG's task index) picks the task; pod 0 also trains."""
    cluster = json.dumps({JOB: [f"{a}:{port + i}" for i, a in enumerate(addresses)]})
    lines = ["#!/bin/sh", "set -e",
             'i="${JOB_COMPLETION_INDEX:-$(' + python + ' -c \'import json, os; '
             'print(json.loads(os.environ["TF_CONFIG"])["task"]["index"])\')}"', 'case "$i" in']
    for k, node in enumerate(spec.nodes):
        server = shlex.join([python, "-u", "-m", "runners.server_main", *server_args(node, k, cluster)])
        body = f"{server} & exec {shlex.join(train)}" if k == 0 else f"exec {server}"
        lines.append(f"  {k}) {body} ;;")
    lines += ['  *) echo "error: no task $i in this cluster" >&2; exit 2 ;;', "esac"]
    return "\n".join(lines) + "\n"


def _pod_template(name: str, image: str, spec, port: int, tfjob: bool) -> dict[str, Any]:
    n = len(spec.nodes)
    container: dict[str, Any] = {"name": "tensorflow" if tfjob else "autotune", "image": image,
                                 "command": ["sh", f"{MOUNT}/run.sh"],
                                 "ports": [{"containerPort": port + i, "name": f"task{i}"} for i in range(n)],
                                 "volumeMounts": [{"name": "autotune", "mountPath": MOUNT, "readOnly": True}]}
    threads = max(n.intra_op_threads for n in spec.nodes)
    gpus = max(len(n.gpus) for n in spec.nodes)
    if threads or gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": gpus}} if gpus else {}
        if threads:
            container["resources"]["requests"] = {"cpu": str(threads)}
    pod: dict[str, Any] = {"restartPolicy": "Never", "containers": [container],
                           "volumes": [{"name": "autotune", "configMap": {"name": name}}]}
    if not tfjob:
        pod["subdomain"] = name
    return {"metadata": {"labels": {LABEL: name}}, "spec": pod}


def k8s_documents(strategy, spec, *, model: str, steps: int, image: str, name: str = "autotune-train",
                  kind: str = "job", port: int = 2222, checkpoint: str | None = None,
                  python: str = "python3") -> list[dict[str, Any]]:
    """ConfigMap (model, strategy, the pods' spec, run.sh), NetworkPolicy (the servers' ports admit the job's pods
    only) and an indexed Job with its headless Service, or a TFJob (whose operator makes the Services)."""
    import yaml

    if kind not in K8S_KINDS:
        raise BadInput(f"unknown --kind {kind!r}", hint=f"use one of {', '.join(K8S_KINDS)}")
    n = len(spec.nodes)
    if not 0 < port <= 65535 - n:
        raise BadInput(f"`--port` must leave room for {n} ports below 65536, but got {port}", hint="--port 2222")
    try:
        model_text = pathlib.Path(model).read_text()
    except OSError as e:
        raise BadInput(f"cannot read the model file: {e.strerror}", model) from None
    addresses = _pod_addresses(name, kind, n)
    moved = readdress(strategy, [node.address for node in spec.nodes], addresses)
    nodes = [dict(node, address=a) for node, a in zip(spec.to_dict()["nodes"], addresses)]
    for node in nodes:
        for key in ("hostname", "python", "workdir", "ssh_config"):
            node.pop(key, None)
    pod_spec = {"launcher": "external", "external": {"port": port}, "nodes": nodes}
    train = _train_argv(python, f"{MOUNT}/model.py", f"{MOUNT}/cluster.yml", f"{MOUNT}/strategy.pbtxt", steps,
                        checkpoint)
    labels = {LABEL: name}  # copied where used: the YAML stays free of anchors
    config = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": dict(labels)},
              "data": {"model.py": model_text, "strategy.pbtxt": moved.to_text(),
                       "cluster.yml": yaml.safe_dump(pod_spec, sort_keys=False),
                       "run.sh": _run_script(spec, addresses, port, train, python)}}
    policy = {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy", "metadata": {"name": name},
              "spec": {"podSelector": {"matchLabels": labels}, "policyTypes": ["Ingress"],
                       "ingress": [{"from": [{"podSelector": {"matchLabels": dict(labels)}}],
                                    "ports": [{"protocol": "TCP", "port": port, "endPort": port + n - 1}]}]}}
    template = _pod_template(name, image, spec, port, kind == "tfjob")
    if kind == "tfjob":
        job = {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {"name": name, "labels": dict(labels)},
               "spec": {"runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": 0},
                        "tfReplicaSpecs": {"Worker": {"replicas": n, "restartPolicy": "Never", "template": template}}}}
        return [config, policy, job]
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "labels": dict(labels)},
               "spec": {"clusterIP": "None", "selector": dict(labels),
                        "ports": [{"name": f"task{i}", "port": port + i} for i in range(n)]}}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "labels": dict(labels)},
           "spec": {"completionMode": "Indexed", "completions": n, "parallelism": n, "backoffLimit": 0,
                    "successPolicy": {"rules": [{"succeededIndexes": "0"}]}, "template": template}}
    return [config, service, policy, job]


def dump_yaml(documents: list[dict[str, Any]]) -> str:
    """The manifests as one YAML stream, multi-line strings (the model, the scripts) as literal blocks."""
    import yaml

    class Dumper(yaml.SafeDumper):
        def ignore_aliases(self, data):
            return True

    def text(dumper, value: str):
        style = "|" if "\n" in value and all(line == line.rstrip() for line in value.splitlines()) else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, text)
    return yaml.dump_all(documents, Dumper=Dumper, sort_keys=False)
