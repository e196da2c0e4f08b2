"""Real faults seen in seconds: a server killed with SIGKILL during ``autotune profile`` ends the command within
10 s, naming the node and the exit status in one line, with nothing on stderr before it."""
from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from testpaths import CLUSTERS, MODELS, ROOT
from testsupport import wait_gone

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
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while (victim := _server_of_task(proc.pid, task)) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert victim is not None, "the servers never started"
        others = [p for k in (0, 1) if k != task and (p := _server_of_task(proc.pid, k))]
        time.sleep(8)  # trace, build the graph, start stepping
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
    pathlib.Path(log).unlink()
    pathlib.Path(log).parent.rmdir() if not any(pathlib.Path(log).parent.iterdir()) else None
