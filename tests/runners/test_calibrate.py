"""``autotune calibrate``: its options, what a link probe does with times that do not grow with message size, the
head-to-head turns' rounds, then (slow) on real servers: the local 2-node cluster (a file the search finds, the
model's steps timed at profile's steps per call) and a tc-shaped testbed link (bandwidth near the tc rate). Turning
the measurements into a Calibration is tested in ``tests/simulator/test_sim_from_measurements.py`` and
``test_sim_anchor_costs.py``."""
from __future__ import annotations

import os
import pathlib
import sys
import types

import pytest

from autotune.cli import main
from testsupport import netns_forbidden

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "models" / "mlp.py"
LOCAL = ROOT / "examples" / "clusters" / "localhost.yml"
MIB = 2**20


def test_the_turns_rounds_split_a_jobs_steps_as_take_turns_ran_them():
    """20 steps in 10 rounds: 2 a round; 7 in 3: 3, 2, 2 (the first rounds take the rest); rounds beyond the steps
    are dropped. A job's times read back as each round's mean step, in the order the rounds ran."""
    from runners.profile import round_means, turn_chunks

    assert turn_chunks(20, 10) == [2] * 10 and turn_chunks(7, 3) == [3, 2, 2] and turn_chunks(2, 10) == [1, 1]
    assert round_means([1.0, 3.0, 2.0, 2.0, 4.0, 6.0, 8.0], [3, 2, 2]) == [2.0, 3.0, 7.0]


def test_a_slow_step_takes_fewer_samples_not_more_time():
    """Ten samples of 13 jobs whose calls take 1 s each would take 130 s: cut to what fits, never below the minimum;
    a fast model, or no limit, keeps all ten."""
    from runners.profile import MIN_SAMPLES, samples_within

    assert samples_within(10, 13 * 0.04, 60.0) == 10 and samples_within(10, 13.0, None) == 10
    assert samples_within(10, 6.0, 60.0) == 10 and samples_within(10, 6.1, 60.0) == 9
    assert samples_within(10, 13.0, 60.0) == MIN_SAMPLES
    assert samples_within(3, 130.0, 60.0) == 3 and samples_within(10, 0.0, 60.0) == 10


@pytest.mark.parametrize("text,expected", [("256k,1m", [256 * 1024, MIB]), ("4m, 64KiB", [64 * 1024, 4 * MIB]),
                                           ("1000,2000b", [1000, 2000])])
def test_parse_sizes(text, expected):
    from autotune._configs import parse_sizes

    assert parse_sizes(text) == tuple(expected)


@pytest.mark.parametrize("text", ["1m", "1m,1m", "1x,2m", "0,1m"])
def test_bad_sizes_exit_2(text, capsys):
    assert main(["calibrate", "--spec", str(LOCAL), "--sizes", text]) == 2
    assert "--sizes" in capsys.readouterr().err


def test_bad_spec_exits_2_in_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yml"
    bad.write_text("nodes: [{address: 127.0.0.1, bogus: 1}]\n")
    assert main(["calibrate", "--spec", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error:")


def _kept_probes(spec, model_hash: str | None, *, probes: bool = True, at: str = "2000-01-01T00:00:00+00:00"):
    """A calibration of ``spec`` as calibrate derives it from made-up probe times, with the probes kept or not."""
    from runners._measurements import cluster_probes
    from runners.calibrate import LinkTiming, Measurements
    from simulator import to_calibration

    a, b = (n.address for n in spec.nodes)
    links = [LinkTiming(x, y, [MIB, 4 * MIB], [0.002, 0.005], base_s=0.001, tiny_s=0.00105)
             for x, y in ((a, b), (b, a))]
    m = Measurements(links=links, allreduce_sizes=[MIB, 4 * MIB], allreduce_s=[0.004, 0.01], allreduce_tiny_s=0.003,
                     allreduce_base_s=0.001, rpc_tensors=21, rpc_s=0.003, rpc_one_s=0.001, reduce_s_per_byte=1e-10,
                     cast_s_per_byte=2e-10, chain_hops=(2, 22), chain_s={f"{a}|{b}": (0.001, 0.003)},
                     collectives=16, collectives_many_s=0.01, collectives_one_s=0.002, run_all_tasks_s=0.002,
                     run_one_task_s=0.001, powersgd_small_s=0.01, powersgd_large_s=0.02)
    cal = to_calibration(m, spec).replace(model_hash=model_hash, created_at=at)
    return m, cal.replace(probes=cluster_probes(m)) if probes else cal


def test_a_kept_cluster_part_is_found_for_its_spec_only_and_derives_the_same_constants(tmp_path):
    """The newest calibration of the spec that kept its probes is the one reused, whichever model it was for; the
    probes, read back from its file, derive the constants they derived; an edited spec (another fingerprint)
    finds none, though its directory holds the other spec's files."""
    from autotune.calibration import cluster_calibration
    from runners._measurements import from_cluster_probes
    from simulator import Calibration, calibration_path, to_calibration
    from space.cluster import load_cluster

    spec = load_cluster(LOCAL)
    edited = tmp_path / "edited.yml"
    edited.write_text(LOCAL.read_text().replace("network_bandwidth: 10", "network_bandwidth: 1", 1))
    other = load_cluster(edited)
    assert other.fingerprint != spec.fingerprint
    m, older = _kept_probes(spec, "a" * 64)
    _, newer = _kept_probes(spec, "b" * 64, at="2001-01-01T00:00:00+00:00")
    _, without = _kept_probes(spec, None, probes=False, at="2002-01-01T00:00:00+00:00")
    for cal in (older, newer, without):
        cal.save(calibration_path(tmp_path, spec, cal.model_hash))
    (tmp_path / f"{spec.fingerprint}-cccc.json").write_text("not json")  # passed over, not an error
    cal, path = cluster_calibration(tmp_path, spec)
    assert path == calibration_path(tmp_path, spec, "b" * 64) and cal.model_hash == "b" * 64
    again = to_calibration(from_cluster_probes(Calibration.load(path).probes), spec)
    assert again.replace(created_at="").to_dict() == to_calibration(m, spec).replace(created_at="").to_dict()
    assert cluster_calibration(tmp_path, other) is None


@pytest.mark.parametrize("stored", ["other-model", "other-spec", "spec-only-without-probes"])
def test_a_search_without_its_models_calibration_measures_what_is_missing(tmp_path, monkeypatch, stored):
    """What a search with no calibration of its model measures: only the model's part beside another model's
    kept probes of this spec; everything where the stored one is another spec's; nothing where a model-less one
    kept no probes (it is used as it is). (The measurement itself is recorded here, not run: the slow test above
    runs it.)"""
    from autotune.tuner import _pipeline
    from autotune.tuner._types import SearchConfig
    from simulator import calibration_path
    from space.cluster import load_cluster

    spec = load_cluster(LOCAL)
    edited = tmp_path / "edited.yml"
    edited.write_text(LOCAL.read_text().replace("network_bandwidth: 10", "network_bandwidth: 1", 1))
    stored_spec = load_cluster(edited) if stored == "other-spec" else spec
    _, cal = _kept_probes(stored_spec, None if stored.startswith("spec-only") else "a" * 64,
                          probes=not stored.endswith("without-probes"))
    cal.save(calibration_path(tmp_path / "calibration", stored_spec, cal.model_hash))
    calls, said = [], []
    monkeypatch.setattr(_pipeline, "measure_and_store",
                        lambda *a, reuse=None, **k: calls.append(reuse) or (None, None, "measured", "path"))
    cfg = SearchConfig(model=str(MLP), spec=str(LOCAL), output=tmp_path, cache_dir=str(tmp_path))
    spec_only = cal if stored.startswith("spec-only") else None
    got = _pipeline._quick_calibration(spec, cfg, said.append, said.append, said.append, spec_only)
    if stored == "other-model":
        assert calls == [cal.replace(source=calls[0].source)] and got == "measured"
        assert said[0].startswith("reusing the cluster's calibration from ")
    elif stored == "other-spec":
        assert calls == [None] and got == "measured" and said[0].startswith("no calibration for this cluster")
    else:
        assert calls == [] and got is cal


@pytest.mark.slow
def test_unreachable_host_exits_2_naming_it(tmp_path, capsys):
    spec = tmp_path / "unreachable.yml"
    spec.write_text("nodes:\n  - {address: 127.0.0.1, chief: true, ssh_config: g}\n"
                    "ssh:\n  g: {username: root, port: 1}\n")  # nothing listens on port 1
    assert main(["calibrate", "--spec", str(spec), "--cache-dir", str(tmp_path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "127.0.0.1" in err and err.startswith("error:")


# ---- real servers ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def mlp_calibrated(tmp_path_factory):
    """``autotune calibrate`` of the mlp on the local cluster, once for the module: (cache dir, the --output copy,
    its stdout and stderr)."""
    import contextlib
    import io

    tmp_path = tmp_path_factory.mktemp("calibrated")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["calibrate", "--spec", str(LOCAL), "--model", str(MLP), "--sizes", "64k,1m", "--repeats", "2",
                     "--rpc-tensors", "20", "--steps", "2", "--warmup", "1", "--cache-dir", str(tmp_path),
                     "--output", str(tmp_path / "copy.json")])
    assert code == 0, err.getvalue()
    return tmp_path, tmp_path / "copy.json", types.SimpleNamespace(out=out.getvalue(), err=err.getvalue())


@pytest.mark.slow
def test_calibrate_local_cluster_writes_a_file_search_finds(mlp_calibrated):
    from autotune.calibration import stored_calibration
    from simulator import Calibration
    from space.cluster import load_cluster
    from space.model import load_inventory

    tmp_path, out, captured = mlp_calibrated
    assert "calibrate: link 127.0.0.1 -> 127.0.0.2" in captured.err and "all-reduce bandwidth factor" in captured.out
    spec, inv = load_cluster(LOCAL), load_inventory(MLP, cache_dir=tmp_path)
    found = stored_calibration(spec, inv, str(tmp_path))
    assert found is not None and found.model_hash == inv.model_hash and found.step_time_s > 0
    assert set(found.node_bandwidth_gbit) == {"127.0.0.1", "127.0.0.2"}
    assert "model step, powersgd" in captured.out and found.powersgd_matrix_s >= 0
    assert "model step, ar_split" in captured.out and found.ar_piece_s >= 0 and found.ps_piece_s >= 0
    # each anchor's mean step per round of the turns (2 steps x 2 passes: 4 rounds of one), for its pair's spread
    assert set(found.anchor_rounds_s) == set(found.anchors_s)
    for name, rounds in found.anchor_rounds_s.items():
        assert len(rounds) == 4 and min(rounds) <= found.anchors_s[name] <= max(rounds), name
    assert " ms against ps" in captured.out and " ms against all_reduce" in captured.out
    # the SGD update of the mlp's 235k parameters on one node: measured, and part of one replica's step
    assert "optimizer update on one node: sgd on 6 variable(s)" in captured.err
    assert 0 < found.update_s <= found.alone_step_s and "optimizer update, every variable once" in captured.out
    # and what the updates take of the lockstep step, timed in it
    assert "model step, noupdate" in captured.err and "the same, no update applied" in captured.out
    assert 0 <= found.update_share <= 1
    assert Calibration.load(out, cluster=spec).to_dict() == found.to_dict()


# what the cluster is, whatever model runs on it: the constants the cluster probes alone set
CLUSTER_CONSTANTS = ("node_bandwidth_gbit", "link_bandwidth_gbit", "latency_s", "link_latency_s", "rpc_overhead_s",
                     "reduce_s_per_byte", "cast_s_per_byte", "powersgd_s_per_flop", "probes")


@pytest.mark.slow
def test_a_search_on_another_model_measures_only_its_steps(mlp_calibrated, tmp_path, monkeypatch):
    """A search on a model the spec has no calibration for, where the mlp's calibration of the same spec kept its
    cluster probes, probes nothing of the cluster: it takes the mlp's cluster constants as they are, times its
    own model's steps, and stores that under its own model's hash (with the probes, for the next model)."""
    import shutil

    from autotune.tuner import _pipeline
    from autotune.tuner._types import SearchConfig
    from simulator import Calibration, calibration_path
    from space.cluster import load_cluster
    from space.model import load_inventory

    other = ROOT / "examples" / "zoo" / "keras_sequential.py"
    spec = load_cluster(LOCAL)
    mlp_file = calibration_path(mlp_calibrated[0] / "calibration", spec,
                                load_inventory(MLP, cache_dir=mlp_calibrated[0]).model_hash)
    cache = tmp_path / "cache"
    shutil.copytree(mlp_file.parent, cache / "calibration")
    monkeypatch.setattr(_pipeline, "QUICK_CALIBRATION", {**_pipeline.QUICK_CALIBRATION, "steps": 2, "warmup": 1})
    inv = load_inventory(other, cache_dir=cache)
    said, progressed = [], []
    _, cal, calibrated = _pipeline._scorer(inv, spec, SearchConfig(model=str(other), spec=str(LOCAL), output=tmp_path,
                                                                   cache_dir=str(cache)),
                                           said.append, said.append, self_calibrate=True, progress=progressed.append)
    reused = cache / "calibration" / mlp_file.name
    assert calibrated and f"reusing the cluster's calibration from {reused}; measuring the model's steps" in said
    assert not [m for m in progressed if m.startswith(("link ", "all-reduce over", "per-tensor overhead"))], progressed
    assert "model step, ar_split: building its job, 1 warm-up step(s)" in progressed
    mine = Calibration.load(calibration_path(cache / "calibration", spec, inv.model_hash), cluster=spec)
    mlp_cal = Calibration.load(mlp_file, cluster=spec)
    assert mine.to_dict() == cal.to_dict() and mine.model_hash == inv.model_hash != mlp_cal.model_hash
    for name in CLUSTER_CONSTANTS:
        assert getattr(mine, name) == getattr(mlp_cal, name), name
    # its own model's part: its momentum update, its steps, its anchors (the mlp's have other lengths)
    assert "optimizer update on one node: momentum on 6 variable(s)" in progressed
    assert mine.step_time_s > 0 and set(mine.anchors_s) == set(mlp_cal.anchors_s)
    assert mine.anchors_s != mlp_cal.anchors_s and mine.update_s != mlp_cal.update_s


@pytest.fixture(scope="module")
def local_cluster():
    from runners.cluster import start_cluster
    from space.cluster import load_cluster

    with start_cluster(load_cluster(LOCAL), timeout_s=90) as running:
        yield running


@pytest.fixture(scope="module")
def mlp():
    from space.model import inventory_from_trace, trace_step

    traced = trace_step(MLP)
    return traced, inventory_from_trace(traced)


@pytest.mark.slow
@pytest.mark.parametrize("steps, several", [(2, False), (10, True)], ids=["short-one-per-call", "long-chosen"])
def test_one_replica_alone_is_timed_at_the_steps_per_call_profile_runs(local_cluster, mlp, steps, several):
    """Timed for as many calls as profile chooses the steps per call for, the mlp's step (about as short as a
    call's own cost on loopback) runs several to a call; a shorter run keeps one, as profile does."""
    from runners.calibrate import Prober

    step_s, k = Prober(local_cluster).single_step(*mlp, steps=steps, warmup=2)
    assert step_s > 0 and (k > 1) == several, k


@pytest.mark.slow
def test_model_steps_are_timed_at_the_steps_per_call_profile_runs(local_cluster, mlp, monkeypatch):
    """Every job of the head-to-head model steps (alone, unsynchronized, no update, each anchor: the fused
    all-reduce one here) chooses its steps per call as profile does and records it; its samples are calls, two
    rounds of five here. (At most 8 steps per call: a call of k steps builds k copies of the step.)"""
    import runners.calibrate
    from runners.transform import TrainingJob

    only = runners.calibrate.anchor_strategies
    monkeypatch.setattr(runners.calibrate, "anchor_strategies",
                        lambda inventory, spec: {"all_reduce": only(inventory, spec)["all_reduce"]})
    *_, anchors, rounds, per_call = runners.calibrate.Prober(local_cluster).model_steps(*mlp, steps=5, warmup=2,
                                                                                        rounds_per_pass=1)
    assert set(per_call) == {"alone", "nosync", "noupdate", "all_reduce"} and set(anchors) == {"all_reduce"}
    assert all(1 < k <= TrainingJob.MAX_STEPS_PER_CALL for k in per_call.values()), per_call
    assert [len(r) for r in rounds.values()] == [2]


@pytest.mark.slow
@pytest.mark.netns
@pytest.mark.ssh
def test_shaped_link_bandwidth_is_near_the_tc_rate(tmp_path, capsys):
    reason = netns_forbidden()
    if reason:
        pytest.skip(reason)
    import runners.testbed as tb
    from simulator import Calibration

    plan = tb.make_plan(2, "200mbit", prefix=f"cal{os.getpid() % 100000}"[:10],
                        subnet=f"198.19.{(os.getpid() * 7 + 3) % 250}.0/24", directory=str(tmp_path / "tb"),
                        python=sys.executable)
    try:
        tb.up(plan)
        out = tmp_path / "cal.json"
        code = main(["calibrate", "--spec", str(tmp_path / "tb" / "cluster.yml"), "--sizes", "512k,4m",
                     "--repeats", "5", "--rpc-tensors", "20", "--cache-dir", str(tmp_path), "--output", str(out),
                     "--quiet"])
        assert code == 0, capsys.readouterr().err
    finally:
        tb.down(plan["dir"])
    cal = Calibration.load(out)
    # TCP/IP headers cost ~4% of the tc rate; the servers and the driver share two cores, which has slowed a
    # 4 MiB transfer by up to 16% more (0.168 Gbit/s): 20% apart from the rate, still far from 100 or 400 Mbit/s
    for address, gbit in cal.node_bandwidth_gbit.items():
        assert gbit == pytest.approx(0.2, rel=0.2), address


class _FlatTimes:
    """Stands in for the probe's timing (``Prober._timed``) to test what link() does with what it measures."""

    def __init__(self, *answers: dict):
        self.answers, self.repeats = list(answers), []

    def __call__(self, graph, fetches, repeats=None):
        self.repeats.append(repeats)
        return self.answers.pop(0)


def _prober(monkeypatch, timer, said):
    from runners.calibrate import Prober
    from space.cluster import load_cluster

    cluster = types.SimpleNamespace(spec=load_cluster(LOCAL))
    p = Prober(cluster, repeats=2, progress=said.append)
    monkeypatch.setattr(p, "_timed", timer)
    return p


def _declared_bandwidth() -> float:
    from space.cluster import load_cluster

    spec = load_cluster(LOCAL)
    return spec.bandwidth_gbit(spec.nodes[0].address, spec.nodes[1].address)


@pytest.mark.parametrize("second, source, expect_gbit", [
    ({65536: 4.0e-3, 1048576: 4.8e-3, "tiny": 3.9e-3, "base": 3.8e-3}, None, 8 * (1048576 - 65536) / 0.8e-3 / 1e9),
    ({65536: 4.3e-3, 1048576: 4.2e-3, "tiny": 4.0e-3, "base": 3.8e-3}, "its largest message",
     8 * 1048576 / 0.2e-3 / 1e9),
    ({65536: 4.3e-3, 1048576: 4.2e-3, "tiny": 4.5e-3, "base": 3.8e-3}, "the cluster spec", None),
], ids=["resolved-with-more-runs", "lower-bound-from-largest", "declared-in-spec"])
def test_link_whose_time_does_not_grow_with_size_is_timed_again_then_bounded(monkeypatch, second, source,
                                                                             expect_gbit):
    """On a fast link (loopback) a noisy 1 MiB message can come back faster than a 64 KiB one: calibrate times
    it again with more runs, and if it is still flat takes a stated bound instead of stopping with a traceback."""
    from simulator import fit_link

    flat = {65536: 4.35e-3, 1048576: 4.02e-3, "tiny": 3.9e-3, "base": 3.8e-3}  # a noisy loopback link's medians
    timer, said = _FlatTimes(flat, second), []
    timing = _prober(monkeypatch, timer, said).link(0, 1, [65536, 1048576])
    assert timer.repeats == [None, 8]  # the prober's own runs, then four times as many
    assert "time did not grow with message size (4.35, 4.02 ms); again with 8 runs" in said[0]
    assert timing.seconds == [second[65536], second[1048576]]
    assert (timing.floor_gbit is None) == (source is None)  # a bound only where the sizes resolve nothing
    expected = _declared_bandwidth() if expect_gbit is None else expect_gbit
    assert fit_link(timing).bandwidth_gbit == pytest.approx(expected, rel=1e-6)
    if source is None:
        assert len(said) == 1
    else:
        assert len(said) == 2 and f"still flat; bandwidth taken from {source}" in said[1]
