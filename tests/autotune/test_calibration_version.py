"""A calibration derived by another version of the cost model: its anchor costs are derived again from the anchor
steps it stored, where ``search`` and ``validate-simulator`` use it, and said so; one this version derived is used as
stored."""
from __future__ import annotations

import json

import pytest
from testpaths import CLUSTERS, MODELS

from autotune.calibration import current_costs
from autotune.cli import main
from simulator import COST_MODEL_VERSION, Calibration, Scorer, calibration_path
from space.builders import build_strategy

# an mlp calibration as an older version left it: 5 more collectives cost 10 ms on the anchor steps, 2 ms each,
# where the stored constant says 50 ms
ANCHORS = {"all_reduce": 0.1, "ar_groups": 0.11}


def _old(spec, **fields):
    return Calibration.from_spec(spec, collective_overhead_s=0.05, anchors_s=ANCHORS, **fields)


def test_an_older_derivation_is_derived_again_from_its_anchor_steps(inventories, clusters):
    from simulator import anchor_costs

    inv, spec = inventories("mlp"), clusters["localhost"]
    lines = []
    old = _old(spec)  # one file: two would differ in their creation time when a second passes between them
    new = current_costs(old, inv, spec, lines.append)
    assert new.cost_model == COST_MODEL_VERSION and new.collective_overhead_s == pytest.approx(0.002)
    assert new == anchor_costs(old, inv, spec)
    assert len(lines) == 1 and "derived by cost model 1" in lines[0]
    assert "collective_overhead_s 0.05 -> 0.002" in lines[0]
    assert "residual" not in lines[0]
    assert "ps_serial_fraction" not in lines[0]  # no ps anchor step: nothing moved
    # derived again from its own costs, a file moves by the solver's tolerance only: the line says nothing moved
    lines.clear()
    current_costs(new.replace(cost_model=None), inv, spec, lines.append)
    assert "none moved by more than 0.1%" in lines[0]
    # derived by this version: used as stored, silently (even where a stored cost disagrees with the steps)
    lines.clear()
    stored = _old(spec, cost_model=COST_MODEL_VERSION)
    assert current_costs(stored, inv, spec, lines.append) is stored and not lines
    # nothing to derive from: used as stored
    bare = Calibration.from_spec(spec, collective_overhead_s=0.05)
    assert current_costs(bare, inv, spec, lines.append) is bare and not lines


def test_a_residual_is_kept_and_the_line_says_how_to_fit_it_again(inventories, clusters):
    inv, spec = inventories("mlp"), clusters["localhost"]
    residual = {"intercept": 0.001, "compute": 1.0, "comm": 0.9, "latency": 0.0, "pieces": 0.0, "collectives": 0.0}
    lines = []
    new = current_costs(_old(spec, residual=residual), inv, spec, lines.append)
    assert new.residual == residual and "--reuse RUN_DIR --fit-residual" in lines[0]


def test_calibrate_records_the_version_that_derived_its_costs(inventories, clusters):
    from simulator import anchor_costs

    inv, spec = inventories("mlp"), clusters["localhost"]
    assert anchor_costs(_old(spec), inv, spec).cost_model == COST_MODEL_VERSION
    assert anchor_costs(Calibration.from_spec(spec), inv, spec).cost_model is None  # no anchor steps, nothing derived


def test_search_predicts_with_the_costs_this_version_derives(tmp_path, cache_dir, inventories, clusters, capsys):
    inv, spec = inventories("mlp"), clusters["localhost"]
    path = _old(spec).save(tmp_path / "old.json")
    out = tmp_path / "o"
    assert main(["search", "--model", str(MODELS / "mlp.py"), "--spec", str(CLUSTERS / "localhost.yml"), "-o",
                 str(out), "--cache-dir", str(cache_dir), "--calibration", str(path), "--simulate-only",
                 "--trials", "20"]) == 0
    err = capsys.readouterr().err
    assert "warning: calibration" in err and "collective_overhead_s 0.05 -> 0.002" in err
    # the all-reduce builder, one of the first trials: 2 ms per collective, not 50
    records = [json.loads(line) for line in (out / "simulated.jsonl").read_text().splitlines()]
    predicted = next(r["predicted_s"] for r in records if "all_reduce" in (r["builders"] or []))
    now, then = (Scorer(inv, spec, c).predict(build_strategy("all_reduce", inv, spec)).step_time_s
                 for c in (current_costs(_old(spec), inv, spec, print), _old(spec)))
    assert predicted == pytest.approx(now) and abs(now - then) > 0.01
    assert json.loads(path.read_text()).get("cost_model") is None  # the file itself is left as it was


def test_reuse_with_fit_residual_stores_the_fit_with_the_derived_costs(tmp_path, inventories, clusters, capsys):
    from autotune import fidelity
    from autotune.fidelity import _io as fidelity_io

    inv, spec = inventories("mlp"), clusters["localhost"]
    picked = fidelity.pick_strategies(inv, spec, 8, seed=0)
    files = fidelity_io.save_strategies(picked, tmp_path / "run")
    truth = Scorer(inv, spec, Calibration.from_spec(spec))
    report = fidelity.run_validation(picked, truth, lambda s: (1.5 * truth.predict(s).step_time_s + 0.01,) * 3,
                                     files=files)
    fidelity_io.write_outputs(report, tmp_path / "run")
    where = calibration_path(tmp_path / "cache" / "calibration", spec)
    _old(spec).save(where)
    assert main(["validate-simulator", "--model", str(MODELS / "mlp.py"), "--spec", str(CLUSTERS / "localhost.yml"),
                 "--reuse", str(tmp_path / "run"), "--fit-residual", "--cache-dir", str(tmp_path / "cache"),
                 "-o", str(tmp_path / "again")]) == 0
    assert "stored the residual" in capsys.readouterr().err
    stored = Calibration.load(where, spec)
    assert stored.residual is not None and stored.cost_model == COST_MODEL_VERSION
    assert stored.collective_overhead_s == pytest.approx(0.002)
    # the report holds the calibration's own anchor steps as the derived costs predict them
    summary = json.loads((tmp_path / "again" / "summary.json").read_text())
    assert {k: t for k, (t, _) in summary["anchor_fit"].items()} == ANCHORS
    predicted = Scorer(inv, spec, stored.replace(residual=None)).predict(build_strategy("all_reduce", inv, spec))
    assert summary["anchor_fit"]["all_reduce"][1] == pytest.approx(predicted.raw_step_time_s)
    assert "calibration's anchor steps: all_reduce 100.00 predicted" in (tmp_path / "again" / "table.txt").read_text()


def test_search_predicts_with_the_stored_residual_and_says_whether_there_is_one(tmp_path, cache_dir, inventories,
                                                                             clusters, capsys):
    inv, spec = inventories("mlp"), clusters["localhost"]
    bare = Calibration.from_spec(spec)
    raw = Scorer(inv, spec, bare).predict(build_strategy("all_reduce", inv, spec)).step_time_s
    shifted = {"intercept": 0.05, "compute": 1.0, "comm": 1.0, "latency": 0.0, "pieces": 0.0, "collectives": 0.0}
    for residual, expected, line in ((shifted, raw + 0.05, "include the residual correction"),
                                     (None, raw, "holds no residual correction")):
        path = bare.replace(residual=residual).save(tmp_path / f"cal-{residual is None}.json")
        out = tmp_path / f"o-{residual is None}"
        assert main(["search", "--model", str(MODELS / "mlp.py"), "--spec", str(CLUSTERS / "localhost.yml"), "-o",
                     str(out), "--cache-dir", str(cache_dir), "--calibration", str(path), "--simulate-only",
                     "--trials", "20"]) == 0
        assert line in capsys.readouterr().err
        records = [json.loads(x) for x in (out / "simulated.jsonl").read_text().splitlines()]
        predicted = next(r["predicted_s"] for r in records if "all_reduce" in (r["builders"] or []))
        assert predicted == pytest.approx(expected)
