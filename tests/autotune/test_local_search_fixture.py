"""The simulated stage's local search proposes the same neighbours and predicts the same step times as the recorded
run in ``tests/fixtures/local_search``: the shortcuts of the neighbour replay, decoding and scoring change no
result. Where a change of results is intended, the fixture is rewritten from :func:`records`."""
from __future__ import annotations

import hashlib
import json

import optuna
import pytest

from testpaths import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "local_search" / "heterogeneous_seed3.json"


def records(model: str, inventory, cluster, seed: int, candidates: int, out) -> list[list]:
    """``[params hash, predicted_s, state]`` of the stage's local candidates, uncalibrated, in the search's space."""
    from autotune.tuner import SearchConfig, _study
    from autotune.tuner._journal import Journal
    from autotune.tuner._pipeline import make_space
    from autotune.tuner._progress import Progress
    from autotune.tuner._simulated import SAMPLED, simulate
    from simulator import Calibration, Scorer

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space = make_space(inventory, cluster)
    cfg = SearchConfig(model="m.py", spec="c.yml", output=out, trials=SAMPLED + candidates, seed=seed)
    journal = Journal(out / f"{model}.jsonl")
    stage = simulate(space, Scorer(inventory, cluster, Calibration.from_spec(cluster)), _study.distributions(space),
                     journal, cfg, multi=False, progress=Progress(False, print))
    assert [r["method"] for r in stage.records[SAMPLED:]] == ["local"] * candidates
    return [[hashlib.sha256(repr(sorted(r["params"].items())).encode()).hexdigest()[:16], r["predicted_s"],
             r["state"]] for r in stage.records[SAMPLED:]]


@pytest.mark.parametrize("model", ["mlp", "recommender"])
def test_local_search_repeats_the_recorded_run(model, inventories, clusters, tmp_path):
    recorded = json.loads(FIXTURE.read_text())
    got = records(model, inventories(model), clusters[recorded["cluster"]], recorded["seed"],
                  recorded["local_candidates"], tmp_path)
    want = recorded["records"][model]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"local candidate {i}: {g} != recorded {w}"

