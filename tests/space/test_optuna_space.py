"""The Optuna search space: random trials decode to valid strategies, classic builders round-trip, determinism."""
from __future__ import annotations

import subprocess
import sys

import optuna
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from testpaths import ROOT
from space.builders import aliases, build_strategy
from space.cluster import ClusterSpec
from space.errors import StrategyError
from space.inventory import Inventory
from space.search_space import BALANCED, CHUNK, SearchSpace, size_class
from space.search_space._reduced import apply_rule
from space.strategy import partition_axis, partitioned_node, ps_node
from space.validate import validate

optuna.logging.set_verbosity(optuna.logging.WARNING)

INVENTORIES = {
    # sparse table, matrix, bias with an odd length, scalar, rank-3 with a prime first axis
    "mixed": Inventory.synthetic([("emb:0", (1000, 16)), ("dense/kernel:0", (16, 9)), ("dense/bias:0", (9,)),
                                  ("scale:0", ()), ("conv/kernel:0", (7, 5, 3))], sparse=["emb:0"]),
    "mlp": Inventory.synthetic([(f"l{i}/{k}:0", s) for i in range(4)
                                for k, s in (("kernel", (64 + 3 * i, 32)), ("bias", (32,)))]),
    # tables shorter than the number of PS devices, and a 1-row table
    "tables": Inventory.synthetic([("user:0", (2, 8)), ("item:0", (3, 4)), ("one:0", (1, 4)), ("big:0", (4096, 32)),
                                   ("out/kernel:0", (32, 1))], sparse=["user:0", "item:0", "one:0", "big:0"]),
}


def _cluster(nodes: int) -> ClusterSpec:
    """1 CPU-only node; 2 nodes (chief CPU-only, one with 2 GPUs); 3 nodes (the third with two CPUs)."""
    spec = [{"address": "127.0.0.1", "chief": True}, {"address": "127.0.0.2", "gpus": [0, 1]},
            {"address": "127.0.0.3", "cpus": [0, 1], "gpus": [0]}]
    return ClusterSpec.from_dict({"nodes": spec[:nodes]})


CLUSTERS = {f"{n}node": _cluster(n) for n in (1, 2, 3)}
ALIASES = aliases()


def _random_strategies(space: SearchSpace, seed: int, n: int, sampler=None):
    study = optuna.create_study(sampler=sampler or optuna.samplers.RandomSampler(seed=seed))
    for _ in range(n):
        trial = study.ask()
        strategy = space.suggest(trial)
        study.tell(trial, float(len(strategy.to_bytes())))  # any deterministic score
        yield trial, strategy


def _same_strategy(a, b) -> bool:
    return list(a.proto.node_config) == list(b.proto.node_config) and a.replicas == b.replicas


# ---- classic builders round-trip -----------------------------------------------------------------------

@pytest.mark.parametrize("cluster", CLUSTERS)
@pytest.mark.parametrize("model", INVENTORIES)
@pytest.mark.parametrize("alias", ALIASES)
def test_builder_round_trips_in_the_per_variable_space(alias, model, cluster):
    inv, spec = INVENTORIES[model], CLUSTERS[cluster]
    space = SearchSpace(inv, spec, reduced=False)
    built = build_strategy(alias, inv, spec)
    decoded = space.decode(space.encode(built))
    assert _same_strategy(decoded, built)


@pytest.mark.parametrize("cluster", CLUSTERS)
@pytest.mark.parametrize("model", INVENTORIES)
@pytest.mark.parametrize("alias", ALIASES)
def test_builder_round_trips_in_the_reduced_space(alias, model, cluster):
    inv, spec = INVENTORIES[model], CLUSTERS[cluster]
    space = SearchSpace(inv, spec, reduced=True)
    built = build_strategy(alias, inv, spec)
    try:
        params = space.encode(built)
    except StrategyError:
        assert alias == "random_axis_ar"  # random axes per variable: no class-wide rule reproduces them
        return
    assert _same_strategy(space.decode(params), built)


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_enqueued_builders_are_the_first_trials(cluster):
    inv, spec = INVENTORIES["mixed"], CLUSTERS[cluster]
    space = SearchSpace(inv, spec, reduced=False)
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=0))
    enqueued = space.enqueue_builders(study)
    assert sorted(a for same in enqueued for a in same) == ALIASES
    for same in enqueued:
        trial = study.ask()
        assert trial.user_attrs["builders"] == same
        strategy = space.suggest(trial)
        assert all(_same_strategy(strategy, build_strategy(alias, inv, spec)) for alias in same)
        study.tell(trial, 1.0)
    assert space.enqueue_builders(study) == enqueued and len(study.trials) == len(enqueued)  # no duplicates


def test_sparse_ps_only_leaves_out_builders_that_all_reduce_sparse_variables():
    inv, spec = INVENTORIES["mixed"], CLUSTERS["2node"]
    space = SearchSpace(inv, spec, reduced=False, sparse_ps_only=True)
    kept = [alias for alias, _ in space.builder_params()]
    assert "parallax" in kept and "ps_lb" in kept and "all_reduce" not in kept
    assert set(kept) | set(space.inexpressible) == set(ALIASES)
    with pytest.raises(StrategyError, match="outside the search space's choices"):
        space.builder_params(["all_reduce"], strict=True)


# ---- random trials -------------------------------------------------------------------------------------

@pytest.mark.parametrize("reduced", [False, True], ids=["per_variable", "reduced"])
@pytest.mark.parametrize("cluster", CLUSTERS)
@pytest.mark.parametrize("model", INVENTORIES)
def test_random_trials_decode_to_valid_strategies(model, cluster, reduced):
    inv, spec = INVENTORIES[model], CLUSTERS[cluster]
    space = SearchSpace(inv, spec, reduced=reduced)
    dists = space.distributions()
    for trial, strategy in _random_strategies(space, seed=7, n=40):
        validate(strategy, inv, spec)
        params, asked = trial.params, trial.distributions  # each access copies the trial: once per trial
        assert all(dists[k] == tuple(asked[k].choices) for k in params)
        assert space.decode(params) == strategy
        assert space.decode(space.encode(strategy)) == strategy


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shapes=st.lists(st.tuples(st.lists(st.integers(1, 40), max_size=3), st.booleans()), min_size=1, max_size=6),
       nodes=st.integers(1, 3), reduced=st.booleans(), sparse_ps_only=st.booleans(), seed=st.integers(0, 2**16))
# found by this test: one sparse class balanced onto a single server beside a class fixed on another (encode once
# tried "balanced" for every class or for none)
@example(shapes=[([37, 12, 37], True), ([21], True), ([], False)], nodes=3, reduced=True, sparse_ps_only=True,
         seed=20531)
def test_any_inventory_and_trial_decode_to_a_valid_strategy(shapes, nodes, reduced, sparse_ps_only, seed):
    inv = Inventory.synthetic([(f"v{i}:0", tuple(s)) for i, (s, _) in enumerate(shapes)],
                              sparse=[f"v{i}:0" for i, (s, sp) in enumerate(shapes) if sp and s])
    spec = CLUSTERS[f"{nodes}node"]
    space = SearchSpace(inv, spec, reduced=reduced, sparse_ps_only=sparse_ps_only)
    for _, strategy in _random_strategies(space, seed, n=5):
        validate(strategy, inv, spec)
        assert space.decode(space.encode(strategy)) == strategy
        if sparse_ps_only:
            sparse = {v.name for v in inv.variables if v.sparse}
            leaves = [p for n in strategy.nodes if n.var_name in sparse for p in (n.part_config or [n])]
            assert all(p.WhichOneof("synchronizer") == "PSSynchronizer" for p in leaves)


@pytest.mark.parametrize("reduced", [False, True], ids=["per_variable", "reduced"])
def test_same_sampler_seed_gives_the_same_strategies(reduced):
    inv, spec = INVENTORIES["mixed"], CLUSTERS["3node"]

    def run(seed: int) -> list[str]:
        space = SearchSpace(inv, spec, reduced=reduced)
        sampler = optuna.samplers.TPESampler(seed=seed, n_startup_trials=5)
        return [s.to_bytes().hex() for _, s in _random_strategies(space, seed, n=15, sampler=sampler)]

    first = run(3)
    assert run(3) == first
    assert run(4) != first


def test_strategy_id_is_a_content_hash():
    inv, spec = INVENTORIES["mlp"], CLUSTERS["2node"]
    space = SearchSpace(inv, spec)
    params = space.encode(build_strategy("ps_lb", inv, spec))
    a, b = space.decode(params), space.decode(dict(params))
    assert a.proto.id == b.proto.id and a.proto.id.startswith("search-")
    assert space.decode(space.encode(build_strategy("ps", inv, spec))).proto.id != a.proto.id


# ---- reduced space -------------------------------------------------------------------------------------

@pytest.mark.parametrize("variables, reduce_above, flag, expected", [
    (5, 4, None, True), (5, 5, None, False), (5, 100, True, True), (5, 1, False, False)],
    ids=["auto-above", "auto-at-threshold", "flag-on", "flag-off"])
def test_reduced_space_is_chosen_by_variable_count_or_flag(variables, reduce_above, flag, expected):
    inv = Inventory.synthetic([(f"w{i}:0", (8, 8)) for i in range(variables)])
    space = SearchSpace(inv, CLUSTERS["2node"], reduced=flag, reduce_above=reduce_above)
    assert space.reduced is expected
    assert space.describe()["mode"] == ("reduced" if expected else "per-variable")


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_reduced_choices_expand_consistently_over_each_class(cluster):
    inv, spec = INVENTORIES["mixed"], CLUSTERS[cluster]
    space = SearchSpace(inv, spec, reduced=True)
    classes = {}
    for v in inv.variables:
        classes.setdefault(size_class(v), []).append(v)
    for trial, strategy in _random_strategies(space, seed=1, n=40):
        params = trial.params
        for key, members in classes.items():
            rule, axis_rule = params.get(f"{key}.shards", 1), params.get(f"{key}.axis", "first")
            settings_seen = set()
            for v in members:
                node = strategy.node(v.name)
                layout = partition_axis(node.partitioner)[::-1] if node.partitioner else (1, 0)
                assert layout == apply_rule(v, rule, axis_rule, len(spec.ps_devices))
                for leaf in node.part_config or [node]:
                    sync = getattr(leaf, leaf.WhichOneof("synchronizer"))
                    copy = type(sync)()
                    copy.CopyFrom(sync)
                    if params.get(f"{key}.ps") == BALANCED:
                        copy.ClearField("reduction_destination")
                    if params.get(f"{key}.group") == CHUNK:
                        copy.ClearField("group")
                    settings_seen.add(copy.SerializeToString(deterministic=True))
            assert len(settings_seen) == 1, f"class {key} expanded to different synchronizers"


def test_reduced_space_has_far_fewer_parameters():
    inv = Inventory.synthetic([(f"l{i}/kernel:0", (64, 64)) for i in range(40)])
    full, reduced = (SearchSpace(inv, CLUSTERS["3node"], reduced=r).describe() for r in (False, True))
    assert reduced["param_names"] * 20 < full["param_names"]
    assert [c["class"] for c in reduced["classes"]] == ["dense_s"]


def test_reduced_space_accepts_per_layer_classes():
    inv = INVENTORIES["mlp"]
    space = SearchSpace(inv, CLUSTERS["2node"], reduced=True, classify=lambda v: v.name.split("/")[0])
    assert [c["class"] for c in space.describe()["classes"]] == ["l0", "l1", "l2", "l3"]
    for _, strategy in _random_strategies(space, seed=2, n=10):
        validate(strategy, inv, CLUSTERS["2node"])


def test_reduced_space_rejects_a_class_split_between_ps_and_all_reduce():
    inv, spec = INVENTORIES["mlp"], CLUSTERS["2node"]
    mixed = build_strategy("ps", inv, spec)
    mixed.proto.node_config[1].CopyFrom(build_strategy("all_reduce", inv, spec).proto.node_config[1])
    with pytest.raises(StrategyError, match="different synchronizer settings"):
        SearchSpace(inv, spec, reduced=True).encode(mixed)
    assert _same_strategy(SearchSpace(inv, spec, reduced=False).decode(
        SearchSpace(inv, spec, reduced=False).encode(mixed)), mixed)


# ---- encode errors and arguments -----------------------------------------------------------------------

def test_encode_rejects_a_shard_count_outside_the_candidates():
    inv, spec = INVENTORIES["mixed"], CLUSTERS["1node"]
    s = build_strategy("ps", inv, spec)
    parts = [ps_node("emb:0", spec.ps_devices[0]) for _ in range(5)]
    s.proto.node_config[0].CopyFrom(partitioned_node("emb:0", (1000, 16), 0, parts))
    validate(s, inv, spec)
    with pytest.raises(StrategyError, match="5 shard"):
        SearchSpace(inv, spec, reduced=False).encode(s)
    assert SearchSpace(inv, spec, reduced=False, shard_candidates=(2, 5)).encode(s)["v0.shards"] == 5


def test_encode_rejects_a_ps_on_a_gpu():
    inv, spec = INVENTORIES["mlp"], CLUSTERS["2node"]
    s = build_strategy("ps", inv, spec)
    s.proto.node_config[0].PSSynchronizer.reduction_destination = "127.0.0.2:GPU:0"
    validate(s, inv, spec)
    with pytest.raises(StrategyError, match="not one of the cluster's PS devices"):
        SearchSpace(inv, spec).encode(s)


def test_decode_rejects_a_value_outside_the_choices():
    inv, spec = INVENTORIES["mlp"], CLUSTERS["2node"]
    space = SearchSpace(inv, spec, reduced=False)
    params = space.encode(build_strategy("ps_lb", inv, spec))
    with pytest.raises(StrategyError, match="is not one of"):
        space.decode({**params, "v0.ps": 7})


@pytest.mark.parametrize("kwargs", [{"shard_candidates": (1, 2)}, {"staleness": ()}, {"powersgd_ranks": (0,)},
                                    {"max_groups": 0}], ids=["shards", "staleness", "ranks", "groups"])
def test_bad_arguments_raise(kwargs):
    with pytest.raises(ValueError, match="must"):
        SearchSpace(INVENTORIES["mlp"], CLUSTERS["1node"], **kwargs)


def test_describe_lists_choices_per_variable():
    d = SearchSpace(INVENTORIES["mixed"], CLUSTERS["3node"], reduced=False, sparse_ps_only=True).describe()
    rows = {r["variable"]: r for r in d["per_variable"]}
    assert rows["scale:0"]["shards"] == [1] and rows["emb:0"]["kinds"] == ["ps"]
    assert rows["conv/kernel:0"]["axes"] == {2: [0, 1, 2], 3: [0, 1, 2], 4: [0, 1], 5: [0, 1], 7: [0]}
    assert d["param_names"] == len(SearchSpace(INVENTORIES["mixed"], CLUSTERS["3node"], reduced=False,
                                               sparse_ps_only=True).distributions())


def test_importing_the_search_space_does_not_import_tensorflow():
    code = "import sys, space.search_space; print('tensorflow' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("reduced", [False, True], ids=["per_variable", "reduced"])
def test_allow_async_false_keeps_every_ps_synchronous(reduced):
    inv, spec = INVENTORIES["mixed"], CLUSTERS["2node"]
    space = SearchSpace(inv, spec, reduced=reduced, allow_async=False)
    assert not any(k.endswith(".sync") or k.endswith(".staleness") for k in space.distributions())
    ps = [n.PSSynchronizer for _, s in _random_strategies(space, seed=3, n=40) for v in s.nodes
          for n in (v.part_config or [v]) if n.WhichOneof("synchronizer") == "PSSynchronizer"]
    assert ps and all(p.sync and p.staleness == 0 for p in ps)
    assert "ps_async" in space.inexpressible or "ps_async" not in dict(space.builder_params())


@pytest.mark.parametrize("reduced", [False, True])
def test_a_sparse_gradient_may_be_all_gathered_a_dense_one_not(reduced, inventories, clusters):
    inv, spec = inventories("recommender"), clusters["localhost"]
    space = SearchSpace(inv, spec, reduced=reduced)
    gathers = {name for name, choices in space.distributions().items() if name.endswith(".gather")}
    assert gathers and all(tuple(space.distributions()[g]) == (False, True) for g in gathers)
    built = build_strategy("all_reduce", inv, spec)
    decoded = space.decode(space.encode(built))
    assert [n.AllReduceSynchronizer.gather_sparse for n in decoded.nodes] == [v.sparse for v in inv.variables]
