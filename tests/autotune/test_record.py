"""The study's records: one class owns every attribute name a search writes on a study and its trials, and its
stored names load as they were written."""
from __future__ import annotations

import pathlib
import re

import pytest

from autotune.tuner._record import RECORDS, TrialRecord
from testpaths import ROOT

PACKAGES = ("space", "simulator", "runners", "autotune")
OWNER = pathlib.Path("autotune/tuner/_record.py")
# a name spelled as a string where a trial's or a study's user attributes are read or written
SPELLED = re.compile(r"""user_attrs\.get\(\s*["']|user_attrs\[\s*["']|set_(?:trial_)?user_attr\((?:[^,()]+,\s*)?["']""")


def _sources() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
                  if p.relative_to(ROOT) != OWNER)


@pytest.mark.parametrize("path", _sources())
def test_no_attribute_name_is_spelled_outside_the_record(path):
    text = (ROOT / path).read_text()
    found = [f"{path}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if SPELLED.search(line)]
    assert not found, "spell it through autotune.tuner._record:\n" + "\n".join(found)


def test_the_scan_finds_a_spelled_name():
    """The pattern above catches each way of spelling a name (else the scan passes on anything)."""
    for line in ('x = t.user_attrs.get("stage")', "t.user_attrs['error']", 'trial.set_user_attr("phase", p)',
                 'storage.set_trial_user_attr(tid, "released", why)'):
        assert SPELLED.search(line), line


def test_stored_attributes_load_and_store_unchanged():
    """A study written before keeps its names: reading a trial's attributes and writing them back is the identity
    for every name the record owns, and names of other tools are left out."""
    stored = {"stage": "profiled", "strategy_hash": "h", "sim_trial": 7, "measured_s": 0.003, "runs": 2,
              "step_times_s": [0.003, 0.0031], "builders": ["ps"], "lossy": False, "claimed_by": "n:1:a"}
    rec = TrialRecord.from_attrs({**stored, "another_tool": 1})
    assert rec.to_attrs() == stored
    assert rec.stage in RECORDS and rec.pooled_runs == 2


def test_an_unset_field_is_not_written():
    written = {}
    TrialRecord(phase="profiling").write(written.__setitem__)
    assert written == {"phase": "profiling"}
    assert TrialRecord().pooled_runs == 1
