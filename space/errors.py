"""The exception tree of autotune.

``AutotuneError`` is the root. ``BadInput`` and its children are the user's mistakes (a wrong cluster field,
a broken model file, a strategy for another model): the CLI prints them as one line and exits 2.
Anything else under ``AutotuneError`` is a failure of the work itself (exit 1).
"""
from __future__ import annotations


class AutotuneError(Exception):
    """Root of every error autotune raises on purpose."""

    exit_code = 1


class BadInput(AutotuneError):
    """A user-supplied input is wrong. The message says what, where, and how to fix it."""

    exit_code = 2

    def __init__(self, what: str, where: str = "", hint: str = "") -> None:
        self.what, self.where, self.hint = what, where, hint
        super().__init__(self.line())

    def line(self) -> str:
        text = self.what
        if self.where:
            text += f", {self.where}"
        if self.hint:
            text += f"; hint: {self.hint}"
        return text


class SpecError(BadInput):
    """The cluster spec (cluster.yml) is invalid."""


class ModelError(BadInput):
    """The model file does not follow the model contract."""


class StrategyError(BadInput):
    """A strategy does not fit the model or the cluster, or cannot be read."""


class RunError(AutotuneError):
    """Running something on the cluster failed (a server died, a step hung). ``node``: the node at fault, if known."""

    def __init__(self, message: str = "", node: str = "", hint: str = "") -> None:
        super().__init__(f"{message}; hint: {hint}" if hint else message)
        self.node, self.hint = node, hint


class UnreachableHost(BadInput):
    """A host named in the cluster spec cannot be reached."""


def failure_line(e: BaseException) -> str:
    """The first line of why something failed, for a table or a trial's record (errors not of autotune's own tree,
    TensorFlow's among them, are prefixed with their type)."""
    lines = [line for line in str(e).strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if not isinstance(e, AutotuneError):
        first = f"{type(e).__name__}: {first}" if first else type(e).__name__
    return first[:400]
