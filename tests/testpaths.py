"""Paths and constants shared by the tests (imported as ``testpaths``; conftest modules are not importable
by name once several exist)."""
from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODELS = ROOT / "examples" / "models"
CLUSTERS = ROOT / "examples" / "clusters"
EXAMPLE_MODELS = ["mlp", "cnn", "recommender", "transformer", "dlrm"]
EXAMPLE_CLUSTERS = ["localhost", "two_nodes", "heterogeneous"]
STEPS = 3  # synchronous steps compared with single-device training in the backend's correctness tests
