"""``autotune dashboard`` and ``search --dashboard``: the notes on the trials, the read-only guard, the bad inputs,
and a finished search seen in a real headless Chromium."""
from __future__ import annotations

import io
import json
import re
import socket
import sys
import types
import urllib.request

import optuna
import pytest

from autotune.dashboard import annotate, locate, note_body, read_only
from autotune.dashboard._notes import MAX_ROWS, md
from space.errors import BadInput
from space.strategy import Strategy, ar_node, ps_node
from testpaths import CLUSTERS, MODELS

optuna.logging.set_verbosity(optuna.logging.WARNING)


def _strategy(names: list[str]) -> Strategy:
    return Strategy.build([ps_node(n, "127.0.0.1:CPU:0") if i % 2 else ar_node(n, group=i) for i, n in
                           enumerate(names)], ["127.0.0.1:CPU:0"])


def _candidate(label: str, names: list[str]):
    s = _strategy(names)
    return types.SimpleNamespace(label=label, strategy=s, strategy_hash=label + "-hash")


def _study(tmp_path, name: str = "s") -> tuple[str, optuna.Study]:
    url = f"sqlite:///{tmp_path / 'study.db'}"
    study = optuna.create_study(storage=url, study_name=name)
    dist = {"x": optuna.distributions.CategoricalDistribution(["a", "b"])}
    for i, stage in enumerate(["simulated", "profiled", "searcher"]):
        study.add_trial(optuna.trial.create_trial(
            params={"x": "a"}, distributions=dist, values=[0.002 + i * 1e-3],
            user_attrs={"stage": stage, "strategy_hash": "w-hash", "predicted_s": 0.002, "measured_s": 0.003,
                        "family": "ps", "lossy": False}))
    (tmp_path / "summary.json").write_text(json.dumps({"storage": url, "study_name": name}))
    return url, study


# ---- notes -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["a|b", "dense/*kernel*:0", "<img src=x>", "w_[0](x)", "tab\tand\nnewline", "`x`"])
def test_a_name_cannot_format_the_note(name):
    escaped = md(name)
    assert "\n" not in escaped and "\t" not in escaped
    bare = escaped
    for ch in "\\`*_{}[]()#+-.!|<>~":
        bare = bare.replace("\\" + ch, "")
    assert not set(bare) & set("\\`*_{}[]()#+-.!|<>~")


def test_the_note_has_the_times_and_every_variable():
    names = [f"layer_{i}/kernel:0" for i in range(3)]
    body = note_body("ps+ar", {"stage": "profiled", "predicted_s": 0.002, "measured_s": 0.003, "family": "ps",
                               "lossy": True}, _strategy(names))
    assert "predicted **2.00 ms**, measured **3.00 ms** (measured / predicted 1.50)" in body
    assert "**lossy**" in body
    for n in names:
        assert f"| {md(n)} |" in body
    assert "AR g0" in body and "PS 127\\.0\\.0\\.1:CPU:0 sync" in body


def test_a_large_map_is_cut_with_a_word():
    body = note_body("big", {"stage": "simulated"}, _strategy([f"v{i}:0" for i in range(MAX_ROWS + 5)]))
    assert len(re.findall(r"^\| v\d", body, flags=re.M)) == MAX_ROWS
    assert "and 5 more rows" in body


def test_a_breakdown_becomes_a_table_when_given():
    assert "by part" not in note_body("x", {"stage": "simulated"})
    body = note_body("x", {"stage": "simulated"}, breakdown={"all-reduce": 0.0015, "compute": 0.004})
    assert "| all\\-reduce | 1.50 ms |" in body and "| compute | 4.00 ms |" in body


def test_a_breakdown_with_measured_parts_gets_their_column():
    body = note_body("x", {"stage": "profiled"}, breakdown={"compute": (0.004, 0.005), "other": (0.001, None)})
    assert "| compute | 4.00 ms | 5.00 ms | 1.25 |" in body and "| other | 1.00 ms | - | - |" in body


def _parts_dir(tmp_path, traced: str):
    """A search's output with the parts of ``w`` and ``other``, and a trace summary of ``traced``."""
    from autotune import parts
    from runners._step_stats import LinkTime, StepParts, TraceSummary
    from runners._trace import TRACES, trace_paths
    from simulator import Breakdown, LinkPart

    b = Breakdown(step_s=5e-3, compute_s=3e-3, fixed_s=5e-4, comm_s=1.5e-3, correction_s=0.0, tower_compute_s={},
                  links=(LinkPart("127.0.0.1", "127.0.0.2", 1e6, 8e-4),))
    cands = [_candidate("w", ["a:0", "b:0"]), _candidate("other", ["c:0"])]
    parts.write_parts(tmp_path / "parts.json", [{"label": c.label, "strategy_id": c.strategy.proto.id,
                                                 "measured_s": 6e-3, "breakdown": parts.breakdown_to_dict(b)}
                                                for c in cands])
    summary = TraceSummary(steps=3, step_s=9e-3, tasks=(), step=StepParts(6e-3, 3.5e-3, 2e-3, 5e-4),
                           links=(LinkTime("127.0.0.1", "127.0.0.2", 2e-3, 1e6, wire_s=1.2e-3, latency_s=1e-4,
                                           transfers=6),))
    path = trace_paths(tmp_path / TRACES, next(c for c in cands if c.label == traced).strategy.proto.id)[1]
    path.parent.mkdir()
    path.write_text(json.dumps(summary.to_dict()))
    return cands


def test_a_profiled_trials_parts_are_measured_where_it_was_traced(tmp_path):
    from autotune.dashboard import trial_parts

    cands = _parts_dir(tmp_path, traced="w")
    got = trial_parts(tmp_path, cands)
    assert got["w-hash"]["compute"] == pytest.approx((3e-3, 4e-3))  # ops and the gaps of the traced step
    assert got["w-hash"]["busiest link 127.0.0.1->127.0.0.2"] == pytest.approx((8e-4, 1.2e-3))
    assert got["other-hash"]["compute"] == (3e-3, None)
    assert "step" not in got["w-hash"]


def test_annotate_writes_the_parts_into_the_profiled_trials_note(tmp_path):
    from optuna_dashboard import get_note

    from autotune.dashboard import trial_parts

    (tmp_path / "out").mkdir()
    cands = _parts_dir(tmp_path / "out", traced="w")
    _url, study = _study(tmp_path)
    annotate(study, cands, breakdowns=trial_parts(tmp_path / "out", cands))
    profiled = get_note(optuna.trial.Trial(study, study.trials[1]._trial_id))
    assert "| compute | 3.00 ms | 4.00 ms | 1.33 |" in profiled
    assert "| comm | 2.00 ms | 2.00 ms | 1.00 |" in profiled


def test_annotate_notes_the_records_of_the_candidates_once(tmp_path):
    from optuna_dashboard import get_note

    _url, study = _study(tmp_path)
    cands = [_candidate("w", ["a:0", "b:0"]), _candidate("other", ["c:0"])]
    assert annotate(study, cands) == 2  # the simulated and the profiled record; not the searcher's claim
    assert annotate(study, cands) == 0
    notes = [get_note(optuna.trial.Trial(study, t._trial_id)) for t in study.trials]
    assert "### w" in notes[0] and "stage **profiled**" in notes[1] and notes[2] == ""


# ---- locating the study, the guard, the bad inputs ---------------------------------------------------------------

def test_locate_reads_the_summary_then_the_lone_study(tmp_path):
    url, _ = _study(tmp_path, "mine")
    assert (locate(tmp_path).storage, locate(tmp_path).name) == (url, "mine")
    (tmp_path / "summary.json").unlink()
    assert locate(tmp_path).name == "mine"


def test_a_moved_run_dir_serves_its_own_study_file(tmp_path):
    (tmp_path / "run").mkdir()
    _study(tmp_path / "run", "mine")
    moved = tmp_path / "moved"
    (tmp_path / "run").rename(moved)
    assert locate(moved).storage == f"sqlite:///{(moved / 'study.db').resolve()}"
    (moved / "study.db").unlink()
    with pytest.raises(BadInput, match="names is missing"):
        locate(moved)
    assert not (tmp_path / "run").exists()  # nothing made where the summary points


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_read_only_refuses_what_could_write(method):
    called = []
    app = read_only(lambda env, start: called.append(env) or [b""])
    status = []
    body = b"".join(app({"REQUEST_METHOD": method, "wsgi.input": io.BytesIO()}, lambda s, h: status.append(s)))
    assert status == ["405 Method Not Allowed"] and not called
    assert "read-only" in json.loads(body)["reason"]


@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_read_only_passes_reads(method):
    app = read_only(lambda env, start: start("200 OK", []) or [b"ok"])
    status = []
    assert app({"REQUEST_METHOD": method}, lambda s, h: status.append(s)) == [b"ok"] and status == ["200 OK"]


def test_no_study_in_the_run_dir(run, tmp_path):
    code, out, err = run("dashboard", tmp_path)
    assert code == 2 and err.startswith("error: no study in") and "Traceback" not in err


def test_the_study_gone_from_its_storage(run, tmp_path):
    _study(tmp_path)
    (tmp_path / "summary.json").write_text(json.dumps({"storage": f"sqlite:///{tmp_path / 'study.db'}",
                                                       "study_name": "renamed"}))
    code, _out, err = run("dashboard", tmp_path)
    assert code == 2 and "no study 'renamed'" in err


def test_port_in_use(run, tmp_path):
    _study(tmp_path)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        code, _out, err = run("dashboard", tmp_path, "--port", held.getsockname()[1])
    assert code == 2 and "is in use" in err and err.count("\n") == 1


def test_optuna_dashboard_not_installed(run, tmp_path, monkeypatch):
    _study(tmp_path)
    monkeypatch.setitem(sys.modules, "optuna_dashboard", None)  # import fails as if it were not installed
    code, _out, err = run("dashboard", tmp_path)
    assert code == 2 and "optuna-dashboard is not installed" in err and "pip install" in err


def test_search_serves_its_study_while_it_runs(run, tmp_path, monkeypatch, capsys):
    """The page answers while the search runs; the port is closed after it."""
    from autotune.tuner._study import storage_url

    optuna.create_study(storage=storage_url(None, tmp_path), study_name="mlp-x")
    seen = {}

    def search(cfg, progress):
        url = capsys.readouterr().err.split()[-1]
        base = url.split("/dashboard")[0]
        seen["url"], seen["studies"] = url, json.load(urllib.request.urlopen(base + "/api/studies", timeout=30))
        return types.SimpleNamespace(interrupted=False)

    monkeypatch.setattr("autotune.tuner.run_search", search)
    code, _out, _err = run("search", "--model", MODELS / "mlp.py", "--spec", CLUSTERS / "localhost.yml",
                           "-o", tmp_path, "--study-name", "mlp-x", "--dashboard", "--dashboard-port", "0")
    assert code == 0
    assert [s["study_name"] for s in seen["studies"]["study_summaries"]] == ["mlp-x"]
    with pytest.raises(OSError):
        urllib.request.urlopen(seen["url"], timeout=5)


def test_the_study_note_has_the_winner_and_the_table(tmp_path):
    from optuna_dashboard import get_note

    from autotune.dashboard import study_note

    rows = [{"strategy": "ps_lb *", "family": "ps", "lossy": "-", "predicted_ms": "2.00", "measured_ms": "3.00"},
            {"strategy": "ar|fp16", "family": "all-reduce", "lossy": "lossy", "predicted_ms": "1.00",
             "measured_ms": "4.00"}]
    note = study_note("winner: ps_lb", rows)
    assert note.splitlines()[2] == "| strategy | family | lossy | predicted\\_ms | measured\\_ms |"
    assert "| ar\\|fp16 | all\\-reduce | lossy | 1\\.00 | 4\\.00 |" in note
    _url, study = _study(tmp_path)
    assert annotate(study, [], summary=note) == 1 and get_note(study) == note
    assert annotate(study, [], summary=note) == 0


def test_an_address_not_of_this_machine(run, tmp_path):
    _study(tmp_path)
    code, _out, err = run("dashboard", tmp_path, "--host", "192.0.2.1", "--port", "0")  # TEST-NET-1: nobody's
    assert code == 2 and err.startswith("error: cannot listen on 192.0.2.1:0")


def test_search_refuses_a_dashboard_port_in_use_before_searching(run, tmp_path, monkeypatch):
    monkeypatch.setattr("autotune.tuner.run_search", lambda cfg, progress: pytest.fail("the search started"))
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        code, _out, err = run("search", "--model", MODELS / "mlp.py", "--spec",
                              CLUSTERS / "localhost.yml", "-o", tmp_path, "--dashboard", "--dashboard-port",
                              held.getsockname()[1])
    assert code == 2 and "is in use" in err
