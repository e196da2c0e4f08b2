"""A what-if search on a cluster of 256 nodes: the compact space, a few parameters per trial, a valid winner, and
the lines that tell how long is left and who won."""
from __future__ import annotations

import json
import re

import pytest

from autotune.cli import main
from autotune.tuner._progress import Progress
from space.cluster import load_cluster
from space.model import load_inventory
from space.strategy import Strategy
from space.validate import validate
from testpaths import MODELS

PER_VARIABLE = 7  # shards, axis, kind and that kind's settings


def _flat_spec(path, nodes: int):
    lines = ["nodes:"]
    for i in range(nodes):
        lines += [f"  - address: 10.0.{i // 250}.{i % 250 + 1}", "    network_bandwidth: 25gbit"]
        lines += ["    chief: true"] if i == 0 else []
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
def test_a_simulate_only_search_at_256_nodes_names_winner_builder_and_bound(tmp_path, cache_dir, capsys):
    spec, out, model = _flat_spec(tmp_path / "big.yml", 256), tmp_path / "o", str(MODELS / "mlp.py")
    assert main(["search", "--model", model, "--spec", str(spec), "-o", str(out), "--cache-dir", str(cache_dir),
                 "--simulate-only", "--quiet", "--trials", "40", "--seed", "0"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    inventory, cluster = load_inventory(model, cache_dir=cache_dir), load_cluster(spec)
    assert summary["space"]["mode"] == "compact"
    records = [json.loads(line) for line in (out / "simulated.jsonl").read_text().splitlines()]
    assert len(records) == 40
    assert max(len(r["params"]) for r in records) <= PER_VARIABLE * len(inventory.variables)
    validate(Strategy.load(out / "best.pb"), inventory, cluster)
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("winner: "))
    assert re.match(rf"winner: {re.escape(summary['winner'])}( \(lossy: [^)]*\))?, predicted", line), line
    assert "x the lower bound" in line
    assert re.search(r"; best builder predicted: \w+.*, [0-9.]+ ms$", line)
    assert f"lower bound {summary['lower_bound_s'] * 1e3:.2f} ms" in text


def test_progress_says_how_long_is_left_at_the_rate_so_far():
    said: list[str] = []
    progress = Progress(True, said.append, every_s=0.0)
    progress.start(100, "simulated")
    progress.update(25, best="1.00ms")
    assert re.fullmatch(r"simulated: 25/100 after \d+ s \(about \d+ s left\) best=1.00ms", said[-1])
    progress.start(None, "profiling")
    progress.update()
    assert "left" not in said[-1]
