"""A cluster spec from a Slurm allocation: ``--spec slurm``, or ``launcher: slurm`` in a spec file.

Inside ``salloc`` or ``sbatch`` Slurm describes the allocation in environment variables. The nodes are
``SLURM_JOB_NODELIST`` (a host list with bracket ranges, ``h[1-3,5],g07``, expanded here by :func:`expand_hostlist`
without calling Slurm), one TensorFlow server per node, the first node the chief. Each server's thread pool is the
node's CPUs in the allocation (``SLURM_JOB_CPUS_PER_NODE``, else ``SLURM_TASKS_PER_NODE`` times
``SLURM_CPUS_PER_TASK``, both in Slurm's ``2(x3),1`` form). The replicas are the GPUs Slurm gave the job
(``SLURM_STEP_GPUS``, ``SLURM_JOB_GPUS`` or ``CUDA_VISIBLE_DEVICES``: a count, the same on every node, numbered
from 0 as the server sees them), else each node's CPU. A node's address is Slurm's ``NodeAddr`` for it (asked of
``scontrol`` when present), else its name. A node's ``memory`` is the job's (``SLURM_MEM_PER_NODE``, else
``SLURM_MEM_PER_CPU`` times the node's CPUs, both in Slurm's MiB; ``--mem=0``, all of the node's, is unknown).

Bandwidths: the spec's nominal rate is ``slurm: {network_bandwidth: ...}`` or :data:`DEFAULT_BANDWIDTH`; the cost
model takes the calibration stored for this spec, whose fingerprint depends on the nodes only, so a later job on
the same nodes finds the one a first search measured.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Any, Callable, Mapping

from space._units import MAX_THREADS
from space.errors import SpecError

LAUNCHER = "slurm"
EXTERNAL = "external"  # servers a scheduler started (a Kubernetes Job's pods): the driver only connects to them
LAUNCHERS = (LAUNCHER, EXTERNAL)
SOURCE = "the Slurm allocation"
DEFAULT_BANDWIDTH = "1gbit"
# keys of the `slurm:` mapping of a spec file: what every node of the allocation gets, and extra srun options
NODE_DEFAULT_KEYS = {"python", "workdir", "network_bandwidth", "intra_op_threads", "inter_op_threads", "memory",
                     "gpu_memory"}
SLURM_KEYS = NODE_DEFAULT_KEYS | {"srun_args"}
_HINT = "run inside an allocation (salloc -N 2 ..., or an sbatch script), or pass a cluster.yml"
_NAME = re.compile(r"[A-Za-z0-9_.\-]+")
_COUNT = re.compile(r"^(\d+)(?:\(x(\d+)\))?$")


def expand_hostlist(text: str, where: str = "SLURM_JOB_NODELIST") -> list[str]:
    """``"h[1-3,5],g07"`` -> ``["h1", "h2", "h3", "h5", "g07"]``, as Slurm expands a host list.

    Commas outside brackets separate names; a bracket holds numbers and ranges (``01-10`` keeps the lower bound's
    width: ``01``, ``02`` .. ``10``); several brackets in one name multiply (``r[1-2]n[1-2]``). Duplicates stay.
    Anything else (an empty name, unbalanced or nested brackets, a descending range) is a :class:`SpecError`."""
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"{where} is empty", hint=_HINT)
    names: list[str] = []
    for item in _split_top(text.strip(), where):
        names.extend(_expand_one(item, text, where))
    return names


def _split_top(text: str, where: str) -> list[str]:
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
            if depth > 1:
                raise SpecError(f"{where} {text!r} nests brackets at character {i + 1}", hint=_HINT)
        elif ch == "]":
            depth -= 1
            if depth < 0:
                raise SpecError(f"{where} {text!r} closes a bracket it never opened at character {i + 1}", hint=_HINT)
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth:
        raise SpecError(f"{where} {text!r} leaves a bracket open", hint=_HINT)
    items.append(text[start:])
    for item in items:
        if not item.strip():
            raise SpecError(f"{where} {text!r} has an empty host name", hint=_HINT)
    return [item.strip() for item in items]


def _expand_one(item: str, text: str, where: str) -> list[str]:
    """One host expression: literal parts and bracket groups, expanded left to right."""
    parts = re.split(r"(\[[^\]]*\])", item)
    out = [""]
    for part in parts:
        if part.startswith("["):
            numbers = _range_set(part[1:-1], text, where)
            out = [prefix + n for prefix in out for n in numbers]
        elif part:
            if not _NAME.fullmatch(part):
                raise SpecError(f"{where} {text!r} has the character(s) {part!r}, not of a host name", hint=_HINT)
            out = [prefix + part for prefix in out]
    return out


def _range_set(body: str, text: str, where: str) -> list[str]:
    numbers: list[str] = []
    for piece in body.split(","):
        low, sep, high = piece.strip().partition("-")
        if not low.isdigit() or (sep and not high.isdigit()):
            raise SpecError(f"{where} {text!r} has the range [{body}], whose {piece!r} is not N or N-M", hint=_HINT)
        if not sep:
            numbers.append(low)
            continue
        if int(high) < int(low):
            raise SpecError(f"{where} {text!r} has the descending range {piece!r}", hint=_HINT)
        width = len(low)  # Slurm pads to the lower bound's digits: [01-10] -> 01 .. 10, [1-10] -> 1 .. 10
        numbers.extend(str(n).zfill(width) for n in range(int(low), int(high) + 1))
    return numbers


def expand_counts(text: str, nodes: int, where: str) -> list[int]:
    """Slurm's per-node counts, ``"2(x3),1"`` -> ``[2, 2, 2, 1]``; there must be one per node."""
    counts: list[int] = []
    for item in (text or "").split(","):
        m = _COUNT.match(item.strip())
        if m is None:
            raise SpecError(f"{where} {text!r} is not of Slurm's form N or N(xK), comma-separated", hint=_HINT)
        counts.extend([int(m[1])] * int(m[2] or 1))
    if len(counts) != nodes:
        raise SpecError(f"{where} {text!r} gives {len(counts)} count(s) for {nodes} node(s)", hint=_HINT)
    return counts


def gpu_count(env: Mapping[str, str]) -> int:
    """How many GPUs each node's server sees: the job's or step's GPU ids, else CUDA_VISIBLE_DEVICES."""
    for key in ("SLURM_STEP_GPUS", "SLURM_JOB_GPUS", "CUDA_VISIBLE_DEVICES"):
        value = env.get(key, "").strip()
        if not value:
            continue
        ids = [g.strip() for g in value.split(",")]
        if value in ("NoDevFiles", "-1") or any(not g for g in ids):
            return 0
        return len(ids)
    return 0


def scontrol_addresses(names: list[str]) -> dict[str, str]:
    """Slurm's ``NodeAddr`` of each node (``scontrol show node``); {} without scontrol or when it fails."""
    scontrol = shutil.which("scontrol")
    if scontrol is None:
        return {}
    try:
        out = subprocess.run([scontrol, "-o", "show", "node", ",".join(names)], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    found = {}
    for line in out.stdout.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if fields.get("NodeName") and fields.get("NodeAddr"):
            found[fields["NodeName"]] = fields["NodeAddr"]
    return found


def allocation_nodes(env: Mapping[str, str], defaults: Mapping[str, Any] | None = None,
                     addresses: Callable[[list[str]], Mapping[str, str]] | None = None) -> list[dict]:
    """The ``nodes`` of a cluster spec for the allocation ``env`` describes (plain data, as in a cluster.yml).

    ``defaults``: keys every node gets (:data:`NODE_DEFAULT_KEYS`); ``addresses``: node name -> address."""
    job = env.get("SLURM_JOB_ID") or env.get("SLURM_JOBID")
    nodelist = env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST")
    if not job or nodelist is None:
        raise SpecError(_missing(bool(job), nodelist is not None), "--spec slurm", hint=_HINT)
    if not job.isdigit():
        raise SpecError(f"SLURM_JOB_ID {job!r} is not a job number", "--spec slurm", hint=_HINT)
    names = expand_hostlist(nodelist)
    if len(set(names)) != len(names):
        raise SpecError(f"SLURM_JOB_NODELIST {nodelist!r} names a node twice", "--spec slurm", hint=_HINT)
    cpus = _cpus_per_node(env, len(names))
    threads = [min(c, MAX_THREADS) for c in cpus]
    memory = _memory_per_node(env, cpus)
    gpus = list(range(gpu_count(env)))
    known = (addresses or scontrol_addresses)(names)
    defaults = dict(defaults or {})
    nodes = []
    for i, name in enumerate(names):
        node: dict[str, Any] = {"address": known.get(name, name), "hostname": name, "chief": i == 0}
        if gpus:
            node["gpus"] = gpus
        if threads[i]:
            node["intra_op_threads"] = threads[i]
        if memory[i]:
            node["memory"] = f"{memory[i]}MiB"
        node.update(defaults)
        if node["address"] == name:
            node.pop("hostname")  # the name is the address: a hostname equal to it would be a duplicate
        nodes.append(node)
    return nodes


def _missing(job: bool, nodelist: bool) -> str:
    """What of an allocation's two variables the environment lacks, named exactly: one set without the other is a
    half-copied environment (an ``export`` of one, a wrapper that forwards a few), not the absence of a job."""
    if job:
        return "SLURM_JOB_NODELIST is not set, though SLURM_JOB_ID is: the allocation's nodes are unknown"
    if nodelist:
        return "SLURM_JOB_ID is not set, though SLURM_JOB_NODELIST is: no Slurm job holds these nodes here"
    return "no Slurm allocation here (SLURM_JOB_ID and SLURM_JOB_NODELIST are not set)"


def _cpus_per_node(env: Mapping[str, str], n: int) -> list[int]:
    """Each node's CPUs in the allocation (0: unknown)."""

    if env.get("SLURM_JOB_CPUS_PER_NODE"):
        cpus = expand_counts(env["SLURM_JOB_CPUS_PER_NODE"], n, "SLURM_JOB_CPUS_PER_NODE")
    elif env.get("SLURM_TASKS_PER_NODE"):
        per_task = env.get("SLURM_CPUS_PER_TASK", "1")
        if not per_task.isdigit():
            raise SpecError(f"SLURM_CPUS_PER_TASK {per_task!r} is not a count", "--spec slurm", hint=_HINT)
        cpus = [t * int(per_task) for t in expand_counts(env["SLURM_TASKS_PER_NODE"], n, "SLURM_TASKS_PER_NODE")]
    else:
        cpus = [0] * n
    return cpus


def _memory_per_node(env: Mapping[str, str], cpus: list[int]) -> list[int]:
    """Each node's memory in the allocation in MiB (0: unknown): per node, else per CPU times its CPUs."""
    for key in ("SLURM_MEM_PER_NODE", "SLURM_MEM_PER_CPU"):
        value = env.get(key, "").strip()
        if not value:
            continue
        if not value.isdigit():
            raise SpecError(f"{key} {value!r} is not a number of MiB", "--spec slurm", hint=_HINT)
        return [int(value)] * len(cpus) if key == "SLURM_MEM_PER_NODE" else [int(value) * c for c in cpus]
    return [0] * len(cpus)


def spec_data(data: Mapping[str, Any], source: str, env: Mapping[str, str] | None = None,
              addresses: Callable[[list[str]], Mapping[str, str]] | None = None) -> dict[str, Any]:
    """A spec mapping with a ``launcher``: for ``slurm``, its ``nodes`` filled from the allocation when it lists
    none; for ``external`` (servers a scheduler started, at ``external.port`` + the task index), as it is."""
    launcher = data.get("launcher")
    if launcher not in LAUNCHERS:
        raise SpecError(f"unknown `launcher` {launcher!r}", source,
                        hint="use `launcher: slurm` (servers started through srun), or omit it")
    if data.get("ssh") or any(isinstance(n, dict) and n.get("ssh_config") for n in data.get("nodes") or []):
        raise SpecError(f"a spec with `launcher: {launcher}` takes no `ssh` groups", source,
                        hint="remove `ssh:` and the nodes' `ssh_config`, or remove `launcher:`")
    other = EXTERNAL if launcher == LAUNCHER else LAUNCHER
    if other in data:
        raise SpecError(f"`{other}` is set, but the spec's launcher is {launcher}", source)
    if launcher == EXTERNAL:
        return _external(data, source)
    slurm = data.get("slurm") or {}
    if not isinstance(slurm, dict):
        raise SpecError(f"`slurm` must be a mapping of {sorted(SLURM_KEYS)}, but got {slurm!r}", source)
    unknown = sorted(set(slurm) - SLURM_KEYS)
    if unknown:
        raise SpecError(f"unknown key {unknown[0]!r} in `slurm`", source, hint=f"known keys are {sorted(SLURM_KEYS)}")
    args = slurm.get("srun_args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise SpecError(f"`slurm.srun_args` must be a list of strings, but got {args!r}", source)
    out = dict(data)
    if not out.get("nodes"):
        defaults = {k: v for k, v in slurm.items() if k in NODE_DEFAULT_KEYS}
        defaults.setdefault("network_bandwidth", DEFAULT_BANDWIDTH)
        out["nodes"] = allocation_nodes(os.environ if env is None else env, defaults, addresses)
    return out


def _external(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    ext = data.get("external")
    port = ext.get("port") if isinstance(ext, dict) else None
    if not isinstance(ext, dict) or set(ext) != {"port"} or not isinstance(port, int) or isinstance(port, bool) \
            or not 0 < port < 65536 - len(data.get("nodes") or []):
        raise SpecError(f"`external` must be {{port: P}}, the first server's port (task i listens on P + i), but got "
                        f"{ext!r}", source, hint="e.g. external: {port: 2222}")
    return dict(data)


def options(data: Mapping[str, Any]) -> dict[str, Any]:
    """The launcher's options of a spec mapping: ``{srun_args: [...]}`` for slurm, ``{port: P}`` for external."""
    if data.get("launcher") == EXTERNAL:
        return {"port": data["external"]["port"]}
    args = (data.get("slurm") or {}).get("srun_args") if data.get("launcher") == LAUNCHER else None
    return {"srun_args": list(args)} if args else {}


def spec_keys(launcher: str | None, opts: Mapping[str, Any]) -> dict[str, Any]:
    """What a spec with this launcher adds to its cluster.yml form (nothing without one)."""
    if not launcher:
        return {}
    return {"launcher": launcher, **({launcher: dict(opts)} if opts else {})}
