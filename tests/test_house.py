"""House rules a change can break without any other test noticing: the runners never import the simulator
(dependencies point one way), no tracked file tells the project's history (the word stop or issue with a number:
history lives in git), and no tracked file is over 1 MB (measurements and runs live outside the tree)."""
from __future__ import annotations

import ast
import pathlib
import re
import shutil
import subprocess

import pytest

from testpaths import ROOT

CHRONOLOGY = re.compile(r"\bstop ?[0-9]+\b|\bissue ?#?[0-9]+\b", re.IGNORECASE)
MAX_BYTES = 1 << 20


def _tracked(*patterns: str) -> list[str]:
    """Tracked paths matching ``patterns`` that exist in the working tree (none outside a git checkout)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return []
    out = subprocess.run(["git", "ls-files", "-z", "--", *patterns], cwd=ROOT, capture_output=True, check=True)
    return sorted(p for p in out.stdout.decode().split("\0") if p and (ROOT / p).is_file())


def _imports(path: pathlib.Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (relative imports by their own name)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


RUNNERS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "runners").rglob("*.py"))


@pytest.mark.parametrize("module", RUNNERS)
def test_the_runners_do_not_import_the_simulator(module):
    """``runners`` measure and return plain data; fitting it into a model is ``simulator``'s (docs/design.md)."""
    found = sorted(n for n in _imports(ROOT / module) if n == "simulator" or n.startswith("simulator."))
    assert not found, f"{module} imports {found}"


@pytest.mark.parametrize("path", _tracked("*.py", "*.md"))
def test_no_file_tells_the_projects_history(path):
    """Code, docs and tests say why things are so; when they became so is in git's history."""
    text = (ROOT / path).read_text(errors="replace")
    lines = [f"{path}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if CHRONOLOGY.search(line)]
    assert not lines, "\n".join(lines)


@pytest.mark.parametrize("path", _tracked())
def test_no_tracked_file_is_over_1_mb(path):
    size = (ROOT / path).stat().st_size
    assert size <= MAX_BYTES, f"{path} is {size / 2**20:.1f} MiB: keep runs and data outside the repository"
