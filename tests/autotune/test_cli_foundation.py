"""The first CLI commands, in-process through ``main([...])``: inspect, builders, build, show, exit codes."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from testpaths import CLUSTERS, MODELS, ROOT
from space import builders
from space.strategy import Strategy




def test_inspect_table(run, cache_dir):
    code, out, _ = run("inspect", "--model", str(MODELS / "recommender.py"), "--cache-dir", str(cache_dir))
    assert code == 0
    assert "recommender/user_embedding/embeddings:0" in out and "sparse" in out and "20000x32" in out


def test_inspect_json(run, cache_dir):
    code, out, _ = run("inspect", "--model", str(MODELS / "mlp.py"), "--cache-dir", str(cache_dir), "--json")
    data = json.loads(out)
    assert code == 0 and data["batch_size"] == 32 and len(data["variables"]) == 6


def test_builders_lists_every_alias(run):
    code, out, _ = run("builders")
    assert code == 0 and all(alias in out for alias in builders.aliases())


@pytest.mark.parametrize("alias", ["ps", "parallax", "all_reduce_fp16"])
def test_build_then_show(alias, run, tmp_path, cache_dir):
    out_pb = tmp_path / "s.pb"
    code, out, err = run("build", "--builder", alias, "--model", str(MODELS / "recommender.py"), "--spec",
                         str(CLUSTERS / "localhost.yml"), "-o", str(out_pb), "--cache-dir", str(cache_dir))
    assert code == 0, err
    assert Strategy.load(out_pb).proto.provenance.builder == alias
    code, out, _ = run("show", str(out_pb))
    assert code == 0 and "recommender/item_embedding/embeddings:0" in out and f"builder: {alias}" in out
    code, out, _ = run("show", str(out_pb), "--text")
    assert code == 0 and "node_config {" in out


def test_show_validates_against_another_model(run, tmp_path, cache_dir):
    out_pb = tmp_path / "s.pb"
    assert run("build", "--builder", "ps", "--model", str(MODELS / "mlp.py"), "--spec", str(CLUSTERS / "localhost.yml"),
               "-o", str(out_pb), "--cache-dir", str(cache_dir))[0] == 0
    code, _, err = run("show", str(out_pb), "--model", str(MODELS / "cnn.py"), "--spec",
                       str(CLUSTERS / "localhost.yml"), "--cache-dir", str(cache_dir))
    assert code == 2 and err.startswith("error: unknown variable 'mlp/dense/kernel:0'") and err.count("\n") == 1


@pytest.mark.parametrize("argv,needle", [
    (["build", "--builder", "nope", "--model", "M", "--spec", str(CLUSTERS / "localhost.yml"), "-o", "x.pb"],
     "model file not found"),
    (["build", "--builder", "nope", "--model", str(MODELS / "mlp.py"), "--spec", str(CLUSTERS / "localhost.yml"),
      "-o", "x.pb"], "unknown builder 'nope'"),
    (["show", "/no/such.pb"], "strategy file not found"),
    (["inspect", "--model", str(CLUSTERS / "localhost.yml")], "cannot import model file"),
])
def test_bad_input_exits_2_with_one_line(argv, needle, run, cache_dir):
    code, out, err = run(*argv, *(["--cache-dir", str(cache_dir)] if argv[0] != "show" else []))
    assert code == 2 and needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_usage_error_exits_2(run):
    assert run("build")[0] == 2


def test_module_entry_point_runs():
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "autotune", "builders"], capture_output=True, text=True,
                       cwd=MODELS.parent.parent)
    assert r.returncode == 0 and "parallax" in r.stdout


@pytest.mark.slow
def test_sigterm_stops_a_command_as_ctrl_c_does(tmp_path, cache_dir):
    """A scheduler's SIGTERM: the servers are stopped through the command's own clean-up (their owned log
    directory removed, which the default action, ending the process at once, leaves behind) and exit code 143."""
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}  # its servers' logs there
    cmd = [sys.executable, "-m", "autotune", "calibrate", "--spec", str(CLUSTERS / "localhost.yml"), "--model",
           str(MODELS / "mlp.py"), "--cache-dir", str(cache_dir), "--output", str(tmp_path / "cal.json")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        logs: list = []
        while time.monotonic() < deadline and proc.poll() is None and len(logs) < 2:
            logs = [p for d in tmp_path.glob("server-logs/autotune-servers-*") for p in d.glob("*.log")
                    if "ready" in p.read_text(errors="replace")]
            time.sleep(0.2)
        assert len(logs) == 2, "both servers were up before the signal"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert "terminated (SIGTERM)" in err
    assert not list(tmp_path.glob("server-logs/autotune-servers-*")), "the servers' clean stop removed their logs"


def test_train_prints_progress_at_least_every_30_s_however_long_the_job():
    """--steps 10**12 has its tenths 10**11 steps apart: the time alone brings a line."""
    from autotune.commands.train import Progress
    from runners.train import StepInfo

    now, lines = [0.0], []
    progress = Progress(10**12, every_s=30.0, clock=lambda: now[0], out=lambda line, flush: lines.append(line))
    progress.log("step 1/1000000000000  loss 1.00000  5.0 ms")  # the job's own first line
    for step, t in [(2, 10.0), (3, 29.9), (4, 30.0), (5, 45.0), (6, 60.5)]:
        now[0] = t
        progress(StepInfo(step, 0.5, 0.005, 6400.0))
    assert [line.split()[1] for line in lines] == ["1/1000000000000", "4/1000000000000", "6/1000000000000"]
