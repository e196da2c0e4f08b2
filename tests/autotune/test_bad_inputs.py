"""Every bad input of ``tests/bad_inputs.py`` is handled as specified: refused in one line naming what and where,
with exit code 2, before any work, or accepted and ended as it should; run in-process here, and as fresh processes
(TensorFlow's start-up logging included) for a few and for those only a fresh process shows. In-process, each
case is also checked to leave no server, nftables table or temporary file behind."""
from __future__ import annotations

import os

import pytest

import bad_inputs
from testsupport import Leftovers, servers_of

CASES = {c.name: c for c in bad_inputs.CASES}
FRESH = ["loss is NaN", "spec missing", "unknown option", "search -o is a file", "IPv6 node", "empty strategy file"]


def _ids(fresh: bool) -> list:
    return [pytest.param(name, marks=[pytest.mark.slow] if case.slow else []) for name, case in sorted(CASES.items())
            if case.fresh == fresh]


def test_at_least_fifty_cases():
    assert len(CASES) == len(bad_inputs.CASES) >= 50


@pytest.mark.parametrize("name", _ids(fresh=False))
def test_handled_as_specified(name, run, tmp_path, monkeypatch):
    case = CASES[name]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    for key, value in case.env.items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)
    case.prepare(tmp_path)
    for argv in case.before:
        code, _, err = run(*case.args(tmp_path, argv))
        assert code == 0, err
    leftovers = Leftovers()
    with case.holding(tmp_path):
        code, out, err = run(*case.args(tmp_path))
    assert bad_inputs.check(case, code, err, out) == "", err[-2000:]
    assert servers_of(os.getpid()) == {} and leftovers.left(timeout_s=0) == []


@pytest.mark.parametrize("name", _ids(fresh=True))
def test_handled_as_specified_by_a_fresh_process(name):
    case = CASES[name]
    code, out, err = bad_inputs.run_process(case, timeout_s=120)
    assert bad_inputs.check(case, code, err, out) == "", err[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("name", FRESH)
def test_refused_in_one_line_by_a_fresh_process(name):
    case = CASES[name]
    code, out, err = bad_inputs.run_process(case)
    assert bad_inputs.check(case, code, err, out) == "", err
