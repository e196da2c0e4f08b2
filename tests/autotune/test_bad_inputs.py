"""Every bad input of ``tests/bad_inputs.py`` is refused in one line naming what and where, with exit code 2, before
any work; run in-process here, and as fresh processes (TensorFlow's start-up logging included) for a few."""
from __future__ import annotations

import pytest

import bad_inputs

CASES = {c.name: c for c in bad_inputs.CASES}
FRESH = ["loss is NaN", "spec missing", "unknown option", "search -o is a file"]


def test_at_least_fifty_cases():
    assert len(CASES) == len(bad_inputs.CASES) >= 50


@pytest.mark.parametrize("name", sorted(CASES))
def test_refused_in_one_line(name, run, tmp_path, monkeypatch):
    case = CASES[name]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    case.prepare(tmp_path)
    code, _, err = run(*case.args(tmp_path))
    assert bad_inputs.check(case, code, err) == "", err


@pytest.mark.slow
@pytest.mark.parametrize("name", FRESH)
def test_refused_in_one_line_by_a_fresh_process(name):
    case = CASES[name]
    code, err = bad_inputs.run_process(case)
    assert bad_inputs.check(case, code, err) == "", err
