"""No blind family: a cost model wrong about one synchronizer family still lets the search find that family's winner,
because the best predicted member of every family is measured in the first round; and the search says why each
family was or was not measured."""
from __future__ import annotations

import json

import pytest

from autotune.tuner import Measurement, SearchConfig, run_search
from autotune.tuner._families import representatives, ruled_out, with_representatives
from autotune.tuner._types import Candidate
from simulator import Calibration, Scorer, floor_s, lower_bound
from space import families
from space.builders import build_strategy
from space.cluster import load_cluster
from space.model import load_inventory
from testpaths import MODELS

# two nodes of two replicas each: every family, hierarchical all-reduce included, has members
SPEC = "nodes:\n  - {address: 198.18.0.1, chief: true, gpus: [0, 1], network_bandwidth: 1gbit}\n" \
       "  - {address: 198.18.0.2, gpus: [0, 1], network_bandwidth: 1gbit}\n"


class _OneFamilyWrong:
    """A stand-in cluster whose steps are the cost model's predictions, except for one family, whose strategies truly
    run twice as fast as predicted (never below the model's own floor for them): the logic around profiling, with a
    model wrong about a whole family."""

    family = ""
    calls: list = []

    def __init__(self, inventory, cluster, cfg):
        cal = Calibration.from_spec(cluster)
        self.scorer, self.bound = Scorer(inventory, cluster, cal), lower_bound(inventory, cluster, cal)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass

    def truth(self, strategy) -> float:
        p = self.scorer.predict(strategy)
        if families.family(strategy) != self.family:
            return p.step_time_s
        return max(floor_s(p, self.bound), p.step_time_s / 2)

    def profile(self, strategy):
        _OneFamilyWrong.calls.append(families.family(strategy))
        t = self.truth(strategy)
        return Measurement(t, t, t, 640 / t)


@pytest.fixture(scope="module")
def spec_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("families") / "two_by_two.yml"
    path.write_text(SPEC)
    return path


@pytest.mark.parametrize("model,family,lossless", [
    ("dlrm", families.GATHER, False), ("dlrm", families.COMPRESSED, False), ("dlrm", families.HIERARCHICAL, False),
    ("mlp", families.ALL_REDUCE, True)])
def test_a_model_wrong_by_2x_on_one_family_still_finds_its_winner(model, family, lossless, spec_path, cache_dir,
                                                                   tmp_path):
    inventory, cluster = load_inventory(MODELS / f"{model}.py", cache_dir=str(cache_dir)), load_cluster(spec_path)
    _OneFamilyWrong.family, _OneFamilyWrong.calls = family, []
    cfg = SearchConfig(model=str(MODELS / f"{model}.py"), spec=str(spec_path), output=tmp_path / "o", trials=20,
                       cache_dir=str(cache_dir), seed=0, calibrate=False, lossless=lossless)
    result = run_search(cfg, profiler_factory=_OneFamilyWrong, progress=False)
    by_family = {r["family"]: r for r in result.families}
    rep = by_family[family]
    # the model alone would not have measured it: its best member was predicted well behind the best predicted
    scorer = Scorer(inventory, cluster, Calibration.from_spec(cluster))
    assert rep["predicted_ms"] > 1.05 * min(c.predicted_s for c in result.candidates) * 1e3
    assert rep["status"] == "measured", rep
    assert result.winner.family == family, (result.winner.label, by_family)
    assert result.winner.measured.median_s < scorer.predict(result.winner.strategy).step_time_s
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["winner_family"] == family and {r["family"] for r in summary["families"]} == set(families.FAMILIES)


def test_every_family_is_measured_or_says_why_not(spec_path, cache_dir, tmp_path, capsys):
    cfg = SearchConfig(model=str(MODELS / "dlrm.py"), spec=str(spec_path), output=tmp_path / "o", trials=80,
                       cache_dir=str(cache_dir), seed=0, calibrate=False, lossless=True)
    _OneFamilyWrong.family, _OneFamilyWrong.calls = "", []
    result = run_search(cfg, profiler_factory=_OneFamilyWrong, progress=False)
    rows = {r["family"]: r for r in result.families}
    assert rows[families.COMPRESSED]["status"] == "absent" and "--lossless" in rows[families.COMPRESSED]["why"]
    assert not any(c.lossy for c in result.candidates) and families.COMPRESSED not in _OneFamilyWrong.calls
    for f in (families.PS, families.GATHER, families.HIERARCHICAL):
        assert rows[f]["status"] in ("measured", "ruled out"), rows[f]
        assert rows[f]["why"]
    out = capsys.readouterr().out
    assert all(f"family {f}:" in out for f in families.FAMILIES)


def _cand(trial: int, predicted: float, strategy=None, builders=()) -> Candidate:
    return Candidate(params={}, strategy=strategy, predicted_s=predicted, builders=list(builders), trial=trial)


def test_representatives_take_their_place_in_the_first_round_within_its_limit(cache_dir, spec_path):
    inventory, cluster = load_inventory(MODELS / "dlrm.py", cache_dir=str(cache_dir)), load_cluster(spec_path)
    built = {a: _cand(10 + i, 0.01 * (i + 1), build_strategy(a, inventory, cluster), [a])
             for i, a in enumerate(("ps", "all_reduce", "all_reduce_fp16", "all_reduce_powersgd",
                                    "all_reduce_hierarchical", "parallax"))}
    reps = representatives(built.values())
    # the best predicted of each pure family; the mix (parallax) stands for none
    assert {f: c.label for f, c in reps.items()} == {
        families.PS: "ps", families.GATHER: "all_reduce", families.COMPRESSED: "all_reduce_fp16",
        families.HIERARCHICAL: "all_reduce_hierarchical"}
    trials = [_cand(i, 0.001 * (i + 1)) for i in range(6)]
    first = with_representatives(trials[:4] + [built["ps"]], reps, size=5, limit=7)
    # the model's own last picks give way to the representatives it lacks (best predicted first), down to two; a
    # representative among its picks stays; past the round's size, runs come from the later rounds up to the limit
    assert [c.label for c in first] == ["trial 0", "trial 1", "ps", "all_reduce", "all_reduce_fp16",
                                        "all_reduce_hierarchical"]
    assert [c.label for c in with_representatives(trials, reps, size=8, limit=8)] == [
        "trial 0", "trial 1", "trial 2", "trial 3", "ps", "all_reduce", "all_reduce_fp16", "all_reduce_hierarchical"]
    assert len(with_representatives(trials, reps, size=5, limit=4)) == 4


def test_a_lower_bound_above_the_best_measured_step_rules_a_candidate_out():
    c = _cand(0, 0.05)
    c.lower_bound_s = 0.02
    assert ruled_out(c, None) == "" and ruled_out(c, 0.021) == ""
    assert "cannot beat the best measured step (20.00 ms)" in ruled_out(c, 0.02)


def test_a_bound_a_measured_step_fell_below_rules_nothing_out():
    """Bounds from the spec's nominal values can sit above a real step: then they are no bounds on this cluster."""
    from autotune.tuner._families import bounds_hold

    fast, slow = _cand(0, 0.05), _cand(1, 0.05)
    fast.lower_bound_s = slow.lower_bound_s = 0.02
    fast.measured = Measurement(0.015, 0.015, 0.015, 1.0)  # below its own floor
    assert not bounds_hold([fast, slow])
    fast.measured = Measurement(0.025, 0.025, 0.025, 1.0)
    assert bounds_hold([fast, slow])
