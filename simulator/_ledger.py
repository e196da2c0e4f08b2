"""The cost model's ledger: the bytes a strategy sends per step from node a to node b, read from the arrays the
engine charges time for (:mod:`simulator._engine`), so that the two cannot disagree:

- every replica's pushes and the ids of its gathered pulls, to each server (``push_load``, ``server_req``);
- every pull, and each proxy's refresh (``pull_b``): a replica pulls for itself, a synchronous proxy is refreshed
  once per node after the update, an asynchronous one after each of its node's towers' updates;
- the collectives of every fused unit (``_AllReduce``: its columns, kind, rank and hierarchy), hop by hop as
  TensorFlow's algorithms send them (:mod:`space.wire`): the engine charges each hop the ring's mean, 2 (N - 1)/N
  of the unit's bytes, where a hop carries that within a chunk's rounding;
- what every step moves whatever the strategy (``Model.fixed_links``): the state's refresh and sync.

What the driver feeds and fetches (a fed pipeline's batches, the losses it reports) goes through the master, for
the driver, and is in neither count.

The backend's own count, read from the graph it builds (``runners.transform._traffic``), must equal it: the test
that holds them together is ``tests/runners/transform/test_transform_ledger.py``.
"""
from __future__ import annotations

import numpy as np

from simulator._engine import _all_reduce, _compute, _server_loads
from space import wire
from space.cluster import hierarchical_units, parse_device
from space.inventory import Inventory

Ledger = dict  # (sending node address, receiving node address) -> bytes per step
FLOATS = ("float16", "bfloat16", "float32", "float64")


def fixed_links(inventory: Inventory, replica_nodes: list[int], M: int) -> np.ndarray:
    """(2, M, M) bytes from node a to node b per step whatever the strategy, lockstep [0] or every tower on its own
    [1], for replicas on ``replica_nodes`` (node index of each, tower 0 first).

    Lockstep, the state lives on tower 0's node: its value goes once to every other node holding towers before the
    step, and each remote tower's new value of its floats comes back (the mean; other dtypes keep tower 0's). Tower
    by tower, a remote tower reads the state where it lives and writes its update back."""
    out = np.zeros((2, M, M))
    if len(replica_nodes) < 2:
        return out
    home = replica_nodes[0]
    state = float(sum(v.bytes for v in inventory.state))
    floats = float(sum(v.bytes for v in inventory.state if v.dtype in FLOATS))
    for n in set(replica_nodes) - {home}:
        out[0, home, n] += state
    for n in replica_nodes:
        if n != home:
            out[0, n, home] += floats
            out[1, home, n] += state
            out[1, n, home] += state
    return out


def ledger_of(scorer, m, b) -> Ledger:
    """The ledger of the one strategy of batch ``b`` (dense), scored with ``m`` by ``scorer``."""
    loads, ar = _server_loads(m, b), _all_reduce(m, b)
    synchronous = bool(_compute(m, b, loads)[1][0])
    net = m.net
    links = np.outer(net.counts, loads.push_load[:, 0].sum(axis=-1))  # every replica's pushes, node n -> server m
    if loads.server_req is not None:
        links += np.outer(net.counts, loads.server_req[0])
    # each replica pulls (and refreshes an asynchronous proxy) for itself; a synchronous proxy, once per node
    links += np.outer(loads.pull_b[0, 0], net.counts) + np.outer(loads.pull_b[0, 1], net.present)
    np.fill_diagonal(links, 0.0)
    if m.fixed_links is not None:
        links += m.fixed_links[0 if synchronous else 1]
    names = scorer.addresses
    out: Ledger = {}
    for a, b_ in zip(*np.nonzero(links)):
        out[(names[a], names[b_])] = float(links[a, b_])
    for kind, members, elements, itemsize in _collectives(scorer, m, ar):
        for key, nbytes in wire.sends(kind, members, elements, itemsize).items():
            out[key] = out.get(key, 0.0) + nbytes
    return out


def _collectives(scorer, m, ar) -> list[tuple[str, list[str], int, int]]:
    """Every collective of the strategy's all-reduced units: (kind, members' nodes in rank order, elements of each
    member's input, bytes per element)."""
    flat, units = _ranks(scorer)
    out = []
    heads: dict[int, list[int]] = {}
    for c in np.flatnonzero(ar.is_ar[0]):
        heads.setdefault(int(ar.head[0, c]), []).append(int(c))
    for h, cols in heads.items():
        kind, item = int(ar.kind[0, h]), int(m.itemsize[h])
        if kind == 3:  # every replica's ids, then its rows, all-gathered
            for c in cols:
                ids = int(round(m.rows[c]))
                out.append(("gather", flat, ids, int(m.index_itemsize[c])))
                out.append(("gather", flat, int(round((m.push_bytes[c] - ids * m.index_itemsize[c]) / item)), item))
            continue
        if kind == 2:  # PowerSGD: the P factors of every matrix, then their Q factors
            sizes = [sum(int(m.pn[c] * ar.rank[0, c]) for c in cols), sum(int(m.pm[c] * ar.rank[0, c]) for c in cols)]
        else:
            sizes = [int(sum(round(m.numel[c]) for c in cols))]
            item = min(item, 2) if kind == 1 else item
        for elements in sizes:
            out += _reduce(flat, units if ar.hier[0, h] else None, elements, item)
    return out


def _reduce(flat: list[str], units: list[list[str]] | None, elements: int, item: int) -> list[tuple]:
    """One all-reduce: a ring over every replica, or hierarchically (the backend's three phases: an all-to-all of
    the padded tensor's n chunks inside each unit, the n rings of one chunk across the units, an all-gather of the
    chunks inside each unit)."""
    if units is None:
        return [("reduce", flat, elements, item)]
    n = len(units[0])
    chunk = (elements + (-elements % n)) // n
    phases = [("all_to_all", unit, n * chunk, item) for unit in units]
    phases += [("reduce", [unit[j] for unit in units], chunk, item) for j in range(n)]
    return phases + [("gather", unit, chunk, item) for unit in units]


def _ranks(scorer) -> tuple[list[str], list[list[str]] | None]:
    """The replicas' nodes in TensorFlow's rank order, and per unit of a hierarchical all-reduce (None: it runs
    flat); position j of every unit is its j-th replica in rank order, and the units keep the spec's order (the
    ring across them is ranked again, below)."""
    def key(i: int) -> tuple:
        address, kind, index = parse_device(scorer.replicas[i])
        return wire.task_rank_key(scorer._device_node(scorer.replicas[i]), kind, int(index))

    node = [scorer.addresses[scorer._device_node(r)] for r in scorer.replicas]
    flat = [node[i] for i in sorted(range(len(node)), key=key)]
    units = hierarchical_units(scorer.cluster.replica_units(list(scorer.replicas)))
    if units is None:
        return flat, None
    return flat, [[node[i] for i in sorted(u, key=key)] for u in units]
