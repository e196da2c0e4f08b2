"""An all-gathered sparse gradient on the ring: each node receives the other replicas' rows and indices, where the
densified gradient would move 2 (N - 1) / N of the whole table."""
from __future__ import annotations

import pytest

from sim_helpers import BW, cluster, inventory, zero_cal
from simulator import Scorer
from space.strategy import Strategy, ar_node

ROWS = 32
TABLE = (20000, 32)  # 2.56 MB; 32 rows with their int32 ids (space.wire) are 4.22 kB


@pytest.mark.parametrize("nodes", [2, 3])
def test_the_gather_moves_the_other_replicas_rows(nodes):
    spec = cluster(nodes)
    inv = inventory(TABLE, sparse=("v0",), gather_rows=ROWS)
    scorer = Scorer(inv, spec, zero_cal(spec))
    dense = Strategy.build([ar_node("v0")], spec.replicas)
    gathered = Strategy.build([ar_node("v0", gather_sparse=True)], spec.replicas)
    t_dense, t_gather = (scorer.predict(s).step_time_s for s in (dense, gathered))
    n, row = nodes, TABLE[1] * 4
    assert t_dense == pytest.approx(2 * (n - 1) / n * TABLE[0] * row / BW, rel=1e-6)
    assert t_gather == pytest.approx((n - 1) * ROWS * (row + 4) / BW, rel=1e-6)


def test_a_dense_gradient_is_all_reduced_whatever_the_flag():
    spec = cluster(2)
    inv = inventory((64, 32))
    scorer = Scorer(inv, spec, zero_cal(spec))
    plain, flagged = (Strategy.build([ar_node("v0", gather_sparse=g)], spec.replicas) for g in (False, True))
    assert scorer.predict(flagged).step_time_s == scorer.predict(plain).step_time_s
