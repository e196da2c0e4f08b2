"""Only the cluster's own user reaches its servers: while a loopback cluster runs, another user of this machine is
refused at every server port, through a loopback address and through this host's own, while the driver's user
connects and the servers run ops; the rules go with the cluster."""
from __future__ import annotations

import shutil
import socket
import subprocess

import pytest

from space.cluster import ClusterSpec
from testsupport import connects_as

pytestmark = pytest.mark.slow


def _host_address() -> str | None:
    """This host's first global IPv4 address, if it has one."""
    out = subprocess.run(["ip", "-4", "-o", "addr", "show", "scope", "global"], capture_output=True, text=True)
    words = out.stdout.split()
    return words[words.index("inet") + 1].split("/")[0] if "inet" in words else None


def _tables() -> str:
    return subprocess.run(["nft", "list", "tables"], capture_output=True, text=True, timeout=30).stdout


@pytest.fixture(scope="module")
def guarded(neighbour):
    """A loopback cluster whose rules are in place."""
    import os

    from runners.cluster import start_cluster

    if not shutil.which("nft", path="/usr/sbin:/usr/bin:/sbin"):
        pytest.skip("needs nftables (apt-get install nftables)")
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True}, {"address": "127.0.0.2"}]})
    with start_cluster(spec, timeout_s=120) as cluster:
        assert f"autotune_{os.getpid()}_" in _tables()
        yield cluster
    assert f"autotune_{os.getpid()}_" not in _tables()


@pytest.mark.parametrize("where", ["loopback", "host address"])
def test_another_user_of_this_machine_is_refused(guarded, neighbour, where):
    address = "127.0.0.1" if where == "loopback" else _host_address()
    if address is None:
        pytest.skip("this host has no global IPv4 address")
    with socket.socket() as plain:  # the probe works: the same user reaches a port the cluster does not guard
        plain.bind(("0.0.0.0", 0))
        plain.listen()
        assert connects_as(neighbour, address, plain.getsockname()[1])
    for port in guarded.ports:
        assert not connects_as(neighbour, address, port), f"{neighbour.pw_name} reached port {port} at {address}"


def test_the_clusters_own_user_reaches_its_servers_and_they_run(guarded):
    for port in guarded.ports:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    assert guarded.unresponsive_tasks(timeout_s=30) == []
