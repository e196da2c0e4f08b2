"""The compact per-variable space of a large cluster: bounded parameters per trial, valid strategies, every classic
builder expressible; small clusters keep the per-variable space."""
from __future__ import annotations

import re

import optuna
import pytest

from space.builders import aliases, build_strategy
from space.cluster import ClusterSpec
from space.errors import StrategyError
from space.inventory import Inventory
from space.search_space import BALANCED, CHUNK, SearchSpace, SlotPlan, VarPlan, spread
from space.validate import validate

optuna.logging.set_verbosity(optuna.logging.WARNING)

# a few parameters per variable: shards, axis, kind and that kind's settings (PS: server, sync, staleness, proxy;
# all-reduce: group, spec, compressor, rank or gather)
PER_VARIABLE = 7

INVENTORIES = {
    # dense layers, a bias of prime length, a scalar
    "mlp": Inventory.synthetic([("l0/kernel:0", (784, 512)), ("l0/bias:0", (512,)), ("l1/kernel:0", (512, 509)),
                                ("l1/bias:0", (509,)), ("scale:0", ())]),
    # sparse tables longer and shorter than the number of servers beside a dense head
    "tables": Inventory.synthetic([("user:0", (100_000, 32)), ("item:0", (40, 16)), ("big:0", (1_000_000, 64)),
                                   ("head/kernel:0", (112, 1)), ("head/bias:0", (1,))],
                                  sparse=["user:0", "item:0", "big:0"]),
}


def _cluster(nodes: int, chief: int = 0) -> ClusterSpec:
    return ClusterSpec.from_dict({"nodes": [{"address": f"10.0.{i // 250}.{i % 250 + 1}", "chief": i == chief,
                                             "network_bandwidth": "25gbit"} for i in range(nodes)]})


BIG = _cluster(256)


def _trials(space: SearchSpace, n: int, seed: int = 0):
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=seed))
    for _ in range(n):
        trial = study.ask()
        strategy = space.suggest(trial)
        study.tell(trial, float(len(strategy.to_bytes())))
        yield trial, strategy


# ---- when the space is compact --------------------------------------------------------------------------

@pytest.mark.parametrize("nodes, compact", [(1, False), (3, False), (16, False), (17, True), (256, True)])
def test_compact_above_sixteen_ps_devices(nodes, compact):
    space = SearchSpace(INVENTORIES["mlp"], _cluster(nodes), reduced=False)
    assert space.compact is compact and space.tied_shards is compact
    assert space.describe()["mode"] == ("compact" if compact else "per-variable")


def test_a_small_cluster_keeps_a_synchronizer_per_shard():
    space = SearchSpace(INVENTORIES["mlp"], _cluster(3), reduced=False)
    dists = space.distributions()
    assert any(re.search(r"\.p1\.", name) for name in dists)
    assert BALANCED not in dists["v0.ps"] and tuple(dists["v0.ps"]) == (0, 1, 2)


def test_the_reduced_space_wins_over_the_compact_one():
    space = SearchSpace(INVENTORIES["mlp"], BIG, reduced=True)
    assert space.reduced and not space.compact


# ---- bounded parameters ---------------------------------------------------------------------------------

@pytest.mark.parametrize("model", INVENTORIES)
def test_a_trial_asks_a_few_parameters_per_variable_at_256_nodes(model):
    inv = INVENTORIES[model]
    bound = PER_VARIABLE * len(inv.variables)
    space = SearchSpace(inv, BIG, reduced=False)
    asked = [len(trial.params) for trial, _ in _trials(space, 60)]
    assert max(asked) <= bound
    assert len(space.distributions()) <= bound + sum(len(v.shape) + 4 for v in inv.variables)  # + axis per count
    exact = SearchSpace(inv, BIG, reduced=False, compact_above=256)  # the same cluster, a synchronizer per shard
    assert max(len(trial.params) for trial, _ in _trials(exact, 60)) > bound


def test_servers_to_choose_from_are_few_and_spread():
    space = SearchSpace(INVENTORIES["mlp"], _cluster(256, chief=100), reduced=False)
    choices = space.distributions()["v0.ps"]
    assert len(choices) == 17 and choices[-1] == BALANCED and 100 in choices
    assert max(choices[:-1]) >= 256 - 256 // 16 - 1  # the last servers are reachable, not only the first 16
    assert CHUNK in space.distributions()["v0.group"]


@pytest.mark.parametrize("count, first, size", [(256, 0, 16), (256, 100, 16), (256, 255, 16), (17, 5, 16),
                                                (10, 3, 16), (1000, 7, 3)])
def test_spread_keeps_the_first_and_spaces_the_rest(count, first, size):
    picked = spread(count, first, size)
    assert len(picked) == min(count, size) and first in picked
    assert list(picked) == sorted(set(picked)) and all(0 <= p < count for p in picked)
    gaps = [b - a for a, b in zip(picked, picked[1:])]
    assert max(gaps) <= 2 * -(-count // size)


# ---- valid strategies and round trips -------------------------------------------------------------------

@pytest.mark.parametrize("model", INVENTORIES)
def test_random_trials_decode_to_valid_strategies_at_256_nodes(model):
    inv = INVENTORIES[model]
    space = SearchSpace(inv, BIG, reduced=False)
    for trial, strategy in _trials(space, 40, seed=3):
        validate(strategy, inv, BIG)
        assert space.decode(trial.params) == strategy
        assert space.decode(space.encode(strategy)) == strategy
        assert space.params_of(space.plans(trial.params)) == trial.params


def test_encode_finds_the_balanced_and_chunked_variables_among_many():
    """Thirty variables, each on a server or balanced, in a group or chunked at random: 2^30 combinations, which
    replaying the placement and the fusion resolves without trying them."""
    inv = Inventory.synthetic([(f"l{i}/kernel:0", (64 + i, 32)) for i in range(30)])
    space = SearchSpace(inv, BIG, reduced=False)
    for _, strategy in _trials(space, 10, seed=5):
        assert space.decode(space.encode(strategy)) == strategy


@pytest.mark.parametrize("model", INVENTORIES)
@pytest.mark.parametrize("alias", aliases())
def test_builders_round_trip_in_the_compact_space(alias, model):
    inv = INVENTORIES[model]
    space = SearchSpace(inv, BIG, reduced=False)
    built = build_strategy(alias, inv, BIG)
    assert space.decode(space.encode(built)).proto.node_config == built.proto.node_config


def test_one_shard_per_server_is_one_count_and_one_placement():
    inv = INVENTORIES["tables"]
    space = SearchSpace(inv, BIG, reduced=False, allow_async=False)
    params = space.encode(build_strategy("uneven_ps", inv, BIG))
    assert params["v0.shards"] == 256 and params["v0.ps"] == BALANCED
    assert not any(re.search(r"\.p\d+\.", name) for name in params)  # no parameter of its own per shard


def test_shards_with_different_synchronizers_are_outside_the_compact_space():
    inv = INVENTORIES["mlp"]
    space = SearchSpace(inv, BIG, reduced=False)
    plans = space.plans(space.encode(build_strategy("ps", inv, BIG)))
    plans[0] = VarPlan(2, 0, (SlotPlan("ps", ps=0), SlotPlan("ar", group=0)))
    with pytest.raises(StrategyError, match="shards of a variable use different synchronizers"):
        space.params_of(plans)
    with pytest.raises(StrategyError, match="shards of a variable use different synchronizers"):
        space.encode(space.strategy_of(plans))
