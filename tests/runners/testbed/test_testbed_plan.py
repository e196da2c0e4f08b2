"""The plan, the state file and the refusals: no namespaces needed."""
from __future__ import annotations

import ipaddress
import re

import pytest

import runners.testbed as tb
from autotune.cli import main
from runners.testbed import _spec, _sys
from runners.testbed._plan import format_rate, parse_links, parse_per_host
from runners.testbed._testbed import htb_commands, queue_bytes, slow_peers, tbf_args
from space.cluster import ClusterSpec


def test_plan_addresses_stay_in_benchmark_range():
    plan = tb.make_plan(4, "1gbit", prefix="pl", subnet="198.19.3.0/24", directory="/tmp/x")
    addresses = [plan["root"]["address"]] + [h["address"] for h in plan["hosts"]]
    assert addresses == ["198.19.3.1", "198.19.3.11", "198.19.3.12", "198.19.3.13", "198.19.3.14"]
    assert all(ipaddress.ip_address(a) in tb.BENCHMARK_NET for a in addresses)
    assert [h["netns"] for h in plan["hosts"]] == ["pl-h0", "pl-h1", "pl-h2", "pl-h3"]
    assert plan["bridge_netns"] == "pl-br" and plan["root"]["link"] == "pl-r"


def test_plan_per_host_rates():
    plan = tb.make_plan(3, "1gbit", ["2=100mbit", "h0=0.5"], directory="/tmp/x")
    assert [h["rate_bit"] for h in plan["hosts"]] == [500_000_000, 1_000_000_000, 100_000_000]


def test_plan_links_by_index_either_order():
    plan = tb.make_plan(3, "1gbit", ["2=100mbit"], ["h2-h0=50mbit", "1-2=100mbit"], directory="/tmp/x")
    assert plan["links"] == [{"hosts": [0, 2], "rate_bit": 50_000_000}, {"hosts": [1, 2], "rate_bit": 100_000_000}]
    assert tb.make_plan(3, "1gbit", directory="/tmp/x")["links"] == []
    assert slow_peers(plan, 2) == [(0, plan["hosts"][0]["address"], 50_000_000),
                                   (1, plan["hosts"][1]["address"], 100_000_000)]
    assert slow_peers(plan, 1) == [(2, plan["hosts"][2]["address"], 100_000_000)]


def test_default_dir_uses_prefix():
    assert tb.make_plan(1, "1gbit", prefix="abc")["dir"] == "/tmp/autotune-testbed-abc"


@pytest.mark.parametrize("kwargs, message", [
    ({"subnet": "10.0.0.0/24"}, "must lie inside 198.18.0.0/15"),
    ({"subnet": "198.20.0.0/24"}, "must lie inside 198.18.0.0/15"),
    ({"subnet": "198.18.0.0/29"}, "too small"),
    ({"subnet": "nonsense"}, "bad `--subnet`"),
    ({"prefix": "Bad-Name"}, "`--prefix` must be"),
    ({"prefix": "muchtoolongname"}, "`--prefix` must be"),
    ({"hosts": 0}, "`--hosts` must be in"),
    ({"bandwidth": "fast"}, "bad `--bandwidth`"),
    ({"bandwidth": "10kbit"}, "between 1mbit and 100gbit"),
    ({"per_host": ["5=1gbit"]}, "names host 5"),
    ({"per_host": ["x"]}, "must be INDEX=RATE"),
    ({"threads": -1}, "`--threads` must be >= 0"),
    ({"links": ["0-2"]}, "`--link` must be I-J=RATE"),
    ({"links": ["0=50mbit"]}, "`--link` must be I-J=RATE"),
    ({"links": ["0-1-2=50mbit"]}, "`--link` must be I-J=RATE"),
    ({"links": ["a-b=50mbit"]}, "`--link` must be I-J=RATE"),
    ({"links": ["1-1=50mbit"]}, "joins host 1 to itself"),
    ({"links": ["0-3=50mbit"]}, "names host 3, but hosts are 0..2"),
    ({"links": ["0-2=50mbit", "h2-h0=40mbit"]}, "repeats the link between h0 and h2"),
    ({"links": ["0-2=fast"]}, "bad `--link 0-2=fast`"),
    ({"links": ["0-2=1.5gbit"]}, "faster than h0's own rate (1gbit)"),
    ({"per_host": ["2=100mbit"], "links": ["0-2=200mbit"]}, "faster than h2's own rate (100mbit)"),
], ids=["outside-range", "next-range", "tiny-subnet", "not-a-subnet", "bad-prefix", "long-prefix", "no-hosts",
        "bad-rate", "rate-too-low", "host-out-of-range", "per-host-syntax", "negative-threads", "link-no-rate",
        "link-one-host", "link-three-hosts", "link-not-indices", "link-to-itself", "link-out-of-range",
        "link-twice", "link-bad-rate", "link-faster-than-hosts", "link-faster-than-slower-host"])
def test_plan_refuses(kwargs, message):
    args = {"hosts": 3, "bandwidth": "1gbit", **kwargs}
    with pytest.raises(tb.TestbedRefused, match=re.escape(message)):
        tb.make_plan(args.pop("hosts"), args.pop("bandwidth"), **args)


def test_parse_per_host_empty():
    assert parse_per_host([], 2) == {}


@pytest.mark.parametrize("bits, text", [(200_000_000, "200mbit"), (10**9, "1gbit"), (12_500_000, "12500kbit"),
                                        (1_234_567, "1234567bit")], ids=["mbit", "gbit", "kbit", "bit"])
def test_format_rate(bits, text):
    assert format_rate(bits) == text


def test_tbf_args_rate_in_bits_and_burst_floor():
    assert tbf_args(200_000_000) == ["tbf", "rate", "200000000bit", "burst", "131072", "latency", "50ms"]
    assert tbf_args(10_000_000_000)[4] == "2500000"


def test_parse_links_empty():
    assert parse_links([], [10**9, 10**9]) == []


def test_htb_caps_the_host_and_gives_each_slow_peer_its_rate():
    """Guaranteed rates add up to the host's rate (so any mix is capped by it); ceils: the host's, each link's."""
    cmds = htb_commands(200_000_000, [(2, "198.18.0.13", 50_000_000)])
    assert cmds[0] == ["qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "default", "2"]
    classes = {c[c.index("classid") + 1]: c for c in cmds if c[0] == "class"}
    opt = lambda c, key: c[c.index(key) + 1]  # noqa: E731
    assert {k: (opt(c, "parent"), opt(c, "rate"), opt(c, "ceil")) for k, c in classes.items()} == {
        "1:1": ("1:", "200000000bit", "200000000bit"),
        "1:2": ("1:1", "160000000bit", "200000000bit"),
        "1:102": ("1:1", "40000000bit", "50000000bit")}
    assert opt(classes["1:102"], "burst") == tbf_args(50_000_000)[4]
    assert ["filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip",
            "dst", "198.18.0.13/32", "flowid", "1:102"] in cmds
    fifos = {c[c.index("parent") + 1]: int(c[-1]) for c in cmds if "bfifo" in c}
    assert fifos == {"1:2": queue_bytes(200_000_000), "1:102": queue_bytes(50_000_000)}
    assert queue_bytes(200_000_000) == 200_000_000 // 8 // 20 + 131072  # tbf's: 50 ms at the rate + the burst


def test_htb_guarantees_never_exceed_the_host_rate():
    peers = [(j, f"198.18.0.{11 + j}", 90_000_000) for j in range(1, 4)]  # three links adding up to more
    cmds = htb_commands(100_000_000, peers)
    leaves = [int(c[c.index("rate") + 1].removesuffix("bit")) for c in cmds
              if c[0] == "class" and c[c.index("parent") + 1] == "1:1"]
    assert len(leaves) == 4 and sum(leaves) <= 100_000_000


def test_cluster_spec_carries_slow_links():
    plan = tb.make_plan(3, "200mbit", ["2=100mbit"], ["2-0=50mbit"], directory="/tmp/tb")
    d = _spec.cluster_dict(plan, "root", "/tmp/tb/id", "/tmp/tb/kh")
    h0, h1, h2 = (h["address"] for h in plan["hosts"])
    assert d["links"] == [{"from": h0, "to": h2, "bandwidth": "50mbit"}]
    spec = ClusterSpec.from_dict(d)
    assert spec.bandwidth_gbit(h0, h2) == spec.bandwidth_gbit(h2, h0) == pytest.approx(0.05)
    assert spec.bandwidth_gbit(h1, h2) == pytest.approx(0.1) and spec.bandwidth_gbit(h0, h1) == pytest.approx(0.2)
    assert "links" not in _spec.cluster_dict(tb.make_plan(2, "1gbit", directory="/tmp/tb"), "root", "i", "k")


def test_cluster_spec_is_valid_and_pins_keys():
    plan = tb.make_plan(3, "200mbit", ["2=100mbit"], directory="/tmp/tb")
    spec = ClusterSpec.from_dict(_spec.cluster_dict(plan, "root", "/tmp/tb/id_ed25519", "/tmp/tb/known_hosts"))
    assert spec.chief.address == plan["hosts"][0]["address"]
    assert spec.ssh["testbed"].known_hosts == "/tmp/tb/known_hosts"
    assert spec.ssh["testbed"].key_file == "/tmp/tb/id_ed25519"
    assert spec.bandwidth_gbit("198.18.0.11", "198.18.0.13") == pytest.approx(0.1)
    assert all(n.python == plan["python"] for n in spec.nodes)


@pytest.mark.parametrize("hosts, cores, expected", [(3, 2, 1), (2, 8, 4), (3, 16, 5), (40, 8, 1)])
def test_each_host_gets_its_share_of_the_cores(monkeypatch, hosts, cores, expected):
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: set(range(cores)))
    plan = tb.make_plan(hosts, "200mbit", directory="/tmp/tb")
    spec = ClusterSpec.from_dict(_spec.cluster_dict(plan, "root", "/tmp/tb/id", "/tmp/tb/kh"))
    assert plan["threads"] == expected
    assert {n.intra_op_threads for n in spec.nodes} == {expected}


def test_threads_zero_leaves_tensorflows_default():
    plan = tb.make_plan(3, "200mbit", directory="/tmp/tb", threads=0)
    d = _spec.cluster_dict(plan, "root", "/tmp/tb/id", "/tmp/tb/kh")
    assert all("intra_op_threads" not in n for n in d["nodes"])


def test_state_records_before_and_reloads(tmp_path):
    state = tb.State.new(tmp_path, {"prefix": "x"})
    state.record("netns", name="x-h0")
    loaded = tb.State.load(tmp_path)
    assert loaded.objects == [{"kind": "netns", "name": "x-h0"}] and loaded.plan == {"prefix": "x"}


def test_state_load_missing(tmp_path):
    assert tb.State.load(tmp_path) is None


@pytest.mark.parametrize("text", ["{half", '{"version": 99, "objects": []}'], ids=["not-json", "other-version"])
def test_state_load_refuses_unreadable(tmp_path, text):
    (tmp_path / "testbed.json").write_text(text)
    with pytest.raises(tb.TestbedRefused, match="testbed.json"):
        tb.State.load(tmp_path)


def test_cli_refuses_when_not_root(monkeypatch, capsys):
    monkeypatch.setattr(_sys.os, "geteuid", lambda: 1000)
    assert main(["testbed", "up", "--hosts", "2", "--bandwidth", "1gbit", "--dir", "/nonexistent/x"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: the testbed needs root") and "sudo" in err and len(err.splitlines()) == 1


def test_cli_refuses_when_tools_missing(monkeypatch, capsys):
    monkeypatch.setattr(_sys.os, "geteuid", lambda: 0)
    monkeypatch.setattr(_sys, "which", lambda tool: None if tool in ("tc", "sshd") else "/bin/" + tool)
    assert main(["testbed", "up", "--hosts", "2", "--bandwidth", "1gbit", "--dir", "/nonexistent/x"]) == 2
    err = capsys.readouterr().err.strip()
    assert "tc, sshd not found" in err and "apt-get install -y iproute2 openssh-server" in err
    assert len(err.splitlines()) == 1


def test_cli_refuses_subnet_outside_range(capsys):
    assert main(["testbed", "up", "--hosts", "2", "--bandwidth", "1gbit", "--subnet", "192.168.5.0/24"]) == 2
    assert "198.18.0.0/15" in capsys.readouterr().err


def test_cli_refuses_a_link_faster_than_its_hosts(capsys):
    argv = ["testbed", "up", "--hosts", "3", "--bandwidth", "1gbit", "--per-host", "2=100mbit", "--dir", "/nonexist/x"]
    assert main([*argv, "--link", "0-2=200mbit"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: `--link 0-2=200mbit` is faster than h2's own rate (100mbit)")
    assert "at most 100mbit" in err
    assert len(err.splitlines()) == 1
    assert main([*argv, "--link", "0-2=50mbit", "--link", "2-0=20mbit"]) == 2
    assert "repeats the link between h0 and h2" in capsys.readouterr().err


def test_cli_status_without_testbed(tmp_path, capsys):
    assert main(["testbed", "status", "--dir", str(tmp_path)]) == 2
    assert "no testbed recorded" in capsys.readouterr().err


def test_cli_down_without_testbed_is_a_no_op(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(_sys.os, "geteuid", lambda: 0)
    assert main(["testbed", "down", "--dir", str(tmp_path)]) == 0
    assert "nothing to remove" in capsys.readouterr().out
