"""The notebooks run top to bottom on the local cluster (nbclient), and are committed without outputs."""
from __future__ import annotations

import pytest

from testpaths import ROOT

NOTEBOOKS = ["compare_strategies.ipynb", "simulator_fidelity.ipynb"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_without_outputs(name):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


@pytest.mark.slow
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_runs_top_to_bottom(name, tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the kernel inherits it: the notebook's mkdtemp lands here
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()  # raises CellExecutionError, naming the cell, when any cell fails
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if "image/png" in o.get("data", {})]
    assert len(images) >= (2 if name == "compare_strategies.ipynb" else 1)
    nbformat.write(nb, tmp_path / name)  # the executed copy, for a look when this fails later
    assert len(list(tmp_path.glob("autotune-nb-*"))) == 1
