"""``--reuse``: a fidelity run saved to disk (strategies, rows.csv) is read back and predicted again, with the
calibration's anchor steps and stored residual; no cluster."""
from __future__ import annotations

import csv
import math

import pytest

from autotune import fidelity
from autotune.fidelity import _io as fidelity_io
from autotune.cli import main
from fidelity_support import LOCAL, MLP, rows as _rows


def _saved_run(tmp_path, inv, spec, scorer, n=6):
    """A fake-profiled run written like the CLI writes it: strategies/<label>.pb beside rows.csv."""
    picked = fidelity.pick_strategies(inv, spec, n, seed=0)
    out = tmp_path / "run"
    files = fidelity_io.save_strategies(picked, out)
    report = fidelity.run_validation(picked, scorer, lambda s: (2.0 * scorer.predict(s).step_time_s,) * 3,
                                     files=files)
    report.rows[1].measured_s, report.rows[1].error = math.nan, "step hung"
    fidelity_io.write_outputs(report, out)
    return picked, out


def test_reuse_predicts_saved_strategies_again_with_their_measurements(tmp_path, inventories, clusters):
    from simulator import Calibration, Scorer

    inv, spec = inventories("mlp"), clusters["localhost"]
    scorer = Scorer(inv, spec, Calibration.from_spec(spec))
    picked, out = _saved_run(tmp_path, inv, spec, scorer)
    assert sorted(p.name for p in (out / "strategies").iterdir()) == sorted(f"{label}.pb" for label, _ in picked)
    again, measured = fidelity_io.load_measured(out)
    assert [label for label, _ in again] == [label for label, _ in picked] and again[0][1] == picked[0][1]
    assert measured[1].error == "step hung" and not measured[1].ok
    faster = Scorer(inv, spec, Calibration.from_spec(spec, node_bandwidth_gbit={n.address: 100.0
                                                                                for n in spec.nodes}))
    report = fidelity.repredict(faster, again, measured)
    assert report.metrics["n"] == len(picked) - 1  # the failed row stays out
    for r, (_, s) in zip(report.rows, again):
        assert r.predicted_s == pytest.approx(faster.predict(s).step_time_s)
        assert r.strategy_file == f"strategies/{r.label}.pb"
    assert [r.measured_s for r in report.rows if r.ok] == [m.measured_s for m in measured if m.ok]


def test_reuse_without_saved_strategies_is_a_bad_input(tmp_path):
    rows = _rows([0.1, 0.2], [0.1, 0.2])
    fidelity_io.write_outputs(fidelity.evaluate(rows), tmp_path / "old")
    with pytest.raises(fidelity.BadInput, match="no saved strategy file"):
        fidelity_io.load_measured(tmp_path / "old")
    with pytest.raises(fidelity.BadInput, match="no rows.csv"):
        fidelity_io.load_measured(tmp_path / "nothing")


def test_reuse_cli_needs_no_cluster(tmp_path, capsys, inventories, clusters):
    from simulator import Calibration, Scorer, calibration_path

    inv, spec = inventories("mlp"), clusters["localhost"]
    cal = Calibration.from_spec(spec)
    _, out = _saved_run(tmp_path, inv, spec, Scorer(inv, spec, cal))
    cal.save(calibration_path(tmp_path / "cache" / "calibration", spec))
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "again"), "--quiet"])
    assert code == 0 and "Kendall tau" in capsys.readouterr().out
    assert (tmp_path / "again" / "rows.csv").is_file() and (tmp_path / "again" / "strategies").is_dir()
    code = main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "-o", str(out), "--quiet"])
    assert code == 2 and "overwrite" in capsys.readouterr().err


def test_reuse_derives_the_anchor_costs_again_from_the_stored_anchor_steps(tmp_path, capsys, inventories, clusters):
    """A calibration keeps its anchor steps, so --reuse after a cost-model change derives the per-collective cost
    and the all-reduce factor (and the others) as the current model does, instead of trusting the constants stored
    by an older one."""
    from simulator import Calibration, Scorer, anchor_costs, calibration_path

    inv, spec = inventories("mlp"), clusters["localhost"]
    stale = Calibration.from_spec(spec, collective_overhead_s=0.05,
                                  anchors_s={"all_reduce": 0.1, "ar_groups": 0.1 + 5 * 0.002})  # 6 groups vs 1
    _, out = _saved_run(tmp_path, inv, spec, Scorer(inv, spec, stale))
    stale.save(calibration_path(tmp_path / "cache" / "calibration", spec))
    assert main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
                 "--cache-dir", str(tmp_path / "cache"), "-o", str(tmp_path / "again")]) == 0
    assert "2.000 ms per collective" in capsys.readouterr().err
    now = Scorer(inv, spec, anchor_costs(stale, inv, spec))
    assert now.calibration.collective_overhead_s == pytest.approx(0.002)
    # a 100 ms all-reduce step on loopback is slower than any factor explains: the factor's floor, not the stored 1
    assert now.calibration.collective_bandwidth_factor == pytest.approx(0.05) != stale.collective_bandwidth_factor
    picked, _ = fidelity_io.load_measured(out)
    rows = {r["label"]: float(r["predicted_s"]) for r in csv.DictReader(open(tmp_path / "again" / "rows.csv"))}
    assert all(rows[label] == pytest.approx(now.predict(s).step_time_s) for label, s in picked)
    assert any(now.predict(s).step_time_s != pytest.approx(Scorer(inv, spec, stale).predict(s).step_time_s)
               for _, s in picked)


def test_a_stored_residual_is_used_and_the_raw_model_reported_too(tmp_path, capsys, inventories, clusters):
    from simulator import Calibration, Scorer, calibration_path

    inv, spec = inventories("mlp"), clusters["localhost"]
    cal = Calibration.from_spec(spec)
    _, out = _saved_run(tmp_path, inv, spec, Scorer(inv, spec, cal))
    shifted = dict(intercept=0.05, compute=1.0, comm=1.0, latency=0.0, pieces=0.0, collectives=0.0)
    cal.replace(residual=shifted).save(calibration_path(tmp_path / "cache" / "calibration", spec))
    args = ["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
            "--cache-dir", str(tmp_path / "cache"), "--quiet"]
    assert main(args + ["-o", str(tmp_path / "with")]) == 0
    assert "without the residual" in capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "with" / "rows.csv")))
    assert all(float(r["predicted_s"]) == pytest.approx(float(r["raw_s"]) + 0.05) for r in rows)
    assert main(args + ["--fit-residual", "-o", str(tmp_path / "fit")]) == 0  # a new fit starts from the raw model
    assert "without the residual" not in capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "fit" / "rows.csv")))
    assert all(float(r["predicted_s"]) == pytest.approx(float(r["raw_s"])) for r in rows)


def test_reuse_fits_the_residual_again_on_the_split_the_run_drew(tmp_path, capsys, inventories, clusters):
    """A run's journal records its seed, and with it the 70/30 split its residual was fitted on; ``--reuse
    --fit-residual`` takes that seed unless ``--seed`` is given, so re-fitting an old run reproduces its split."""
    from simulator import Calibration, Scorer, calibration_path

    inv, spec = inventories("mlp"), clusters["localhost"]
    cal = Calibration.from_spec(spec)
    scorer = Scorer(inv, spec, cal)
    picked = fidelity.pick_strategies(inv, spec, 12, seed=7)
    out = tmp_path / "run"
    journal = fidelity.MeasurementJournal(out / "measurements.jsonl", fidelity.journal_header(picked, seed=7))
    report = fidelity.run_validation(picked, scorer, lambda s: (1.3 * scorer.predict(s).step_time_s,) * 3,
                                     files=fidelity_io.save_strategies(picked, out), journal=journal)
    fidelity_io.write_outputs(report, out)
    cal.save(calibration_path(tmp_path / "cache" / "calibration", spec))
    assert fidelity_io.recorded_seed(out) == 7
    own, zero = (list(fidelity.split_holdout(len(picked), 0.3, s)) for s in (7, 0))
    assert own != zero  # else the test could not tell the two seeds apart

    def split(*extra):
        again = tmp_path / f"again{len(extra)}"
        assert main(["validate-simulator", "--model", str(MLP), "--spec", str(LOCAL), "--reuse", str(out),
                     "--fit-residual", "--cache-dir", str(tmp_path / "cache"), "-o", str(again), *extra]) == 0
        return [r["split"] == "holdout" for r in csv.DictReader(open(again / "rows.csv"))], capsys.readouterr().err

    held, err = split()
    assert held == own and "splitting with the seed" in err and ": 7" in err
    held, err = split("--seed", "0")
    assert held == zero and "not the seed 7" in err


def test_recorded_seed_is_none_without_a_readable_journal(tmp_path):
    assert fidelity_io.recorded_seed(tmp_path) is None
    (tmp_path / "measurements.jsonl").write_text("not json\n")
    assert fidelity_io.recorded_seed(tmp_path) is None
    (tmp_path / "measurements.jsonl").write_text('{"journal": 1, "seed": true}\n')
    assert fidelity_io.recorded_seed(tmp_path) is None
    (tmp_path / "measurements.jsonl").write_text('{"journal": 1, "seed": 3}\n{"key": [0], "steps": [[1.0]]}\n')
    assert fidelity_io.recorded_seed(tmp_path) == 3


def test_the_step_by_part_table_measures_a_traced_strategys_parts(tmp_path, inventories, clusters):
    """``parts_table``: every measured strategy's predicted parts beside its measured step; a strategy with a trace
    summary in ``traces/`` gets its measured parts from it."""
    import json

    from autotune.fidelity._pipeline import parts_table
    from runners._step_stats import StepParts, TaskTime, TraceSummary
    from runners._trace import TRACES, trace_paths
    from simulator import Calibration, Scorer

    inv, spec = inventories("mlp"), clusters["localhost"]
    scorer = Scorer(inv, spec, Calibration.from_spec(spec))
    picked, out = _saved_run(tmp_path, inv, spec, scorer)
    report = fidelity.repredict(scorer, *fidelity_io.load_measured(out))
    traced = report.rows[0]
    path = trace_paths(out / TRACES, traced.strategy_id)[1]
    path.parent.mkdir()
    summary = TraceSummary(steps=3, step_s=1.0, tasks=(TaskTime("127.0.0.1", 1.0, 0.6, {}, 0.4),), links=(),
                           step=StepParts(1.0, 0.5, 0.4, 0.1))  # shares of the timed step: compute 0.6 of it
    path.write_text(json.dumps(summary.to_dict()))
    lines = parts_table(report, scorer, out).splitlines()
    shown = {line.split()[0] for line in lines[1:-1]}
    assert shown == {r.label[:28] for r in report.rows if r.ok}
    compute = [line for line in lines if line.startswith(traced.label[:28]) and " compute " in line]
    assert compute and compute[0].split()[3] == f"{0.6 * traced.measured_s * 1e3:.3f}"
