"""Real faults seen in seconds: a server killed with SIGKILL during ``autotune profile`` ends the command within
10 s, naming the node and the exit status in one line, with nothing on stderr before it; one killed while a
search's profiling cluster starts is started again and the search goes on; Ctrl-C keeps what was measured and
says so truly. Each test checks that the fault left nothing behind: no process, port, nftables table or
temporary file."""
from __future__ import annotations

import os
import pathlib
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from testpaths import CLUSTERS, MODELS, ROOT
from testsupport import Leftovers, wait_gone

pytestmark = pytest.mark.slow


def _server_of_task(parent: int, task: int) -> int | None:
    """PID of the ``runners.server_main`` child of ``parent`` that serves ``task``."""
    for children in pathlib.Path(f"/proc/{parent}/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                argv = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"runners.server_main" in argv and argv[argv.index(b"--task") + 1] == str(task).encode():
                return int(pid)
    return None


@pytest.fixture(scope="module")
def strategy(tmp_path_factory, cache_dir):
    from autotune.cli import main

    path = tmp_path_factory.mktemp("fault") / "ar.pb"
    assert main(["build", "--builder", "all_reduce", "--model", str(MODELS / "mlp.py"), "--spec",
                 str(CLUSTERS / "localhost.yml"), "--cache-dir", str(cache_dir), "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("task", [0, 1], ids=["chief", "worker"])
def test_a_killed_server_ends_profile_within_seconds(task, strategy, cache_dir):
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # the product is quiet by itself
    cmd = [sys.executable, "-m", "autotune", "profile", "--model", str(MODELS / "mlp.py"), "--spec",
           str(CLUSTERS / "localhost.yml"), "--strategy", str(strategy), "--steps", "2000", "--step-timeout", "60"]
    leftovers = Leftovers()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while (victim := _server_of_task(proc.pid, task)) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert victim is not None, "the servers never started"
        others = [p for k in (0, 1) if k != task and (p := _server_of_task(proc.pid, k))]
        time.sleep(8)  # trace, build the graph, start stepping
        leftovers.watch(proc.pid)
        os.kill(victim, signal.SIGKILL)
        killed_at = time.monotonic()
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - killed_at
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, err
    first = err.splitlines()[0]
    assert first.startswith("error: ") and f"node 127.0.0.{task + 1} " in first and "status -9" in first, err
    assert took < 10, f"noticed after {took:.1f} s"
    assert wait_gone(others, 5.0) == [], "the other server was stopped"
    log = first.split("; log ")[1].split(",")[0].split(" is empty")[0]
    assert pathlib.Path(log).is_file(), "the log the error names is kept"
    assert pathlib.Path(log).is_relative_to(cache_dir / "server-logs"), "under the cache dir, not /tmp"
    assert leftovers.left() == []
    shutil.rmtree(pathlib.Path(log).parent)


def _mount_tmpfs(path: pathlib.Path, options: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs")
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], check=True, capture_output=True)


@pytest.fixture
def mounts():
    made: list[pathlib.Path] = []
    yield made
    for path in made:
        subprocess.run(["umount", "--lazy", str(path)], capture_output=True)  # a study may still hold a file open


def test_a_read_only_output_directory_is_refused_before_any_work(tmp_path, mounts, run, cache_dir):
    _mount_tmpfs(tmp_path / "ro", "ro,size=1m")
    mounts.append(tmp_path / "ro")
    code, _, err = run("search", "--model", MODELS / "mlp.py", "--spec", CLUSTERS / "localhost.yml", "-o",
                       tmp_path / "ro" / "out", "--cache-dir", cache_dir, "--simulate-only", "--quiet")
    assert code == 2 and err.count("\n") == 1 and "Read-only file system" in err, err


def test_a_full_disk_is_one_line_and_keeps_what_was_written(tmp_path, mounts, run, cache_dir):
    _mount_tmpfs(tmp_path / "full", "size=160k")
    mounts.append(tmp_path / "full")
    out = tmp_path / "full" / "out"
    code, _, err = run("search", "--model", MODELS / "mlp.py", "--spec", CLUSTERS / "localhost.yml", "-o", out,
                       "--cache-dir", cache_dir, "--simulate-only", "--quiet", "--trials", "3000")
    last = err.strip().splitlines()[-1]
    assert code == 1 and last.startswith("error: ") and "No space left on device" in last, err
    assert "Traceback" not in err
    kept = (out / "simulated.jsonl").read_text().splitlines()
    assert len(kept) > 10, "the trials simulated before the disk filled are kept"


def _profiled(study: pathlib.Path) -> int:
    """Profiling runs a search's study holds (its trials whose stage is profiled or confirmed)."""
    try:
        with sqlite3.connect(f"file:{study}?mode=ro", uri=True, timeout=30) as db:
            return db.execute("SELECT COUNT(*) FROM trial_user_attributes WHERE key = 'stage' AND value_json IN "
                              "('\"profiled\"', '\"confirmed\"')").fetchone()[0]
    except sqlite3.OperationalError:  # not made yet, or its tables not yet
        return 0


def test_a_search_starts_again_a_cluster_whose_server_was_killed_and_stops_on_ctrl_c(tmp_path, cache_dir):
    """A server killed while the profiling cluster starts: the cluster is started again and the search goes on
    profiling; Ctrl-C in the middle of its first round then keeps the study and says how many runs it holds."""
    out = tmp_path / "o"
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "autotune", "search", "--model", str(MODELS / "mlp.py"), "--spec",
           str(CLUSTERS / "localhost.yml"), "-o", str(out), "--trials", "60", "--top-k", "3", "--steps", "5",
           "--warmup", "1", "--no-calibrate"]
    leftovers = Leftovers()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while not (servers := leftovers.watch(proc.pid)) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert servers, "the profiling cluster never started"
        os.kill(min(servers), signal.SIGKILL)  # still importing TensorFlow: seconds before it is ready
        deadline = time.monotonic() + 180
        while _profiled(out / "study.db") < 1 and time.monotonic() < deadline and proc.poll() is None:
            leftovers.watch(proc.pid)
            time.sleep(0.2)
        assert _profiled(out / "study.db") >= 1, "no profiling run was recorded"
        leftovers.watch(proc.pid)
        proc.send_signal(signal.SIGINT)  # in the first round, which profiles more candidates than that
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "the cluster failed to start, starting it again" in err and "status -9" in err, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("interrupted: 60 simulated trials") and "--resume" in last, err
    assert f"and {_profiled(out / 'study.db')} profiling runs kept" in last, err
    assert "Traceback" not in err and "Trial" not in err
    assert len(leftovers.pids) >= 4 and leftovers.left() == []  # both clusters' servers
    assert (out / "study.db").is_file() and (out / "best.pb").is_file()


def test_compare_shows_a_strategy_that_failed_as_a_row_with_its_error(tmp_path, strategy, cache_dir):
    """A server killed after the first strategy's run: the second fails on it, the cluster is started again and
    the third is measured; the table has every strategy, the failed one with its error."""
    from autotune.report import compare_strategies
    from runners import cluster as cluster_module

    killed = []

    def log(line: str) -> None:
        if not killed and "median" in line:
            running = next(iter(cluster_module._OPEN))
            killed.append(running.pids[1])
            os.kill(running.pids[1], signal.SIGKILL)

    files = []
    for name in ("a", "b", "c"):
        files.append(tmp_path / f"{name}.pb")
        files[-1].write_bytes(strategy.read_bytes())
    result = compare_strategies(str(MODELS / "mlp.py"), str(CLUSTERS / "localhost.yml"), files, repeats=1, steps=3,
                                warmup=1, log=log)
    table = result.table().set_index("strategy")
    assert killed and list(table.index) == ["a", "b", "c"]
    assert "node 127.0.0.2" in table.loc["b", "error"] and table.loc["b", "median_ms"] != table.loc["b", "median_ms"]
    assert table.loc["a", "median_ms"] > 0 and table.loc["c", "median_ms"] > 0


def test_gpus_the_node_does_not_have_are_one_line_when_the_servers_start(tmp_path, strategy, run):
    spec = tmp_path / "gpus.yml"
    spec.write_text("nodes:\n  - {address: 127.0.0.1, chief: true, gpus: [0, 1]}\n  - {address: 127.0.0.2}\n")
    build = tmp_path / "s.pb"
    code, _, err = run("build", "--builder", "all_reduce", "--model", MODELS / "mlp.py", "--spec", spec, "-o", build)
    assert code == 0, err
    code, _, err = run("profile", "--model", MODELS / "mlp.py", "--spec", spec, "--strategy", build, "--steps", "2")
    assert code == 2 and err.count("\n") == 1, err
    assert "node 127.0.0.1 names gpus [0, 1], but its TensorFlow server sees 0 GPU(s)" in err
