"""The import policy (docs/design.md, "What is imported when"): the command line starts without TensorFlow, Optuna,
pandas or matplotlib, whatever command it parses, so ``autotune --help`` and a refused input cost no library start-up;
the packages below ``autotune`` never import TensorFlow when imported, and ``runners`` leaves paramiko until SSH."""
from __future__ import annotations

import subprocess
import sys

import pytest

from testpaths import ROOT

HEAVY = ("tensorflow", "optuna", "pandas", "matplotlib", "keras")


def _loaded_after(code: str) -> list[str]:
    probe = code + f"\nimport sys\nprint('LOADED', *(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[-1].split()[1:]


def test_the_command_line_parses_every_command_without_the_heavy_libraries():
    assert _loaded_after("import autotune.cli as c\nc.build_parser()") == []


@pytest.mark.parametrize("argv", [["--help"], ["search", "--help"], ["validate-simulator", "--help"],
                                  ["train", "--help"]], ids=lambda a: " ".join(a))
def test_help_loads_none_of_them(argv):
    code = f"import autotune.cli as c\ntry:\n    c.main({argv!r})\nexcept SystemExit:\n    pass"
    assert _loaded_after(code) == []


@pytest.mark.parametrize("package", ["space", "simulator", "runners", "autotune.tuner"])
def test_importing_a_package_does_not_start_tensorflow(package):
    assert "tensorflow" not in _loaded_after(f"import {package}")


def test_paramiko_waits_for_a_node_reached_over_ssh():
    code = "import runners.cluster, runners.launch\nimport sys\nprint('paramiko' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False"]


def _function_level_imports() -> list[str]:
    """Imports of the standard library or numpy inside a function of the four packages, without a comment (on the
    line or the one above) that says why."""
    import ast

    out = []
    for package in ("autotune", "space", "simulator", "runners"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.name.endswith("_pb2.py"):
                continue
            lines = path.read_text().splitlines()
            for fn in ast.walk(ast.parse("\n".join(lines))):
                if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for node in ast.walk(fn):
                    if not isinstance(node, (ast.Import, ast.ImportFrom)) or getattr(node, "level", 0):
                        continue
                    name = (node.names[0].name if isinstance(node, ast.Import) else node.module).split(".")[0]
                    said = "#" in lines[node.lineno - 1] or lines[node.lineno - 2].strip().startswith("#")
                    if (name in sys.stdlib_module_names or name == "numpy") and not said:
                        out.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    return out


def test_the_standard_library_and_numpy_are_imported_at_the_top():
    assert _function_level_imports() == []
