"""The conformance zoo (``examples/zoo/``): models written as ordinary TF2 code, each around one idiom, run through
every command a user meets: ``inspect``; ``build`` + ``compare`` (every builder profiled on the loopback cluster);
``train`` equal to single-device training (for a compiled model, ``model.fit``'s own); ``search`` ending with a
winner. The models that keep state inside the model (lookup tables, normalization statistics, a text vectorizer's
vocabulary) also train under every parameter-server builder, on one cluster shared by those cases."""
from __future__ import annotations

import ast
import json
import math
import os

import numpy as np
import pytest

from autotune.fidelity import strategy_key
from runners.transform import TrainingJob
from runners.transform._reference import reference_train
from space.builders import aliases, build_strategy
from space.model import inventory_from_trace, trace_step
from testpaths import CLUSTERS, ROOT, STEPS

TRAIN_STEPS = 10  # past the smaller last batch of a finite pipeline, and into its repetition

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("lent_localhost")]  # one cluster for every command

ZOO = ROOT / "examples" / "zoo"
MODELS = sorted(p.stem for p in ZOO.glob("*.py"))
COMPILED = [name for name in MODELS if ".compile(" in (ZOO / f"{name}.py").read_text()]
SPEC = CLUSTERS / "localhost.yml"
EXACT = 1e-5  # max |a - b| / max |b|, per variable
MIXED = "parallax"  # sparse gradients on a PS, dense ones all-reduced: both mechanisms in one job
# one replica a node, no groups: all_reduce_hierarchical is all_reduce's strategy, to the byte
_AR = [a for a in aliases() if a != "all_reduce_hierarchical" and (a.startswith("all_reduce") or a.endswith("_ar"))]
_PS = [a for a in aliases() if a not in _AR and a != "all_reduce_hierarchical"]
PROFILED = [a for pair in zip(_AR, _PS) for a in pair] + _AR[len(_PS):] + _PS[len(_AR):]  # alternating
# each model profiles 3 builders in rotation (an all-reduce and a PS one among them), so that every builder meets a
# fifth of the zoo and every idiom meets PS and all-reduce; AUTOTUNE_ZOO_EVERY_BUILDER=1 profiles every builder on
# every model
EVERY_BUILDER = os.environ.get("AUTOTUNE_ZOO_EVERY_BUILDER") == "1"
# Keras layers that hold state inside the model: a lookup table, statistics adapted or updated, a vocabulary
STATEFUL_LAYERS = {"StringLookup", "IntegerLookup", "TextVectorization", "Normalization", "BatchNormalization"}
PS_SYNC = [a for a in _PS if a not in (MIXED, "ps_async")]  # MIXED is the train test's; ps_async is not exact
ROTATION = 3  # builders profiled per model


def builders_of(name: str) -> list[str]:
    if EVERY_BUILDER:
        return PROFILED
    i = MODELS.index(name)
    return sorted({PROFILED[(ROTATION * i + k) % len(PROFILED)] for k in range(ROTATION)})


def rel_err(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12)) if b.size else 0.0


def holds_state_in_model(name: str) -> bool:
    """Whether the model file builds a :data:`STATEFUL_LAYERS` layer in ``build_model`` or in a class (a layer or a
    subclassed model): inside the model, not in its input pipeline."""
    tree = ast.parse((ZOO / f"{name}.py").read_text())
    scopes = [n for n in tree.body if isinstance(n, ast.ClassDef)
              or isinstance(n, ast.FunctionDef) and n.name == "build_model"]
    return any(isinstance(x, ast.Attribute) and x.attr in STATEFUL_LAYERS for s in scopes for x in ast.walk(s))


IN_MODEL_STATE = [name for name in MODELS if holds_state_in_model(name)]


def test_the_zoo_is_a_zoo():
    assert len(MODELS) >= 15 and len(COMPILED) >= 8
    met = {a: sum(a in builders_of(m) for m in MODELS) for a in PROFILED}
    assert min(met.values()) >= len(MODELS) // 5, met
    for name in MODELS:
        chosen = builders_of(name)
        assert set(chosen) & set(_AR) and set(chosen) & set(_PS), name
    for name in MODELS:
        assert (ZOO / f"{name}.py").read_text().lstrip().startswith('"""'), f"{name}.py: say its idiom first"
    # the lookups, the statistics and the vocabulary of the zoo are found (and a lookup in a pipeline is not)
    assert {"in_model_string_lookup", "in_model_text_vectorization", "normalization_dropout",
            "structured_data_lookups", "subclassed_lookup_embedding"} <= set(IN_MODEL_STATE)
    assert "string_lookup" not in IN_MODEL_STATE and "integer_lookup_hashing" not in IN_MODEL_STATE
    assert set(PS_SYNC) >= {"ps", "uneven_ps", "partitioned_ps"}


@pytest.mark.parametrize("name", MODELS)
def test_inspect(name, run, cache_dir):
    code, out, err = run("inspect", "--model", ZOO / f"{name}.py", "--cache-dir", cache_dir, "--json")
    assert code == 0, err
    inventory = json.loads(out)
    assert inventory["variables"] and inventory["batch_size"] > 0
    assert err == ""


@pytest.mark.parametrize("name", MODELS)
def test_every_builder_profiles(name, run, cache_dir, tmp_path):
    files = []
    for alias in builders_of(name):
        path = tmp_path / f"{alias}.pb"
        code, _, err = run("build", "--builder", alias, "--model", ZOO / f"{name}.py", "--spec", SPEC,
                           "--cache-dir", cache_dir, "-o", path)
        assert code == 0, f"{alias}: {err}"
        files.append(path)
    code, out, err = run("compare", *files, "--model", ZOO / f"{name}.py", "--spec", SPEC, "--repeats", "1",
                         "--steps", str(STEPS), "--warmup", "1", "--quiet", "-o", tmp_path / "compare")
    assert code == 0, err
    rows = (tmp_path / "compare" / "compare.csv").read_text().splitlines()[1:]
    assert len(rows) == len(files)


@pytest.mark.parametrize("name", MODELS)
def test_train_equals_single_device(name, run, cache_dir, tmp_path):
    code, _, err = run("build", "--builder", MIXED, "--model", ZOO / f"{name}.py", "--spec", SPEC,
                       "--cache-dir", cache_dir, "-o", tmp_path / "s.pb")
    assert code == 0, err
    code, out, err = run("train", "--model", ZOO / f"{name}.py", "--spec", SPEC, "--strategy", tmp_path / "s.pb",
                         "--steps", str(TRAIN_STEPS), "--checkpoint", tmp_path / "ckpt")
    assert code == 0, err
    traced = trace_step(ZOO / f"{name}.py")
    want, want_state, _ = reference_train(traced, 2, TRAIN_STEPS)
    got, got_state = _checkpoint_values(traced, tmp_path / "ckpt")
    tracked = {id(v.handle) for v in getattr(traced.model, "variables", traced.trainable + traced.state)}
    errors = {n: rel_err(got[n], want[n]) for n in want}
    errors.update({n: rel_err(got_state[n], want_state[n]) for n, v in zip(traced.state_names, traced.state)
                   if id(v.handle) in tracked or not hasattr(traced.model, "save_weights")})
    meta = json.loads((tmp_path / "ckpt" / "train.json").read_text())
    saved = np.load(tmp_path / "ckpt" / meta["variables"])  # every variable, those Keras' weights file leaves out
    errors.update({f"npz {n}": rel_err(saved[f"trainable/{n}"], want[n]) for n in want})
    errors.update({f"npz {n}": rel_err(saved[f"state/{n}"], want_state[n]) for n in want_state})
    worst = max(errors, key=errors.get)
    assert errors[worst] <= EXACT, f"{worst}: relative error {errors[worst]:.3g}"
    if name in COMPILED:
        _reference_is_model_fit(traced)


def _reference_is_model_fit(traced) -> None:
    """10 steps of ``model.fit`` on ``dataset_fn(0, 1)`` end where the single-device reference ends: its loss, its
    optimizer (a fresh copy), its sparse updates are Keras' own."""
    want, _, _ = reference_train(traced, 1, TRAIN_STEPS)
    traced.model.fit(traced.module.dataset_fn(0, 1).repeat(), steps_per_epoch=TRAIN_STEPS, epochs=1, verbose=0,
                     shuffle=False)
    errors = {n: rel_err(v.numpy(), want[n]) for n, v in zip(traced.names, traced.trainable)}
    worst = max(errors, key=errors.get)
    assert errors[worst] <= EXACT, f"model.fit: {worst}: relative error {errors[worst]:.3g}"


def _checkpoint_values(traced, directory) -> tuple[dict, dict]:
    """The checkpoint's variables, loaded into the single-device model as a user would (the traced model's
    variables are left as they were)."""
    import tensorflow as tf

    meta = json.loads((directory / "train.json").read_text())
    before = [v.numpy() for v in traced.trainable + traced.state]
    model = traced.model
    if meta["weights"].endswith(".h5"):
        model.load_weights(str(directory / meta["weights"]))
    else:
        tf.train.Checkpoint(model=model).read(str(directory / meta["weights"])).expect_partial()
    got = {n: v.numpy() for n, v in zip(traced.names, traced.trainable)}
    got_state = {n: v.numpy() for n, v in zip(traced.state_names, traced.state)}
    for v, x in zip(traced.trainable + traced.state, before):
        v.assign(x)
    return got, got_state


@pytest.mark.parametrize("name", MODELS)
def test_search_ends_with_a_winner(name, run, cache_dir, tmp_path):
    out = tmp_path / "run"
    code, _, err = run("search", "--model", ZOO / f"{name}.py", "--spec", SPEC, "-o", out, "--cache-dir", cache_dir,
                       "--trials", "30", "--top-k", "1", "--profile-builders", "1", "--max-profiles", "2",
                       "--confirm", "0", "--steps", "4", "--warmup", "1", "--quiet", "--no-calibrate")
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    assert (out / "best.pb").is_file() and summary["winner_measured_s"] > 0


@pytest.mark.parametrize("name", IN_MODEL_STATE)
def test_in_model_state_trains_exactly_under_every_ps_builder(name, lent_localhost):
    """Every synchronous PS builder trains the model to single-device training's variables and state (which equal
    ``model.fit``'s: ``test_train_equals_single_device``), and the bytes ledger sizes every tensor that crosses
    (a dense gradient whose static shape the tower's import lost once crashed it); the asynchronous PS trains. The
    jobs share the module's cluster, as a search's trials do: no server starts per job."""
    cluster = lent_localhost
    traced = trace_step(ZOO / f"{name}.py")
    inventory = inventory_from_trace(traced)
    want, want_state, _ = reference_train(traced, 2, TRAIN_STEPS)
    errors, ran = {}, {}
    for alias in PS_SYNC:
        strategy = build_strategy(alias, inventory, cluster.spec)
        if ran.setdefault(strategy_key(strategy), alias) != alias:
            continue  # the strategy of a builder already run
        with TrainingJob(traced, strategy, cluster, step_timeout_s=120) as job:
            job.run(TRAIN_STEPS)
            got, got_state = job.values()
            assert job.graph.bytes_per_step > 0, alias
        errors.update({f"{alias} {n}": rel_err(got[n], want[n]) for n in want})
        errors.update({f"{alias} state {n}": rel_err(got_state[n], want_state[n]) for n in want_state})
    worst = max(errors, key=errors.get)
    assert errors[worst] <= EXACT, f"{worst}: relative error {errors[worst]:.3g}"
    assert len(ran) >= 3, ran  # builders of another strategy each: PS whole, sharded, spread
    with TrainingJob(traced, build_strategy("ps_async", inventory, cluster.spec), cluster, step_timeout_s=120) as job:
        losses = []
        job.run(3, on_step=lambda _s, _dt, loss: losses.append(loss))
        assert job.graph.bytes_per_step > 0 and len(losses) == 3 and all(map(math.isfinite, losses))
