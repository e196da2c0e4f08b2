"""Simplifying a search candidate before profiling: fewer pieces and collectives, never a worse prediction
beyond the tolerance, and compression that pays is kept. Real cost model, no TensorFlow."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.tuner._simplify import TOLERANCE, moves, simplify
from simulator import Calibration, Scorer
from space.cluster import ClusterSpec
from space.errors import StrategyError
from space.inventory import Inventory, VariableInfo
from space.search_space import BALANCED, CHUNK, SearchSpace
from space.search_space import SlotPlan, VarPlan

ADDR = ["198.18.0.1", "198.18.0.2", "198.18.0.3"]


@pytest.fixture
def setup():
    spec = ClusterSpec.from_dict({"nodes": [{"address": a, "chief": i == 0, "network_bandwidth": "200mbit",
                                             "cpus": [0]} for i, a in enumerate(ADDR)]})
    shapes = {"kernel": (1000, 500), "bias": (500,), "head": (500, 10), "head_bias": (10,)}
    inv = Inventory(model_path="<test>", model_hash="test-model", flops_per_step=0.0, batch_size=32,
                    variables=tuple(VariableInfo(name=n, shape=s, dtype="float32") for n, s in shapes.items()))
    cal = Calibration.from_spec(spec, collective_overhead_s=1e-3, rpc_overhead_s=1e-4)
    space = SearchSpace(inv, spec, allow_async=False)
    scorer = Scorer(inv, spec, cal)

    def score(plan_lists):
        return scorer.score_many([space.strategy_of(p) for p in plan_lists])

    order = sorted(range(len(inv.variables)), key=lambda i: inv.variables[i].bytes)
    return space, score, order


def ar(group, compressor="none", spec="auto", rank=0):
    return SlotPlan("ar", group=group, compressor=compressor, spec=spec, rank=rank)


def test_split_bias_and_lonely_groups_are_simplified(setup):
    space, score, order = setup
    plans = [VarPlan(1, 0, (ar(0),)),
             VarPlan(2, 0, (ar(3, spec="ring"), SlotPlan("ps", ps=1, proxy=True))),  # 2 KB bias, 2 kinds
             VarPlan(1, 0, (ar(0),)),
             VarPlan(1, 0, (ar(5, compressor="powersgd", rank=2),))]  # a vector alone in a PowerSGD group
    start = float(score([plans])[0])
    out, predicted, applied = simplify(plans, order, score)
    assert applied >= 3
    assert out[1].shards == 1 and out[3].slots[0].compressor == "none"
    groups = {s.group for p in out for s in p.slots if s.kind == "ar"}
    assert groups == {0}  # one collective instead of three
    assert predicted <= start * (1 + TOLERANCE)
    assert predicted == pytest.approx(float(score([out])[0]))
    space.params_of(out)  # still a point of the search space
    assert moves(out, 1) == [] or all(m.shards == 1 for m in moves(out, 1))


def test_compression_that_pays_is_kept(setup):
    """fp16 halves the 2 MB kernel's all-reduce at 200 Mbit/s (~50 ms): dropping it is far beyond 1%."""
    space, score, order = setup
    plans = [VarPlan(1, 0, (ar(0, compressor="fp16"),)), VarPlan(1, 0, (ar(0),)),
             VarPlan(1, 0, (ar(0),)), VarPlan(1, 0, (ar(0),))]
    out, predicted, applied = simplify(plans, order, score)
    assert out[0].slots[0].compressor == "fp16"
    assert predicted <= float(score([plans])[0]) * (1 + TOLERANCE)


def test_a_simple_strategy_has_no_moves(setup):
    space, score, order = setup
    plans = [VarPlan(1, 0, (ar(0),)), VarPlan(1, 0, (SlotPlan("ps", ps=0),)),
             VarPlan(1, 0, (ar(0),)), VarPlan(1, 0, (SlotPlan("ps", ps=2),))]
    assert all(moves(plans, i) == [] for i in range(4))
    out, predicted, applied = simplify(plans, order, score)
    assert applied == 0 and out == plans and predicted == pytest.approx(float(score([plans])[0]))


def complexity(plans) -> tuple[int, int, int]:
    """(shards, non-default slot fields, all-reduce slots in a group no other variable uses), compared in order:
    unsharding may leave another variable's group alone, but it removes shards."""
    shards = fields = lonely = 0
    for i, p in enumerate(plans):
        others = {s.group for j, q in enumerate(plans) if j != i for s in q.slots if s.kind == "ar"}
        shards += p.shards
        for s in p.slots:
            fields += (s.compressor != "none") + (s.spec != "auto") + s.proxy
            lonely += s.kind == "ar" and bool(others) and s.group not in others
    return shards, fields, lonely


def test_every_move_removes_something(setup):
    """Over random points of the space every move lowers the complexity (in order), so the walk ends."""
    space, _score, _order = setup
    rng = np.random.default_rng(0)
    dists = space.distributions()
    checked = 0
    for _ in range(60):
        plans = space.plans({name: choices[rng.integers(len(choices))] for name, choices in dists.items()})
        for i in range(len(plans)):
            for m in moves(plans, i):
                assert complexity(plans[:i] + [m] + plans[i + 1:]) < complexity(plans)
                checked += 1
    assert checked > 100


def test_tied_moves_change_every_shard_alike(setup):
    """A space that gives a variable's shards one synchronizer (the compact space of a large cluster) gets moves
    that stay inside it: a change to one shard's synchronizer is a change to all of them."""
    _space, _score, _order = setup
    slot = ar(5, compressor="fp16", spec="ring")
    plans = [VarPlan(1, 0, (ar(0),)), VarPlan(2, 0, (slot, slot)), VarPlan(1, 0, (ar(0),)), VarPlan(1, 0, (ar(0),))]
    tied = moves(plans, 1, tied=True)
    assert tied and all(len(set(m.slots)) == 1 for m in tied)
    assert {m.slots[0] for m in tied if m.shards == 2} == {ar(5, spec="ring"), ar(5, compressor="fp16"),
                                                           ar(0, compressor="fp16", spec="ring")}
    assert any(len(set(m.slots)) > 1 for m in moves(plans, 1))  # untied, a shard may change alone


def test_a_compact_candidate_simplifies_inside_its_space():
    """At 256 nodes a candidate balanced over the servers gets moves, and a simplification, inside the compact
    space; untied moves would leave it."""
    spec = ClusterSpec.from_dict({"nodes": [{"address": f"10.0.{i // 250}.{i % 250 + 1}", "chief": i == 0,
                                             "network_bandwidth": "25gbit"} for i in range(256)]})
    inv = Inventory.synthetic([("kernel:0", (1000, 500)), ("bias:0", (500,)), ("head:0", (500, 10))])
    space = SearchSpace(inv, spec, allow_async=False)
    scorer = Scorer(inv, spec, Calibration.from_spec(spec, collective_overhead_s=1e-3, rpc_overhead_s=1e-4))
    plans = [VarPlan(8, 0, (SlotPlan("ps", ps=BALANCED, proxy=True),) * 8),
             VarPlan(4, 0, (ar(CHUNK, spec="ring"),) * 4), VarPlan(1, 0, (ar(3, compressor="fp16"),))]

    def inside(candidate) -> bool:
        try:
            space.params_of(candidate)
        except StrategyError:
            return False
        return True

    tied = [plans[:i] + [m] + plans[i + 1:] for i in range(3) for m in moves(plans, i, tied=space.tied_shards)]
    assert tied and all(inside(p) for p in tied)
    assert not all(inside(plans[:i] + [m] + plans[i + 1:]) for i in range(3) for m in moves(plans, i))
    out, _predicted, applied = simplify(plans, [1, 2, 0],
                                        lambda ps: scorer.score_many([space.strategy_of(p) for p in ps]),
                                        tied=space.tied_shards)
    assert applied >= 1 and inside(out)
