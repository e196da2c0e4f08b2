"""The Python API as the README shows it: its example runs as written, from a directory holding a search's
output, and trains with checkpoints."""
from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

from testpaths import ROOT

pytestmark = pytest.mark.slow


def _readme_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    (example,) = [b for b in blocks if "autotune.train(" in b]
    return example


def test_the_readme_example_runs(tmp_path, monkeypatch, run, cache_dir):
    example = _readme_example()
    assert len(example.strip().splitlines()) <= 10
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(cache_dir))
    os.symlink(ROOT / "examples", tmp_path / "examples")
    (tmp_path / "runs" / "recommender").mkdir(parents=True)
    code, _, err = run("build", "--builder", "ps", "--model", "examples/models/recommender.py", "--spec",
                       "examples/clusters/localhost.yml", "-o", "runs/recommender/best.pb")
    assert code == 0, err
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "README.md", "exec"), {})
    lines = printed.getvalue().splitlines()
    assert lines[0].startswith("100 ") and lines[1].startswith("200 ")  # the callback, every 100 steps
    steps, loss, checkpoint = lines[-1].split()
    assert steps == "200" and float(loss) > 0 and checkpoint.endswith("ckpt-00000200")
    assert sorted(p.name for p in (tmp_path / "runs" / "recommender" / "ckpt").glob("ckpt-*")) == \
        ["ckpt-00000100", "ckpt-00000200"]
