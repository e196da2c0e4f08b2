"""Made-up calibrate measurements for the conversion tests (``test_sim_from_measurements.py``,
``test_sim_anchor_costs.py``), in the runners' own data classes: the shape ``simulator.to_calibration`` reads."""
from __future__ import annotations

from runners.calibrate import LinkTiming, Measurements

MIB = 2**20


def measurements(gbit_by_pair: dict[tuple[str, str], float], n: int) -> Measurements:
    """Links of the given Gbit/s (and 50 us) between each pair, an ``n``-node all-reduce at half the ideal ring
    bandwidth, and fixed probe times: what ``to_calibration`` reads, with no anchor steps."""
    links = []
    for (a, b), g in gbit_by_pair.items():
        secs = [0.001 + s / (g * 1e9 / 8) for s in (MIB, 4 * MIB)]
        links.append(LinkTiming(a, b, [MIB, 4 * MIB], secs, base_s=0.001, tiny_s=0.001 + 5e-5))
    ring = min(gbit_by_pair.values()) * 1e9 / 8
    ar = [0.003 + 2 * (n - 1) / n * s / (0.5 * ring) for s in (MIB, 4 * MIB)]  # half the ideal ring bandwidth
    return Measurements(links=links, allreduce_sizes=[MIB, 4 * MIB], allreduce_s=ar, allreduce_tiny_s=0.003,
                        allreduce_base_s=0.001, rpc_tensors=101, rpc_s=0.011, rpc_one_s=0.001, reduce_s_per_byte=0.0,
                        cast_s_per_byte=1e-10, step_single_s=0.01, nosync_step_s=0.02)
