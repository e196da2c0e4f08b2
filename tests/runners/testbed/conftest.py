"""Fixtures for the testbed tests: a skip when namespaces cannot be made here, and a testbed brought up once."""
from __future__ import annotations

import sys

import pytest

from _testbed_helpers import unique_prefix, unique_subnet
from testsupport import netns_forbidden


@pytest.fixture(scope="session")
def netns_ok() -> None:
    reason = netns_forbidden()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def testbed_links() -> list[str]:
    """The slow links (``--link``) of the module's ``testbed``: none, unless the module overrides this fixture."""
    return []


@pytest.fixture(scope="module")
def testbed(netns_ok, tmp_path_factory, testbed_links):
    """Three hosts: h0 and h1 at 200mbit, h2 at 100mbit; removed by ``down`` even when a test fails."""
    import runners.testbed as tb

    directory = tmp_path_factory.mktemp("testbed") / "state"
    plan = tb.make_plan(3, "200mbit", ["2=100mbit"], testbed_links, prefix=unique_prefix("tb"),
                        subnet=unique_subnet(0), directory=str(directory), python=sys.executable)
    try:
        tb.up(plan)
        yield plan
    finally:
        tb.down(plan["dir"])
