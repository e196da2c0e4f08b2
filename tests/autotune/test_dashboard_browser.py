"""A finished search as a person sees it: ``autotune dashboard`` started as a command, its pages loaded in a real
headless Chromium (driven by selenium through chromedriver), then stopped with Ctrl-C."""
from __future__ import annotations

import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys

import optuna
import pytest

from testpaths import CLUSTERS, MODELS, ROOT
from testsupport import wait_gone

pytestmark = pytest.mark.slow

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--window-size=1400,1000"]
PAGE_S = 60  # how long a page may take to show what is awaited (a loaded machine)


def _browser_binaries() -> tuple[str, str]:
    found = [shutil.which("chromium"), shutil.which("chromedriver")]
    if all(found):
        return found[0], found[1]
    why = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
    if os.geteuid() != 0:
        pytest.skip(why)
    pytest.fail(why + "; scripts/test installs them as root")


@pytest.fixture(scope="module")
def finished_search(tmp_path_factory, cache_dir) -> pathlib.Path:
    """The output directory of a small simulate-only search (its study holds the carried-out candidates' notes)."""
    from autotune.cli import main

    out = tmp_path_factory.mktemp("search")
    code = main(["search", "--model", str(MODELS / "mlp.py"), "--spec", str(CLUSTERS / "localhost.yml"),
                 "--simulate-only", "--quiet", "--trials", "40", "-o", str(out), "--cache-dir", str(cache_dir)])
    assert code == 0
    return out


def _noted_trial(run_dir: pathlib.Path):
    """A trial of the search's study with its note, the note's heading as the page shows it, and the study."""
    import json

    from optuna_dashboard import get_note

    summary = json.loads((run_dir / "summary.json").read_text())
    study = optuna.load_study(study_name=summary["study_name"], storage=summary["storage"])
    for t in study.trials:
        note = get_note(optuna.trial.Trial(study, t._trial_id))
        if note:
            heading = note.splitlines()[0].removeprefix("### ")
            return t, re.sub(r"\\(.)", r"\1", heading), study
    raise AssertionError("the search left no note on any trial")


def _start_dashboard(run_dir: pathlib.Path) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "autotune", "dashboard", str(run_dir), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            # Ctrl-C as a terminal sends it, even where this test runs with SIGINT ignored
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    line = proc.stdout.readline()
    if not line.startswith("dashboard of study"):
        proc.kill()
        raise AssertionError(f"no URL from the dashboard: {line!r} {proc.stderr.read()}")
    return proc, line.split()[-1]


def _descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the browser's own processes below chromedriver)."""
    kids: dict[int, list[int]] = {}
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        kids.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for child in kids.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _browser(chromium: str, chromedriver: str, profile: pathlib.Path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for flag in CHROMIUM_FLAGS + [f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    return webdriver.Chrome(options=opts, service=Service(chromedriver))


def _wait_for_text(driver, *texts: str) -> str:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    def shown(d):
        body = d.find_element(By.TAG_NAME, "body").text
        return body if all(t in body for t in texts) else False

    try:
        return WebDriverWait(driver, PAGE_S, poll_frequency=0.5).until(shown)
    except Exception:
        body = driver.find_element(By.TAG_NAME, "body").text
        raise AssertionError(f"not on the page: {[t for t in texts if t not in body]}; it shows: {body[:600]!r}")


def test_the_study_its_trials_and_a_note_in_chromium(finished_search, tmp_path):
    chromium, chromedriver = _browser_binaries()
    trial, heading, study = _noted_trial(finished_search)
    winner = study.user_attrs["winner"]  # the study's attributes name the winner, as its note does
    assert {"label", "family", "lossy", "predicted_s", "measured_s"} <= set(winner)
    variable = study.user_attrs["inventory"]["variables"][0]["name"]
    proc, url = _start_dashboard(finished_search)
    pids: list[int] = []
    driver = None
    try:
        driver = _browser(chromium, chromedriver, tmp_path / "profile")
        pids = [driver.service.process.pid, *_descendants(driver.service.process.pid)]
        driver.get(f"{url}/note")  # the study's own note: the winner and the table
        _wait_for_text(driver, study.study_name, "winner: ", "predicted_ms", "measured_ms")
        driver.get(f"{url}/trials?numbers={trial.number}")
        _wait_for_text(driver, f"{len(study.trials)} Trials", f"Trial {trial.number}", heading, "strategy map",
                       variable, "User Attributes", "family", "lossy", "predicted_s")
        shot = tmp_path / "dashboard.png"
        assert driver.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
    finally:
        if driver is not None:
            driver.quit()
        for pid in wait_gone(pids, 10):
            os.kill(pid, signal.SIGKILL)
        proc.send_signal(signal.SIGINT)
        try:
            code = proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code == 130 and "dashboard stopped" in proc.stderr.read()
