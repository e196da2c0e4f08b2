"""The transformer's steps measured on the 3-host testbed against this checkout's predictions, no residual: each
set of strategies varies one thing (where the embedding lives, PS variables in shards, shards spread over the
servers, a few variables all-reduced beside a PS step), so a cost-model change that gets that thing wrong again
fails here. The measurements, the cluster specs and the calibrations are kept in
``tests/fixtures/measured_steps/`` (its README says how they were taken); the strategies are built below as they
were measured."""
from __future__ import annotations

import csv
import pathlib
from collections.abc import Callable

import pytest

from simulator import COST_MODEL_VERSION, Calibration, Scorer, anchor_costs, anchor_fit, calibration_path
from space.builders import build_strategy
from space.cluster import load_cluster
from space.model import load_inventory
from space.strategy import Strategy, ar_node, partitioned_node, ps_node
from testpaths import MODELS, ROOT

STEPS = ROOT / "tests" / "fixtures" / "measured_steps"
BUILDER = "measured-steps"


def kept_calibration(here: pathlib.Path):
    """(cluster spec, inventory, calibration) a set of steps was measured with, the calibration's costs as this
    checkout's cost model derives them from its anchor steps (as ``search`` does with an older file)."""
    spec = load_cluster(here / "cluster.yml")
    inv = load_inventory(MODELS / "transformer.py", cache_dir=STEPS / "cache")
    cal = Calibration.load(calibration_path(STEPS / "cache" / "calibration", spec, inv.model_hash), spec,
                           inv.model_hash)
    if cal.anchors_s and cal.cost_model != COST_MODEL_VERSION:
        cal = anchor_costs(cal, inv, spec)
    return spec, inv, cal


def predict_measured(name: str, strategies: Callable) -> dict[str, tuple[float, float]]:
    """Per strategy of the set ``name``: (predicted ms, the median step ms its first measurement took)."""
    here = STEPS / name
    spec, inv, cal = kept_calibration(here)
    scorer = Scorer(inv, spec, cal.replace(residual=None))
    measured: dict[str, float] = {}
    for path in sorted(here.glob("compare*.csv")):  # a later file measured some of them again, or others
        with open(path) as fh:
            for row in csv.DictReader(fh):
                measured.setdefault(row["strategy"], float(row["median_ms"]))
    built = strategies(inv, spec, here)
    assert set(built) == set(measured)  # every measured step is predicted
    return {k: (scorer.predict(s).raw_step_time_s * 1e3, measured[k]) for k, s in built.items()}


def errors(rows: dict[str, tuple[float, float]], names) -> dict[str, float]:
    return {name: rows[name][0] / rows[name][1] - 1 for name in names}


# ---- the strategies of each set ---------------------------------------------------------------------------

def embedding_placement(inv, spec, _here) -> dict:
    """The transformer's embedding all-reduced with the rest, in a group of its own, or on the chief's server,
    with the dense variables plain, fp16 or PowerSGD (rank 2)."""
    emb = next(v.name for v in inv.variables if "embeddings" in v.name)
    chief = spec.chief.cpu_devices[0]

    def psgd(n, group=0):
        return ar_node(n, group=group, compressor="PowerSGDCompressor", powersgd_rank=2)

    def fp16(n, group=0):
        return ar_node(n, group=group, compressor="HorovodCompressor")

    def make(dense, embedding):
        return Strategy.build([embedding(v.name) if v.name == emb else dense(v.name) for v in inv.variables],
                              spec.replicas, builder=BUILDER)

    return {"ar": make(ar_node, ar_node), "ar_emb_own": make(ar_node, lambda n: ar_node(n, group=1)),
            "ar_emb_ps": make(ar_node, lambda n: ps_node(n, chief)), "psgd": make(psgd, psgd),
            "psgd_emb_plain": make(psgd, lambda n: ar_node(n, group=1)),
            "psgd_emb_ps": make(psgd, lambda n: ps_node(n, chief)), "fp16": make(fp16, fp16),
            "fp16_emb_own": make(fp16, lambda n: fp16(n, group=1))}


HEAD = ("transformer/head/kernel:0", "transformer/head/bias:0")  # ready first in the backward pass
FIRST = ("transformer/positions:0",)  # read first, ready last


def mixed_steps(inv, spec, _here) -> dict:
    """PS steps (every variable on the chief, whole or in 2 shards, or spread as ``ps_lb`` spreads them) with one
    or two small variables all-reduced."""
    chief = spec.chief.cpu_devices[0]
    spread = {n.var_name: n.PSSynchronizer.reduction_destination
              for n in build_strategy("ps_lb", inv, spec).proto.node_config}

    def make(place, shards: int = 1, reduced: tuple = ()):
        nodes = []
        for v in inv.variables:
            if v.name in reduced:
                nodes.append(ar_node(v.name))
            elif shards > 1 and v.shape and v.shape[0] >= shards:
                nodes.append(partitioned_node(v.name, v.shape, 0, [ps_node(v.name, place(v.name))] * shards))
            else:
                nodes.append(ps_node(v.name, place(v.name)))
        return Strategy.build(nodes, spec.replicas, builder=BUILDER)

    def on_chief(_name):
        return chief

    return {"ps": make(on_chief), "ps_ar_head": make(on_chief, reduced=HEAD),
            "ps_ar_first": make(on_chief, reduced=FIRST), "ps2": make(on_chief, 2),
            "ps2_ar_head": make(on_chief, 2, HEAD), "ps2_ar_first": make(on_chief, 2, FIRST),
            "ps_lb": make(spread.get), "ps_lb_ar_head": make(spread.get, reduced=HEAD)}


def ps_shards(inv, spec, _here) -> dict:
    """Every variable on one server; those with at least that many rows in 1 to 16 shards, with or without a
    proxy, on the chief or on the second node."""
    servers = [n.cpu_devices[0] for n in spec.nodes]

    def make(shards: int, *, proxy: bool = False, server: int = 0):
        nodes = []
        for v in inv.variables:
            part = ps_node(v.name, servers[server], local_replication=proxy)
            nodes.append(partitioned_node(v.name, v.shape, 0, [part] * shards)
                         if shards > 1 and v.shape and v.shape[0] >= shards else part)
        return Strategy.build(nodes, spec.replicas, builder=BUILDER)

    return {"ps": make(1), "ps2": make(2), "ps4": make(4), "ps8": make(8), "ps16": make(16),
            "ps_proxy": make(1, proxy=True), "ps16_proxy": make(16, proxy=True), "ps16_h1": make(16, server=1)}


EMBEDDING = "transformer/tokens/embeddings:0"  # sparse: its rows are gathered where each shard lives
DENSE_SPLIT = "transformer/block0/ff1/kernel:0"  # 64 x 128, for eight dense shards beside the whole embedding


def sparse_shards(inv, spec, here) -> dict:
    """The embedding in 1 to 16 shards on a parameter server, the dense variables all-reduced; and six random
    strategies a search's fidelity run measured (``strategies/``), each with the embedding on a PS."""
    servers = [n.cpu_devices[0] for n in spec.nodes]
    chief = spec.chief.cpu_devices[0]

    def make(shards: int, *, proxy: bool = False, spread: bool = False, split_dense: int = 1, server: str = chief):
        nodes = []
        for v in inv.variables:
            if v.name == EMBEDDING:
                parts = [ps_node(v.name, servers[i % len(servers)] if spread else server, local_replication=proxy)
                         for i in range(shards)]
                nodes.append(partitioned_node(v.name, v.shape, 0, parts) if shards > 1 else parts[0])
            elif v.name == DENSE_SPLIT and split_dense > 1:
                nodes.append(partitioned_node(v.name, v.shape, 0, [ps_node(v.name, chief)] * split_dense))
            else:
                nodes.append(ar_node(v.name))
        return Strategy.build(nodes, spec.replicas, builder=BUILDER)

    kept = {p.stem: Strategy.load(p) for p in sorted((here / "strategies").glob("*.pb"))}
    return {"emb1": make(1), "emb2": make(2), "emb4": make(4), "emb8": make(8), "emb16": make(16),
            "emb8_proxy": make(8, proxy=True), "emb8_spread": make(8, spread=True),
            "emb1_dense8": make(1, split_dense=8), "emb1_h2": make(1, server=servers[2]),
            "emb16_h2": make(16, server=servers[2]), **kept}


SHARDS = 4  # as calibrate's ``ps_split`` anchor


def spread_shards(inv, spec, _here) -> dict:
    """Every variable on PS, those with at least four rows in four shards: on the chief, each variable's shards on
    its own server, or each variable's shards over every server; with or without proxies."""
    servers = [n.cpu_devices[0] for n in spec.nodes]

    def make(place, *, split: bool, proxy: bool = False):
        """``place(i, j)``: the server of shard j of the i-th variable (j = 0 whole)."""
        nodes = []
        for i, v in enumerate(inv.variables):
            if split and v.shape and v.shape[0] >= SHARDS:
                parts = [ps_node(v.name, servers[place(i, j)], local_replication=proxy) for j in range(SHARDS)]
                nodes.append(partitioned_node(v.name, v.shape, 0, parts))
            else:
                nodes.append(ps_node(v.name, servers[place(i, 0)], local_replication=proxy))
        return Strategy.build(nodes, spec.replicas, builder=BUILDER)

    def chief(i, j):
        return 0

    def by_variable(i, j):  # a variable's shards on its own server
        return i % len(servers)

    def by_shard(i, j):  # a variable's shards over every server
        return (i + j) % len(servers)

    return {"ps": make(chief, split=False), "ps4": make(chief, split=True),
            "rr": make(by_variable, split=False), "rr4_own": make(by_variable, split=True),
            "rr4_spread": make(by_shard, split=True), "rr_proxy": make(by_variable, split=False, proxy=True),
            "rr4_spread_proxy": make(by_shard, split=True, proxy=True)}


# ---- what each set must keep ------------------------------------------------------------------------------

def test_the_embedding_placement_steps_predict_the_anchor_steps_exactly():
    """Eight placements of the embedding beside plain, fp16 and PowerSGD dense variables; the plain all-reduce and
    the PowerSGD strategies are the calibration's own anchor steps, which the derived costs fit exactly."""
    rows = predict_measured("embedding_placement", embedding_placement)
    assert set(rows) == {"ar", "ar_emb_own", "ar_emb_ps", "psgd", "psgd_emb_plain", "psgd_emb_ps", "fp16",
                         "fp16_emb_own"}
    _spec, _inv, cal = kept_calibration(STEPS / "embedding_placement")
    assert rows["ar"][0] == pytest.approx(cal.anchors_s["all_reduce"] * 1e3, abs=0.01)
    assert rows["psgd"][0] == pytest.approx(cal.anchors_s["powersgd"] * 1e3, abs=0.01)


def test_the_mixed_steps_predict_the_anchor_strategies_as_the_anchor_fit_does():
    """Eight PS steps with a small variable or two all-reduced; ``ps`` and ``ps_lb`` are the calibration's own
    anchor strategies, so they are predicted as the calibration's anchor fit predicts them, with the costs this
    checkout derives."""
    rows = predict_measured("mixed_steps", mixed_steps)
    assert set(rows) == {"ps", "ps_ar_head", "ps_ar_first", "ps2", "ps2_ar_head", "ps2_ar_first", "ps_lb",
                         "ps_lb_ar_head"}
    spec, inv, cal = kept_calibration(STEPS / "mixed_steps")
    fit = anchor_fit(cal.replace(residual=None), inv, spec)
    for name in ("ps", "ps_lb"):
        assert rows[name][0] == pytest.approx(fit[name][1] * 1e3, abs=0.01)


def test_the_embedding_split_on_one_server_is_predicted_as_measured():
    """Sixteen strategies; the embedding on one server in 1 to 16 shards, the dense variables all-reduced,
    measured 47-53 ms. Scaling the staggering a step loses by its largest tensor's share of the PS bytes
    predicted the whole table 16% slow and 8 or 16 shards 7-11% fast, so this fails for a model that brings that
    rule back."""
    rows = predict_measured("sparse_shards", sparse_shards)
    assert len(rows) == 16 and {"r126_random6", "r127_random13"} <= set(rows)
    split = errors(rows, ["emb1", "emb2", "emb4", "emb8", "emb16", "emb1_h2", "emb16_h2"])
    assert all(abs(e) < 0.10 for e in split.values()), split


def test_the_split_ps_steps_on_one_server_are_predicted_as_measured():
    """The transformer's ``ps`` step with every variable in 1, 2, 4 or 8 shards on one server grows as one shard's
    cost from the ``ps_split`` pair says (within 2%); charging the split steps less lost staggering predicted them
    5% and 8% fast whole and in 2 shards, so this fails for a model that makes a step's staggering depend on its
    shards again."""
    rows = predict_measured("ps_shards", ps_shards)
    assert set(rows) == {"ps", "ps2", "ps4", "ps8", "ps16", "ps_proxy", "ps16_proxy", "ps16_h1"}
    split = errors(rows, ["ps", "ps2", "ps4", "ps8"])
    assert all(abs(e) < 0.04 for e in split.values()), split


def test_the_spread_ps_shards_are_predicted_within_their_noise():
    """The ``ps`` step whole and in 4 shards on one server, and in 4 shards with the variables spread over the
    three servers (each variable's shards on its server, or spread too), predicted within 6% by the shard cost of
    the ``ps_split`` pair; the whole spread step, ``rr``, 29% slow (the floor of replicas sharing CPUs), stays
    out, so this fails for a change that prices the spread shards up without mending that floor (9-12% slow) or
    that breaks the one-server pair."""
    rows = predict_measured("spread_shards", spread_shards)
    assert set(rows) == {"ps", "ps4", "rr", "rr4_own", "rr4_spread", "rr_proxy", "rr4_spread_proxy"}
    split = errors(rows, ["ps", "ps4", "rr4_own", "rr4_spread"])
    assert all(abs(e) < 0.06 for e in split.values()), split
