"""No stalls on a starved machine: short profile and train runs of PS, all-reduce and mixed strategies, each with a
process spinning on every core beside it, on one started loopback cluster. Every run ends, and ends well: a first
call that builds its executors slowly is given the time to, and no step is ever declared stuck."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys

import pytest

from space.builders import build_strategy

pytestmark = pytest.mark.slow

STRATEGIES = [("recommender", "ps"), ("mlp", "all_reduce"), ("recommender", "parallax"),
              ("recommender", "partitioned_ps"), ("mlp", "ps_lb"), ("mlp", "all_reduce_fp16")]
# 30 runs: each strategy five times, profiled and trained in turn (benchmarks/stress.py prints the same as a table)
RUNS = [(i, *STRATEGIES[i % len(STRATEGIES)], "profile" if (i // len(STRATEGIES)) % 2 == 0 else "train")
        for i in range(30)]


@contextlib.contextmanager
def cpu_hogs(n: int):
    """``n`` processes spinning on the CPU for as long as the block runs; stopped by their PIDs."""
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]
    try:
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


@pytest.mark.parametrize("index,model,alias,kind", RUNS, ids=[f"{i}-{m}-{a}-{k}" for i, m, a, k in RUNS])
def test_a_short_run_beside_a_cpu_hog_never_stalls(index, model, alias, kind, cluster, spec, traced):
    from runners.profile import profile_strategy
    from runners.train import train_strategy

    t, inv = traced(model)
    strategy = build_strategy(alias, inv, spec)
    said: list[str] = []
    with cpu_hogs(os.cpu_count() or 2) as pids:
        assert len(pids) >= 1
        if kind == "profile":
            r = profile_strategy(t, strategy, cluster, steps=10, warmup=2, on_build=said.append)
            assert len(r.step_times_s) == 10 and r.median_s > 0
        else:
            r = train_strategy(t, strategy, cluster, steps=20, on_build=said.append)
            assert len(r.losses) == 20
    # a build that took long said so, in words that do not call the step stuck
    assert all("still building" in m for m in said)
