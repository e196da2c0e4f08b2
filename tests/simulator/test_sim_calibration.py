"""Calibration files: round trip, key by spec (and model), stale and missing files reported, bad values."""
from __future__ import annotations

import json

import pytest

from sim_helpers import cluster, inventory
from simulator import Calibration, CalibrationError, Scorer, StaleCalibration, calibration_path
from space.errors import BadInput
from space.strategy import Strategy, ar_node


def test_round_trip_keeps_every_field(tmp_path):
    spec = cluster(2)
    cal = Calibration.from_spec(spec, latency_s=2e-4, link_latency_s={"198.18.0.1|198.18.0.2": 3e-4},
                                step_time_s=0.5, alone_step_s=0.2, update_s=0.05, anchors_s={"ps": 0.3},
                                anchor_rounds_s={"ps": [0.29, 0.31, 0.3]},
                                model_hash="abc", ps_serial_fraction=0.5, ps_spread_serial=0.2, ps_spread_busiest=0.4,
                                cost_model=2, device_speed={"198.18.0.2": 0.5},
                                residual={"intercept": 0.01, "compute": 1.0, "comm": 1.1, "latency": 0.0})
    path = cal.save(tmp_path / "cal.json")
    back = Calibration.load(path, spec, model_hash="abc")
    assert back.replace(source=cal.source) == cal


def test_path_is_keyed_by_spec_and_model(tmp_path):
    spec = cluster(2)
    assert calibration_path(tmp_path, spec).name == f"{spec.fingerprint}.json"
    assert calibration_path(tmp_path, spec, "0123456789abcdef0123").name == f"{spec.fingerprint}-0123456789abcdef.json"


def test_changed_spec_makes_the_calibration_stale(tmp_path):
    path = Calibration.from_spec(cluster(2)).save(tmp_path / "cal.json")
    with pytest.raises(StaleCalibration, match="calibration is stale") as err:
        Calibration.load(path, cluster(2, bandwidth="1gbit"))
    assert isinstance(err.value, BadInput) and err.value.exit_code == 2
    assert "autotune calibrate" in err.value.hint


def test_changed_model_makes_the_step_time_stale(tmp_path):
    spec = cluster(2)
    path = Calibration.from_spec(spec, step_time_s=0.3, model_hash="old").save(tmp_path / "cal.json")
    with pytest.raises(StaleCalibration, match="model old"):
        Calibration.load(path, spec, model_hash="new")


def test_scorer_refuses_a_calibration_of_another_cluster():
    cal = Calibration.from_spec(cluster(2))
    with pytest.raises(StaleCalibration):
        Scorer(inventory((10,)), cluster(3), cal)


def test_missing_file_is_reported_not_defaulted(tmp_path):
    with pytest.raises(CalibrationError, match="calibration not found") as err:
        Calibration.load(tmp_path / "none.json", cluster(2))
    assert "autotune calibrate --spec" in err.value.hint


def test_unknown_key_is_rejected(tmp_path):
    data = Calibration.from_spec(cluster(2)).to_dict() | {"bandwith": 1}
    (tmp_path / "cal.json").write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="unknown key 'bandwith'"):
        Calibration.load(tmp_path / "cal.json")


def test_a_key_another_cost_model_wrote_is_dropped_on_load(tmp_path):
    """A calibration another cost model derived may hold a key this one does not read (``ps_shards_together``): it
    loads (its derived costs come again from its anchor steps where they are used), and the key is not written
    back."""
    data = Calibration.from_spec(cluster(2), cost_model=3).to_dict() | {"ps_shards_together": 0.6}
    (tmp_path / "cal.json").write_text(json.dumps(data))
    cal = Calibration.load(tmp_path / "cal.json")
    assert cal.cost_model == 3 and "ps_shards_together" not in cal.to_dict()


def test_other_json_is_not_a_calibration(tmp_path):
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(CalibrationError, match="not an autotune calibration"):
        Calibration.load(tmp_path / "x.json")


@pytest.mark.parametrize("field,value,rule", [
    ("latency_s", -1.0, "latency_s >= 0"),
    ("node_bandwidth_gbit", {"198.18.0.1": 0.0}, "node_bandwidth_gbit['198.18.0.1'] > 0"),
    ("backward_fraction", 1.0, "0 < backward_fraction < 1"),
    ("step_time_s", 0.2, "model_hash"),
    ("alone_step_s", 0.2, "alone_step_s.*model_hash"),
    ("residual", {"compute": 1.0}, "residual"),
    ("ps_serial_fraction", 1.5, "0 <= ps_serial_fraction <= 1"),
    ("anchor_rounds_s", {"ps": [0.3, -0.1]}, "anchor_rounds_s['ps'][1] >= 0"),
    ("anchor_rounds_s", {"ps": 0.3}, "anchor_rounds_s['ps']` must be a list"),
    ("update_s", 0.01, "update_s.*model_hash"),
    ("update_s", "fast", "update_s.*non-negative"),
    ("update_share", 0.4, "update_share.*model_hash"),
    ("job_bytes_per_op", -1.0, "job_bytes_per_op >= 0"),
], ids=["negative-latency", "zero-bandwidth", "backward-fraction", "step-without-model", "alone-without-model",
        "partial-residual", "ps-serial-above-one", "negative-round", "rounds-not-a-list",
        "update-without-model", "update-not-a-number",
        "update-share-without-model", "negative-job-bytes"])
def test_impossible_values_are_rejected(field, value, rule):
    with pytest.raises(CalibrationError, match=rule.replace("(", r"\(").replace("[", r"\[")):
        Calibration.from_spec(cluster(2), **{field: value})


@pytest.mark.parametrize("share", [-0.1, 1.5, "most"])
def test_update_share_outside_zero_to_one_is_rejected(share):
    with pytest.raises(CalibrationError, match="update_share.*in \\[0, 1\\]"):
        Calibration.from_spec(cluster(2), update_share=share, model_hash="m")


@pytest.mark.parametrize("spread, busiest", [(0.6, 0.4), (-0.1, 0.4), (0.2, None), (0.2, 0.0), (0.2, 1.5)])
def test_a_spread_share_above_the_one_server_share_or_without_its_busiest_share_is_rejected(spread, busiest):
    with pytest.raises(CalibrationError, match="ps_spread_serial.*ps_spread_busiest"):
        Calibration.from_spec(cluster(2), ps_serial_fraction=0.5, ps_spread_serial=spread, ps_spread_busiest=busiest)


@pytest.mark.parametrize("version", [0, -1, 1.5, "2", True])
def test_a_cost_model_version_other_than_a_positive_integer_is_rejected(version):
    with pytest.raises(CalibrationError, match="cost_model"):
        Calibration.from_spec(cluster(2), cost_model=version)


def test_the_updates_share_measured_in_the_step_wins_over_the_probes():
    """A calibration that did not time the share reads it as one update (the probe's) over one replica
    alone; none of either: no share."""
    cal = Calibration.from_spec(cluster(2), step_time_s=0.5, alone_step_s=0.2, update_s=0.05, model_hash="m")
    assert cal.lockstep_update_share() == pytest.approx(0.25)
    assert cal.replace(update_share=0.6).lockstep_update_share() == 0.6
    assert cal.replace(update_share=0.0).lockstep_update_share() == 0.0  # measured: none
    assert cal.replace(update_s=0.3).lockstep_update_share() == 1.0  # no more than the whole step alone
    assert cal.replace(update_s=None).lockstep_update_share() == 0.0


def test_measured_step_time_replaces_the_flops_estimate():
    spec = cluster(2)
    inv = inventory((10,), flops=1e12)
    cal = Calibration.from_spec(spec, step_time_s=0.25, model_hash=inv.model_hash)
    p = Scorer(inv, spec, cal).predict(Strategy.build([ar_node("v0")], spec.replicas))
    assert p.compute_s == pytest.approx(0.25)


def test_residual_in_the_calibration_corrects_the_step():
    spec = cluster(2)
    inv = inventory((1000, 1000))
    s = Strategy.build([ar_node("v0")], spec.replicas)
    plain = Scorer(inv, spec, Calibration.from_spec(spec)).predict(s)
    res = {"intercept": 0.01, "compute": 1.0, "comm": 2.0, "latency": 0.0}
    fixed = Scorer(inv, spec, Calibration.from_spec(spec, residual=res)).predict(s)
    assert fixed.raw_step_time_s == pytest.approx(plain.step_time_s)
    assert fixed.step_time_s == pytest.approx(0.01 + plain.compute_s + 2 * plain.exposed_comm_s)


def test_residual_charges_extra_pieces_and_collectives():
    """v0 split into 4 PS shards (3 pieces beyond one per variable), v1 and v2 all-reduced in two groups
    (2 collectives): the residual adds 0.5 ms per piece and 2 ms per collective to the raw step."""
    from space.strategy import partitioned_node, ps_node

    spec = cluster(2)
    inv = inventory((400, 10), (100, 10), (50,))
    parts = [ps_node(f"v0/part_{i}", f"198.18.0.{1 + i % 2}:CPU:0") for i in range(4)]
    s = Strategy.build([partitioned_node("v0", (400, 10), 0, parts), ar_node("v1", group=0), ar_node("v2", group=1)],
                       spec.replicas)
    plain = Scorer(inv, spec, Calibration.from_spec(spec)).predict(s)
    assert (plain.pieces, plain.collectives) == (3, 2)
    res = {"intercept": 0.0, "compute": 1.0, "comm": 1.0, "latency": 0.0, "pieces": 0.5, "collectives": 2.0}
    fixed = Scorer(inv, spec, Calibration.from_spec(spec, residual=res)).predict(s)
    assert fixed.step_time_s == pytest.approx(plain.step_time_s + 3 * 0.5e-3 + 2 * 2e-3)
    batch = Scorer(inv, spec, Calibration.from_spec(spec, residual=res)).score_many([s, s])
    assert batch == pytest.approx([fixed.step_time_s] * 2)


def test_residual_of_an_older_file_without_the_counts_still_loads(tmp_path):
    spec = cluster(2)
    res = {"intercept": 0.01, "compute": 1.0, "comm": 1.1, "latency": 0.0}
    path = Calibration.from_spec(spec, residual=res).save(tmp_path / "old.json")
    cal = Calibration.load(path, spec)
    inv = inventory((1000, 1000))
    s = Strategy.build([ar_node("v0")], spec.replicas)
    plain = Scorer(inv, spec, Calibration.from_spec(spec)).predict(s)
    assert Scorer(inv, spec, cal).predict(s).step_time_s == pytest.approx(
        0.01 + plain.compute_s + 1.1 * plain.exposed_comm_s)


def test_a_file_without_the_per_job_memory_terms_loads_with_their_defaults(tmp_path):
    from simulator._calibration import JOB_BYTES, MASTER_INITIAL_SHARE

    data = Calibration.from_spec(cluster(2)).to_dict()
    for key in ("job_bytes", "job_bytes_per_op", "master_bytes_per_op", "master_initial_share"):
        del data[key]
    (tmp_path / "cal.json").write_text(json.dumps(data))
    cal = Calibration.load(tmp_path / "cal.json")
    assert (cal.job_bytes, cal.master_initial_share) == (JOB_BYTES, MASTER_INITIAL_SHARE)
