"""What ``autotune calibrate`` measured, turned into a :class:`Calibration`: the per-link alpha-beta fits, the
all-reduce factor and overheads, the PowerSGD constants, the model's step, then the anchor costs
(:mod:`simulator._anchor_costs`).

The measurements are the plain data ``runners.calibrate.measure`` returns (``Measurements`` and its
``LinkTiming`` per link); any object with those fields does, so this module never imports the runners.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from simulator._anchor_costs import MAX_AR_FACTOR, MIN_AR_FACTOR, anchor_costs
from simulator._calibration import Calibration
from simulator._fidelity import fit_alpha_beta
from simulator._network import GBIT
from space.anchors import PSGD_LARGE, PSGD_LARGE_COUNT, PSGD_SMALL, PSGD_SMALL_COUNT
from space.cluster import link_key

SLOW_LINK = 0.85  # a link gets its own entry when it is below this share of both of its NICs


@dataclasses.dataclass
class LinkFit:
    """One direction of one pair of nodes: medians per message size and the alpha-beta fit."""

    src: str
    dst: str
    sizes: list[int]
    seconds: list[float]  # median per size, the session's own cost (``base_s``) included
    base_s: float  # the same probe with source and destination on one task
    latency_s: float
    bandwidth_gbit: float


def fit_link(timing) -> LinkFit:
    """The bandwidth and latency of one link from its timing (``runners.calibrate.LinkTiming``).

    Latency from a 4-byte message, not the fit's intercept: a shaper's burst allowance (tbf) lets the first bytes
    of every message through at once, which lowers the intercept below the real latency. The bandwidth is the
    fit's, or the bound the probe took where the time did not grow with message size (``floor_gbit``).
    """
    gbit = timing.floor_gbit if timing.floor_gbit is not None else fit_alpha_beta(timing.sizes, timing.seconds)[1]
    return LinkFit(timing.src, timing.dst, list(timing.sizes), list(timing.seconds), timing.base_s,
                   latency_s=max(0.0, timing.tiny_s - timing.base_s), bandwidth_gbit=gbit)


def to_calibration(m, spec, inventory=None, source: str = "autotune calibrate") -> Calibration:
    """Turn measurements into a :class:`Calibration` for ``spec`` (and the model of ``inventory``).

    A node's NIC is as fast as its fastest measured direction; a link gets its own entry only when it is
    clearly (15%) slower than both of its NICs. The all-reduce factor compares the measured time per byte with
    the ring formula on the measured links; its overhead is a 4-byte all-reduce minus the session and the latencies.
    """
    addresses = [n.address for n in spec.nodes]
    links = [fit_link(t) for t in m.links]
    fields, link_bw, node_bw = _network_fields(m, links, spec)
    fields |= dict(rpc_overhead_s=max(0.0, (m.rpc_s - m.rpc_one_s) / max(m.rpc_tensors - 1, 1)),
                   reduce_s_per_byte=m.reduce_s_per_byte, cast_s_per_byte=m.cast_s_per_byte, source=source)
    n = len(addresses)
    if n >= 2 and len(m.allreduce_sizes) >= 2:
        fields |= _collective_fields(m, addresses, link_bw, node_bw, fields["link_latency_s"], fields["latency_s"])
    if m.powersgd_small_s is not None and m.powersgd_large_s is not None:
        fields |= powersgd_constants(m.powersgd_small_s, m.powersgd_large_s)
    if m.run_all_tasks_s is not None and m.run_one_task_s is not None:
        # a call's cost, spread over the steps of a call as the lockstep step ran them (profile's steps per call)
        per_call = max(1, getattr(m, "steps_per_call", {}).get("nosync", 1))
        fields["step_overhead_s"] = max(0.0, m.run_all_tasks_s - m.run_one_task_s) / per_call
    if inventory is not None and m.step_single_s is not None:
        fields |= _step_fields(m, inventory, fields.get("step_overhead_s", 0.0))
    if inventory is not None:
        fields["anchors_s"] = dict(m.anchors_s)
        fields["anchor_rounds_s"] = {k: list(v) for k, v in m.anchor_rounds_s.items() if k in m.anchors_s}
    cal = Calibration.from_spec(spec, **fields)
    return anchor_costs(cal, inventory, spec) if inventory is not None else cal


def with_links(cal: Calibration, timings, spec) -> Calibration:
    """``cal`` with its NICs' and slow links' Gbit/s fitted again from fresh link timings (``runners.calibrate``'s
    ``LinkTiming``, every direction of every pair): what a running job can measure again between two of its steps.
    The rest stands: latencies (from chains of messages, which a link probe does not time), collectives, the
    model's steps."""
    links = [fit_link(t) for t in timings]
    fields, _, _ = _network_fields(_NO_CHAINS, links, spec)
    return cal.replace(node_bandwidth_gbit=fields["node_bandwidth_gbit"],
                       link_bandwidth_gbit=fields["link_bandwidth_gbit"])


@dataclasses.dataclass(frozen=True)
class _NoChains:
    chain_s: dict | None = None
    chain_hops: tuple | None = None


_NO_CHAINS = _NoChains()


def _network_fields(m, links: list[LinkFit], spec) -> tuple[dict, dict, dict]:
    """The NICs, the links slower than their NICs and the latencies; also every link's and node's Gbit/s."""
    pair: dict[str, list[LinkFit]] = {}
    for f in links:
        pair.setdefault(link_key(f.src, f.dst), []).append(f)
    link_bw = {k: float(np.mean([f.bandwidth_gbit for f in fs])) for k, fs in pair.items()}
    link_lat = {k: float(np.mean([f.latency_s for f in fs])) for k, fs in pair.items()}
    node_bw = {}
    for n in spec.nodes:
        mine = [f.bandwidth_gbit for f in links if n.address in (f.src, f.dst)]
        node_bw[n.address] = max(mine) if mine else spec.node(n.address).network_bandwidth_gbit
    slow = {k: v for k, v in link_bw.items() if v < SLOW_LINK * min(node_bw[x] for x in k.split("|"))}
    if m.chain_s:  # dependent messages on an already running step: latency without the cost of another task
        extra = max(m.chain_hops[1] - m.chain_hops[0], 1)
        link_lat = {k: max(0.0, (long - short) / extra) for k, (short, long) in m.chain_s.items()}
    latency = float(np.median(list(link_lat.values()))) if link_lat else 1e-4
    fields = dict(node_bandwidth_gbit=node_bw, link_bandwidth_gbit=slow, latency_s=latency, link_latency_s=link_lat)
    return fields, link_bw, node_bw


def _collective_fields(m, addresses: list[str], link_bw: dict, node_bw: dict, link_lat: dict,
                       latency: float) -> dict:
    """The all-reduce bandwidth factor (the probe's time per byte against the ring formula) and overhead."""
    n = len(addresses)
    slope = np.polyfit(m.allreduce_sizes, m.allreduce_s, 1)[0]
    hops = [(addresses[i], addresses[(i + 1) % n]) for i in range(n)]
    ring_gbit = min(link_bw.get(link_key(a, b), min(node_bw[a], node_bw[b])) for a, b in hops)
    ideal = 2 * (n - 1) / n / (ring_gbit * GBIT)
    wire = slope - (n - 1) / n * m.reduce_s_per_byte
    factor = float(np.clip(ideal / wire, MIN_AR_FACTOR, MAX_AR_FACTOR)) if wire > 0 else 1.0
    alpha = max(link_lat.get(link_key(a, b), latency) for a, b in hops)
    overhead = max(0.0, m.allreduce_tiny_s - m.allreduce_base_s - 2 * (n - 1) * alpha)
    if m.collectives > 1:  # what one more collective adds to a step that already runs some
        overhead = max(0.0, (m.collectives_many_s - m.collectives_one_s) / (m.collectives - 1))
    return dict(collective_bandwidth_factor=factor, collective_overhead_s=overhead)


def _step_fields(m, inventory, step_overhead_s: float) -> dict:
    """The compute a synchronous step waits for: the lockstep step with nothing synchronized, less the fixed cost
    of spanning the nodes (the cost model adds that on its own); one replica alone without replicas. And the
    optimizer updates: the probe's, and their share of the lockstep step where calibrate timed it."""
    step = m.step_single_s
    if m.nosync_step_s is not None:
        step = max(m.nosync_step_s - step_overhead_s, m.step_single_s)
    fields = dict(step_time_s=step, alone_step_s=m.step_single_s, model_hash=inventory.model_hash,
                  compute_flops_per_s=max(inventory.flops_per_step / max(m.step_single_s, 1e-9), 1.0))
    if m.update_s is not None:  # part of every replica's step: no more than one replica alone
        fields["update_s"] = min(m.update_s, m.step_single_s)
    if m.nosync_step_s is not None and m.nosync_noupdate_s is not None and step > 0:
        # what the updates take of the lockstep step (both steps span the nodes: that cost cancels)
        fields["update_share"] = float(np.clip((m.nosync_step_s - m.nosync_noupdate_s) / step, 0.0, 1.0))
    return fields


def powersgd_flops(n: int, m: int, r: int) -> float:
    """Flops of one PowerSGD round on an n x m matrix at rank r (as the simulator counts them)."""
    return 4.0 * n * m * r + 2.0 * (n + m) * r * r


def powersgd_constants(small_s: float, large_s: float) -> dict:
    """Per-matrix fixed cost and seconds per flop of a PowerSGD round, from the small and the large probe."""
    per_small, per_large = small_s / PSGD_SMALL_COUNT, large_s / PSGD_LARGE_COUNT
    f_small, f_large = powersgd_flops(*PSGD_SMALL), powersgd_flops(*PSGD_LARGE)
    per_flop = max(0.0, (per_large - per_small) / (f_large - f_small))
    return dict(powersgd_matrix_s=max(0.0, per_small - per_flop * f_small), powersgd_s_per_flop=per_flop)
