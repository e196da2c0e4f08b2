"""Servers reachable only by their cluster, proven in network namespaces: on the testbed, two hosts are the cluster
and the third is a stranger on the same bridge; for a loopback cluster, a stranger namespace reaches this machine
through a veth pair. A stranger's connection to a server's port fails, a member's works, another user of a node
or of the driver's machine is refused, and a clean stop leaves no rule behind."""
from __future__ import annotations

import subprocess
import sys

import pytest
import yaml

from _testbed_helpers import unique_prefix
from runners.testbed import _sys
from testsupport import connects_as

pytestmark = [pytest.mark.netns, pytest.mark.ssh, pytest.mark.slow]

PROBE = "import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()"


def _connects(netns: str | None, address: str, port: int) -> bool:
    """Whether a TCP connection from ``netns`` (None: this namespace) to ``address:port`` is accepted."""
    argv = [sys.executable, "-c", PROBE, address, str(port)]
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    return subprocess.run(argv, capture_output=True, timeout=30).returncode == 0


def _tables(netns: str | None) -> str:
    argv = ["nft", "list", "tables"]
    return subprocess.run(["ip", "netns", "exec", netns, *argv] if netns else argv, capture_output=True,
                          text=True, timeout=30).stdout


@pytest.fixture(scope="module")
def nft(netns_ok):
    if not _sys.which("nft"):
        pytest.skip("needs nftables (apt-get install nftables)")


def test_a_testbed_cluster_admits_its_members_and_their_users_only(testbed, nft, neighbour, tmp_path):
    from runners.cluster import start_cluster
    from space.cluster import ClusterSpec

    raw = yaml.safe_load(open(f"{testbed['dir']}/cluster.yml"))
    raw["nodes"] = raw["nodes"][:2]  # h0 and h1 are the cluster; h2, on the same bridge, is a stranger
    spec = ClusterSpec.from_dict(raw)
    h0, h1, h2 = testbed["hosts"]
    with start_cluster(spec, timeout_s=120) as cluster:
        port = cluster.ports[0]
        assert _connects(h1["netns"], h0["address"], port), "a member is refused"
        assert _connects(None, h0["address"], port), "the driver is refused"
        assert not _connects(h2["netns"], h0["address"], port), "a stranger reached a server"
        for netns, where in ((h0["netns"], "the node's own"), (h1["netns"], "a member's"), (None, "the driver's")):
            assert not connects_as(neighbour, h0["address"], port, netns), f"another user of {where} machine got in"
        assert "autotune_" in _tables(h0["netns"]) and "autotune_" in _tables(h1["netns"])
    assert "autotune_" not in _tables(h0["netns"]) + _tables(h1["netns"])


@pytest.fixture
def stranger(netns_ok, nft):
    """A namespace reaching this one through a veth pair (198.18.254.0/30: this side .1, the stranger .2)."""
    name = unique_prefix("strg")
    here, there = f"{name}a", f"{name}b"
    _sys.run(["ip", "netns", "add", name])
    try:
        _sys.run(["ip", "link", "add", here, "type", "veth", "peer", "name", there])
        _sys.run(["ip", "link", "set", there, "netns", name])
        _sys.run(["ip", "addr", "add", "198.18.254.1/30", "dev", here])
        _sys.run(["ip", "link", "set", here, "up"])
        _sys.run(["ip", "netns", "exec", name, "ip", "addr", "add", "198.18.254.2/30", "dev", there])
        _sys.run(["ip", "netns", "exec", name, "ip", "link", "set", there, "up"])
        yield name
    finally:
        _sys.run(["ip", "link", "del", here], check=False)
        _sys.run(["ip", "netns", "del", name], check=False)


def test_a_loopback_cluster_is_not_reachable_from_another_host(stranger, tmp_path):
    import socket

    from runners.cluster import start_cluster
    from space.cluster import ClusterSpec

    with socket.socket() as s:  # the path works: a plain listener on every interface is reached from there
        s.bind(("0.0.0.0", 0))
        s.listen()
        assert _connects(stranger, "198.18.254.1", s.getsockname()[1])
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True}, {"address": "127.0.0.2"}]})
    before = _tables(None)
    with start_cluster(spec, timeout_s=120) as cluster:
        for port in cluster.ports:
            assert _connects(None, "127.0.0.1", port), "the cluster's own address is refused"
            assert not _connects(stranger, "198.18.254.1", port), "another host reached a loopback server"
    assert _tables(None) == before
