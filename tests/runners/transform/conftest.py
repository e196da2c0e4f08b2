"""One server cluster per test module (servers are reused across trials, as in a search) and traced models."""
from __future__ import annotations

import os
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
MODELS, CLUSTERS = ROOT / "examples" / "models", ROOT / "examples" / "clusters"
TEST_MODELS = HERE / "models"
ZOO = ROOT / "examples" / "zoo"
from testpaths import STEPS  # noqa: E402,F401


@pytest.fixture(scope="session")
def spec():
    from space.cluster import load_cluster

    return load_cluster(CLUSTERS / "localhost.yml")


@pytest.fixture(scope="module")
def cluster(spec):
    from runners.cluster import start_cluster

    with start_cluster(spec, timeout_s=90) as running:
        yield running


@pytest.fixture(scope="session")
def traced():
    """name -> (TracedStep, Inventory) of an example model, a test model or a zoo model, traced once per run; the CNN
    without Dropout (deterministic)."""
    os.environ["CNN_DETERMINISTIC"] = "1"
    from space.model import inventory_from_trace, trace_step

    cache: dict = {}

    def get(name: str):
        if name not in cache:
            path = next((d / f"{name}.py" for d in (MODELS, ZOO) if (d / f"{name}.py").is_file()),
                        TEST_MODELS / f"{name}.py")
            t = trace_step(path)
            cache[name] = (t, inventory_from_trace(t))
        return cache[name]

    return get


@pytest.fixture(scope="session")
def reference(traced):
    """name -> single-device training result (variables, state, losses) for 2 replicas and STEPS steps."""
    from runners.transform._reference import reference_train

    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = reference_train(traced(name)[0], 2, STEPS)
        return cache[name]

    return get
