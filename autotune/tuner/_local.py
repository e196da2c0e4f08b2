"""The simulated stage's local search: neighbours of the best candidates so far, scored by the cost model directly.

A neighbour changes one parameter of a parent, sometimes two or three to step off a plateau
(``SearchSpace.neighbour``: it holds the parameters a trial suggesting it would hold). A climb keeps the ``POOL``
best distinct candidates it has seen as parents, better ones drawn more often; a neighbour enters when it beats the
worst of them ((mu + lambda) hill climbing). A climb that finds nothing better in ``patience`` candidates is at a
local optimum of one change; the next climb starts, in turn, from a classic builder predicted within ``reach`` x the
best (another family's basin: a table split evenly *and* balanced over the servers pays where either change alone
does not) and from the best so far kicked by several changes (iterated local search); once the builders are spent,
from kicks alone.
"""
from __future__ import annotations

import bisect
import dataclasses
import math
from typing import Any

POOL = 8  # parents of a climb
MOVES = (1, 1, 1, 1, 1, 1, 1, 2, 2, 3)  # changes per neighbour, drawn uniformly: mostly one
KICK = (3, 7)  # changes (low, high exclusive) of a restart from the best so far
PATIENCE = (40, 400)  # candidates without a better best that end a climb: twice the parameters asked, within these
MISSES = 200  # neighbours drawn in a row that were all seen before: the climb's neighbourhood is spent


def key(params: dict[str, Any]) -> str:
    """The identity of a parameter set (the stage's records are deduplicated by it)."""
    return repr(sorted(params.items()))


@dataclasses.dataclass(order=True)
class Entry:
    t: float
    params: dict[str, Any] = dataclasses.field(compare=False)


class LocalSearch:
    """Proposes neighbours (:meth:`propose`) and learns their predicted step times (:meth:`tell`).

    ``records`` are the stage's so far (dicts with ``state``, ``params``, ``predicted_s``, ``builders``); ``rng`` is
    a numpy Generator, the only source of randomness, so a seeded search proposes the same candidates."""

    def __init__(self, space, records: list[dict[str, Any]], rng, *, reach: float) -> None:
        self.space, self.rng = space, rng
        self.seen = {key(r["params"]) for r in records}
        ranked, keys = [], set()
        for r in sorted((r for r in records if r["state"] == "complete"), key=lambda r: r["predicted_s"]):
            if key(r["params"]) not in keys:
                keys.add(key(r["params"]))
                ranked.append((Entry(r["predicted_s"], r["params"]), bool(r.get("builders"))))
        self.best = ranked[0][0] if ranked else None
        # the later climbs' starts: the builders the first one does not hold, best first
        self.seeds = [e for e, built in ranked[POOL:] if built and e.t <= reach * self.best.t]
        self.restarts = 0
        self._climb([e for e, _ in ranked[:POOL]])

    def _climb(self, pool: list[Entry], kicked: bool = False) -> None:
        self.pool = sorted(pool)
        self.kicked = kicked  # the next proposal, a kick of the best, starts the climb
        self.climb_best = self.pool[0].t if self.pool else float("inf")
        self.stale = 0  # candidates since the climb's best improved
        asked = len(self.best.params) if self.best else 0
        self.patience = min(max(2 * asked, PATIENCE[0]), PATIENCE[1])

    def propose(self) -> dict[str, Any] | None:
        """An unseen neighbour of a parent; None when none turns up (no candidate yet, or a one-point space)."""
        if self.best is None:
            return None
        for _ in range(2):  # the climb's neighbourhood, then (where that is spent) the next climb's
            for miss in range(MISSES):
                if self.kicked:
                    parent, moves = self.best, int(self.rng.integers(*KICK))
                else:
                    # a parent of the pool, the better ones more often; more changes the more neighbours repeat
                    parent = self.pool[int(len(self.pool) * self.rng.random() ** 2)]
                    moves = MOVES[int(self.rng.integers(len(MOVES)))] + miss // 50
                params = self.space.neighbour(parent.params, self.rng, moves)
                k = key(params)
                if k not in self.seen:
                    self.seen.add(k)
                    return params
            self._restart()
        return None

    def tell(self, params: dict[str, Any], t: float) -> None:
        """The predicted step time of the candidate :meth:`propose` returned last."""
        entry = Entry(t, params)
        if t < self.best.t:
            self.best = entry
        if self.kicked and math.isfinite(t):
            self._climb([entry])
            return
        if not math.isfinite(t):  # it does not fit a node's memory: a step of the climb, never a parent
            self.stale += 1
            if self.stale >= self.patience:
                self._restart()
            return
        if len(self.pool) < POOL or t < self.pool[-1].t:
            bisect.insort(self.pool, entry)
            del self.pool[POOL:]
        if t < self.climb_best:
            self.climb_best, self.stale = t, 0
        else:
            self.stale += 1
        if self.stale >= self.patience:
            self._restart()

    def _restart(self) -> None:
        """A new climb: from the next builder and from a kick of the best in turn, from kicks once those are spent."""
        self.restarts += 1
        if self.seeds and self.restarts % 2:
            self._climb([self.seeds.pop(0)])
        else:
            self._climb([], kicked=True)
