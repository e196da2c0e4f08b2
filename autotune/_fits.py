"""Whether a strategy fits the nodes' memory (``simulator.Scorer.memory``), for the commands that start it."""
from __future__ import annotations

from simulator import Calibration, MemoryPlan, Scorer
from space import format_table
from space._units import format_bytes
from space.cluster import ClusterSpec
from space.errors import BadInput
from space.inventory import Inventory
from space.strategy import Strategy


def memory_plan(inventory: Inventory, cluster: ClusterSpec, strategy: Strategy) -> MemoryPlan:
    """The strategy's bytes per node. The spec's nominal calibration serves: memory does not depend on timings."""
    return Scorer(inventory, cluster, Calibration.from_spec(cluster)).memory(strategy)


def refuse_misfit(inventory: Inventory, cluster: ClusterSpec, strategy: Strategy, where: str) -> None:
    """Raise :class:`BadInput` in one line where ``strategy`` needs more memory than a node of ``cluster`` has."""
    if not any(n.memory_bytes is not None or n.gpu_memory_bytes is not None for n in cluster.nodes):
        return
    misfit = memory_plan(inventory, cluster, strategy).misfit(cluster)
    if misfit is not None:
        raise BadInput(f"the strategy does not fit the nodes' memory: it {misfit.line()}", where,
                       hint="choose a strategy that fits (autotune search prunes the others), correct the spec's "
                            "`memory:`, or pass --ignore-memory")


def node_table(inventory: Inventory, cluster: ClusterSpec, strategy: Strategy) -> str:
    """Per node: the bytes the strategy keeps resident (host, and per GPU where towers run there) and what the node
    has for them, beside the bytes it sends and receives per step (``Scorer.ledger``)."""
    scorer = Scorer(inventory, cluster, Calibration.from_spec(cluster))
    plan, ledger = scorer.memory(strategy), scorer.ledger(strategy)
    rows = []
    for node, spec in zip(plan.nodes, cluster.nodes):
        budget = spec.memory_budget_bytes
        row = {"node": node.address, "memory": format_bytes(node.total),
               "has": "-" if budget is None else format_bytes(budget),
               "sent/step": format_bytes(sum(b for (a, _), b in ledger.items() if a == node.address)),
               "received/step": format_bytes(sum(b for (_, z), b in ledger.items() if z == node.address))}
        if any(n.gpus for n in cluster.nodes):
            row["per_gpu"] = format_bytes(node.gpu_total) if node.gpu_parts else "-"
            row["gpu_has"] = "-" if spec.gpu_memory_bytes is None else format_bytes(spec.gpu_memory_bytes)
        if (budget is not None and node.total > budget) or (spec.gpu_memory_bytes is not None
                                                             and node.gpu_total > spec.gpu_memory_bytes):
            row["node"] += " (does not fit)"
        rows.append(row)
    return format_table(rows)


def predicted_beside_measured(plan: MemoryPlan, peaks: dict) -> list[dict]:
    """Per node: the plan's bytes (``predicted``) beside what its server grew by at its peak (``measured``,
    ``runners._peak_memory``): both leave TensorFlow's own memory out. [] where nothing was measured."""
    return [{"node": n.address, "predicted": n.total, "measured": peaks[n.address]["grown"],
             "peak": peaks[n.address]["peak"]} for n in plan.nodes if n.address in peaks]


def memory_lines(rows: list[dict]) -> str:
    """``memory     127.0.0.1 predicted 310 MB, measured 298 MB; ...`` (the server's peak above its start)."""
    if not rows:
        return ""
    each = "; ".join(f"{r['node']} predicted {format_bytes(r['predicted'])}, measured {format_bytes(r['measured'])}"
                     for r in rows)
    return f"memory     {each} (at the peak, TensorFlow's own left out)"
