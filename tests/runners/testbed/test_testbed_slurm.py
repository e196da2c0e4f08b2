"""A real Slurm on the testbed (munged, slurmctld, a slurmd per emulated host): search and train in salloc and
sbatch jobs with ``--spec slurm``, the servers in one srun step per cluster start, and a job cancelled while a
candidate is profiled. Skipped, saying why, where the daemons cannot run."""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
import sys
import threading
import time

import pytest

from _testbed_helpers import unique_prefix, unique_subnet
from testpaths import ROOT

pytestmark = [pytest.mark.netns, pytest.mark.slow]

MODEL = "examples/models/mlp.py"
TOOLS = ("munged", "slurmctld", "slurmd", "srun", "salloc", "sbatch", "scancel", "squeue", "sinfo")
TINY_SEARCH = ["--no-calibrate", "--trials", "12", "--top-k", "1", "--profile-builders", "0", "--max-profiles", "1",
               "--round-size", "0", "--confirm", "0", "--warmup", "1", "--quiet"]


@pytest.fixture(scope="module")
def slurm(netns_ok, tmp_path_factory):
    """A 3-host testbed at 200mbit with Slurm on it; everything stopped by PID when the module ends."""
    import runners.testbed as tb
    from runners.testbed._sys import which

    missing = [t for t in TOOLS if not which(t)]
    if missing:
        pytest.skip(f"Slurm is not installed here ({', '.join(missing)} missing): apt-get install slurmd slurmctld "
                    "munge slurm-client")
    directory = tmp_path_factory.mktemp("slurm-testbed") / "state"
    plan = tb.make_plan(3, "200mbit", prefix=unique_prefix("sl"), subnet=unique_subnet(7), directory=str(directory),
                        python=sys.executable)
    try:
        tb.up(plan)
        try:
            conf = tb.slurm_up(plan["dir"])
        except (tb.TestbedFailed, tb.TestbedRefused) as e:
            pytest.skip(f"the Slurm daemons could not start here: {e}")
        cache = tmp_path_factory.mktemp("slurm-cache")
        env = dict(os.environ, SLURM_CONF=str(conf), AUTOTUNE_CACHE_DIR=str(cache), TF_CPP_MIN_LOG_LEVEL="2",
                   PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p))
        yield {"plan": plan, "env": env, "spec": f"{plan['dir']}/cluster.yml"}
    finally:
        tb.down(plan["dir"])


def _slurm(env, *argv) -> str:
    return subprocess.run([shutil.which(argv[0]), *argv[1:]], env=env, capture_output=True, text=True,
                          timeout=30).stdout


class _Steps:
    """Watches ``squeue --steps`` while a job runs: every step seen, as ``(step id, name, nodes)``."""

    def __init__(self, env) -> None:
        self.env, self.seen, self._stop = env, set(), threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.wait(0.2):
            for line in _slurm(self.env, "squeue", "--steps", "-h", "-o", "%i %j %N").splitlines():
                self.seen.add(tuple(line.split()))

    def servers(self) -> list[tuple[str, ...]]:
        return sorted(s for s in self.seen if s[1] == "autotune-servers")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _leftovers(slurm_env, plan) -> list[str]:
    """Servers or step tasks still running in the testbed's hosts, and jobs still queued."""
    from runners.testbed._sys import netns_pids

    left = []
    for h in plan["hosts"]:
        for pid in netns_pids(h["netns"]):
            try:
                cmd = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if "runners.server_main" in cmd or "_slurm_task" in cmd or "slurmstepd" in cmd:
                left.append(f"{h['name']}: {pid} {cmd[:80]}")
    jobs = _slurm(slurm_env, "squeue", "-h", "-o", "%i %j %T").strip()
    return left + ([f"queued: {jobs}"] if jobs else [])


def _steps_run(plan) -> bool:
    """Whether the servers exchange tensors: h1 holds a TCP connection to h0 (no Slurm daemon connects the two)."""
    h0, h1 = plan["hosts"][0], plan["hosts"][1]
    p = subprocess.run(["ip", "netns", "exec", h1["netns"], "ss", "-Htn", "state", "established", "dst", h0["address"]],
                       capture_output=True, text=True, timeout=10)
    return bool(p.stdout.strip())


def _no_leftovers(slurm, timeout_s: float = 15.0) -> list[str]:
    deadline = time.monotonic() + timeout_s
    while (left := _leftovers(slurm["env"], slurm["plan"])) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def test_search_and_train_in_an_salloc_job(slurm, tmp_path):
    out = tmp_path / "run"
    py = sys.executable
    script = (f"{py} -m autotune search --model {MODEL} --spec slurm -o {out} --steps 3 {' '.join(TINY_SEARCH)} && "
              f"{py} -m autotune train --model {MODEL} --spec slurm --strategy {out}/best.pb --steps 4")
    steps = _Steps(slurm["env"])
    try:
        p = subprocess.run(["salloc", "-N", "3", "-J", "at-salloc", "bash", "-c", script], env=slurm["env"], cwd=ROOT,
                           capture_output=True, text=True, timeout=240)
    finally:
        steps.stop()
    assert p.returncode == 0, p.stderr[-3000:]
    assert (out / "best.pb").is_file() and "trained to step 4" in p.stdout, p.stdout[-2000:]
    servers = steps.servers()  # one step per cluster start: the search's, then the train's, on every host
    assert len({s[0] for s in servers}) >= 2 and {s[2] for s in servers} == {"h[0-2]"}, steps.seen
    assert "ssh" not in p.stderr.lower() and "note: " not in p.stderr, p.stderr[-2000:]  # the firewall was set
    assert _no_leftovers(slurm) == []


def test_the_exported_sbatch_script_trains_in_its_batch_step(slurm, tmp_path, run):
    strategy, spec = tmp_path / "ps.pb", tmp_path / "slurm.yml"
    code, _, err = run("build", "--builder", "ps", "--model", MODEL, "--spec", slurm["spec"], "-o", strategy)
    assert code == 0, err
    hosts = slurm["plan"]["hosts"]
    spec.write_text("launcher: slurm\nnodes:\n" + "".join(f"- {{address: {h['address']}, hostname: {h['name']}, "
                                                          f"chief: {str(h['index'] == 0).lower()}}}\n" for h in hosts))
    script = tmp_path / "job.sh"
    code, _, err = run("export", strategy, "--to", "slurm", "--spec", spec, "--model", MODEL, "--steps", "4",
                       "--name", "at-sbatch", "-o", script)
    assert code == 0, err
    log = tmp_path / "job.out"
    p = subprocess.run(["sbatch", "--wait", "-o", str(log), str(script)], env=slurm["env"], cwd=ROOT,
                       capture_output=True, text=True, timeout=180)
    text = log.read_text()
    assert p.returncode == 0, (p.stderr, text[-3000:])
    assert "trained to step 4" in text, text[-2000:]
    job = p.stdout.split()[-1]  # "Submitted batch job N"
    shown = _slurm(slurm["env"], "scontrol", "show", "job", job)
    assert re.search(r"\bJobName=at-sbatch\s", shown), shown  # the #SBATCH line's quotes are sbatch's, not the name's
    assert _no_leftovers(slurm) == []


def test_scancel_mid_profile_fails_the_trial_and_leaves_nothing(slurm, tmp_path):
    import optuna

    out = tmp_path / "run"
    argv = ["salloc", "-N", "3", "-J", "at-cancel", sys.executable, "-m", "autotune", "search", "--model", MODEL,
            "--spec", "slurm", "-o", str(out), "--steps", "2000", *TINY_SEARCH]
    search = subprocess.Popen(argv, env=slurm["env"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        steps, deadline = _Steps(slurm["env"]), time.monotonic() + 120
        while not steps.servers() and time.monotonic() < deadline and search.poll() is None:
            time.sleep(0.2)
        steps.stop()
        assert steps.servers(), search.communicate(timeout=60)
        job = steps.servers()[0][0].split(".")[0]
        while not _steps_run(slurm["plan"]) and time.monotonic() < deadline and search.poll() is None:
            time.sleep(0.2)
        time.sleep(2)  # a candidate's 2000 steps are under way
        assert search.poll() is None and _steps_run(slurm["plan"])
        cancelled = time.time()
        _slurm(slurm["env"], "scancel", job)
        stdout, stderr = search.communicate(timeout=90)
    finally:
        if search.poll() is None:
            search.kill()
    lines = stderr.strip().splitlines()
    assert "Traceback" not in stderr and lines[-1].startswith(("error: ", "salloc: ")), stderr[-3000:]
    storage = f"sqlite:///{out}/study.db"
    study = optuna.load_study(study_name=optuna.get_all_study_names(storage)[0], storage=storage)
    failed = [t for t in study.trials if t.user_attrs.get("stage") == "failed"]
    assert len(failed) == 1, (stderr[-3000:], [t.user_attrs.get("stage") for t in study.trials])
    error = failed[0].user_attrs["error"]
    assert "CANCELLED" in error and "server of node h" in error and "\n" not in error, error
    assert failed[0].datetime_complete.timestamp() - cancelled <= 10.0
    assert _no_leftovers(slurm) == []
