"""Searchers sharing one study, on a real PostgreSQL server (started here with initdb and pg_ctl in a temporary
directory) and on SQLite: a search and its resume, three searchers at once that profile no candidate twice and end
with one winner, a searcher killed with SIGKILL whose claim the others take over."""
from __future__ import annotations

import glob
import json
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import optuna
import pytest

from testpaths import CLUSTERS, MODELS, ROOT
from testsupport import wait_gone

pytestmark = pytest.mark.slow

MODEL, SPEC = str(MODELS / "mlp.py"), str(CLUSTERS / "localhost.yml")
PROFILE = ["--trials", "30", "--top-k", "3", "--profile-builders", "2", "--max-profiles", "4", "--confirm", "0",
           "--steps", "4", "--warmup", "1", "--quiet", "--no-calibrate"]


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))), None)
    return found


@pytest.fixture(scope="module")
def postgres(tmp_path_factory):
    """A PostgreSQL server of this test module: its own data directory, port and socket; stopped by its PID."""
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("needs PostgreSQL (apt-get install postgresql)")
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("needs psycopg (pip install -e '.[postgres]')")
    d = tmp_path_factory.mktemp("pg")
    run_as: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root: the Debian package's postgres user runs it, in a directory of its own
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root needs the postgres user of the postgresql package")
        d = pathlib.Path(tempfile.mkdtemp(prefix="autotune-pg-", dir="/tmp"))  # pytest's own is root's alone
        os.chown(d, user.pw_uid, user.pw_gid)
        run_as = ["runuser", "-u", "postgres", "--"]
    data = d / "data"
    subprocess.run([*run_as, initdb, "-D", str(data), "-A", "trust", "-U", "autotune", "--no-sync"], check=True,
                   capture_output=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run([*run_as, pg_ctl, "-D", str(data), "-l", str(d / "log"), "-w", "-o",
                    f"-h 127.0.0.1 -p {port} -k {d} -c fsync=off -c max_connections=100", "start"],
                   check=True, capture_output=True)
    pid = int((data / "postmaster.pid").read_text().split()[0])
    subprocess.run([*run_as, "psql", "-h", "127.0.0.1", "-p", str(port), "-U", "autotune", "-d", "postgres", "-c",
                    "CREATE DATABASE studies"], check=True, capture_output=True)
    yield f"postgresql://autotune@127.0.0.1:{port}/studies"
    os.kill(pid, signal.SIGINT)  # PostgreSQL's fast shutdown
    assert wait_gone([pid], 30.0) == []
    shutil.rmtree(d, ignore_errors=True)


def _search(out: pathlib.Path, storage: str, name: str, *extra: str, cache_dir) -> subprocess.Popen:
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "autotune", "search", "--model", MODEL, "--spec", SPEC, "-o", str(out),
           "--storage", storage, "--study-name", name, "--resume", *PROFILE, *extra]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _profiled(storage: str, name: str) -> list:
    study = optuna.load_study(study_name=name, storage=storage)
    return [t for t in study.trials if t.user_attrs.get("stage") == "profiled"]


def _winner_hash(out: pathlib.Path) -> str:
    import hashlib

    from space.strategy import Strategy

    best = Strategy.load(out / "best.pb")
    best.proto.provenance.Clear()  # the winner as the study keys it, without the provenance best.pb adds
    best.proto.id = ""
    return hashlib.sha256(b"".join(n.SerializeToString(deterministic=True) for n in best.nodes)).hexdigest()


def test_a_search_on_postgresql_and_its_resume(postgres, tmp_path, cache_dir, run):
    code, _, err = run("search", "--model", MODEL, "--spec", SPEC, "-o", tmp_path / "a", "--storage", postgres,
                       "--study-name", "alone", "--cache-dir", cache_dir, "--simulate-only", "--quiet",
                       "--trials", "40")
    assert code == 0, err
    study = optuna.load_study(study_name="alone", storage=postgres)
    first = len([t for t in study.trials if t.user_attrs.get("stage") == "simulated"])
    code, _, err = run("search", "--model", MODEL, "--spec", SPEC, "-o", tmp_path / "a", "--storage", postgres,
                       "--study-name", "alone", "--cache-dir", cache_dir, "--quiet", "--trials", "60", "--resume",
                       "--top-k", "2", "--profile-builders", "1", "--max-profiles", "3", "--confirm", "0",
                       "--steps", "4", "--warmup", "1", "--no-calibrate")
    assert code == 0, err
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["simulated_trials"] == 60 and summary["storage"] == postgres
    assert len(_profiled(postgres, "alone")) == summary["profiling_runs"] >= 2
    assert first >= 2


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
def test_three_searchers_divide_the_work_and_agree(backend, postgres, tmp_path, cache_dir):
    storage = postgres if backend == "postgresql" else f"sqlite:///{tmp_path / 'shared.db'}"
    name = f"three-{backend}"
    procs = [_search(tmp_path / f"s{i}", storage, name, cache_dir=cache_dir) for i in range(3)]
    results = [p.communicate(timeout=900) for p in procs]
    for p, (_, err) in zip(procs, results):
        assert p.returncode == 0, err
    profiled = _profiled(storage, name)
    hashes = [t.user_attrs["strategy_hash"] for t in profiled]
    assert len(hashes) == len(set(hashes)), "a candidate was profiled twice"
    runs = [json.loads((tmp_path / f"s{i}" / "summary.json").read_text())["profiling_runs"] for i in range(3)]
    assert sum(runs) == len(profiled), f"runs per searcher {runs}, {len(profiled)} profiled trials"
    assert len({_winner_hash(tmp_path / f"s{i}") for i in range(3)}) == 1, "the searchers disagree on the winner"
    seeds = {json.loads((tmp_path / f"s{i}" / "summary.json").read_text())["seed"] for i in range(3)}
    assert seeds == {0, 1, 2}
    print(f"{backend}: profiling runs per searcher {runs}, {len(profiled)} in all, none twice")


def test_a_killed_searchers_claim_is_taken_over(postgres, tmp_path, cache_dir):
    name = "killed"
    victim = _search(tmp_path / "victim", postgres, name, "--claim-grace", "6", "--steps", "300", cache_dir=cache_dir)
    deadline = time.monotonic() + 300
    held: list = []
    while not held and time.monotonic() < deadline and victim.poll() is None:
        time.sleep(0.2)
        try:
            study = optuna.load_study(study_name=name, storage=postgres)
        except KeyError:  # not created yet
            continue
        held = [t for t in study.trials if t.user_attrs.get("stage") == "claim"
                and t.state == optuna.trial.TrialState.RUNNING]
    assert held, "the searcher never claimed a candidate"
    claimed = held[0].user_attrs["strategy_hash"]
    other = _search(tmp_path / "other", postgres, name, "--claim-grace", "6", "--seed", "0", cache_dir=cache_dir)
    time.sleep(3)
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=60)
    _, err = other.communicate(timeout=900)
    assert other.returncode == 0, err
    profiled = {t.user_attrs["strategy_hash"]: t for t in _profiled(postgres, name)}
    assert claimed in profiled, "the candidate the dead searcher held was profiled by the other"
    assert profiled[claimed].user_attrs["claimed_by"] != held[0].user_attrs["owner"]
    assert (tmp_path / "other" / "best.pb").is_file()
