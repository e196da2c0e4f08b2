"""The search space's one choice of a hierarchical all-reduce: offered where the replicas form units it runs over,
kept through encode, decode and the simplification's plans, made for the whole strategy."""
from __future__ import annotations

import optuna
import pytest

from space.builders import build_strategy
from space.cluster import ClusterSpec
from space.errors import StrategyError
from space.inventory import Inventory
from space.search_space import SearchSpace
from space.strategy import Strategy, ar_node
from space.validate import validate

optuna.logging.set_verbosity(optuna.logging.WARNING)

INV = Inventory.synthetic([("l0/kernel:0", (64, 32)), ("l0/bias:0", (32,)), ("emb:0", (1000, 16))],
                          sparse=["emb:0"])


def _racks(racks: int, per: int, **kwargs) -> ClusterSpec:
    return ClusterSpec.from_dict({"nodes": [{"address": f"10.{g}.0.1", "count": per, "group": f"r{g}",
                                             "chief": g == 0, **kwargs} for g in range(racks)]})


def _hier(strategy: Strategy) -> set[bool]:
    leaves = [p for n in strategy.nodes for p in (n.part_config if n.partitioner else [n])]
    return {p.AllReduceSynchronizer.hierarchical for p in leaves if p.WhichOneof("synchronizer") ==
            "AllReduceSynchronizer"}


@pytest.mark.parametrize("spec, offered", [
    (_racks(2, 2), True),  # two racks of two nodes
    (_racks(1, 4), False),  # one unit
    (ClusterSpec.from_dict({"nodes": [{"address": "10.0.0.1", "count": 3, "chief": True}]}), False),  # 1 replica a node
    (ClusterSpec.from_dict({"nodes": [{"address": "10.0.0.1", "count": 2, "chief": True, "gpus": [0, 1]}]}), True),
])
def test_offered_only_where_units_apply(spec, offered):
    assert ("hierarchical" in SearchSpace(INV, spec).distributions()) is offered


@pytest.mark.parametrize("reduced", [False, True])
def test_the_hierarchical_builder_survives_encode_and_decode(reduced):
    spec = _racks(2, 2)
    space = SearchSpace(INV, spec, reduced=reduced)
    strategy = build_strategy("all_reduce_hierarchical", INV, spec)
    params = space.encode(strategy)
    assert params["hierarchical"] is True
    assert _hier(space.decode(params)) == {True}
    flat = space.encode(build_strategy("all_reduce", INV, spec))
    assert flat["hierarchical"] is False and _hier(space.decode(flat)) == {False}


def test_trials_choose_it_for_the_whole_strategy_and_decode_valid():
    spec = _racks(2, 2)
    space = SearchSpace(INV, spec)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    seen = set()
    for _ in range(40):
        trial = study.ask()
        strategy = space.suggest(trial)
        validate(strategy, INV, spec)
        kinds = _hier(strategy)
        assert len(kinds) <= 1 and (not kinds or kinds == {trial.params["hierarchical"]})
        seen |= kinds
        study.tell(trial, 1.0)
    assert seen == {False, True}


def test_plans_keep_it_and_a_new_all_reduced_slot_follows():
    spec = _racks(2, 2)
    space = SearchSpace(INV, spec)
    params = space.encode(build_strategy("all_reduce_hierarchical", INV, spec))
    plans = space.plans(params)
    assert space.params_of(plans)["hierarchical"] is True
    # a simplification that all-reduces one more slot, flat: the strategy stays hierarchical throughout
    import dataclasses

    first = plans[0]
    plans[0] = dataclasses.replace(first, slots=tuple(dataclasses.replace(s, hier=False) for s in first.slots))
    assert _hier(space.strategy_of(plans)) == {True}


def test_a_strategy_mixing_both_is_outside_the_space():
    spec = _racks(2, 2)
    nodes = [ar_node(v.name, hierarchical=i == 0) for i, v in enumerate(INV.variables)]
    with pytest.raises(StrategyError, match="some all-reduced variables are hierarchical and some flat"):
        SearchSpace(INV, spec).encode(Strategy.build(nodes, spec.replicas))


def test_where_it_is_no_choice_the_flag_encodes_as_the_flat_strategy():
    spec = ClusterSpec.from_dict({"nodes": [{"address": "10.0.0.1", "count": 3, "chief": True}]})
    space = SearchSpace(INV, spec)
    nodes = [ar_node(v.name, hierarchical=True) for v in INV.variables]
    params = space.encode(Strategy.build(nodes, spec.replicas))
    assert "hierarchical" not in params and _hier(space.decode(params)) == {False}
