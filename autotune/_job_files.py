"""Launch files that run a strategy with ``autotune train`` under a scheduler: an sbatch script for Slurm, and
Kubernetes manifests (an indexed Job with a headless Service, or a Kubeflow TFJob).

On Kubernetes the pods start the servers themselves (pod i serves task i at ``port + i``, with the cluster
definition the driver would have made) and pod 0 also runs the driver, whose spec says ``launcher: external``: it
only connects to them. The driver's pod succeeding ends the job, and the job's end removes the other pods.
"""
from __future__ import annotations

import json
import pathlib
import re
import shlex
import unicodedata
from typing import Any

from runners.cluster import JOB, server_args
from space.cluster import parse_device
from space.errors import BadInput
from space.strategy import Strategy

K8S_KINDS = ("job", "tfjob")
MOUNT = "/etc/autotune"
LABEL = "autotune.job"
DEFAULT_NAME = "autotune-train"
# Slurm accepts almost any job name, but the name also lands in `squeue` columns, log file patterns and the
# `#SBATCH` line, whose own parser treats quotes, backslashes and `#` specially: a plain set keeps it one token.
SLURM_NAME_MAX = 128
_SLURM_NAME = re.compile(r"[A-Za-z0-9._-]+")
_SLURM_NODE = re.compile(r"[A-Za-z0-9._-]+")  # a host name or IPv4 address, nothing `--nodelist` would expand
DNS_LABEL_MAX = 63
_DNS_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
# A line break ends a script's comment early and a control character garbles a terminal: no path may hold one.
# (Surrogates are the bytes of a file name that is not UTF-8, which no generated file can carry.)
_PATH_UNSAFE = {"Cc", "Cs", "Zl", "Zp"}


def _echo(value: str) -> str:
    """``value`` on one line, quoted, its control characters escaped; a long one cut short, its length said."""
    return repr(value) if len(value) <= 60 else f"{value[:40]!r}... ({len(value)} characters)"


def _suggest(value: str, invalid: str, bound: int, first: str = "[^a-z0-9]+") -> str:
    """A valid name near ``value``: lowercase, each run of ``invalid`` characters one '-', leading characters
    that may not start a name dropped, cut to ``bound``; the default name where nothing is left."""
    text = re.sub(invalid, "-", value.lower())
    text = re.sub("^" + first, "", text)[:bound].rstrip("-._")
    return text or DEFAULT_NAME[:bound]


def check_slurm_name(name: str) -> str:
    """``name`` if it is a Slurm job name this script writes as is, else :class:`BadInput`."""
    if _SLURM_NAME.fullmatch(name) and len(name) <= SLURM_NAME_MAX:
        return name
    raise BadInput(f"a Slurm job name must be 1-{SLURM_NAME_MAX} characters of A-Z a-z 0-9 . _ - (no spaces, "
                   f"quotes or control characters), but got {_echo(name)}", "--name",
                   hint=f"--name {_suggest(name, r'[^a-z0-9._-]+', SLURM_NAME_MAX)}")


def k8s_name_bound(kind: str, nodes: int) -> int:
    """The longest name a job of ``nodes`` pods may have: its pods' names (an indexed Job's pod hostname
    ``<name>-<i>``, a TFJob worker's Service ``<name>-worker-<i>``) must be DNS labels of at most 63 characters."""
    return DNS_LABEL_MAX - len(_name_suffix(kind, nodes))


def _name_suffix(kind: str, nodes: int) -> str:
    return f"-{nodes - 1}" if kind == "job" else f"-worker-{nodes - 1}"


def check_k8s_name(name: str, kind: str, nodes: int) -> str:
    """``name`` if it is a DNS-1035 label short enough for the names derived from it, else :class:`BadInput`
    (the Service is named ``name`` and must be a DNS-1035 label; the other objects, the label value and the pods'
    addresses then hold too)."""
    bound = k8s_name_bound(kind, nodes)
    if _DNS_1035.fullmatch(name) and len(name) <= bound:
        return name
    raise BadInput(f"a Kubernetes name must be a DNS-1035 label: a-z, 0-9 and '-', starting with a letter and "
                   f"ending with a letter or digit, at most {bound} characters (the names made from "
                   f"it add '{_name_suffix(kind, nodes)}' within a label's 63), but got {_echo(name)}", "--name",
                   hint=f"--name {_suggest(name, r'[^a-z0-9]+', bound, first='[^a-z]+')}")


def check_path(path: str, where: str) -> str:
    """``path`` if a generated file can carry it (quoted where it runs), else :class:`BadInput`."""
    if not any(unicodedata.category(c) in _PATH_UNSAFE for c in path):
        return path
    raise BadInput(f"a path written into a launch file must hold no control characters or line breaks, but got "
                   f"{_echo(path)}", where, hint="rename or move it; spaces, quotes and other characters are fine")


def check_slurm_nodes(spec) -> list[str]:
    """The Slurm names of the nodes of ``spec`` (hostname, else address), each a name ``--nodelist`` takes as is."""
    names = [n.hostname or n.address for n in spec.nodes]
    for i, name in enumerate(names):
        if not _SLURM_NODE.fullmatch(name):
            raise BadInput(f"a Slurm node name must be letters, digits, '.', '_' or '-', but got {_echo(name)}",
                           f"nodes[{i}] of the spec", hint="give the node's Slurm name as its `hostname`")
    return names


def _train_argv(python: str, model: str, spec: str, strategy: str, steps: int, checkpoint: str | None) -> list[str]:
    argv = [python, "-m", "autotune", "train", "--model", model, "--spec", spec, "--strategy", strategy,
            "--steps", str(steps)]
    return argv + (["--checkpoint", checkpoint] if checkpoint else [])


def sbatch_script(strategy: str, spec, *, model: str, steps: int, checkpoint: str | None = None,
                  python: str = "python3", name: str = DEFAULT_NAME) -> str:
    """An sbatch script (``strategy``: the file's path) on the nodes of ``spec`` (by Slurm name): the driver runs in
    the batch step and starts the servers through srun (``--spec slurm``), so the job's nodes are the cluster.
    Every value is checked (:class:`BadInput`) or shell-quoted: the script runs nothing its inputs spell."""
    check_slurm_name(name)
    names = ",".join(check_slurm_nodes(spec))  # the nodes the strategy names, by Slurm name
    strategy_path = check_path(str(pathlib.Path(strategy).resolve()), "S.PB")
    model_path = check_path(str(pathlib.Path(model).resolve()), "--model")
    if checkpoint:
        check_path(checkpoint, "--checkpoint")
    nodes = len(spec.nodes)
    gpus = {len(n.gpus) for n in spec.nodes}
    # sbatch reads a double-quoted #SBATCH value as one argument; the name holds no quote, backslash or '#'
    lines = ["#!/bin/bash", f'#SBATCH --job-name="{name}"', f"#SBATCH --nodes={nodes}",
             f"#SBATCH --nodelist={names}", "#SBATCH --ntasks-per-node=1"]
    if gpus != {0}:
        lines.append(f"#SBATCH --gpus-per-node={max(gpus)}")
    lines += [f"# strategy {pathlib.Path(strategy_path).name} on {nodes} nodes; autotune starts one server per node "
              "in a step of this job", "set -euo pipefail",
              "exec " + shlex.join(_train_argv(python, model_path, "slurm", strategy_path, steps, checkpoint))]
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


_TASK_INDEX = 'import json, os; print(json.loads(os.environ["TF_CONFIG"])["task"]["index"])'


def _run_script(spec, addresses: list[str], port: int, train: list[str], python: str) -> str:
    """The pods' entry point: the index (the Job's, or TF_CONFIG's task index) picks the task; pod 0 also trains."""
    cluster = json.dumps({JOB: [f"{a}:{port + i}" for i, a in enumerate(addresses)]})
    lines = ["#!/bin/sh", "set -e",
             'i="${JOB_COMPLETION_INDEX:-$(' + shlex.join([python, "-c", _TASK_INDEX]) + ')}"', 'case "$i" in']
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


def k8s_documents(strategy, spec, *, model: str, steps: int, image: str, name: str = DEFAULT_NAME,
                  kind: str = "job", port: int = 2222, checkpoint: str | None = None,
                  python: str = "python3") -> list[dict[str, Any]]:
    """ConfigMap (model, strategy, the pods' spec, run.sh), NetworkPolicy (the servers' ports admit the job's pods
    only) and an indexed Job with its headless Service, or a TFJob (whose operator makes the Services)."""
    import yaml

    if kind not in K8S_KINDS:
        raise BadInput(f"unknown --kind {kind!r}", hint=f"use one of {', '.join(K8S_KINDS)}")
    n = len(spec.nodes)
    check_k8s_name(name, kind, n)
    if checkpoint:
        check_path(checkpoint, "--checkpoint")  # run.sh quotes it; the check keeps line breaks out of the YAML
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
