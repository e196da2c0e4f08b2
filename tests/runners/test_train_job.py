"""``autotune train`` as a real training job: checkpoints with every optimizer slot, a resume after SIGKILL of the
driver and then of a server that ends where an uninterrupted run ends, a resume after a clean stop per optimizer
family, a stop on a non-finite loss, TensorBoard scalars. Only the killed job runs as its own processes; the other
jobs run in-process on the module's cluster (``lent_localhost``)."""
from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from testpaths import CLUSTERS, MODELS, ROOT
from testsupport import rel_err, worst_checkpoint_error

pytestmark = pytest.mark.slow

SPEC = CLUSTERS / "localhost.yml"
TEST_MODELS = ROOT / "tests" / "runners" / "transform" / "models"
EXACT = 1e-5



def _build(model, alias, out, cache_dir) -> pathlib.Path:
    from autotune.cli import main

    path = out / f"{alias}.pb"
    assert main(["build", "--builder", alias, "--model", str(model), "--spec", str(SPEC), "--cache-dir",
                 str(cache_dir), "-o", str(path)]) == 0
    return path


def _train(model, strategy, ckpt, steps, cache_dir, *extra) -> subprocess.Popen:
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache_dir), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "autotune", "train", "--model", str(model), "--spec", str(SPEC), "--strategy",
           str(strategy), "--steps", str(steps), "--checkpoint", str(ckpt), *extra]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _servers(parent: int) -> list[int]:
    out = []
    for children in pathlib.Path(f"/proc/{parent}/task").glob("*/children"):
        for pid in children.read_text().split():
            try:
                if b"runners.server_main" in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes():
                    out.append(int(pid))
            except OSError:
                pass
    return out


def _kill_when(proc: subprocess.Popen, ready: pathlib.Path, victim) -> None:
    """SIGKILL ``victim(proc)`` as soon as the checkpoint ``ready`` exists (polled every 5 ms)."""
    deadline = time.monotonic() + 180
    while not ready.is_dir() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    assert proc.poll() is None, f"the job ended before {ready.name}: {proc.communicate()[1]}"
    for pid in victim(proc):
        os.kill(pid, signal.SIGKILL)
    proc.communicate(timeout=60)


ZOO = ROOT / "examples" / "zoo"


def _ends_where_uninterrupted_training_ends(model, ckpt, steps) -> None:
    """After ``steps`` steps in all, the checkpoint's variables and every optimizer slot (moments, accumulators, step
    counts) equal uninterrupted single-device training's."""
    from runners.transform._optimizer import Optimizer
    from runners.transform._reference import reference_train
    from space.model import trace_step

    assert json.loads((ckpt / "train.json").read_text())["step"] == steps
    traced = trace_step(model)
    reference = Optimizer(traced.optimizer, traced.keras_optimizer).keras()
    want, _, _ = reference_train(traced, 2, steps, optimizer=reference)
    worst, error = worst_checkpoint_error(ckpt, traced, want, reference)
    assert error <= EXACT, f"{worst}: relative error {error:.3g}"


def test_a_killed_job_resumes_to_where_an_uninterrupted_one_ends(tmp_path, cache_dir):
    """Killed with SIGKILL (the driver, then a server of the resumed run), resumed under another strategy after the
    first kill: after 90 steps in all, Adam's variables and slots equal uninterrupted training's. The other optimizer
    families resume from a clean stop (``test_a_stopped_job_resumes_...``): what a kill adds is the same for all."""
    model, steps, every = MODELS / "recommender.py", 90, 30
    ckpt = tmp_path / "ckpt"
    s1, s2 = _build(model, "all_reduce", tmp_path, cache_dir), _build(model, "ps", tmp_path, cache_dir)
    job = _train(model, s1, ckpt, steps, cache_dir, "--save-every", str(every), "--keep", "5")
    _kill_when(job, ckpt / f"ckpt-{every:08d}", lambda p: [p.pid])
    assert job.returncode == -signal.SIGKILL
    job = _train(model, s2, ckpt, steps, cache_dir, "--save-every", str(every), "--keep", "5", "--resume")
    _kill_when(job, ckpt / f"ckpt-{2 * every:08d}", lambda p: _servers(p.pid)[-1:])
    assert job.returncode == 1
    job = _train(model, s2, ckpt, steps, cache_dir, "--save-every", str(every), "--keep", "5", "--resume")
    out, err = job.communicate(timeout=300)
    assert job.returncode == 0, err
    assert any(f"resumed at step {k * every}" in out for k in (2, 3))
    _ends_where_uninterrupted_training_ends(model, ckpt, steps)


RESUMES = [("sgd", MODELS / "mlp.py", "ps", "all_reduce", 300, 100),
           ("adamw-schedule", ZOO / "adamw_cosine_warmup.py", "parallax", "ps", 120, 40),
           ("adagrad-embeddings", ZOO / "adagrad_embeddings.py", "ps", "parallax", 120, 40)]


@pytest.mark.parametrize("name,model,first,then,steps,every", RESUMES, ids=[c[0] for c in RESUMES])
def test_a_stopped_job_resumes_to_where_an_uninterrupted_one_ends(name, model, first, then, steps, every, tmp_path,
                                                                   cache_dir, lent_localhost):
    """Stopped after ``every`` steps and resumed under another strategy (in-process, on the module's cluster): the
    step count, the learning-rate schedule's position and every slot of the optimizer carry over."""
    import autotune

    ckpt = tmp_path / "ckpt"
    s1, s2 = _build(model, first, tmp_path, cache_dir), _build(model, then, tmp_path, cache_dir)
    stopped = autotune.train(model, SPEC, s1, every, checkpoint=ckpt, save_every=every, keep=5)
    assert stopped.steps == every
    resumed = autotune.train(model, SPEC, s2, steps, checkpoint=ckpt, save_every=every, keep=5, resume=True)
    assert (resumed.start_step, resumed.steps, len(resumed.losses)) == (every, steps, steps - every)
    _ends_where_uninterrupted_training_ends(model, ckpt, steps)


def test_checkpoint_slots_are_the_single_device_optimizers(tmp_path, cache_dir, lent_localhost):
    """The checkpoint loads into the Keras model and optimizer: every Adam moment and the step count equal those
    of the Keras optimizer that trained the single-device reference."""
    import autotune
    from runners.train import keras_optimizer, load_checkpoint
    from runners.transform._optimizer import Optimizer
    from runners.transform._reference import reference_train
    from space.model import trace_step

    model = MODELS / "recommender.py"
    strategy = _build(model, "parallax", tmp_path, cache_dir)
    assert autotune.train(model, SPEC, strategy, 4, checkpoint=tmp_path / "ckpt").steps == 4
    traced = trace_step(model)
    checkpoint = load_checkpoint(tmp_path / "ckpt")
    restored = keras_optimizer(checkpoint, traced)
    reference = Optimizer(traced.optimizer).keras()
    reference_train(traced, 2, 4, optimizer=reference)
    assert int(restored.iterations.numpy()) == int(reference.iterations.numpy()) == 4
    for mine, theirs in [(restored._momentums, reference._momentums), (restored._velocities, reference._velocities)]:
        for a, b in zip(mine, theirs):
            assert rel_err(a.numpy(), b.numpy()) <= EXACT


def test_a_loss_that_diverges_stops_the_job_and_keeps_the_last_good_checkpoint(tmp_path, cache_dir, run,
                                                                                 lent_localhost):
    model = tmp_path / "diverging.py"
    model.write_text((TEST_MODELS / "least_squares.py").read_text().replace('"learning_rate": 1.0',
                                                                             '"learning_rate": 40.0'))
    strategy = _build(model, "all_reduce", tmp_path, cache_dir)
    code, _, err = run("train", "--model", model, "--spec", SPEC, "--strategy", strategy, "--steps", "200",
                       "--checkpoint", tmp_path / "ckpt", "--save-every", "2")
    assert code == 1, err
    (line,) = err.strip().splitlines()
    assert line.startswith("error: the loss is ") and "training stopped; the last good checkpoint is" in line
    last = pathlib.Path(line.split("the last good checkpoint is ")[1].split(";")[0])
    meta = json.loads((last / "checkpoint.json").read_text())
    assert np.isfinite(meta["loss"]) and json.loads((tmp_path / "ckpt" / "train.json").read_text())["latest"] == \
        last.name


def test_tensorboard_gets_loss_step_time_throughput_and_bytes_by_node(tmp_path, cache_dir, lent_localhost):
    import tensorflow as tf

    import autotune

    model = MODELS / "mlp.py"
    strategy = _build(model, "ps", tmp_path, cache_dir)
    assert autotune.train(model, SPEC, strategy, 20, checkpoint=tmp_path / "ckpt", log_every=5).steps == 20
    tags: dict[str, list] = {}
    for events in (tmp_path / "ckpt" / "logs").glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            for v in event.summary.value:
                tags.setdefault(v.tag, []).append((event.step, float(tf.make_ndarray(v.tensor))))
    assert {"loss", "step_time_ms", "examples_per_s", "bytes_per_step/all_nodes", "bytes_per_step/127.0.0.1",
            "bytes_per_step/127.0.0.2"} <= set(tags)
    assert [s for s, _ in tags["loss"]] == [5, 10, 15, 20]
    assert all(v > 0 for _, v in tags["step_time_ms"] + tags["bytes_per_step/127.0.0.2"])


def test_several_steps_per_call_checkpoint_between_calls_and_train_as_one_step_calls(tmp_path, lent_localhost):
    """Steps grouped 4 per call with a checkpoint every 6: checkpoints at steps 6, 12 and 14 (a call never spans
    one), each step's loss reported, and the same variables, state and slots as one step per call."""
    from runners.cluster import start_cluster
    from runners.train import load_checkpoint, train_strategy
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    spec = load_cluster(SPEC)
    traced = {k: trace_step(MODELS / "recommender.py") for k in (1, 4)}  # a checkpoint writes into its model
    strategy = build_strategy("parallax", inventory_from_trace(traced[1]), spec)
    seen: list[int] = []
    with start_cluster(spec) as cluster:
        runs = {k: train_strategy(traced[k], strategy, cluster, steps=14, checkpoint_dir=str(tmp_path / f"k{k}"),
                                  save_every=6, steps_per_call=k, callbacks=[lambda info: seen.append(info.step)])
                for k in (1, 4)}
    assert seen == [*range(1, 15)] * 2
    assert [pathlib.Path(p).name for p in runs[4].checkpoints] == ["ckpt-00000006", "ckpt-00000012", "ckpt-00000014"]
    assert runs[4].losses == runs[1].losses
    one, four = load_checkpoint(tmp_path / "k1"), load_checkpoint(tmp_path / "k4")
    for name in one.values:
        np.testing.assert_array_equal(four.values[name], one.values[name], err_msg=name)
    for name, slots in one.slots.items():
        for slot, value in slots.items():
            np.testing.assert_array_equal(four.slots[name][slot], value, err_msg=f"{name}/{slot}")


def test_evaluation_matches_keras_and_early_stopping_stops_the_job(tmp_path, cache_dir, lent_localhost):
    """A compiled model trained with an evaluation every 10 steps and Keras' ``EarlyStopping``: the job stops after
    the second evaluation and checkpoints there; its validation loss and accuracy equal ``model.evaluate`` of the
    checkpoint's weights; the evaluations are in ``train.json`` and TensorBoard, beside the learning rate."""
    import keras
    import tensorflow as tf

    import autotune
    from space.model import trace_step

    model = ROOT / "examples" / "zoo" / "compiled_metrics.py"
    strategy = _build(model, "parallax", tmp_path, cache_dir)
    seen = []
    lines = []
    history = autotune.train(model, SPEC, strategy, 60, checkpoint=tmp_path / "ckpt", eval_every=10, log=lines.append,
                             callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss", patience=0, min_delta=1e9),
                                        lambda info: seen.append(info.learning_rate)])
    assert history.steps == 20 and [e["step"] for e in history.evaluations] == [10, 20]
    assert seen == [pytest.approx(0.005)] * 20 and sum("val_accuracy" in line for line in lines) == 2
    index = json.loads((tmp_path / "ckpt" / "train.json").read_text())
    assert index["step"] == 20 and index["evaluations"] == history.evaluations
    traced = trace_step(model)
    traced.model.load_weights(str(tmp_path / "ckpt" / index["weights"]))
    want = traced.model.evaluate(traced.module.val_dataset_fn(0, 1), return_dict=True, verbose=0)
    last = history.evaluations[-1]
    assert last["val_loss"] == pytest.approx(want["loss"], rel=1e-5)
    assert last["val_accuracy"] == pytest.approx(want["accuracy"], rel=1e-6)
    assert last["val_top2"] == pytest.approx(want["top2"], rel=1e-6)
    tags: dict[str, list] = {}
    for events in (tmp_path / "ckpt" / "logs").glob("events.out.tfevents.*"):
        for event in tf.compat.v1.train.summary_iterator(str(events)):
            for v in event.summary.value:
                tags.setdefault(v.tag, []).append(event.step)
    assert tags["val_loss"] == [10, 20] and tags["val_accuracy"] == [10, 20] and tags["learning_rate"] == [10, 20]


def test_evaluation_and_callbacks_are_checked_before_any_server_starts(tmp_path, cache_dir, run):
    """``--eval-every`` without ``val_dataset_fn``, a validation set that never ends without ``--eval-steps``, a
    Keras callback that would need the cluster's weights: each one line, exit code 2, no server started."""
    import keras

    import autotune
    from space.errors import BadInput

    strategy = _build(MODELS / "mlp.py", "ps", tmp_path, cache_dir)
    code, _, err = run("train", "--model", MODELS / "mlp.py", "--spec", SPEC, "--strategy", strategy, "--steps", "5",
                       "--eval-every", "2")
    assert code == 2 and err.startswith("error: --eval-every needs val_dataset_fn") and len(err.splitlines()) == 1
    endless = tmp_path / "endless.py"
    endless.write_text((ROOT / "examples" / "zoo" / "compiled_metrics.py").read_text().replace(".batch(64)",
                                                                                               ".batch(64).repeat()"))
    (tmp_path / "endless").mkdir()
    other = _build(endless, "ps", tmp_path / "endless", cache_dir)
    code, _, err = run("train", "--model", endless, "--spec", SPEC, "--strategy", other, "--steps", "5",
                       "--eval-every", "2")
    assert code == 2 and "val_dataset_fn(0, 1) never ends" in err and "--eval-steps" in err
    with pytest.raises(BadInput, match="ModelCheckpoint cannot run under autotune; hint: use --checkpoint"):
        autotune.train(endless, SPEC, other, 5, callbacks=[keras.callbacks.ModelCheckpoint(str(tmp_path / "x.keras"))])
