"""The state file (``testbed.json``): every object ``up`` creates is recorded before it is created.

``down`` removes exactly the recorded objects in reverse order, so a crash of ``up`` half-way leaves a
state file that ``down`` can still clean up. Writes are atomic (temp file + rename).
"""
from __future__ import annotations

import json
import os
import pathlib
from typing import Any

from runners.testbed._errors import TestbedRefused

STATE_FILE = "testbed.json"
VERSION = 1


def state_path(directory: str | os.PathLike) -> pathlib.Path:
    return pathlib.Path(directory) / STATE_FILE


class State:
    """The recorded testbed: a ``plan`` (what was asked) and ``objects`` (what was created, in order)."""

    def __init__(self, path: pathlib.Path, data: dict[str, Any]) -> None:
        self.path = path
        self.data = data

    @classmethod
    def new(cls, directory: str | os.PathLike, plan: dict[str, Any]) -> "State":
        return cls(state_path(directory), {"version": VERSION, "complete": False, "plan": plan, "objects": []})

    @classmethod
    def load(cls, directory: str | os.PathLike) -> "State | None":
        """The state in ``directory``, or None when there is none; an unreadable file is refused."""
        path = state_path(directory)
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise TestbedRefused(f"cannot read the testbed state file ({e})", str(path),
                                 hint="remove what it lists by hand (`ip netns list`), then delete the file") from None
        if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("objects"), list):
            raise TestbedRefused(f"not a version-{VERSION} testbed state file", str(path),
                                 hint="it was written by another autotune version; remove what it lists by hand")
        return cls(path, data)

    @property
    def plan(self) -> dict[str, Any]:
        return self.data["plan"]

    @property
    def objects(self) -> list[dict[str, Any]]:
        return self.data["objects"]

    def record(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Append an object and save at once (call this *before* creating the object)."""
        obj = {"kind": kind, **fields}
        self.objects.append(obj)
        self.save()
        return obj

    def save(self) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(self.data, indent=1) + "\n")
        os.replace(tmp, self.path)

    def find(self, kind: str, **match: Any) -> dict[str, Any] | None:
        for obj in self.objects:
            if obj["kind"] == kind and all(obj.get(k) == v for k, v in match.items()):
                return obj
        return None
