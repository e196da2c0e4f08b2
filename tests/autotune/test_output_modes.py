"""What a command writes is never writable by others, whatever the umask it was started with: under umask 000 a
search's outputs and cache are 0644 files in 0755 folders (the servers' logs, private, are tested with the
cluster: tests/runners/test_running_cluster.py)."""
from __future__ import annotations

import os

import pytest

from testpaths import CLUSTERS, MODELS

pytestmark = pytest.mark.slow


@pytest.fixture
def umask_000():
    old = os.umask(0)
    yield
    os.umask(old)


def test_a_search_under_umask_000_writes_nothing_others_may_change(tmp_path, run, umask_000):
    out, cache = tmp_path / "out", tmp_path / "cache"
    code, _, err = run("search", "--model", MODELS / "mlp.py", "--spec", CLUSTERS / "localhost.yml", "-o", out,
                       "--cache-dir", cache, "--simulate-only", "--quiet", "--trials", "20")
    assert code == 0, err
    modes = {str(p.relative_to(tmp_path)): oct(p.stat().st_mode & 0o777) for root in (out, cache)
             for p in [root, *root.rglob("*")]}
    assert {"out/best.pb", "out/study.db", "out/step_times.png"} <= set(modes)
    assert any(p.startswith("cache/") for p in modes)
    wrong = {p: m for p, m in modes.items() if m != ("0o755" if (tmp_path / p).is_dir() else "0o644")}
    assert wrong == {}
    assert os.umask(0) == 0  # the command gave the umask back
