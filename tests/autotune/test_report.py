"""``autotune report`` (tables and four figures from a real search's output directory or its SQLite study) and
``autotune compare`` (strategies side by side on the local cluster)."""
from __future__ import annotations

import json
import math
import struct

import pandas as pd
import pytest

from autotune.cli import main
from autotune.report import FIGURES
from testpaths import CLUSTERS, MODELS
from space import builders

MODEL, SPEC = str(MODELS / "recommender.py"), str(CLUSTERS / "localhost.yml")


def png_size(path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def search_dir(tmp_path_factory, cache_dir):
    """A tiny simulated-only search, run through the CLI (real SQLite study)."""
    out = tmp_path_factory.mktemp("search")
    code = main(["search", "--model", MODEL, "--spec", SPEC, "-o", str(out), "--simulate-only", "--trials", "40",
                 "--reduced", "yes", "--quiet", "--cache-dir", str(cache_dir)])
    assert code == 0
    return out


class FakeProfiler:
    """Stands in for the cluster: a deterministic 'measurement' of 1.5x the strategy's size in kB, in ms."""

    def __init__(self, inventory, cluster, cfg):
        pass

    def __enter__(self):
        return self

    def profile(self, strategy):
        from autotune.tuner._measurement import Measurement

        t = 1e-3 * (1 + (len(strategy.to_bytes()) % 97) / 10)
        return Measurement(median_s=t, p10_s=0.9 * t, p90_s=1.2 * t, examples_per_s=128 / t)

    def __exit__(self, *exc):
        return None


@pytest.fixture(scope="module")
def profiled_dir(tmp_path_factory, cache_dir):
    """A search whose profiling stage measured its candidates (with a fake profiler: no servers)."""
    from autotune.tuner import SearchConfig, run_search

    out = tmp_path_factory.mktemp("profiled")
    cfg = SearchConfig(model=MODEL, spec=SPEC, output=out, trials=30, top_k=3, reduced=True, cache_dir=str(cache_dir))
    run_search(cfg, profiler_factory=FakeProfiler, progress=False, out=lambda _m: None)
    return out




def test_search_writes_its_own_figures(search_dir):
    for name in ("step_times.png", "convergence.png"):
        assert png_size(search_dir / name)[0] > 300


def test_report_on_output_dir_writes_tables_and_four_figures(search_dir, run, tmp_path, cache_dir):
    code, out, err = run("report", search_dir, "-o", tmp_path, "--cache-dir", cache_dir)
    assert code == 0, err
    for name in FIGURES:
        w, h = png_size(tmp_path / name)
        assert w >= 500 and h >= 250, (name, w, h)
    summary = json.loads((search_dir / "summary.json").read_text())
    cand = pd.read_csv(tmp_path / "candidates.csv")
    assert cand["strategy"].iloc[0] == summary["winner"] + " *"
    assert {"ps", "all_reduce", "parallax"} <= {s.split("+")[0] for s in cand["strategy"]}
    trials = pd.read_csv(tmp_path / "trials.csv")
    assert len(trials) == summary["simulated_trials"] == 40
    assert (tmp_path / "trials.md").read_text().startswith("| trial | state |")
    assert f"winner {summary['winner']}" in out and "note: predicted_vs_measured.png: 0 measured" in out


def test_speedup_and_lower_bound_columns(search_dir, tmp_path, run, cache_dir):
    run("report", search_dir, "-o", tmp_path, "--cache-dir", cache_dir)
    summary = json.loads((search_dir / "summary.json").read_text())
    trials = pd.read_csv(tmp_path / "trials.csv", keep_default_na=False, na_values=[""])
    builders = trials[trials["builders"].notna()]
    best_builder = builders["predicted_ms"].min()
    row = trials.iloc[-1]
    assert row["speedup_vs_best_builder"] == pytest.approx(best_builder / row["predicted_ms"], rel=1e-2)
    assert row["x_lower_bound"] == pytest.approx(row["predicted_ms"] / (summary["lower_bound_s"] * 1e3), rel=1e-2)
    assert set(trials["basis"]) == {"predicted"}


def test_report_from_storage_and_study(search_dir, run, tmp_path, cache_dir):
    summary = json.loads((search_dir / "summary.json").read_text())
    code, out, err = run("report", "--storage", summary["storage"], "--study", summary["study_name"], "-o", tmp_path,
                         "--cache-dir", cache_dir)
    assert code == 0, err
    assert all(png_size(tmp_path / name)[0] > 300 for name in FIGURES)
    cand = pd.read_csv(tmp_path / "candidates.csv")
    from_dir = [r["strategy"] for r in summary["rows"]]
    assert sorted(cand["strategy"].str.removesuffix(" *")) == sorted(s.removesuffix(" *") for s in from_dir)
    assert cand["strategy"].iloc[0] == summary["winner"] + " *"
    assert f"study '{summary['study_name']}'" in out


def test_report_with_measurements_uses_them(profiled_dir, run, tmp_path, cache_dir):
    code, out, err = run("report", profiled_dir, "-o", tmp_path, "--cache-dir", cache_dir)
    assert code == 0, err
    cand = pd.read_csv(tmp_path / "candidates.csv")
    measured = cand[cand["measured_ms"].notna()]
    assert len(measured) >= 2 and set(measured["basis"]) == {"measured"}
    best_builder = measured[measured["kind"] == "builder"]["measured_ms"].min()
    top = measured.iloc[0]
    assert top["speedup_vs_best_builder"] == pytest.approx(best_builder / top["measured_ms"], rel=1e-2)
    assert not math.isnan(top["p10_ms"]) and "note: predicted_vs_measured" not in out


def test_report_draws_each_measured_step_by_part(profiled_dir, run, tmp_path, cache_dir):
    entries = json.loads((profiled_dir / "parts.json").read_text())
    code, out, err = run("report", profiled_dir, "-o", tmp_path, "--cache-dir", cache_dir)
    assert code == 0, err
    parts = pd.read_csv(tmp_path / "parts.csv")
    assert set(parts["strategy"]) == {e["label"] for e in entries}
    steps = parts[parts["part"] == "step"].set_index("strategy")["measured_ms"]
    assert steps.to_dict() == pytest.approx({e["label"]: e["measured_s"] * 1e3 for e in entries})
    assert png_size(tmp_path / "parts.png")[0] >= 500 and "step by part" in out


def test_report_takes_measured_parts_from_a_trace(profiled_dir, run, tmp_path, cache_dir):
    """A trace summary beside the search's parts (as --trace-top writes it) fills the measured parts of its
    strategy, and only of its strategy."""
    import shutil

    from runners._step_stats import LinkTime, StepParts, TaskTime, TraceSummary
    from runners._trace import TRACES, trace_paths

    search = tmp_path / "search"
    shutil.copytree(profiled_dir, search)
    entry = json.loads((search / "parts.json").read_text())[0]
    a, b = entry["breakdown"]["links"][0]["src"], entry["breakdown"]["links"][0]["dst"]
    summary = TraceSummary(steps=3, step_s=2e-3, tasks=(TaskTime(a, 1.5e-3, 1e-3, {f"{b} -> {a}": 3e-4}, 2e-4),),
                           links=(LinkTime(a, b, 6e-4, 1e5, wire_s=4e-4, latency_s=1e-4, transfers=2),),
                           step=StepParts(1.3e-3, 8e-4, 3e-4, 2e-4))
    chrome, path, _ = trace_paths(search / TRACES, entry["strategy_id"])
    path.parent.mkdir()
    path.write_text(json.dumps(summary.to_dict()))
    lanes = [{"ph": "M", "name": "process_name", "pid": k, "args": {"name": f"/job:worker/replica:0/task:{k}"}}
             for k in (0, 1)]
    ops = [{"ph": "X", "name": "MatMul", "pid": k, "tid": 0, "ts": 10 * k, "dur": 5, "args": {"op": "MatMul"}}
           for k in (0, 1)]
    chrome.write_text(json.dumps({"traceEvents": lanes + ops}))
    code, _, err = run("report", search, "-o", tmp_path / "report", "--cache-dir", cache_dir)
    assert code == 0, err
    parts = pd.read_csv(tmp_path / "report" / "parts.csv").set_index(["strategy", "part"])
    share = entry["measured_s"] * 1e3 / 1.3  # the traced step's parts as shares of the timed one
    assert parts.loc[(entry["label"], "compute"), "measured_ms"] == pytest.approx(1.0 * share)
    assert parts.loc[(entry["label"], "comm"), "measured_ms"] == pytest.approx(0.3 * share)
    assert parts.loc[(entry["label"], f"busiest link {a}->{b}"), "measured_ms"] == pytest.approx(0.4)
    assert png_size(tmp_path / "report" / f"trace-{chrome.name.removesuffix('.trace.json')}.png")[0] >= 500
    others = parts.drop(index=entry["label"], level=0)
    assert others.xs("compute", level=1)["measured_ms"].isna().all()


def test_not_a_search_dir_is_one_line_exit_2(run, tmp_path):
    (tmp_path / "trials.csv").write_text("a,b\n1,2\n")
    code, out, err = run("report", tmp_path)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: not a search output directory")


def test_unknown_study_lists_the_known_ones(search_dir, run):
    summary = json.loads((search_dir / "summary.json").read_text())
    code, _, err = run("report", "--storage", summary["storage"], "--study", "no-such-study")
    assert code == 2 and err.count("\n") == 1 and summary["study_name"] in err


def test_dir_and_study_together_is_rejected(search_dir, run):
    code, _, err = run("report", search_dir, "--storage", "sqlite:///x.db", "--study", "x")
    assert code == 2 and err.startswith("error: give either DIR or --storage")


@pytest.mark.slow
def test_compare_two_strategies_on_local_cluster(inventories, clusters, tmp_path, capsys):
    paths = [builders.build_strategy(a, inventories("recommender"), clusters["localhost"]).save(tmp_path / f"{a}.pb")
             for a in ("ps", "all_reduce")]
    code = main(["compare", *map(str, paths), "--model", str(MODELS / "recommender.py"),
                 "--spec", str(CLUSTERS / "localhost.yml"), "--repeats", "2", "--steps", "4", "--warmup", "1",
                 "-o", str(tmp_path / "cmp")])
    out, err = capsys.readouterr()
    assert code == 0, err
    order = [line.split()[2].rstrip(":") for line in err.splitlines() if line.startswith("repeat ")]
    assert order == ["ps", "all_reduce", "all_reduce", "ps"]  # the second repeat starts one strategy later
    table = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert list(table["strategy"]) == ["ps", "all_reduce"] and list(table["repeats"]) == [2, 2]
    assert list(table["steps"]) == [8, 8] and table["speedup_vs_first"].iloc[0] == 1.0
    assert (table["median_ms"] > 0).all() and (table["p10_ms"] <= table["p90_ms"]).all()
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 10_000 and "speedup_vs_first" in out


@pytest.mark.parametrize("source", ["directory", "study"])
def test_report_runs_no_code_of_the_model_it_reports_on(source, search_dir, run, tmp_path):
    """An output directory from elsewhere is data: its recorded model path points at a file that would leave a mark
    if imported, and the report reads the inventory the search recorded instead."""
    marker = tmp_path / "imported"
    evil = tmp_path / "helper.py"
    evil.write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
                    + (MODELS / "recommender.py").read_text())
    summary = json.loads((search_dir / "summary.json").read_text())
    copy = tmp_path / "run"
    copy.mkdir()
    for f in search_dir.iterdir():
        if f.is_file():
            (copy / f.name).write_bytes(f.read_bytes())
    summary["model"] = str(evil)
    (copy / "summary.json").write_text(json.dumps(summary))
    if source == "directory":
        code, out, err = run("report", copy, "-o", tmp_path / "report")
    else:
        import optuna

        study = optuna.load_study(study_name=summary["study_name"], storage=f"sqlite:///{copy / 'study.db'}")
        study.set_user_attr("model_path", str(evil))
        code, out, err = run("report", "--storage", f"sqlite:///{copy / 'study.db'}", "--study",
                             summary["study_name"], "-o", tmp_path / "report")
    assert code == 0, err
    assert not marker.exists()
    assert "no sizes" not in out and (tmp_path / "report" / "strategy_map.png").is_file()


def test_a_searchs_profiled_trials_notes_have_their_step_by_part(profiled_dir):
    """The search hands its parts to the dashboard's notes (``autotune.dashboard.trial_parts``)."""
    import optuna
    from optuna_dashboard import get_note

    summary = json.loads((profiled_dir / "summary.json").read_text())
    study = optuna.load_study(study_name=summary["study_name"], storage=summary["storage"])
    profiled = [t for t in study.trials if t.user_attrs.get("stage") == "profiled"]
    notes = [get_note(optuna.trial.Trial(study, t._trial_id)) for t in profiled]
    assert profiled and all("**predicted step, by part**" in n and "| compute |" in n for n in notes)
