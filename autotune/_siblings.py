"""The packages installed beside ``autotune`` (``space``, ``simulator``, ``runners``) must be its own.

Their names are generic and other distributions use them too. Python finds a package in ``site-packages`` before
the finder of an editable install, so another project's ``space`` would be imported in place of ours and fail
far from the cause. :func:`check` finds each name without importing it and names the stranger in one line.
"""
from __future__ import annotations

import importlib.util
import pathlib

SIBLINGS = ("space", "simulator", "runners")


class ShadowedPackage(ImportError):
    """Another distribution's package answers to one of autotune's top-level names."""


def check() -> None:
    home = pathlib.Path(__file__).resolve().parent.parent
    for name in SIBLINGS:
        spec = importlib.util.find_spec(name)
        where = pathlib.Path(spec.origin).resolve().parent if spec is not None and spec.origin else None
        if where != home / name:
            found = where or "nowhere"
            raise ShadowedPackage(f"autotune's package {name!r} should be {home / name}, but Python finds {found} "
                                  f"first; uninstall the other distribution that provides {name!r} (pip show -f), "
                                  "or install autotune in its own virtual environment")
