"""``down`` leaves nothing: after a clean ``up``, after a failed ``up``, and after an ``up`` that died half-way."""
from __future__ import annotations

import pathlib
import subprocess
import sys
import time

import pytest

import runners.testbed as tb
from _testbed_helpers import unique_prefix, unique_subnet
from autotune.cli import main
from runners.testbed import _sshd, _sys, _testbed
from runners.testbed._errors import TestbedFailed

pytestmark = [pytest.mark.netns, pytest.mark.ssh]


def _leftovers(plan: dict, pids: list[int]) -> list[str]:
    names = {plan["bridge_netns"], *(h["netns"] for h in plan["hosts"])}
    left = [f"netns {n}" for n in sorted(names & _sys.netns_list())]
    left += [f"link {plan['root']['link']}"] if plan["root"]["link"] in _sys.root_links() else []
    left += [f"pid {p}" for p in pids if _sys.alive(p, None)]
    left += [f"dir {plan['dir']}"] if pathlib.Path(plan["dir"]).exists() else []
    return left


@pytest.fixture
def plan(netns_ok, tmp_path):
    """A 2-host plan whose objects are removed after the test, whatever happened to it."""
    p = tb.make_plan(2, "1gbit", prefix=unique_prefix("lc"), subnet=unique_subnet(2),
                     directory=str(tmp_path / "state"), python=sys.executable)
    yield p
    tb.down(p["dir"])


def test_up_status_down_via_cli_leaves_nothing(plan, capsys):
    argv = ["--prefix", plan["prefix"], "--dir", plan["dir"]]
    assert main(["testbed", "up", "--hosts", "2", "--bandwidth", "1gbit", "--subnet", plan["subnet"], *argv]) == 0
    assert "use it:  autotune <command> --spec" in capsys.readouterr().out
    state = tb.State.load(plan["dir"])
    pids = [o["pid"] for o in state.objects if o["kind"] == "process"]
    assert len(pids) == 2 and all(_sys.alive(p, None) for p in pids)
    job = subprocess.Popen(["ip", "netns", "exec", plan["hosts"][1]["netns"], "sleep", "300"],
                           start_new_session=True)  # like a job a launcher started through the host's sshd
    try:
        assert main(["testbed", "status", *argv]) == 0
        assert main(["testbed", "down", *argv]) == 0
        assert "removed" in capsys.readouterr().out
        job.wait(timeout=10)
        assert _leftovers(plan, pids) == []
        assert main(["testbed", "down", *argv]) == 0  # idempotent
        assert "nothing to remove" in capsys.readouterr().out
    finally:
        if job.poll() is None:
            job.kill()
            job.wait(timeout=5)


def test_failed_up_removes_what_it_made(plan, monkeypatch):
    started = []
    real_wait = _sshd.wait_ready

    def wait_then_fail(proc, address, *args, **kwargs):
        started.append(proc.pid)
        real_wait(proc, address, *args, **kwargs)
        if address == plan["hosts"][1]["address"]:
            raise TestbedFailed("injected failure after the second sshd")

    monkeypatch.setattr(_sshd, "wait_ready", wait_then_fail)
    with pytest.raises(TestbedFailed, match="injected"):
        tb.up(plan)
    assert len(started) == 2 and _leftovers(plan, started) == []


def test_up_killed_half_way_is_cleaned_by_down(plan, monkeypatch):
    """``up`` dies after starting sshd but before saving its PID, with no chance to clean up."""
    started = []
    real_start = _sshd.start

    def start_then_die(sshd, netns, config, log):
        proc = real_start(sshd, netns, config, log)
        started.append(proc.pid)
        pid_file = pathlib.Path(config).parent / "sshd.pid"
        deadline = time.monotonic() + 10
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        raise KeyboardInterrupt  # stands in for SIGKILL: nothing after this line runs

    monkeypatch.setattr(_sshd, "start", start_then_die)
    monkeypatch.setattr(_testbed, "down", lambda directory: [])  # the dying up cleans nothing
    with pytest.raises(KeyboardInterrupt):
        tb.up(plan)
    monkeypatch.undo()
    assert plan["hosts"][0]["netns"] in _sys.netns_list() and _sys.alive(started[0], None)
    assert tb.status(plan["dir"])["complete"] is False
    removed = tb.down(plan["dir"])
    assert any(r.startswith("process sshd h0") for r in removed)
    assert _leftovers(plan, started) == []
