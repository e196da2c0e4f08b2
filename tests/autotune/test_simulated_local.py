"""The simulated stage's local search: one-parameter neighbours in every kind of space, and a stage that scores them
through the cost model after the sampler's first trials."""
from __future__ import annotations

import json

import numpy as np
import optuna
import pytest

from autotune._options import values
from autotune.cli import build_parser
from autotune.tuner import SearchConfig
from autotune.tuner import _study
from autotune.tuner._journal import Journal
from autotune.tuner._progress import Progress
from autotune.tuner._simulated import SAMPLED, simulate
from simulator import Calibration, Scorer
from space.cluster import ClusterSpec
from space.search_space import SearchSpace
from space.validate import validate

optuna.logging.set_verbosity(optuna.logging.WARNING)

# two nodes of two GPUs: replicas in units, so a strategy's all-reduce may be hierarchical (one parameter)
TIERED = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True, "gpus": [0, 1]},
                                          {"address": "127.0.0.2", "gpus": [0, 1]}]})
# kind -> (SearchSpace keywords, cluster name or None for TIERED); compact_above=2 makes 3 PS devices compact
KINDS = {"per-variable": ({"reduced": False}, "heterogeneous"), "tiered": ({"reduced": False}, None),
         "compact": ({"reduced": False, "compact_above": 2}, "heterogeneous"),
         "reduced": ({"reduced": True}, "heterogeneous")}


def _space(kind: str, inventory, clusters) -> SearchSpace:
    kwargs, cluster = KINDS[kind]
    space = SearchSpace(inventory, clusters[cluster] if cluster else TIERED, **kwargs)
    assert space.describe()["mode"] == ("per-variable" if kind == "tiered" else kind)
    assert space.tiered is (kind == "tiered")
    return space


def _same(a, b) -> bool:
    return a == b and type(a) is type(b)


def _as_trial(space: SearchSpace, params: dict) -> dict:
    """The parameters a trial holds when it suggests ``params`` (enqueued: a name it asks beyond them is drawn)."""
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    study.enqueue_trial(params)
    trial = study.ask()
    space.suggest(trial)
    return trial.params


def _parents(space: SearchSpace, n: int) -> list[dict]:
    """The builders' parameters and random trials'."""
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=1))
    out = [p for _, p in space.builder_params()]
    for _ in range(n):
        trial = study.ask()
        space.suggest(trial)
        study.tell(trial, 0.0)
        out.append(trial.params)
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("model", ["recommender", "mlp"])
def test_neighbour_changes_one_parameter_and_keeps_the_rest(kind, model, inventories, clusters):
    inventory = inventories(model)
    space = _space(kind, inventory, clusters)
    rng = np.random.default_rng(0)
    changed_names = set()
    for parent in _parents(space, 4):
        for _ in range(6):
            child = space.neighbour(parent, rng)
            shared = set(child) & set(parent)
            changed = [k for k in shared if not _same(child[k], parent[k])]
            assert len(changed) == 1, (parent, child)
            changed_names.add(changed[0])
            # exactly what a trial suggesting it holds: the parameters still asked, nothing the change made moot
            assert _as_trial(space, child) == child
            strategy = space.decode(child)
            validate(strategy, inventory, space.cluster, source="neighbour")
            if kind in ("per-variable", "tiered"):  # the exact space: parameters and strategy are one to one
                # but where nothing is all-reduced, `hierarchical` is moot and reads back as flat
                moot = space.tiered and not any(s.kind == "ar" for p in space.plans(child) for s in p.slots)
                assert space.encode(strategy) == (child | {"hierarchical": False} if moot else child)
            else:  # balanced / chunked read back as one of the forms that place alike
                assert list(space.decode(space.encode(strategy)).nodes) == list(strategy.nodes)
    assert len(changed_names) > 5, "the changed parameter is drawn over the whole strategy"


def test_a_new_shard_takes_the_settings_of_its_variable(inventories, clusters):
    space = _space("per-variable", inventories("mlp"), clusters)
    parent = dict(space.builder_params(["ps"])[0][1])
    split = 0
    for seed in range(200):
        child = space.neighbour(parent, np.random.default_rng(seed))
        changed = next(k for k in child if k in parent and not _same(child[k], parent[k]))
        if changed.endswith(".shards") and parent[changed] == 1:
            var = changed.rpartition(".")[0]
            shards = [k for k in child if k.startswith(var + ".p")]
            assert shards and all(_same(child[k], parent[f"{var}.{k.rpartition('.')[2]}"]) for k in shards)
            split += 1
    assert split, "some neighbours split a whole variable"


@pytest.mark.parametrize("kind", KINDS)
def test_neighbour_is_seeded_and_moves_change_several(kind, inventories, clusters):
    space = _space(kind, inventories("recommender"), clusters)
    parent = space.builder_params()[0][1]
    draw = lambda seed: [space.neighbour(parent, np.random.default_rng(seed), 3) for _ in range(5)]  # noqa: E731
    assert draw(7) == draw(7)
    assert space.neighbour(parent, np.random.default_rng(0), 0) == parent  # no move: the parent as a trial holds it
    far = [space.neighbour(parent, np.random.default_rng(s), 3) for s in range(20)]
    assert max(sum(not _same(c[k], parent[k]) for k in set(c) & set(parent)) for c in far) >= 2


def _stage(tmp_path, inventory, cluster, name: str, **cfg):
    """The simulated stage alone, uncalibrated, in the search's own space (reduced above 16 variables)."""
    from autotune.tuner._pipeline import make_space

    space = make_space(inventory, cluster, reduced=cfg.pop("reduced", None))
    config = SearchConfig(model="m.py", spec="c.yml", output=tmp_path, **cfg)
    journal = Journal(tmp_path / f"{name}.jsonl")
    return simulate(space, Scorer(inventory, cluster, Calibration.from_spec(cluster)), _study.distributions(space),
                    journal, config, multi=config.sampler == "nsga2", progress=Progress(False, print))


# the reduced space keeps the sampler's path short (a few parameters a trial); the per-variable space's, at equal
# candidates, is benchmarks/simulated_stage.py's
@pytest.mark.parametrize("model, cluster", [("mlp", "heterogeneous"), ("dlrm", "heterogeneous"), ("cnn", "two_nodes")])
def test_local_search_finds_as_good_a_best_as_the_sampler_at_equal_candidates(model, cluster, tmp_path, inventories,
                                                                               clusters):
    inventory = inventories(model)
    best = {}
    for method in ("local", "sampler"):
        stage = _stage(tmp_path, inventory, clusters[cluster], method, trials=150, seed=0, simulated=method,
                       reduced=True)
        assert stage.finished == 150 and not stage.interrupted
        best[method] = stage.best_s
    assert best["local"] <= best["sampler"], best


def test_seeded_local_runs_repeat_and_records_carry_the_method(tmp_path, inventories, clusters):
    inventory, cluster = inventories("recommender"), clusters["heterogeneous"]
    strip = lambda stage: [(r["params"], r["predicted_s"], r["state"], r["method"]) for r in stage.records]  # noqa
    a = _stage(tmp_path, inventory, cluster, "a", trials=SAMPLED + 80, seed=5)
    b = _stage(tmp_path, inventory, cluster, "b", trials=SAMPLED + 80, seed=5)
    c = _stage(tmp_path, inventory, cluster, "c", trials=SAMPLED + 80, seed=6)
    assert strip(a) == strip(b) and strip(a) != strip(c)
    assert [r["method"] for r in a.records] == ["tpe"] * SAMPLED + ["local"] * 80
    keys = [repr(sorted(r["params"].items())) for r in a.records[SAMPLED:]]
    assert len(set(keys)) == len(keys), "the local search scores no parameter set twice"
    journal = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert journal == a.records and set(journal[-1]) == {"number", "state", "params", "predicted_s", "wire_mb",
                                                         "builders", "t", "method"}
    # downstream reads local candidates as it reads trials: decoded, best first, one per parameter set
    best = a.candidates(3)
    assert best[0].predicted_s == a.best_s and all(c.strategy is not None for c in best)


def test_resume_continues_the_local_search(tmp_path, inventories, clusters):
    inventory, cluster = inventories("recommender"), clusters["two_nodes"]
    first = _stage(tmp_path, inventory, cluster, "j", trials=SAMPLED + 20, seed=0)
    more = _stage(tmp_path, inventory, cluster, "j", trials=SAMPLED + 50, seed=0, resume=True)
    assert more.records[:SAMPLED + 20] == first.records and more.finished == SAMPLED + 50
    assert [r["method"] for r in more.records[SAMPLED + 20:]] == ["local"] * 30
    assert len({repr(sorted(r["params"].items())) for r in more.records[SAMPLED:]}) == 50


def test_sampler_only_and_two_objectives_keep_every_trial_the_samplers(tmp_path, inventories, clusters):
    inventory, cluster = inventories("recommender"), clusters["two_nodes"]
    tpe = _stage(tmp_path, inventory, cluster, "tpe", trials=SAMPLED + 10, seed=0, simulated="sampler")
    assert {r["method"] for r in tpe.records} == {"tpe"} and tpe.finished == SAMPLED + 10
    multi = _stage(tmp_path, inventory, cluster, "multi", trials=SAMPLED + 10, seed=0, sampler="nsga2")
    assert {r["method"] for r in multi.records} == {"nsga2"} and multi.finished == SAMPLED + 10


def test_the_method_is_an_option_of_the_search(tmp_path):
    def parsed(*extra):
        args = build_parser().parse_args(["search", "--model", "m.py", "--spec", "c.yml", *extra])
        return values(args, SearchConfig)["simulated"]

    assert parsed() == "local" and parsed("--simulated", "sampler") == "sampler"
    assert SearchConfig(model="m", spec="c", output=tmp_path).simulated == "local"
