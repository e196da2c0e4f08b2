"""The package's version: the installed distribution's, else ``pyproject.toml``'s beside an uninstalled checkout.

``pyproject.toml`` is the one place it is written; an installed package (``pip install -e .`` included) carries it
in its metadata.
"""
from __future__ import annotations

import importlib.metadata
import pathlib
import tomllib

UNKNOWN = "0+unknown"


def version() -> str:
    try:
        return importlib.metadata.version("autotune")
    except importlib.metadata.PackageNotFoundError:
        return _checkout_version(pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml")


def _checkout_version(pyproject: pathlib.Path) -> str:
    """``[project] version`` of ``pyproject``; ``UNKNOWN`` where there is none to read."""
    try:
        with open(pyproject, "rb") as fh:
            return str(tomllib.load(fh)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return UNKNOWN
