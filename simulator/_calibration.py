"""``Calibration``: the measured constants of one cluster (and, for the step time, one model).

Stored as JSON keyed by the cluster spec's fingerprint (plus the model hash when model-specific). A file whose
key does not match the spec in use is stale and is reported, never silently replaced by defaults; defaults
derived from the spec exist only through the explicit :meth:`Calibration.from_spec`.
"""
from __future__ import annotations

import dataclasses
import datetime
import json
import math
import pathlib
from typing import Any, Mapping, Sequence

from space.cluster import ClusterSpec, link_key
from space.errors import BadInput

CALIBRATION_FORMAT = "autotune-calibration"
CALIBRATION_VERSION = 1
# the cost model's version, and with it how calibrate derives the anchor costs (the per-collective and per-piece
# costs, the all-reduce factor, the PS staggering shares, PowerSGD's per-matrix cost) from the anchor steps it
# timed: bumped by every change that would derive other costs from the same steps. A calibration derived by
# another version is derived again from its stored steps where it is used (``Calibration.cost_model``), so a stored
# file never carries costs this cost model would not derive
COST_MODEL_VERSION = 6
# keys other versions of the cost model wrote that this one does not read: dropped on load (the derived values come
# again from the anchor steps, see COST_MODEL_VERSION)
RETIRED_KEYS = frozenset({"ps_shards_together"})
RESIDUAL_KEYS = ("intercept", "compute", "comm", "latency", "pieces", "collectives")
LEGACY_RESIDUAL_KEYS = RESIDUAL_KEYS[:4]  # a residual without the pieces and collectives terms (read as 0)
# the per-job memory terms' defaults (bytes), fitted on the probe jobs (docs/cost_model.md, "Memory per node")
JOB_BYTES, JOB_BYTES_PER_OP, MASTER_BYTES_PER_OP, MASTER_INITIAL_SHARE = 8.9e6, 9.3e3, 67e3, 0.45
IDENTITY_RESIDUAL = {"intercept": 0.0, "compute": 1.0, "comm": 1.0, "latency": 0.0, "pieces": 0.0, "collectives": 0.0}


class CalibrationError(BadInput):
    """A calibration file is missing, malformed, or holds impossible values."""


class StaleCalibration(CalibrationError):
    """A calibration was measured for another cluster spec (or another model)."""


@dataclasses.dataclass(frozen=True)
class Calibration:
    """Constants of the cost model. Bandwidths in Gbit/s, times in seconds, keyed by node address."""

    cluster_fingerprint: str
    node_bandwidth_gbit: Mapping[str, float]  # measured NIC bandwidth per node, each direction
    link_bandwidth_gbit: Mapping[str, float] = dataclasses.field(default_factory=dict)  # link_key -> Gbit/s
    latency_s: float = 1e-4  # alpha: one-way message latency of a link without its own entry
    link_latency_s: Mapping[str, float] = dataclasses.field(default_factory=dict)
    intra_node_bandwidth_gbit: float = 80.0  # between replicas of one node (memory copies)
    collective_bandwidth_factor: float = 1.0  # fraction of the link bandwidth a ring all-reduce attains
    collective_overhead_s: float = 1e-3  # what one more collective adds to a step (launch, CPU), serialised
    rpc_overhead_s: float = 1e-4  # per tensor per PS RPC, paid at each end
    barrier_overhead_s: float = 0.0  # once per step with a synchronous PS variable
    step_overhead_s: float = 0.0  # per step spanning several nodes, beyond a one-node step (a call's, over its steps)
    reduce_s_per_byte: float = 2.5e-10  # gamma: summing gradients (server aggregation, ring reduce)
    cast_s_per_byte: float = 2e-10  # memory-bound passes: fp16 casts, error-feedback residuals
    compute_flops_per_s: float = 1e10  # reference device; used when step_time_s is unknown
    powersgd_matrix_s: float = 0.0  # fixed cost of one PowerSGD round on one matrix (small ops, QR) per replica
    ar_piece_s: float = 0.0  # what one all-reduced shard beyond one piece per variable adds to a step (CPU work)
    ps_piece_s: float = 0.0  # the same for a parameter-server shard
    # how much of the replicas' staggering a synchronous PS step loses with all its PS load on one server (0: every
    # pull and push served in turn, one replica's push under the next one's pull; 1: all pulls, then all pushes, as
    # if the NIC were fair-shared)
    ps_serial_fraction: float = 0.0
    # the share of its staggering a synchronous PS step loses where its PS load is spread over the servers as
    # evenly as the ``ps_lb`` builder spreads it (calibrate's ``ps_lb`` anchor), no more than ``ps_serial_fraction``
    # (a step with all its PS load on one server); a step in between loses a share in between, by how much of its
    # PS load its busiest server holds. None: ``ps_serial_fraction`` however the load is spread
    ps_spread_serial: float | None = None
    # the busiest server's share of the ``ps_lb`` anchor's PS load (where ``ps_spread_serial`` applies in full)
    ps_spread_busiest: float | None = None
    powersgd_s_per_flop: float | None = None  # its matmuls (None: 1 / compute_flops_per_s)
    device_speed: Mapping[str, float] = dataclasses.field(default_factory=dict)  # device or address -> x ref
    step_time_s: float | None = None  # measured compute of a replica's step, all replicas at once (needs model_hash)
    # the same for one replica alone (calibrate's "one replica alone"); below step_time_s where nodes share CPUs
    alone_step_s: float | None = None
    # the model's optimizer applied to every variable once, on one node (calibrate's update probe). Every replica
    # updates its own copy of an all-reduced variable; a synchronous PS variable is updated once, on its server
    update_s: float | None = None
    # the share of step_time_s that is every replica's optimizer update, as the step runs it (calibrate: the
    # lockstep step with nothing synchronized, with and without the updates). None (a calibration that did not
    # time it): update_s / alone_step_s, what the probe sees, which misses densifying a sparse gradient
    update_share: float | None = None
    model_hash: str | None = None
    backward_fraction: float = 2 / 3  # share of the step spent in the backward pass
    sparse_remote_gather: bool = True  # PS tables pulled by rows touched (else the whole shard)
    # staleness > 0 prefetches the pull off the step; autotune's backend reads every PS unit inside the step
    # (staleness only bounds the lead of all-async towers), so its pulls stay exposed
    stale_prefetch: bool = False
    residual: Mapping[str, float] | None = None  # fitted correction, see simulator.fit_residual
    # what a job adds to each server beyond its plan's parts (the runtime's executors, step containers, gRPC
    # buffers): a floor and a cost per op of the traced step; and the chief's as the master (the graph and its
    # partitions per op, and a share of the initial values it relays). Defaults: fitted on the probe jobs of
    # ``benchmarks/memory_probes.py`` (``simulator.fit_job_memory``), see docs/cost_model.md
    job_bytes: float = JOB_BYTES
    job_bytes_per_op: float = JOB_BYTES_PER_OP
    master_bytes_per_op: float = MASTER_BYTES_PER_OP
    master_initial_share: float = MASTER_INITIAL_SHARE
    # calibrate's anchor steps as measured (name -> median seconds): a changed cost model re-derives the anchor
    # costs from them (``validate-simulator --reuse``) without measuring again
    anchors_s: Mapping[str, float] = dataclasses.field(default_factory=dict)
    # each anchor step's mean in every round of calibrate's head-to-head turns (name -> seconds per round, the
    # rounds in one order for every anchor): the spread of a pair's round-by-round difference says whether the pair
    # resolved its cost (empty: a calibration that kept none)
    anchor_rounds_s: Mapping[str, Sequence[float]] = dataclasses.field(default_factory=dict)
    # the COST_MODEL_VERSION that derived the anchor costs from ``anchors_s`` (None: a file that records none,
    # read as version 1)
    cost_model: int | None = None
    # the cluster probes as calibrate measured them (``runners.calibrate``: links, collectives, overheads; plain
    # data), none of a model's: a search for another model on this spec derives the cluster's constants from them
    # again and measures only the model's steps (None: a calibration that kept none)
    probes: Mapping[str, Any] | None = None
    created_at: str = ""
    source: str = "<calibration>"

    def __post_init__(self) -> None:
        self._check_bounds()
        self._check_shares()
        self._check_model_fields()

    def _check_bounds(self) -> None:
        """Every rate is positive and every cost non-negative, finite."""
        where = self.source
        positive = {"intra_node_bandwidth_gbit": self.intra_node_bandwidth_gbit,
                    "compute_flops_per_s": self.compute_flops_per_s,
                    "collective_bandwidth_factor": self.collective_bandwidth_factor}
        positive |= {f"node_bandwidth_gbit[{k!r}]": v for k, v in self.node_bandwidth_gbit.items()}
        positive |= {f"link_bandwidth_gbit[{k!r}]": v for k, v in self.link_bandwidth_gbit.items()}
        positive |= {f"device_speed[{k!r}]": v for k, v in self.device_speed.items()}
        for name, value in positive.items():
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise CalibrationError(f"`{name} > 0` must hold, but got {value!r}", where)
        non_negative = {"latency_s": self.latency_s, "collective_overhead_s": self.collective_overhead_s,
                        "rpc_overhead_s": self.rpc_overhead_s, "barrier_overhead_s": self.barrier_overhead_s,
                        "step_overhead_s": self.step_overhead_s, "powersgd_matrix_s": self.powersgd_matrix_s,
                        "ar_piece_s": self.ar_piece_s, "ps_piece_s": self.ps_piece_s,
                        "reduce_s_per_byte": self.reduce_s_per_byte, "cast_s_per_byte": self.cast_s_per_byte,
                        "job_bytes": self.job_bytes, "job_bytes_per_op": self.job_bytes_per_op,
                        "master_bytes_per_op": self.master_bytes_per_op,
                        "master_initial_share": self.master_initial_share}
        non_negative |= {f"link_latency_s[{k!r}]": v for k, v in self.link_latency_s.items()}
        non_negative |= {f"anchors_s[{k!r}]": v for k, v in self.anchors_s.items()}
        for k, rounds in self.anchor_rounds_s.items():
            if isinstance(rounds, (str, bytes)) or not isinstance(rounds, Sequence):
                raise CalibrationError(f"`anchor_rounds_s[{k!r}]` must be a list of seconds, but got {rounds!r}", where)
            non_negative |= {f"anchor_rounds_s[{k!r}][{i}]": v for i, v in enumerate(rounds)}
        for name, value in non_negative.items():
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise CalibrationError(f"`{name} >= 0` must hold, but got {value!r}", where)

    def _check_shares(self) -> None:
        """The fractions lie in their ranges, and the optional costs are non-negative where given."""
        where = self.source
        if self.powersgd_s_per_flop is not None and not (math.isfinite(self.powersgd_s_per_flop)
                                                         and self.powersgd_s_per_flop >= 0):
            raise CalibrationError(f"`powersgd_s_per_flop >= 0` must hold, but got {self.powersgd_s_per_flop!r}", where)
        if not 0 <= self.ps_serial_fraction <= 1:
            raise CalibrationError(f"`0 <= ps_serial_fraction <= 1` must hold, but got {self.ps_serial_fraction!r}",
                                   where)
        if self.ps_spread_serial is not None and not (
                0 <= self.ps_spread_serial <= self.ps_serial_fraction
                and isinstance(self.ps_spread_busiest, (int, float)) and 0 < self.ps_spread_busiest <= 1):
            raise CalibrationError("`ps_spread_serial` needs a value in [0, ps_serial_fraction] and "
                                   "`ps_spread_busiest` one in (0, 1], but got "
                                   f"({self.ps_spread_serial=}, {self.ps_spread_busiest=})", where)
        if not 0 < self.backward_fraction < 1:
            raise CalibrationError(f"`0 < backward_fraction < 1` must hold, but got {self.backward_fraction!r}",
                                   where)

    def _check_model_fields(self) -> None:
        """A model's measurements come with the model's hash; the stored extras have their expected form."""
        where = self.source
        if self.step_time_s is not None and not (self.step_time_s >= 0 and self.model_hash):
            raise CalibrationError("`step_time_s` needs a non-negative value and the `model_hash` it was "
                                   f"measured for, but got ({self.step_time_s=}, {self.model_hash=})", where)
        if self.alone_step_s is not None and not (self.alone_step_s >= 0 and self.model_hash):
            raise CalibrationError("`alone_step_s` needs a non-negative value and the `model_hash` it was "
                                   f"measured for, but got ({self.alone_step_s=}, {self.model_hash=})", where)
        if self.update_s is not None and not (isinstance(self.update_s, (int, float)) and math.isfinite(self.update_s)
                                              and self.update_s >= 0 and self.model_hash):
            raise CalibrationError("`update_s` needs a non-negative value and the `model_hash` it was measured for, "
                                   f"but got ({self.update_s=}, {self.model_hash=})", where)
        if self.update_share is not None and not (isinstance(self.update_share, (int, float))
                                                  and 0 <= self.update_share <= 1 and self.model_hash):
            raise CalibrationError("`update_share` needs a value in [0, 1] and the `model_hash` it was measured for, "
                                   f"but got ({self.update_share=}, {self.model_hash=})", where)
        if self.probes is not None and not (isinstance(self.probes, Mapping) and "links" in self.probes):
            raise CalibrationError("`probes` must be the cluster probes' measurements (with their `links`), but got "
                                   f"{type(self.probes).__name__}", where)
        version = self.cost_model
        if version is not None and not (isinstance(version, int) and not isinstance(version, bool) and version >= 1):
            raise CalibrationError(f"`cost_model` must be a version number >= 1, but got {version!r}", where)
        if self.residual is not None and not set(LEGACY_RESIDUAL_KEYS) <= set(self.residual) <= set(RESIDUAL_KEYS):
            raise CalibrationError(f"`residual` must have the keys {list(RESIDUAL_KEYS)}, but got "
                                   f"{sorted(self.residual)}", where)

    # ---- construction ------------------------------------------------------------------------------
    @classmethod
    def from_spec(cls, cluster: ClusterSpec, **overrides: Any) -> "Calibration":
        """Uncalibrated defaults: bandwidths as written in the spec, textbook overheads. Ask for it explicitly."""
        fields = dict(cluster_fingerprint=cluster.fingerprint,
                      node_bandwidth_gbit={n.address: n.network_bandwidth_gbit for n in cluster.nodes},
                      link_bandwidth_gbit={link_key(k.src, k.dst): k.bandwidth_gbit for k in cluster.links},
                      created_at=_now(), source=f"defaults from {cluster.source}")
        return cls(**{**fields, **overrides})

    def replace(self, **changes: Any) -> "Calibration":
        return dataclasses.replace(self, **changes)

    # ---- lookups -----------------------------------------------------------------------------------
    def node_bandwidth(self, address: str) -> float:
        """Measured NIC bandwidth of a node in Gbit/s."""
        try:
            return self.node_bandwidth_gbit[address]
        except KeyError:
            raise CalibrationError(f"no bandwidth for node {address!r} in the calibration", self.source,
                                   hint="re-run `autotune calibrate` for this cluster spec") from None

    def link_bandwidth(self, a: str, b: str) -> float:
        """Bandwidth between two nodes: the link's own measurement, else the slower NIC."""
        own = self.link_bandwidth_gbit.get(link_key(a, b))
        return own if own is not None else min(self.node_bandwidth(a), self.node_bandwidth(b))

    def link_latency(self, a: str, b: str) -> float:
        return self.link_latency_s.get(link_key(a, b), self.latency_s)

    def speed_of(self, device: str) -> float:
        """Relative compute speed of a replica device (by device name, then by its node address)."""
        if device in self.device_speed:
            return self.device_speed[device]
        return self.device_speed.get(device.rsplit(":", 2)[0], 1.0)

    def lockstep_update_share(self) -> float:
        """The share of the lockstep compute (``step_time_s``) that is every replica's optimizer update: measured
        in the step (``update_share``), else one update as the probe times it over one replica alone (0 when
        neither is known)."""
        if self.update_share is not None:
            return float(self.update_share)
        if self.update_s and self.alone_step_s:
            return min(self.update_s, self.alone_step_s) / self.alone_step_s
        return 0.0

    # ---- staleness ---------------------------------------------------------------------------------
    def check(self, cluster: ClusterSpec, model_hash: str | None = None) -> None:
        """Raise :class:`StaleCalibration` unless this calibration belongs to ``cluster`` (and the model)."""
        if self.cluster_fingerprint != cluster.fingerprint:
            raise StaleCalibration(
                f"calibration is stale: it was measured for cluster spec {self.cluster_fingerprint} but "
                f"{cluster.source} is now {cluster.fingerprint}", self.source,
                hint=f"re-run `autotune calibrate --spec {cluster.source}`")
        if model_hash and self.model_hash and self.model_hash != model_hash:
            raise StaleCalibration(
                f"calibration is stale: its step time was measured for model {self.model_hash} but the model "
                f"is now {model_hash}", self.source, hint="re-run `autotune calibrate --spec ... --model ...`")

    # ---- files -------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "source"}
        for key in ("node_bandwidth_gbit", "link_bandwidth_gbit", "link_latency_s", "device_speed", "anchors_s"):
            d[key] = dict(d[key])
        d["anchor_rounds_s"] = {k: list(v) for k, v in d["anchor_rounds_s"].items()}
        for key in ("residual", "probes"):
            if d[key] is not None:
                d[key] = dict(d[key])
        return {"format": CALIBRATION_FORMAT, "version": CALIBRATION_VERSION, **d}

    @classmethod
    def from_dict(cls, data: Any, source: str = "<calibration>") -> "Calibration":
        if not isinstance(data, dict) or data.get("format") != CALIBRATION_FORMAT:
            raise CalibrationError(f"not an autotune calibration (no \"format\": \"{CALIBRATION_FORMAT}\")", source)
        if data.get("version") != CALIBRATION_VERSION:
            raise CalibrationError(f"calibration version {data.get('version')!r} is not supported "
                                   f"(expected {CALIBRATION_VERSION})", source, hint="re-run `autotune calibrate`")
        known = {f.name for f in dataclasses.fields(cls)} - {"source"}
        body = {k: v for k, v in data.items() if k not in ("format", "version") and k not in RETIRED_KEYS}
        unknown = sorted(set(body) - known)
        if unknown:
            raise CalibrationError(f"unknown key {unknown[0]!r} in the calibration", source,
                                   hint=f"known keys are {sorted(known)}")
        if "cluster_fingerprint" not in body or "node_bandwidth_gbit" not in body:
            raise CalibrationError("calibration lacks `cluster_fingerprint` or `node_bandwidth_gbit`", source)
        try:
            return cls(**body, source=source)
        except TypeError as e:
            raise CalibrationError(f"malformed calibration ({e})", source) from None

    def save(self, path: str | pathlib.Path) -> pathlib.Path:
        p = pathlib.Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n")
        tmp.replace(p)  # atomic: a crash never leaves half a calibration
        return p

    @classmethod
    def load(cls, path: str | pathlib.Path, cluster: ClusterSpec | None = None,
             model_hash: str | None = None) -> "Calibration":
        """Read a calibration; with ``cluster`` (and ``model_hash``) also check that it is not stale."""
        p = pathlib.Path(path)
        try:
            data = json.loads(p.read_text())
        except FileNotFoundError:
            spec = cluster.source if cluster is not None else "cluster.yml"
            raise CalibrationError(f"calibration not found: {p}", hint=f"run `autotune calibrate --spec {spec}` "
                                   "first, or ask for uncalibrated defaults explicitly") from None
        except (OSError, ValueError) as e:
            raise CalibrationError(f"cannot read calibration ({e})", str(p)) from None
        cal = cls.from_dict(data, str(p))
        if cluster is not None:
            cal.check(cluster, model_hash)
        return cal


def calibration_path(directory: str | pathlib.Path, cluster: ClusterSpec,
                     model_hash: str | None = None) -> pathlib.Path:
    """Where the calibration of ``cluster`` (and a model) lives: ``<dir>/<spec fp>[-<model hash>].json``."""
    name = cluster.fingerprint + (f"-{model_hash[:16]}" if model_hash else "")
    return pathlib.Path(directory) / f"{name}.json"


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
