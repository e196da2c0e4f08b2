"""The memory model: the bytes a strategy keeps resident on each node, read from the arrays the engine scores (as
the ledger is, :mod:`simulator._ledger`), so that a plan is judged on the layout the cost model times.

Per node, by part (``PARTS``), as the backend (``runners.transform``) lays a step out:

- ``variables``: the PS shards the node serves; each of its towers' copy of every all-reduced variable; the
  non-trainable state once per node that holds towers;
- ``proxies``: a locally replicated PS variable's copy, one per node with towers other than its server's;
- ``pulled``: what each tower reads of the PS variables it has no copy of (rows, where it gathers);
- ``slots``: the optimizer's slots (``space._optimizers.slot_count``) beside every copy that is updated: on the
  server for a PS variable, on every tower for an all-reduced one;
- ``gradients``: each tower's gradients (the rows touched of a sparse one);
- ``aggregation``: the sum a server reads of its variables' pushes, each tower's all-reduced result (its fp16 copy
  where cast, PowerSGD's factors P and Q);
- ``compression``: state carried across steps: the fp16 error-feedback residual and PowerSGD's error (float32,
  the gradient's size each) and warm-started Q;
- ``activations``: each tower's, the forward tensors its backward pass reads at its batch
  (``Inventory.activation_bytes``, counted in the traced step's graph: ``space._activations``);
- ``input``: each tower's input pipeline, in host memory (``Inventory.input_bytes``, :data:`INPUT_COPIES`);
- ``runtime``: what running a job costs every server beyond its arrays (executors, step containers, gRPC buffers):
  a floor and a cost per op of the traced step (``Calibration.job_bytes``, ``job_bytes_per_op``);
- ``master``: the chief's as the master: the graph and its partitions (``master_bytes_per_op``) and a share of the
  initial values it relays from the driver (``master_initial_share``).

A node whose towers are GPUs holds the towers' parts on each GPU (``gpu_parts``: one tower's), the rest in host
memory. Peaks are not modelled: every part is counted as if resident at once, a bound TensorFlow's allocator
stays under where it frees gradients as they are applied.
"""
from __future__ import annotations

import dataclasses
from typing import Mapping

import numpy as np

from space._optimizers import slot_count
from space._units import format_bytes
from space._node_memory import TF_RESERVE_BYTES
from space.cluster import ClusterSpec, parse_device
from space.strategy import Compressor

PARTS = ("variables", "proxies", "pulled", "slots", "gradients", "aggregation", "compression", "activations",
         "input", "runtime", "master")
# a tower's pipeline on its server: the serialized graph as it arrived, and the dataset's tensors rebuilt from it
# (measured at 1.8-2.1 times the graph's bytes where a pipeline's arrays dominate, docs/cost_model.md)
INPUT_COPIES = 2
_FP16 = {Compressor.Value("HorovodCompressor"), Compressor.Value("HorovodCompressorEF")}
_EF, _PSGD = Compressor.Value("HorovodCompressorEF"), Compressor.Value("PowerSGDCompressor")
_F32 = 4  # the residuals and PowerSGD's factors are float32 whatever the variable's dtype


@dataclasses.dataclass(frozen=True)
class NodeMemory:
    """One node's resident bytes by part: host memory (``parts``) and each GPU's (``gpu_parts``, {} without)."""

    address: str
    parts: Mapping[str, float]
    gpu_parts: Mapping[str, float] = dataclasses.field(default_factory=dict)

    @property
    def total(self) -> float:
        return float(sum(self.parts.values()))

    @property
    def gpu_total(self) -> float:
        return float(sum(self.gpu_parts.values()))


@dataclasses.dataclass(frozen=True)
class Misfit:
    """Where a plan does not fit: the node, what it needs there and what it has (host or one GPU)."""

    address: str
    need: float
    has: float
    gpu: bool = False
    memory: float = 0.0  # the spec's memory, before TensorFlow's reserve (host only)

    @property
    def over(self) -> float:
        return self.need - self.has

    def line(self) -> str:
        """``needs 5.2 GB on 127.0.0.2, has 3.5 GB (4 GB less 500 MB for TensorFlow)``."""
        if self.gpu:
            return f"needs {format_bytes(self.need)} per GPU on {self.address}, has {format_bytes(self.has)}"
        return (f"needs {format_bytes(self.need)} on {self.address}, has {format_bytes(self.has)} "
                f"({format_bytes(self.memory)} less {format_bytes(TF_RESERVE_BYTES)} for TensorFlow)")


@dataclasses.dataclass(frozen=True)
class MemoryPlan:
    """A strategy's resident bytes on every node of the cluster, in the spec's node order."""

    nodes: tuple[NodeMemory, ...]

    def node(self, address: str) -> NodeMemory:
        return next(n for n in self.nodes if n.address == address)

    def misfits(self, cluster: ClusterSpec) -> list[Misfit]:
        """Every node (host, or one of its GPUs) whose need exceeds what the spec gives it, the furthest over
        first; [] where everything fits or no node's memory is known."""
        out = []
        for n, spec in zip(self.nodes, cluster.nodes):
            budget = spec.memory_budget_bytes
            if budget is not None and n.total > budget:
                out.append(Misfit(n.address, n.total, budget, memory=spec.memory_bytes))
            if spec.gpu_memory_bytes is not None and n.gpu_total > spec.gpu_memory_bytes:
                out.append(Misfit(n.address, n.gpu_total, spec.gpu_memory_bytes, gpu=True))
        return sorted(out, key=lambda m: -m.need / max(m.has, 1.0))

    def misfit(self, cluster: ClusterSpec) -> Misfit | None:
        found = self.misfits(cluster)
        return found[0] if found else None


def memory_of(scorer, m, b) -> MemoryPlan:
    """The memory plan of the one strategy of batch ``b`` (dense), on ``m``'s columns, scored by ``scorer``."""
    M = len(scorer.addresses)
    towers = np.zeros(M)
    on_gpu = np.zeros(M, bool)
    for r in scorer.replicas:
        j = scorer._device_node(r)
        towers[j] += 1
        on_gpu[j] |= parse_device(r)[1] == "GPU"
    slots = slot_count(scorer.inventory.optimizer)
    ps = b.ps_frac[:, 0, :]  # (M, V): the share of each column each node serves
    ar, comp, rank, proxy = b.ar_frac[0] > 0, b.comp[0], b.rank[0], b.proxy[0]
    served = ps @ m.nbytes  # (M,)
    # the server of each PS column; a tower reads a column it has no copy of (a remote one, or any on a GPU)
    home = np.argmax(ps, axis=0)
    is_ps = ps.sum(axis=0) > 0
    per_tower = _tower_parts(m, ar, comp, rank, scorer.inventory.activation_bytes)
    host = {p: np.zeros(M) for p in PARTS}
    gpu = {p: np.zeros(M) for p in PARTS}
    host["variables"] += served + (towers > 0) * float(sum(v.bytes for v in scorer.inventory.state))
    host["slots"] += slots * served
    host["aggregation"] += ps @ np.minimum(m.nbytes, m.push_bytes * max(len(scorer.replicas), 1))
    host["input"] += towers * INPUT_COPIES * scorer.inventory.input_bytes
    _add_job_parts(host, scorer)
    for j in range(M):
        if not towers[j]:
            continue
        elsewhere = is_ps & (home != j)
        mine = gpu if on_gpu[j] else host
        mine["proxies"][j] += float(m.nbytes[elsewhere & proxy].sum())
        read = (is_ps & ~proxy) if on_gpu[j] else (elsewhere & ~proxy)
        tower = dict(per_tower, pulled=float(m.pull_bytes[read].sum()))
        tower["slots"] = slots * tower["variables"]
        for part, value in tower.items():
            # a GPU holds one tower; host memory holds every tower of the node
            mine[part][j] += value * (1 if on_gpu[j] else towers[j])
    return MemoryPlan(tuple(
        NodeMemory(scorer.addresses[j], {p: float(host[p][j]) for p in PARTS},
                   {p: float(gpu[p][j]) for p in PARTS} if on_gpu[j] else {}) for j in range(M)))


def _tower_parts(m, ar: np.ndarray, comp: np.ndarray, rank: np.ndarray, activations: float) -> dict[str, float]:
    """One tower's bytes by part, pulled reads and slots aside (they depend on the node)."""
    psgd = ar & (comp == _PSGD) & m.matrix
    factors = (m.pn + m.pm) * rank * _F32  # P and Q of a compressed matrix
    cast = ar & np.isin(comp, list(_FP16))
    aggregation = m.nbytes[ar].sum() + (m.numel[cast] * 2).sum() + factors[psgd].sum()
    state = (m.numel[ar & (comp == _EF)] * _F32).sum() + (m.numel[psgd] * _F32 + m.pm[psgd] * rank[psgd] * _F32).sum()
    return {"variables": float(m.nbytes[ar].sum()), "gradients": float(m.push_bytes.sum()),
            "aggregation": float(aggregation), "compression": float(state), "activations": float(activations)}


def _add_job_parts(host: dict[str, np.ndarray], scorer) -> None:
    """The per-job terms: the runtime's on every server, the master's on the chief (host memory)."""
    cal, inv = scorer.calibration, scorer.inventory
    host["runtime"] += cal.job_bytes + cal.job_bytes_per_op * inv.graph_ops
    chief = [j for j, n in enumerate(scorer.cluster.nodes) if n.chief]  # the scorer keeps the spec's node order
    initial = float(sum(v.bytes for v in inv.variables) + sum(v.bytes for v in inv.state))
    for j in chief:
        host["master"][j] += cal.master_bytes_per_op * inv.graph_ops + cal.master_initial_share * initial


JOB_TERMS = ("job_bytes", "job_bytes_per_op", "master_bytes_per_op", "master_initial_share")


def fit_job_memory(probes: list[dict]) -> dict[str, float]:
    """The per-job terms (:data:`JOB_TERMS`, ``Calibration`` fields) by least squares over probe jobs: each a dict
    with ``ops`` (the traced step's), ``initial_bytes`` (every variable's) and ``nodes``, each with ``chief``, the
    plan's bytes without the per-job terms (``plan``) and the server's growth at its peak (``measured``). What a
    server grew by beyond its plan is the floor and its ops' cost, plus on the chief the master's ops and initial
    values; a term the probes cannot resolve (a negative fit) is 0 and the rest fitted again without it."""
    rows, target = [], []
    for p in probes:
        for n in p["nodes"]:
            chief = float(bool(n["chief"]))
            rows.append([1.0, p["ops"], chief * p["ops"], chief * p["initial_bytes"]])
            target.append(n["measured"] - n["plan"])
    if not rows:
        raise ValueError("no probe measured a server: nothing to fit the per-job memory terms on")
    a, y = np.asarray(rows, float), np.asarray(target, float)
    keep = np.ones(len(JOB_TERMS), bool)
    coef = np.zeros(len(JOB_TERMS))
    while keep.any():
        coef[:] = 0.0
        coef[keep] = np.linalg.lstsq(a[:, keep], y, rcond=None)[0]
        if (coef >= 0).all():
            break
        keep &= coef >= 0
    return {k: float(max(c, 0.0)) for k, c in zip(JOB_TERMS, coef)}
