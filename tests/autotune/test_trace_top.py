"""``--trace-top N``: a search traces the first N distinct candidates it profiles, into its output's traces."""
from __future__ import annotations

import pathlib
import types

from autotune.tuner._profiler import ClusterProfiler
from runners._trace import TRACES


def _strategy(strategy_id: str):
    return types.SimpleNamespace(proto=types.SimpleNamespace(id=strategy_id))


def test_the_first_n_candidates_profiled_are_traced_once_each(tmp_path):
    cfg = types.SimpleNamespace(trace_top=2, output=pathlib.Path(tmp_path))
    profiler = ClusterProfiler(None, None, cfg)
    got = [profiler._trace_dir(_strategy(s)) for s in ("a", "b", "a", "c")]
    assert got == [str(tmp_path / TRACES)] * 2 + [None, None]


def test_nothing_is_traced_by_default(tmp_path):
    from autotune.tuner import SearchConfig

    cfg = SearchConfig(model="m.py", spec="c.yml", output=tmp_path)
    assert ClusterProfiler(None, None, cfg)._trace_dir(_strategy("a")) is None
