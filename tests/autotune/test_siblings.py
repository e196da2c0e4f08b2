"""autotune's top-level packages have generic names: a stranger's ``space`` found first is named, not imported."""
from __future__ import annotations

import os
import subprocess
import sys

from testpaths import ROOT


def _import_autotune(pythonpath: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(pythonpath)}
    return subprocess.run([sys.executable, "-c", "import autotune; print('imported', autotune.__version__)"],
                          cwd="/", env=env, capture_output=True, text=True)


def test_our_own_packages_import():
    done = _import_autotune([str(ROOT)])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("imported")


def test_another_distributions_space_is_named_and_never_imported(tmp_path):
    stranger = tmp_path / "site" / "space"
    stranger.mkdir(parents=True)
    (stranger / "__init__.py").write_text("raise SystemExit('the stranger was imported')\n")
    done = _import_autotune([str(tmp_path / "site"), str(ROOT)])
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert "ShadowedPackage" in last and str(stranger) in last and "'space'" in last
    assert "the stranger was imported" not in done.stderr
