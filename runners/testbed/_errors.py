"""Exceptions of the testbed: user-side refusals are ``BadInput`` (one line, exit 2), failures are ``RunError``."""
from __future__ import annotations

from space.errors import BadInput, RunError

INSTALL_HINT = "apt-get install -y iproute2 openssh-server"


class TestbedRefused(BadInput):
    """The testbed cannot be created or read here as asked (not root, a tool missing, a name taken)."""

    __test__ = False  # not a pytest class


class NotRoot(TestbedRefused):
    """Namespaces, links and qdiscs need root."""


class MissingTool(TestbedRefused):
    """``ip``, ``tc`` or ``sshd`` is not installed."""


class NameTaken(TestbedRefused):
    """A namespace, link, address or state directory the testbed would create already exists."""


class NoTestbed(TestbedRefused):
    """No testbed state file where one was expected."""


class TestbedFailed(RunError):
    """A system command failed while the testbed was being built or removed."""

    __test__ = False
