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


def test_the_readme_example_runs(tmp_path, monkeypatch, cache_dir):
    """The README's example as written: a search within a one-minute budget (no calibration stored: no time for
    one), ending in time with a winner and saying what the budget cut, then training with the winner."""
    import json
    import time

    import autotune

    example = _readme_example()
    assert len(example.strip().splitlines()) <= 10
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(cache_dir))
    os.symlink(ROOT / "examples", tmp_path / "examples")
    timed = {}

    def search(*args, **kwargs):
        started = time.monotonic()
        try:
            return real(*args, **kwargs)
        finally:
            timed["s"] = time.monotonic() - started

    real = autotune.search
    monkeypatch.setattr(autotune, "search", search)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(example, "README.md", "exec"), {})
    out = tmp_path / "runs" / "api"
    summary = json.loads((out / "summary.json").read_text())
    assert timed["s"] <= 60 * 1.1, timed  # the budget bounds the whole search, its report included
    assert summary["budget"]["budget_s"] == 60 and summary["budget"]["cut"]  # it says what it left out
    assert summary["winner_measured_s"] and (out / "best.pb").is_file() and (out / "step_times.png").is_file()
    lines = printed.getvalue().splitlines()
    assert lines[0].startswith(summary["winner"])
    assert any(line.startswith("100 ") for line in lines) and any(line.startswith("200 ") for line in lines)
    steps, loss, checkpoint = lines[-1].split()
    assert steps == "200" and float(loss) > 0 and checkpoint.endswith("ckpt-00000200")
    assert sorted(p.name for p in (out / "ckpt").glob("ckpt-*")) == ["ckpt-00000100", "ckpt-00000200"]


def test_search_refuses_an_unknown_option_and_a_bad_budget():
    import autotune
    from space.errors import BadInput

    with pytest.raises(BadInput, match="no option 'top'"):
        autotune.search("m.py", "c.yml", top=3)
    with pytest.raises(BadInput, match="budget: a duration"):
        autotune.search("m.py", "c.yml", budget="soon")
