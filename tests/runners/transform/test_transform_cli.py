"""``autotune profile`` and ``autotune train`` end to end (each starts and stops its own servers)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from autotune.cli import main
from space.builders import build_strategy

from testpaths import CLUSTERS, MODELS, STEPS

pytestmark = pytest.mark.slow
SPEC = str(CLUSTERS / "localhost.yml")


@pytest.fixture()
def strategy_file(tmp_path, traced, spec):
    def make(model: str, alias: str) -> str:
        path = tmp_path / f"{model}-{alias}.pb"
        build_strategy(alias, traced(model)[1], spec).save(path)
        return str(path)

    return make


def test_profile_json(strategy_file, capsys):
    code = main(["profile", "--model", str(MODELS / "mlp.py"), "--spec", SPEC,
                 "--strategy", strategy_file("mlp", "all_reduce"), "--steps", "5", "--warmup", "2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["num_replicas"] == 2 and out["global_batch"] == 64 and len(out["step_times_s"]) == 5
    assert 0 < out["p10_s"] <= out["median_s"] <= out["p90_s"]
    assert out["examples_per_s"] == pytest.approx(64 / out["median_s"])
    assert out["bytes_per_step"] > 0


def test_strategy_for_another_model_is_one_line_exit_2(strategy_file, capsys):
    code = main(["profile", "--model", str(MODELS / "mlp.py"), "--spec", SPEC,
                 "--strategy", strategy_file("recommender", "ps")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("error: unknown variable") and "\n" not in err


def test_train_checkpoint_loads_into_single_device_model(strategy_file, tmp_path, reference, capsys):
    from space.model import import_model_file

    ckpt = tmp_path / "ckpt"
    code = main(["train", "--model", str(MODELS / "mlp.py"), "--spec", SPEC,
                 "--strategy", strategy_file("mlp", "partitioned_ps"), "--steps", str(STEPS),
                 "--checkpoint", str(ckpt)])
    assert code == 0, capsys.readouterr().err
    module = import_model_file(MODELS / "mlp.py")
    model = module.build_model()
    model.load_weights(str(ckpt / json.loads((ckpt / "train.json").read_text())["weights"]))
    ref_vars, _, _ = reference("mlp")
    assert len(model.trainable_variables) == len(ref_vars)
    for v, (name, value) in zip(model.trainable_variables, ref_vars.items()):  # both in the model's order
        np.testing.assert_allclose(np.asarray(v.numpy()), value, rtol=1e-5, atol=1e-7, err_msg=name)
    assert (ckpt / "strategy.pb").is_file() and json.loads((ckpt / "train.json").read_text())["step"] == STEPS
