"""One version: ``pyproject.toml``'s, read from the installed metadata or, in an uninstalled checkout, the file."""
from __future__ import annotations

import importlib.metadata
import tomllib

import pytest

import autotune
import space
from space import _version
from testpaths import ROOT


def _pyproject_version() -> str:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]["version"]


def test_the_packages_report_pyprojects_version():
    assert space.__version__ == autotune.__version__ == _pyproject_version()


def test_an_uninstalled_checkout_reads_pyproject(monkeypatch):
    def not_installed(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", not_installed)
    assert _version.version() == _pyproject_version()


@pytest.mark.parametrize("text", [None, "[project]\nname = 'x'\n", "not toml ["], ids=["missing", "no-version", "bad"])
def test_without_a_readable_version_it_says_unknown(tmp_path, text):
    path = tmp_path / "pyproject.toml"
    if text is not None:
        path.write_text(text)
    assert _version._checkout_version(path) == _version.UNKNOWN
