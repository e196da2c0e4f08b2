"""The foreign set (``examples/foreign/``): models adapted from public Keras and TensorFlow examples, used as a
benchmark of models autotune was not written for. Each names its source and what changed; each loads and is
inspected by the real CLI; each keeps what its original exercises (sparse embedding rows, a recurrent loop,
BatchNorm state); ``benchmarks/search_quality.py --models`` takes their paths."""
from __future__ import annotations

import ast
import importlib.util
import json

import pytest

from testpaths import ROOT

FOREIGN = ROOT / "examples" / "foreign"
MODELS = sorted(p.stem for p in FOREIGN.glob("*.py"))
SOURCES = ("https://keras.io/", "https://www.tensorflow.org/", "https://github.com/tensorflow/")
# what each original exercises, as the inventory shows it: tables whose gradients gather sparse rows, or
# non-trainable state (BatchNorm's moving statistics)
SPARSE = {"dcn": 6, "neumf": 2, "text_cnn": 1, "transformer_text": 2, "two_tower_retrieval": 4}
STATE = {"xception_small": 18}


def docstring(name: str) -> str:
    return ast.get_docstring(ast.parse((FOREIGN / f"{name}.py").read_text())) or ""


def test_the_foreign_set_is_a_set():
    assert len(MODELS) >= 6
    zoo = {p.stem for p in (ROOT / "examples" / "zoo").glob("*.py")}
    bundled = {p.stem for p in (ROOT / "examples" / "models").glob("*.py")}
    assert not set(MODELS) & (zoo | bundled), "a foreign model's name must not shadow an example's"


@pytest.mark.parametrize("name", MODELS)
def test_names_its_source_and_what_changed(name):
    doc = docstring(name)
    assert "Adapted from" in doc and any(url in doc for url in SOURCES), f"{name}.py: name the public source"
    assert "What changed:" in doc, f"{name}.py: say what the adaptation changed"


def _search_quality():
    spec = importlib.util.spec_from_file_location("search_quality", ROOT / "benchmarks" / "search_quality.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_search_quality_takes_the_foreign_directory_and_bundled_names():
    files = _search_quality().model_files(f"mlp,{FOREIGN}")
    assert files[0] == ROOT / "examples" / "models" / "mlp.py"
    assert [f.stem for f in files[1:]] == MODELS


@pytest.mark.parametrize("models", ["no_such_model", "examples/foreign/no_such_model.py", "mlp,mlp",
                                    "transformer,examples/zoo/../models/transformer.py"])
def test_search_quality_refuses_missing_or_twin_models(models):
    with pytest.raises(ValueError):
        _search_quality().model_files(models)


@pytest.mark.slow
@pytest.mark.parametrize("name", MODELS)
def test_inspect(name, run, cache_dir):
    code, out, err = run("inspect", "--model", FOREIGN / f"{name}.py", "--cache-dir", cache_dir, "--json")
    assert code == 0, err
    assert err == ""
    inventory = json.loads(out)
    assert inventory["batch_size"] > 0 and inventory["flops_per_step"] > 0
    sparse = sum(v["sparse"] for v in inventory["variables"])
    assert sparse == SPARSE.get(name, 0), f"{name}: {sparse} variables with sparse gradients"
    assert len(inventory["state"]) >= STATE.get(name, 0)


@pytest.mark.slow
def test_the_forecaster_steps_through_a_loop():
    """Keras runs the LSTM's 120 steps as a ``While`` loop in the traced step (forward, and its gradient)."""
    from space.model import trace_step

    graph = trace_step(FOREIGN / "lstm_weather.py").concrete_function.graph.as_graph_def()
    ops = [n.op for n in graph.node] + [n.op for f in graph.library.function for n in f.node_def]
    assert ops.count("While") + ops.count("StatelessWhile") >= 2
