"""Plans that fit: the simulated stage prunes what does not fit a node's memory before scoring it (builders marked,
not dropped), refuses in one line when nothing fits, and train refuses such a strategy unless told to ignore it."""
from __future__ import annotations

import math
import re

import pytest

import optuna

from autotune import api
from autotune._fits import node_table
from autotune.tuner import SearchConfig
from autotune.tuner import _study
from autotune.tuner._journal import Journal
from autotune.tuner._pipeline import make_space
from autotune.tuner._progress import Progress
from autotune.tuner._simulated import simulate
from simulator import Calibration, Scorer
from space.cluster import ClusterSpec
from space.errors import BadInput
from space.inventory import Inventory
from space.strategy import Strategy, ar_node, ps_node

optuna.logging.set_verbosity(optuna.logging.WARNING)

# a 1 GB embedding table (sparse: a step touches 64 rows) and a small dense layer
INV = Inventory.synthetic([("emb", (1_000_000, 250)), ("dense", (250, 16))], sparse=["emb"], batch_size=64,
                          flops_per_step=1e8)


def _spec(memory: str) -> ClusterSpec:
    return ClusterSpec.from_dict({"nodes": [{"address": a, "chief": a.endswith(".1"), "memory": memory}
                                            for a in ("10.1.0.1", "10.1.0.2")]})


def _stage(tmp_path, spec, trials=90):
    space = make_space(INV, spec)
    cfg = SearchConfig(model="m.py", spec="c.yml", output=tmp_path, trials=trials, seed=0)
    return simulate(space, Scorer(INV, spec, Calibration.from_spec(spec)), _study.distributions(space),
                    Journal(tmp_path / "sim.jsonl"), cfg, multi=False, progress=Progress(False, print))


def test_the_stage_prunes_what_does_not_fit_before_scoring_and_marks_builders(tmp_path):
    spec = _spec("2GB")  # 1.5 GB a node: one copy of the table fits, two (a copy and its all-reduced sum) do not
    stage = _stage(tmp_path, spec)
    misfits = [r for r in stage.records if r.get("memory")]
    assert misfits and all(r["state"] == "pruned" and r["predicted_s"] == math.inf for r in misfits)
    assert misfits[0]["memory"]["why"].startswith("needs ") and "has 1.5 GB" in misfits[0]["memory"]["why"]
    scorer = Scorer(INV, spec, Calibration.from_spec(spec))
    done = [c for c in stage.candidates()]
    assert done and all(scorer.memory(c.strategy).misfit(spec) is None for c in done)
    builders = {"+".join(c.builders): c for c in stage.builder_candidates()}
    assert re.match(r"needs [\d.]+ GB on 10\.1\.0\.1", builders["all_reduce_ring"].skipped)  # in the table, marked
    assert builders["ps"].skipped == "" and builders["ps"].predicted_s < math.inf
    assert any(not c.skipped for c in builders.values())
    stage.check_fits()  # something fits: no refusal


def test_nothing_fits_is_one_line_with_the_smallest_need(tmp_path):
    stage = _stage(tmp_path, _spec("0.9GB"), trials=70)  # 400 MB a node, for a 1 GB table
    assert not stage.candidates()
    with pytest.raises(BadInput, match=r"no strategy fits the nodes' memory: the one nearest needs [\d.]+ [MG]B on "
                                       r"10\.1\.0\.\d, has 400 MB") as info:
        stage.check_fits()
    assert "\n" not in str(info.value) and "hint: give the nodes more `memory:`" in str(info.value)


def test_without_memory_in_the_spec_nothing_is_pruned_for_it(tmp_path):
    spec = ClusterSpec.from_dict({"nodes": [{"address": "10.1.0.1", "chief": True}, {"address": "10.1.0.2"}]})
    assert not any(r.get("memory") for r in _stage(tmp_path, spec, trials=30).records)


class _Started(Exception):
    """Raised where the job would go on to start the cluster."""


def _train(monkeypatch, strategy: Strategy, spec: ClusterSpec, **options):
    monkeypatch.setattr(api, "prepare", lambda model, spec_path, strategy_path: (object(), strategy, spec))
    monkeypatch.setattr(api, "inventory_from_trace", lambda traced: INV)

    def started(*args, **kwargs):
        raise _Started

    monkeypatch.setattr(api, "measured_steps_per_call", started)
    return api.train("m.py", "c.yml", "s.pb", 1, **options)


def _all_reduce() -> Strategy:
    return Strategy.build([ar_node("emb"), ar_node("dense")], ["10.1.0.1:CPU:0", "10.1.0.2:CPU:0"])


def test_train_refuses_a_strategy_that_does_not_fit_in_one_line(monkeypatch):
    with pytest.raises(BadInput) as info:
        _train(monkeypatch, _all_reduce(), _spec("2GB"))
    line = info.value.line()
    assert line.startswith("the strategy does not fit the nodes' memory: it needs ") and "on 10.1.0.1" in line
    assert ", s.pb; hint: " in line and "--ignore-memory" in line and "\n" not in line


def test_train_starts_it_with_ignore_memory_and_a_strategy_that_fits_without(monkeypatch):
    with pytest.raises(_Started):
        _train(monkeypatch, _all_reduce(), _spec("2GB"), ignore_memory=True)
    fits = Strategy.build([ps_node("emb", "10.1.0.2:CPU:0"), ps_node("dense", "10.1.0.1:CPU:0")],
                          ["10.1.0.1:CPU:0", "10.1.0.2:CPU:0"])
    with pytest.raises(_Started):
        _train(monkeypatch, fits, _spec("2GB"))


def test_the_train_command_takes_ignore_memory():
    from autotune.cli import build_parser

    args = build_parser().parse_args(["train", "--model", "m.py", "--spec", "c.yml", "--strategy", "s.pb", "--steps",
                                      "1", "--ignore-memory"])
    assert args.ignore_memory is True


def test_show_lists_memory_per_node_beside_the_bytes_on_the_wire():
    table = node_table(INV, _spec("2GB"), _all_reduce()).splitlines()
    assert table[0].split() == ["node", "memory", "has", "sent/step", "received/step"]
    assert table[2].startswith("10.1.0.1 (does not fit)") and "1.5 GB" in table[2]


def test_the_table_marks_a_builder_that_does_not_fit(tmp_path):
    import types

    from autotune.tuner._output import summary_rows

    stage = _stage(tmp_path, _spec("2GB"), trials=30)
    shown = stage.builder_candidates()
    winner = min(shown, key=lambda c: c.predicted_s)
    rows = {r["strategy"].rstrip(" *"): r for r in summary_rows(types.SimpleNamespace(
        candidates=shown, winner=winner, lower_bound_s=0.0))}
    assert rows["all_reduce_ring"]["measured_ms"] == "does not fit"
    assert re.match(r"needs [\d.]+ GB on 10\.1\.0\.1", rows["all_reduce_ring"]["memory"])
    assert rows["all_reduce_ring"]["predicted_ms"] == "-" and rows["ps"]["memory"] == "-"
