"""A real 3-host testbed: status, SSH with pinned keys, shaped throughput, a slow link, refusals of taken names.

The testbed here also has a 50mbit link between h1 (200mbit) and h2 (100mbit); h0's traffic does not cross it."""
from __future__ import annotations

import ipaddress
import json
import subprocess
import sys

import paramiko
import pytest

import runners.testbed as tb
from autotune.cli import main
from _testbed_helpers import HERE, ssh_client, unique_prefix

pytestmark = [pytest.mark.netns, pytest.mark.ssh]
SLOW_LINK = 50_000_000


@pytest.fixture(scope="module")
def testbed_links() -> list[str]:
    return [f"1-2={SLOW_LINK}bit"]


def test_status_reports_hosts(testbed):
    info = tb.status(testbed["dir"])
    assert info["complete"] and info["root_link_up"]
    assert [h["address"] for h in info["hosts"]] == [h["address"] for h in testbed["hosts"]]
    assert all(ipaddress.ip_address(h["address"]) in tb.BENCHMARK_NET for h in info["hosts"])
    assert [h["tc_rate_bit"] for h in info["hosts"]] == [200_000_000, 200_000_000, 100_000_000]
    assert all(h["netns_up"] and h["sshd_alive"] for h in info["hosts"])
    assert info["links"] == [{"hosts": ["h1", "h2"], "rate_bit": SLOW_LINK, "tc_rate_bit": [SLOW_LINK, SLOW_LINK]}]


def test_status_cli_table(testbed, capsys):
    assert main(["testbed", "status", "--dir", testbed["dir"]]) == 0
    out = capsys.readouterr().out
    for h in testbed["hosts"]:
        assert f"{h['name']:<6}{h['netns']:<14}{h['address']:<16}" in out
    assert "100mbit" in out and "alive" in out and "DEAD" not in out
    assert "link h1-h2: 50mbit both ways (tc: 50mbit h1->h2, 50mbit h2->h1)" in out


def test_status_cli_json(testbed, capsys):
    assert main(["testbed", "status", "--dir", testbed["dir"], "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["hosts"]) == 3


@pytest.mark.parametrize("index", [0, 1, 2], ids=["h0", "h1", "h2"])
def test_ssh_reaches_host_in_its_namespace(testbed, index):
    host = testbed["hosts"][index]
    client = ssh_client(testbed, host["address"])
    try:
        _, out, _ = client.exec_command("ip -o -4 addr show dev eth0; ip netns identify $$", timeout=10)
        text = out.read().decode()
    finally:
        client.close()
    assert f"inet {host['address']}/24" in text and host["netns"] in text


def test_ssh_rejects_unknown_host_key(testbed, tmp_path):
    (tmp_path / "known_hosts").write_text("")
    client = paramiko.SSHClient()
    client.load_host_keys(str(tmp_path / "known_hosts"))
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    try:
        with pytest.raises(paramiko.SSHException, match="not found in known_hosts"):
            client.connect(testbed["hosts"][0]["address"], username="root", look_for_keys=False,
                           key_filename=f"{testbed['dir']}/id_ed25519", allow_agent=False, timeout=10)
    finally:
        client.close()


def test_ssh_refuses_password_login(testbed):
    transport = paramiko.Transport((testbed["hosts"][1]["address"], 22))
    try:
        transport.start_client(timeout=10)
        with pytest.raises(paramiko.BadAuthenticationType):
            transport.auth_password("root", "root")
    finally:
        transport.close()


def _throughputs(testbed, pairs: list[tuple[int, int]], port: int, seconds: float = 3.0) -> list[float]:
    """Bits/s received on host ``dst`` from host ``src`` for each ``(src, dst)``, all sent at once (a bounded
    socket sender/receiver pair each, on ports ``port``, ``port + 1``, ...)."""
    hosts, probe = testbed["hosts"], str(HERE / "_probe.py")
    ends = [(hosts[src], hosts[dst], str(port + k), str(int(hosts[dst]["rate_bit"] / 8 * seconds * 2)))
            for k, (src, dst) in enumerate(pairs)]
    receivers, senders = [], []
    try:
        for _, d, p, limit in ends:
            receivers.append(subprocess.Popen(["ip", "netns", "exec", d["netns"], sys.executable, probe, "recv",
                                               d["address"], p, limit, str(seconds + 10)],
                                              stdout=subprocess.PIPE, text=True))
        for _, d, p, _ in ends:
            for _ in range(50):  # wait (at most 5 s) until the receiver listens
                if subprocess.run(["ip", "netns", "exec", d["netns"], "ss", "-Hltn", f"sport = :{p}"],
                                  capture_output=True, text=True, timeout=5).stdout.strip():
                    break
                subprocess.run(["sleep", "0.1"])
        senders = [subprocess.Popen(["ip", "netns", "exec", s["netns"], sys.executable, probe, "send", d["address"],
                                     p, limit, str(seconds)]) for s, d, p, limit in ends]
        assert [s.wait(timeout=seconds + 15) for s in senders] == [0] * len(ends)
        outs = [r.communicate(timeout=15)[0] for r in receivers]
    finally:
        for proc in receivers + senders:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=5)
    return [json.loads(out)["bits_per_s"] for out in outs]


def _throughput(testbed, src: int, dst: int, port: int, seconds: float = 3.0) -> float:
    return _throughputs(testbed, [(src, dst)], port, seconds)[0]


@pytest.mark.slow
def test_throughput_matches_rate(testbed):
    bits = _throughput(testbed, 0, 1, 5201)
    print(f"h0 -> h1: {bits / 1e6:.1f} Mbit/s at a set rate of 200 Mbit/s")
    assert abs(bits - 200e6) <= 0.10 * 200e6


@pytest.mark.slow
def test_throughput_is_the_slower_hosts_rate(testbed):
    bits = _throughput(testbed, 0, 2, 5202)
    print(f"h0 (200mbit) -> h2 (100mbit): {bits / 1e6:.1f} Mbit/s")
    assert abs(bits - 100e6) <= 0.10 * 100e6


@pytest.mark.slow
def test_a_slow_link_runs_at_its_rate_and_its_hosts_keep_theirs(testbed):
    """h1-h2 runs near 50mbit both ways while h1 sends to h0 near its 200mbit; sending over both at once, h1
    stays within its 200mbit (the link's htb class is one of the host's)."""
    slow, back, other = (_throughput(testbed, src, dst, 5203 + k, seconds=2.0)
                         for k, (src, dst) in enumerate([(1, 2), (2, 1), (1, 0)]))
    both = _throughputs(testbed, [(1, 0), (1, 2)], 5206, seconds=2.0)
    print(f"h1 -> h2 {slow / 1e6:.1f}, h2 -> h1 {back / 1e6:.1f} Mbit/s over the 50 Mbit/s link; "
          f"h1 -> h0 {other / 1e6:.1f} Mbit/s at 200 Mbit/s; at once: h1 -> h0 {both[0] / 1e6:.1f} + "
          f"h1 -> h2 {both[1] / 1e6:.1f} Mbit/s")
    assert slow < 0.6 * other and back < 0.6 * other
    assert 0.5 * SLOW_LINK < min(slow, back) and max(slow, back, both[1]) < 1.1 * SLOW_LINK
    assert sum(both) < 1.1 * 200e6


def test_up_refuses_taken_state_dir(testbed, capsys):
    argv = ["testbed", "up", "--hosts", "2", "--bandwidth", "1gbit", "--prefix", testbed["prefix"],
            "--dir", testbed["dir"]]
    assert main(argv) == 2
    assert "a testbed is already recorded in" in capsys.readouterr().err


def test_up_refuses_taken_namespace(testbed, tmp_path, capsys):
    argv = ["testbed", "up", "--hosts", "2", "--bandwidth", "1gbit", "--prefix", testbed["prefix"],
            "--dir", str(tmp_path / "other"), "--subnet", "198.18.250.0/24"]
    assert main(argv) == 2
    assert f"network namespace '{testbed['prefix']}-br' already exists" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()


def test_up_refuses_taken_subnet(testbed, tmp_path, capsys):
    argv = ["testbed", "up", "--hosts", "2", "--bandwidth", "1gbit", "--prefix", unique_prefix("ot"),
            "--dir", str(tmp_path / "other"), "--subnet", testbed["subnet"]]
    assert main(argv) == 2
    assert f"subnet {testbed['subnet']} is already in use" in capsys.readouterr().err


@pytest.mark.slow
def test_shape_changes_a_link_while_the_testbed_runs_and_back(testbed, capsys):
    """``testbed shape`` slows h0-h2 to 20mbit on the running testbed: the traffic follows and ``status`` says so;
    set back to h2's own rate, the link is no longer slow and runs at 100mbit again."""
    where = ["--dir", testbed["dir"]]
    assert main(["testbed", "shape", "--link", "0-2=20mbit", *where]) == 0
    try:
        assert "h0-h2: 100mbit -> 20mbit" in capsys.readouterr().out
        slow = _throughput(testbed, 0, 2, 5210, seconds=2.0)
        links = {tuple(link["hosts"]): link for link in tb.status(testbed["dir"])["links"]}
        assert links[("h0", "h2")]["tc_rate_bit"] == [20_000_000, 20_000_000]
        assert links[("h1", "h2")]["tc_rate_bit"] == [SLOW_LINK, SLOW_LINK]  # the other slow link kept
    finally:
        assert main(["testbed", "shape", "--link", "0-2=100mbit", *where]) == 0
    fast = _throughput(testbed, 0, 2, 5212, seconds=2.0)
    print(f"h0 -> h2: {slow / 1e6:.1f} Mbit/s shaped to 20 Mbit/s, {fast / 1e6:.1f} Mbit/s set back to 100 Mbit/s")
    assert 0.5 * 20e6 < slow < 1.1 * 20e6 and 0.8 * 100e6 < fast < 1.1 * 100e6
    assert ("h0", "h2") not in {tuple(link["hosts"]) for link in tb.status(testbed["dir"])["links"]}


def test_shape_without_a_change_is_refused_in_one_line(testbed, capsys):
    assert main(["testbed", "shape", "--dir", testbed["dir"]]) == 2
    err = capsys.readouterr().err
    assert "needs --per-host I=RATE or --link I-J=RATE" in err and len(err.strip().splitlines()) == 1
