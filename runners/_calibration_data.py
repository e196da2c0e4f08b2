"""What ``autotune calibrate`` measured, and its turning into a :class:`simulator.Calibration` (no TensorFlow).

The probes themselves are in :mod:`runners.calibrate`.
"""
from __future__ import annotations

import dataclasses

import numpy as np

GBIT = 1e9 / 8  # bytes per second in one Gbit/s
PSGD_SMALL, PSGD_SMALL_COUNT = (64, 64, 1), 16  # (n, m, rank) matrices of the PowerSGD probe
PSGD_LARGE, PSGD_LARGE_COUNT = (1024, 512, 4), 2


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


@dataclasses.dataclass
class Measurements:
    """Everything one calibration run measured (seconds, bytes); turned into a Calibration by ``to_calibration``."""

    links: list[LinkFit]
    allreduce_sizes: list[int]
    allreduce_s: list[float]
    allreduce_tiny_s: float  # a 4-byte all-reduce: launch overhead and latencies
    allreduce_base_s: float
    rpc_tensors: int
    rpc_s: float  # ``rpc_tensors`` tiny tensors in one run
    rpc_one_s: float  # one tiny tensor
    reduce_s_per_byte: float
    cast_s_per_byte: float
    step_single_s: float | None = None  # one replica alone
    step_concurrent_s: float | None = None  # one replica while every replica computes (the sync step's compute)
    chain_hops: tuple[int, int] = (0, 0)  # (short, long) chains of dependent tiny messages
    chain_s: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)  # link_key -> (short, long)
    collectives: int = 0  # independent tiny all-reduces in one run
    collectives_many_s: float = 0.0
    collectives_one_s: float = 0.0
    run_all_tasks_s: float | None = None  # a tiny run touching every task
    run_one_task_s: float | None = None  # the same on one task
    powersgd_small_s: float | None = None  # PSGD_SMALL_COUNT PowerSGD rounds of PSGD_SMALL matrices
    powersgd_large_s: float | None = None  # PSGD_LARGE_COUNT rounds of PSGD_LARGE matrices
    powersgd_step_s: float | None = None  # the model's `all_reduce_powersgd` step on every replica (median)


def to_calibration(m: Measurements, spec, inventory=None, source: str = "autotune calibrate"):
    """Turn measurements into a :class:`simulator.Calibration` for ``spec`` (and the model of ``inventory``).

    A node's NIC is as fast as its fastest measured direction; a link gets its own entry only when it is
    clearly (15%) slower than both of its NICs. The all-reduce factor compares the measured time per byte with
    the ring formula on the measured links; its overhead is a 4-byte all-reduce minus the session and the latencies.
    """
    from simulator import Calibration, link_key

    addresses = [n.address for n in spec.nodes]
    pair: dict[str, list[LinkFit]] = {}
    for f in m.links:
        pair.setdefault(link_key(f.src, f.dst), []).append(f)
    link_bw = {k: float(np.mean([f.bandwidth_gbit for f in fs])) for k, fs in pair.items()}
    link_lat = {k: float(np.mean([f.latency_s for f in fs])) for k, fs in pair.items()}
    node_bw = {}
    for a in addresses:
        mine = [f.bandwidth_gbit for f in m.links if a in (f.src, f.dst)]
        node_bw[a] = max(mine) if mine else spec.node(a).network_bandwidth_gbit
    slow = {k: v for k, v in link_bw.items() if v < 0.85 * min(node_bw[x] for x in k.split("|"))}
    if m.chain_s:  # dependent messages on an already running step: latency without the cost of another task
        extra = max(m.chain_hops[1] - m.chain_hops[0], 1)
        link_lat = {k: max(0.0, (long - short) / extra) for k, (short, long) in m.chain_s.items()}
    latency = float(np.median(list(link_lat.values()))) if link_lat else 1e-4
    fields = dict(node_bandwidth_gbit=node_bw, link_bandwidth_gbit=slow, latency_s=latency, link_latency_s=link_lat,
                  rpc_overhead_s=max(0.0, (m.rpc_s - m.rpc_one_s) / max(m.rpc_tensors - 1, 1)),
                  reduce_s_per_byte=m.reduce_s_per_byte, cast_s_per_byte=m.cast_s_per_byte,
                  source=source)
    n = len(addresses)
    if n >= 2 and len(m.allreduce_sizes) >= 2:
        slope = np.polyfit(m.allreduce_sizes, m.allreduce_s, 1)[0]
        hops = [(addresses[i], addresses[(i + 1) % n]) for i in range(n)]
        ring_gbit = min(link_bw.get(link_key(a, b), min(node_bw[a], node_bw[b])) for a, b in hops)
        ideal = 2 * (n - 1) / n / (ring_gbit * GBIT)
        wire = slope - (n - 1) / n * m.reduce_s_per_byte
        factor = float(np.clip(ideal / wire, 0.05, 2.0)) if wire > 0 else 1.0
        alpha = max(link_lat.get(link_key(a, b), latency) for a, b in hops)
        overhead = max(0.0, m.allreduce_tiny_s - m.allreduce_base_s - 2 * (n - 1) * alpha)
        if m.collectives > 1:  # what one more collective adds to a step that already runs some
            overhead = max(0.0, (m.collectives_many_s - m.collectives_one_s) / (m.collectives - 1))
        fields |= dict(collective_bandwidth_factor=factor, collective_overhead_s=overhead)
    if m.powersgd_small_s is not None and m.powersgd_large_s is not None:
        fields |= powersgd_constants(m.powersgd_small_s, m.powersgd_large_s)
    if m.run_all_tasks_s is not None and m.run_one_task_s is not None:
        fields["step_overhead_s"] = max(0.0, m.run_all_tasks_s - m.run_one_task_s)
    if inventory is not None and m.step_concurrent_s is not None:
        step = m.step_concurrent_s
        fields |= dict(step_time_s=step, model_hash=inventory.model_hash,
                       compute_flops_per_s=max(inventory.flops_per_step / max(m.step_single_s or step, 1e-9), 1.0))
    cal = Calibration.from_spec(spec, **fields)
    if inventory is not None and m.powersgd_step_s is not None:
        cal = cal.replace(powersgd_matrix_s=powersgd_matrix_from_step(cal, inventory, spec, m.powersgd_step_s))
    return cal


def powersgd_matrix_from_step(cal, inventory, spec, measured_s: float) -> float:
    """Per-matrix cost of a PowerSGD round inside a real step: what the model's ``all_reduce_powersgd`` step
    measured beyond the cost model's prediction without any per-matrix cost, per matrix on the step's critical
    path. The isolated probe (one task, no towers) sees microseconds per matrix; a real step also runs the
    factors' reshapes, the QR, the error-feedback and warm-start updates on every tower, and waits between the
    two dependent all-reduces -- on the 3-host testbed 0.7-2.2 ms per matrix."""
    from simulator import Scorer
    from space.builders import build_strategy

    strategy = build_strategy("all_reduce_powersgd", inventory, spec)
    at = [Scorer(inventory, spec, cal.replace(powersgd_matrix_s=x)).predict(strategy).raw_step_time_s
          for x in (0.0, 1e-3)]
    matrices = (at[1] - at[0]) / 1e-3  # compressed matrices the step waits for
    if matrices < 0.5:
        return cal.powersgd_matrix_s
    return max(cal.powersgd_matrix_s, (measured_s - at[0]) / matrices)


def powersgd_flops(n: int, m: int, r: int) -> float:
    """Flops of one PowerSGD round on an n x m matrix at rank r (as the simulator counts them)."""
    return 4.0 * n * m * r + 2.0 * (n + m) * r * r


def powersgd_constants(small_s: float, large_s: float) -> dict:
    """Per-matrix fixed cost and seconds per flop of a PowerSGD round, from the small and the large probe."""
    per_small, per_large = small_s / PSGD_SMALL_COUNT, large_s / PSGD_LARGE_COUNT
    f_small, f_large = powersgd_flops(*PSGD_SMALL), powersgd_flops(*PSGD_LARGE)
    per_flop = max(0.0, (per_large - per_small) / (f_large - f_small))
    return dict(powersgd_matrix_s=max(0.0, per_small - per_flop * f_small), powersgd_s_per_flop=per_flop)


def format_table(m: Measurements, cal) -> str:
    """Human-readable summary of the measurements and the constants derived from them."""
    lines = [f"{'link':<36}{'bandwidth':>14}{'latency':>12}   medians per size"]
    for f in m.links:
        per = ", ".join(f"{_size(s)} {t * 1e3:.2f}ms" for s, t in zip(f.sizes, f.seconds))
        lines.append(f"{f.src + ' -> ' + f.dst:<36}{f.bandwidth_gbit * 1e3:>9.1f} Mbit{f.latency_s * 1e6:>9.0f} us"
                     f"   {per} (session {f.base_s * 1e3:.2f}ms)")
    lines.append("")
    rows = [("node bandwidth", ", ".join(f"{a} {g * 1e3:.1f} Mbit/s" for a, g in cal.node_bandwidth_gbit.items())),
            ("slower links", ", ".join(f"{k} {g * 1e3:.1f} Mbit/s" for k, g in cal.link_bandwidth_gbit.items())
             or "none"),
            ("latency (alpha)", f"{cal.latency_s * 1e6:.0f} us"),
            ("all-reduce bandwidth factor", f"{cal.collective_bandwidth_factor:.3f}"),
            ("all-reduce overhead", f"{cal.collective_overhead_s * 1e3:.3f} ms"),
            ("per-tensor RPC overhead", f"{cal.rpc_overhead_s * 1e6:.1f} us"),
            ("run spanning every node", f"+{cal.step_overhead_s * 1e3:.3f} ms"),
            ("PowerSGD round", f"{cal.powersgd_matrix_s * 1e3:.3f} ms per matrix + "
                               f"{(cal.powersgd_s_per_flop or 0) * 1e12:.1f} ps/flop"),
            ("reduce cost (gamma)", f"{cal.reduce_s_per_byte * 1e12:.1f} ps/byte"),
            ("cast cost", f"{cal.cast_s_per_byte * 1e12:.1f} ps/byte/pass")]
    if m.step_single_s is not None:
        rows.append(("model step, one replica alone", f"{m.step_single_s * 1e3:.2f} ms"))
        rows.append(("model step, all replicas at once", f"{m.step_concurrent_s * 1e3:.2f} ms (stored)"))
    if m.powersgd_step_s is not None:
        rows.append(("model step, all_reduce_powersgd", f"{m.powersgd_step_s * 1e3:.2f} ms (sets the per-matrix cost)"))
    width = max(len(k) for k, _ in rows)
    lines += [f"{k:<{width}}  {v}" for k, v in rows]
    return "\n".join(lines)


def _size(nbytes: int) -> str:
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g}{unit}"
    return f"{nbytes}B"
