"""The roofline lower bound of COST_MODEL.md and the distance of a strategy's step time to it."""
from __future__ import annotations

from space.cluster import ClusterSpec, parse_device
from space.inventory import Inventory
from simulator._calibration import Calibration
from simulator._engine import compute_with_updates
from simulator._network import GBIT
from simulator._prediction import Bound, Distance, Prediction


def lower_bound(inventory: Inventory, cluster: ClusterSpec, calibration: Calibration | None = None, *,
                wire_bytes: float | None = None, replicas=None) -> Bound:
    """T_step >= max(T_compute, T_lb) with T_lb = 2n(n-1)S / ((n^2 + kn - 2k) B) (BytePS; 2(n-1)/n S/B at k=0).

    n = nodes holding replicas, k = nodes without replicas, B = the slowest of those n NICs, S = gradient bytes
    (rows touched for sparse variables). Bandwidths come
    from ``calibration`` when given, else from the spec; T_compute is 0 without a calibration.

    T_compute is the calibrated step of every replica computing at once, without synchronization, except where the
    replicas share CPUs (a replica alone is faster than that lockstep step, as on an emulated cluster): there the
    lockstep step includes every replica's optimizer update of every variable, which a parameter server does once
    (on the testbed, `ps` on the recommender measured 13 ms against a 17 ms lockstep step), so the floor is the step
    of one replica alone, or, with the updates' share of it measured (``lockstep_update_share``), the lockstep step
    of replicas whose variables are all updated once, on parameter servers, where that is lower (as the cost model
    predicts it).
    """
    if calibration is not None:
        calibration.check(cluster, inventory.model_hash)
    reps = list(replicas) if replicas else cluster.replicas
    holding = {cluster.node(parse_device(r)[0]).address for r in reps}
    n, k = len(holding), len(cluster.nodes) - len(holding)
    nic = {nd.address: (calibration.node_bandwidth(nd.address) if calibration else nd.network_bandwidth_gbit)
           for nd in cluster.nodes}
    gbit = min(nic[a] for a in holding) if holding else min(nic.values())
    factor = 2 * n * (n - 1) / ((n * n + k * n - 2 * k) * gbit * GBIT) if n > 1 else 0.0
    size = float(sum(gradient_bytes(v) for v in inventory.variables))
    compute = 0.0
    if calibration is not None:
        base = (calibration.step_time_s if calibration.step_time_s is not None
                else inventory.flops_per_step / calibration.compute_flops_per_s)
        alone = calibration.alone_step_s
        if alone is not None and calibration.step_time_s is not None and alone < calibration.step_time_s:
            base = alone  # replicas sharing CPUs: see the docstring
            share, r = calibration.lockstep_update_share(), max(len(reps), 1)
            if share > 0:
                base = min(base, compute_with_updates(calibration.step_time_s, share, 1.0, r))
        compute = max(base / calibration.speed_of(r) for r in reps) if reps else base
    comm = factor * size
    return Bound(compute_s=compute, comm_s=comm, comm_wire_s=factor * (size if wire_bytes is None else wire_bytes),
                 step_s=max(compute, comm), ceiling_s=compute + comm, bandwidth_gbit=gbit, nodes=n,
                 extra_servers=k)


def floor_s(prediction: Prediction, bound: Bound) -> float:
    """No step of the strategy ``prediction`` is of can be faster than this: the model's compute floor, or the time
    its busiest resource (a NIC direction, a link, the CPUs the nodes share) is busy in the model, whatever
    overlaps it."""
    return max(bound.compute_s, prediction.busiest_resource_s)


def gradient_bytes(var) -> float:
    """Bytes of one replica's gradient: rows touched (not the table) for a sparse variable."""
    rows = var.rows_touched
    return float(var.bytes) if rows is None else rows * var.row_bytes


def distance(step: Prediction | float, bound: Bound) -> Distance:
    """gap = T / max(T_compute, T_lb) - 1 (0 = on the roofline); eta = T_lb / T_comm (1 = ideal communication)."""
    if isinstance(step, Prediction):
        t, comm = step.step_time_s, step.busiest_resource_s
    else:
        t, comm = float(step), None
    floor = max(bound.step_s, 1e-12)
    eta = bound.comm_s / comm if comm else None
    return Distance(step_s=t, gap=t / floor - 1.0, eta=eta)
