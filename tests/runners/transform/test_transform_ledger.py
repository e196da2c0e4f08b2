"""The cost model's bytes ledger (``Scorer.ledger``) equals what the graph the backend builds sends
(``TrainGraph.traffic``), per link and direction, on random strategies of the search's own space and the classic
builders, over the example models and five zoo models, on two nodes, on two racks of two nodes (hierarchical
all-reduce across nodes) and on two nodes of two GPUs each (several replicas a node). Graphs are built, not run.

The graphs are built under plain SGD: every optimizer applies on the variable's own device, so the bytes between
nodes do not depend on it (``test_the_optimizer_moves_no_bytes`` holds that), and SGD's graphs build several
times faster than Adam's."""
from __future__ import annotations

import dataclasses
import random

import pytest

from space.builders import aliases, build_strategy
from space.cluster import ClusterSpec, hierarchical_units, load_cluster
from space.proto import strategy_pb2 as pb
from space.validate import validate
from testpaths import CLUSTERS, MODELS, ROOT

ZOO = ROOT / "examples" / "zoo"
# one idiom each the bytes depend on: a table two lookups share and a shared layer; a table read whole beside its
# lookup; BatchNorm and dropout state; int64 ids; rows that vary with the batch's shape
ZOO_MODELS = ["shared_embedding", "tied_weights", "normalization_dropout", "string_lookup", "padded_batch"]
SPECS = {
    "two_nodes": None,  # examples/clusters/localhost.yml
    "racks": {"nodes": [{"address": "127.0.0.1", "chief": True, "count": 2, "group": "a"},
                        {"address": "127.0.0.3", "count": 2, "group": "b"}]},
    "gpus": {"nodes": [{"address": "127.0.0.1", "chief": True, "gpus": [0, 1]},
                       {"address": "127.0.0.2", "gpus": [0, 1]}]},
}
BUILDERS = aliases()
# (model, spec, classic builders, random strategies of the search space): every builder in at least three cases
CASES = ([(m, "two_nodes", [BUILDERS[(5 * i + k) % len(BUILDERS)] for k in range(5)], 8 if m == "transformer" else 14)
          for i, m in enumerate(["mlp", "cnn", "recommender", "transformer", "dlrm"] + ZOO_MODELS)]
         + [(m, s, ["all_reduce_hierarchical", "ps_proxy", "ps_async"], 4)
            for m in ("recommender", "normalization_dropout") for s in ("racks", "gpus")])


class _Chooser:
    """An Optuna-like trial that answers every categorical at random (seeded): a draw of the search space."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def suggest_categorical(self, name, choices):
        return self.rng.choice(list(choices))


@pytest.fixture(scope="module")
def traced_sgd():
    """name -> (TracedStep under plain SGD, Inventory), traced once."""
    from space.model import inventory_from_trace, trace_step

    cache: dict = {}

    def get(name: str):
        if name not in cache:
            path = MODELS / f"{name}.py" if (MODELS / f"{name}.py").is_file() else ZOO / f"{name}.py"
            t = trace_step(path)
            sgd = dataclasses.replace(t, optimizer={"name": "sgd", "learning_rate": 0.01}, keras_optimizer=None)
            cache[name] = (sgd, inventory_from_trace(t))
        return cache[name]

    return get


def _spec(name: str) -> ClusterSpec:
    raw = SPECS[name]
    return load_cluster(CLUSTERS / "localhost.yml") if raw is None else ClusterSpec.from_dict(raw)


def _device_of(spec: ClusterSpec):
    task = {n.address: i for i, n in enumerate(spec.nodes)}

    def device_of(device: str) -> str:
        address, kind, index = device.split(":")
        return f"/job:worker/replica:0/task:{task[address]}/device:{kind}:{index}"

    return device_of


def draw(inv, spec: ClusterSpec, builders: list[str], n_random: int, seed: int) -> list[tuple[str, object]]:
    """The builders' strategies, then ``n_random`` distinct draws of the search's space (asynchronous PS allowed),
    every one valid."""
    from autotune.fidelity import strategy_key
    from autotune.tuner._pipeline import make_space

    out: dict[str, tuple[str, object]] = {}
    for alias in builders:
        s = build_strategy(alias, inv, spec)
        out.setdefault(strategy_key(s), (alias, s))
    space, rng, target = make_space(inv, spec, allow_async=True), random.Random(seed), len(out) + n_random
    for i in range(50 * n_random):
        if len(out) >= target:
            break
        s = space.suggest(_Chooser(rng))
        out.setdefault(strategy_key(s), (f"random{i}", s))
    for label, s in out.values():
        validate(s, inv, spec, source=label)
    return list(out.values())


def kinds(strategy, inv, spec: ClusterSpec) -> set[str]:
    """What a strategy exercises, for the coverage test."""
    found: set[str] = set()
    tiered = hierarchical_units(spec.replica_units(strategy.replicas)) is not None
    rows_static = {v.name: v.sparse and not v.rows_vary for v in inv.variables}
    for node in strategy.proto.node_config:
        for part in (list(node.part_config) if node.partitioner else [node]):
            if part.WhichOneof("synchronizer") == "PSSynchronizer":
                x = part.PSSynchronizer
                found.add("ps_sharded" if node.partitioner else "ps_whole")
                found.add("ps_sync" if x.sync else "ps_async")
                found |= {"ps_proxy"} if x.local_replication else set()
                continue
            x = part.AllReduceSynchronizer
            found.add({pb.AllReduceSynchronizer.NoneCompressor: "ar",
                       pb.AllReduceSynchronizer.HorovodCompressor: "ar_fp16",
                       pb.AllReduceSynchronizer.HorovodCompressorEF: "ar_fp16",
                       pb.AllReduceSynchronizer.PowerSGDCompressor: "ar_powersgd"}[x.compressor])
            found |= {"ar_gather"} if x.gather_sparse and rows_static[node.var_name] and not node.partitioner else set()
            found |= {"ar_hierarchical"} if x.hierarchical and tiered else set()
    return found


def _mismatches(scorer, traced, spec, strategies) -> list[str]:
    from runners.transform import build_train_graph

    device_of, out = _device_of(spec), []
    for label, s in strategies:
        g = build_train_graph(traced, s, device_of, key_base=1 << 20, replica_units=spec.replica_units(s.replicas))
        got, want = g.traffic, scorer.ledger(s)
        for link in sorted(set(got) | set(want)):
            if abs(got.get(link, 0.0) - want.get(link, 0.0)) > 1e-6:
                out.append(f"{label} {link[0]} -> {link[1]}: ledger {want.get(link, 0.0):.0f} B, "
                           f"graph {got.get(link, 0.0):.0f} B")
    return out


@pytest.mark.slow
@pytest.mark.parametrize("model,spec_name,builders,n_random", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_the_ledger_is_what_the_graph_sends(model, spec_name, builders, n_random, traced_sgd):
    from simulator import Calibration, Scorer

    traced, inv = traced_sgd(model)
    spec = _spec(spec_name)
    strategies = draw(inv, spec, builders, n_random, seed=CASES.index((model, spec_name, builders, n_random)))
    assert len(strategies) >= n_random  # the draw found distinct strategies
    scorer = Scorer(inv, spec, Calibration.from_spec(spec))
    assert _mismatches(scorer, traced, spec, strategies) == []


@pytest.mark.slow
def test_the_draws_cover_every_kind_of_synchronization(traced_sgd):
    """Over all cases: at least 200 strategies, and each kind of synchronization the ledger counts is in them."""
    # (the cases build them: a strategy drawn twice is built twice, so the draw is kept lean)
    total, found = 0, set()
    for model, spec_name, builders, n_random in CASES:
        _, inv = traced_sgd(model)
        spec = _spec(spec_name)
        strategies = draw(inv, spec, builders, n_random, seed=CASES.index((model, spec_name, builders, n_random)))
        total += len(strategies)
        for _, s in strategies:
            found |= kinds(s, inv, spec)
    assert total >= 200
    assert found == {"ps_whole", "ps_sharded", "ps_sync", "ps_async", "ps_proxy", "ar", "ar_fp16", "ar_powersgd",
                     "ar_gather", "ar_hierarchical"}


@pytest.mark.slow
@pytest.mark.parametrize("model,alias", [("recommender", "ps"), ("recommender", "all_reduce_powersgd"),
                                         ("cnn", "ps_async")])
def test_the_optimizer_moves_no_bytes(model, alias, traced_sgd):
    """The model's own optimizer (Adam, momentum with its slots) and plain SGD send the same bytes."""
    from runners.transform import build_train_graph
    from space.model import trace_step

    sgd, inv = traced_sgd(model)
    own = trace_step(MODELS / f"{model}.py")
    assert own.optimizer["name"] != "sgd"
    spec = _spec("two_nodes")
    s = build_strategy(alias, inv, spec)
    graphs = [build_train_graph(t, s, _device_of(spec), key_base=1 << 20) for t in (own, sgd)]
    assert graphs[0].traffic == graphs[1].traffic and sum(graphs[0].traffic.values()) > 0
