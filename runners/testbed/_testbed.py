"""Bring an emulated cluster up, report on it, and take it down again.

Topology: a bridge ``br0`` in its own namespace ``<prefix>-br``; each host namespace ``<prefix>-h<i>`` has
``eth0`` veth-linked to port ``h<i>`` of the bridge; the root namespace gets one veth ``<prefix>-r`` (port
``root``) so a driver run without ``ip netns exec`` reaches every host. Keeping the bridge out of the root
namespace leaves one interface there, and deleting the bridge namespace removes every port at once.
Shaping: ``tbf`` on each host's ``eth0`` (egress) and on its bridge port (ingress), so traffic between
hosts a and b runs at ``min(rate_a, rate_b)`` -- the rule ``ClusterSpec.bandwidth_gbit`` uses. A host with slow
links has ``htb`` on its ``eth0`` instead (:func:`htb_commands`): one class per slow peer at the link's rate, the
rest in a default class, all under one class at the host's rate; each end shapes what it sends over the link.
"""
from __future__ import annotations

import ipaddress
import json
import logging
import os
import pathlib
import pwd
import re
import shutil
from typing import Any, Sequence

from runners.testbed import _sshd, _sys
from runners.testbed._errors import NameTaken, NoTestbed, TestbedFailed
from runners.testbed._plan import SSH_PORT, format_rate, parse_links, parse_per_host
from runners.testbed._spec import write_cluster
from runners.testbed._state import State, state_path
from space import parse_bandwidth_gbit

log = logging.getLogger(__name__)
LATENCY_MS = 50
TBF_LATENCY = f"{LATENCY_MS}ms"
BURST_MIN_BYTES = 128 * 1024
HTB_PEER_CLASS = 0x100  # the htb class of slow peer j is 1:<0x100 + j>; 1:1 is the host's, 1:2 the default
HTB_MIN_RATE_BIT = 1000
KEY_FILE = "id_ed25519"
KNOWN_HOSTS = "known_hosts"
_HTB_CLASS = re.compile(r"^class htb 1:([0-9a-f]+) .*\bceil (\S+)")


def burst_bytes(rate_bit: int) -> int:
    """max(128 KiB, 2 ms at the rate). Above the largest GSO packet (64 KiB), so ``tbf`` splits no packets;
    with 4-25 KB bursts a TF server spent ~1 CPU-s per 40 MiB all-reduce at 200mbit instead of ~0.2."""
    return max(BURST_MIN_BYTES, rate_bit // 8 * 2 // 1000)


def queue_bytes(rate_bit: int) -> int:
    """What ``tbf`` with ``latency 50ms`` queues: 50 ms at the rate plus the burst."""
    return rate_bit // 8 * LATENCY_MS // 1000 + burst_bytes(rate_bit)


def tbf_args(rate_bit: int) -> list[str]:
    """``tbf`` parameters: the rate in bits/s, a burst of :func:`burst_bytes`, 50 ms of queue."""
    return ["tbf", "rate", f"{rate_bit}bit", "burst", str(burst_bytes(rate_bit)), "latency", TBF_LATENCY]


def htb_commands(rate_bit: int, peers: Sequence[tuple[int, str, int]]) -> list[list[str]]:
    """``tc`` arguments (after ``tc -n NETNS``) that shape a host's ``eth0`` with slow links to ``peers``.

    ``peers``: ``(index, address, link rate)``. Class 1:1 runs at the host's rate; under it the default class
    1:2 (ceil: the host's rate) and one class per peer (ceil: the link's rate), picked by a ``u32`` filter on
    the peer's address. The children's guaranteed rates share out the host's rate in proportion to their ceils,
    so whatever mix is sent, the total stays at the host's rate. Each class bursts as ``tbf`` would at its ceil
    and queues in a ``bfifo`` as long as tbf's queue (:func:`queue_bytes`). The quantum is set to 128 KiB:
    htb's default, rate / 10 in bytes, passes its 200000-byte cap above 16 Mbit/s and warns."""
    dev = ["dev", "eth0"]
    total = rate_bit + sum(rate for _, _, rate in peers)

    def klass(parent: str, classid: str, rate: int, ceil: int) -> list[str]:
        burst = str(burst_bytes(ceil))
        return ["class", "add", *dev, "parent", parent, "classid", classid, "htb", "rate", f"{rate}bit",
                "ceil", f"{ceil}bit", "burst", burst, "cburst", burst, "quantum", str(BURST_MIN_BYTES)]

    out = [["qdisc", "add", *dev, "root", "handle", "1:", "htb", "default", "2"],
           klass("1:", "1:1", rate_bit, rate_bit)]
    leaves = [("1:2", rate_bit, None)] + [(f"1:{HTB_PEER_CLASS + j:x}", rate, address) for j, address, rate in peers]
    for classid, ceil, address in leaves:
        out.append(klass("1:1", classid, max(HTB_MIN_RATE_BIT, ceil * rate_bit // total), ceil))
        out.append(["qdisc", "add", *dev, "parent", classid, "bfifo", "limit", str(queue_bytes(ceil))])
        if address is not None:
            out.append(["filter", "add", *dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                        "match", "ip", "dst", f"{address}/32", "flowid", classid])
    return out


def slow_peers(plan: dict[str, Any], index: int) -> list[tuple[int, str, int]]:
    """``(peer index, peer address, link rate)`` of host ``index``'s slow links in ``plan``."""
    out = []
    for link in plan.get("links", []):
        if index in link["hosts"]:
            peer = link["hosts"][1] if link["hosts"][0] == index else link["hosts"][0]
            out.append((peer, plan["hosts"][peer]["address"], link["rate_bit"]))
    return out


# ---- up ------------------------------------------------------------------------------------------

def check_free(plan: dict[str, Any]) -> None:
    """Refuse when the state directory, a namespace, the root link or the subnet is already in use."""
    directory = pathlib.Path(plan["dir"])
    if state_path(directory).exists():
        raise NameTaken(f"a testbed is already recorded in {directory}",
                        hint=f"`autotune testbed down --dir {directory}` first, or pick another --dir/--prefix")
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise NameTaken(f"state directory {directory} exists and is not empty", hint="pass an empty or new --dir")
    taken = sorted({plan["bridge_netns"], *(h["netns"] for h in plan["hosts"])} & _sys.netns_list())
    if taken:
        raise NameTaken(f"network namespace {taken[0]!r} already exists",
                        hint="pick another --prefix, or remove the testbed that owns it with `autotune testbed down`")
    if plan["root"]["link"] in _sys.root_links():
        raise NameTaken(f"link {plan['root']['link']!r} already exists in the root namespace",
                        hint="pick another --prefix")
    subnet = ipaddress.ip_network(plan["subnet"])
    for where, net in _sys.root_networks():
        if net.version == 4 and net.overlaps(subnet):
            raise NameTaken(f"subnet {subnet} is already in use ({where})",
                            hint="pick another --subnet inside 198.18.0.0/15, e.g. 198.18.1.0/24")


def up(plan: dict[str, Any]) -> State:
    """Create the testbed described by ``plan`` (see ``make_plan``); on any failure remove what was made."""
    _sys.require_root()
    tools = _sys.require_tools()
    check_free(plan)
    directory = pathlib.Path(plan["dir"])
    created = not directory.exists()
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    directory.chmod(0o700)  # holds the private key; sshd runs with StrictModes off
    state = State.new(directory, plan)
    state.record("dir", path=str(directory), created=created)
    try:
        _build(state, plan, tools["sshd"])
    except BaseException:
        log.warning("testbed up failed; removing what was created")
        try:
            down(directory)
        except Exception as e:  # keep the original error; the state file still lists what is left
            log.error("cleanup after a failed up was incomplete: %s", e)
        raise
    return state


def _build(state: State, plan: dict[str, Any], sshd: str) -> None:
    ip, br, bridge = _sys.run, plan["bridge_netns"], plan["bridge"]
    prefixlen = plan["subnet"].split("/")[1]
    state.record("netns", name=br)
    ip(["ip", "netns", "add", br])
    ip(["ip", "-n", br, "link", "set", "lo", "up"])
    ip(["ip", "-n", br, "link", "add", bridge, "type", "bridge"])
    ip(["ip", "-n", br, "link", "set", bridge, "up"])

    root = plan["root"]
    state.record("link", name=root["link"])
    ip(["ip", "link", "add", root["link"], "type", "veth", "peer", "name", root["peer"], "netns", br])
    ip(["ip", "-n", br, "link", "set", root["peer"], "master", bridge, "up"])
    ip(["ip", "addr", "add", f"{root['address']}/{prefixlen}", "dev", root["link"]])
    ip(["ip", "link", "set", root["link"], "up"])

    for h in plan["hosts"]:
        ns = h["netns"]
        state.record("netns", name=ns)
        ip(["ip", "netns", "add", ns])
        ip(["ip", "-n", ns, "link", "set", "lo", "up"])
        ip(["ip", "link", "add", h["port"], "netns", br, "type", "veth", "peer", "name", "eth0", "netns", ns])
        ip(["ip", "-n", br, "link", "set", h["port"], "master", bridge, "up"])
        ip(["ip", "-n", ns, "addr", "add", f"{h['address']}/{prefixlen}", "dev", "eth0"])
        ip(["ip", "-n", ns, "link", "set", "eth0", "up"])
        _shape_host(plan, h)
        ip(["tc", "-n", br, "qdisc", "add", "dev", h["port"], "root", *tbf_args(h["rate_bit"])])

    directory = pathlib.Path(plan["dir"])
    user = pwd.getpwuid(os.geteuid()).pw_name
    key = directory / KEY_FILE
    authorized = directory / "authorized_keys"
    authorized.write_text(_sshd.write_keypair(key, f"autotune-testbed-{plan['prefix']}") + "\n")
    known_lines = []
    for h in plan["hosts"]:
        hdir = directory / h["name"]
        (hdir / "work").mkdir(parents=True)
        host_key = hdir / "ssh_host_ed25519_key"
        public = _sshd.write_keypair(host_key, h["name"])
        known_lines.append(f"{h['address']} {' '.join(public.split()[:2])}")
        (hdir / "sshd_config").write_text(_sshd.config_text(
            h["address"], SSH_PORT, host_key, authorized, hdir / "sshd.pid", user))
    (directory / KNOWN_HOSTS).write_text("\n".join(known_lines) + "\n")

    for h in plan["hosts"]:
        hdir = directory / h["name"]
        obj = state.record("process", role="sshd", host=h["name"], netns=h["netns"], pid=None, start_time=None,
                           pid_file=str(hdir / "sshd.pid"))
        proc = _sshd.start(sshd, h["netns"], hdir / "sshd_config", hdir / "sshd.log")
        obj.update(pid=proc.pid, start_time=_sys.start_time(proc.pid))
        state.save()
        _sshd.wait_ready(proc, h["address"], SSH_PORT, hdir / "sshd.log")

    write_cluster(plan, user, str(key), str(directory / KNOWN_HOSTS))
    state.data["complete"] = True
    state.save()


def _shape_host(plan: dict[str, Any], h: dict[str, Any]) -> None:
    """Shape host ``h``'s ``eth0`` as ``plan`` says: its rate, and its slow links to its peers."""
    if peers := slow_peers(plan, h["index"]):
        for args in htb_commands(h["rate_bit"], peers):
            _sys.run(["tc", "-n", h["netns"], *args])
    else:
        _sys.run(["tc", "-n", h["netns"], "qdisc", "add", "dev", "eth0", "root", *tbf_args(h["rate_bit"])])


def shape(directory: str | os.PathLike, per_host: Sequence[str] = (), links: Sequence[str] = ()) -> list[str]:
    """Change rates on a running testbed, as ``up`` takes them: ``per_host`` ``I=RATE``, ``links`` ``I-J=RATE`` (a
    link set to the slower host's rate or above is no longer slow). What runs on the hosts keeps running: ``tc``
    is replaced on the hosts concerned only, which drops at most the packets queued there. The state file records
    the new rates (``status`` reports them); ``cluster.yml`` keeps the rates the testbed came up with, as a cluster
    spec does when its network changes under it. Returns one line per change."""
    state = State.load(directory)
    if state is None or not state.data.get("complete"):
        raise NoTestbed(f"no running testbed recorded in {directory}",
                        hint="`autotune testbed up --hosts N --bandwidth 1gbit` first")
    plan = state.plan
    hosts = plan["hosts"]
    rates = [h["rate_bit"] for h in hosts]
    changed_hosts = parse_per_host(per_host, len(hosts))
    for i, bits in changed_hosts.items():
        rates[i] = bits
    asked = {tuple(link["hosts"]): link["rate_bit"] for link in parse_links(links, rates)} if links else {}
    kept = {tuple(link["hosts"]): link["rate_bit"] for link in plan.get("links", [])}
    merged = {**kept, **asked}
    lines = [f"h{i}: {format_rate(hosts[i]['rate_bit'])} -> {format_rate(b)}" for i, b in changed_hosts.items()]
    lines += [f"h{a}-h{b}: {format_rate(kept[(a, b)]) if (a, b) in kept else format_rate(min(rates[a], rates[b]))}"
              f" -> {format_rate(bits)}" for (a, b), bits in asked.items()]
    for i, bits in changed_hosts.items():
        hosts[i]["rate_bit"] = bits
    plan["links"] = [{"hosts": list(k), "rate_bit": b} for k, b in sorted(merged.items())
                     if b < min(rates[k[0]], rates[k[1]])]
    touched = set(changed_hosts) | {i for pair in asked for i in pair}
    touched |= {i for pair in kept if touched & set(pair) for i in pair}  # a peer's class for a changed host
    for i in sorted(touched):
        h = hosts[i]
        _sys.run(["tc", "-n", h["netns"], "qdisc", "del", "dev", "eth0", "root"], check=False)
        _shape_host(plan, h)
        if i in changed_hosts:
            _sys.run(["tc", "-n", plan["bridge_netns"], "qdisc", "replace", "dev", h["port"], "root",
                      *tbf_args(h["rate_bit"])])
    state.save()
    return lines


# ---- down ----------------------------------------------------------------------------------------

def down(directory: str | os.PathLike) -> list[str]:
    """Remove every object recorded in ``directory``'s state file, newest first; returns what was removed.

    Idempotent: with no state file there is nothing to do. An object that fails to go stays recorded
    (so ``down`` can be run again) and the failures are raised together at the end."""
    _sys.require_root()
    state = State.load(directory)
    if state is None:
        return []
    removed, failed = [], []
    for obj in reversed(list(state.objects)):
        try:
            what = _remove(obj, state)
        except (TestbedFailed, OSError) as e:
            failed.append(f"{obj['kind']} {obj.get('name') or obj.get('path') or obj.get('pid')}: {e}")
            continue
        if obj["kind"] != "dir":
            state.objects.remove(obj)
            state.save()
        removed.append(what)
    if failed:
        raise TestbedFailed(f"testbed down left {len(failed)} object(s): {'; '.join(failed)}")
    return removed


def _remove(obj: dict[str, Any], state: State) -> str:
    kind = obj["kind"]
    if kind == "process":
        pid, started = obj.get("pid"), obj.get("start_time")
        if not pid:  # recorded, but up stopped before the PID was saved: sshd's own pid file tells
            pid, started = _pid_from_file(obj.get("pid_file")), None
        if pid and _sys.alive(pid, started) and not _sys.terminate(pid, started):
            raise TestbedFailed(f"{obj.get('role', 'process')} pid {pid} did not stop")
        return f"process {obj.get('role', '')} {obj.get('host', '')} pid {pid}".replace("  ", " ")
    if kind == "netns":
        name = obj["name"]
        if name in _sys.netns_list():
            for pid in _sys.netns_pids(name):  # jobs started inside our host (e.g. through its sshd)
                _sys.terminate(pid, _sys.start_time(pid))
            _sys.run(["ip", "netns", "del", name])
        return f"netns {name}"
    if kind == "link":
        if obj["name"] in _sys.root_links():
            _sys.run(["ip", "link", "del", obj["name"]])
        return f"link {obj['name']}"
    if kind == "dir":
        path = pathlib.Path(obj["path"])
        if path.is_dir() and state.path.parent == path:
            for child in path.iterdir():  # everything in it was written by up or by jobs on the testbed
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child)
                else:
                    child.unlink()
            if obj.get("created"):
                path.rmdir()
        return f"dir {path}"
    raise TestbedFailed(f"unknown object kind {kind!r} in {state.path}")


def _pid_from_file(path: str | None) -> int | None:
    try:
        text = pathlib.Path(path).read_text().strip() if path else ""
    except OSError:
        return None
    return int(text) if text.isdigit() else None


# ---- status --------------------------------------------------------------------------------------

def status(directory: str | os.PathLike) -> dict[str, Any]:
    """What is recorded and whether it is alive: namespaces, addresses, the rates ``tc`` reports, sshd PIDs,
    and each slow link's rate as ``tc`` reports it on either end (``[a to b, b to a]``)."""
    state = State.load(directory)
    if state is None:
        raise NoTestbed(f"no testbed recorded in {directory}", hint="`autotune testbed up --hosts N --bandwidth 1gbit`")
    plan = state.plan
    namespaces = _sys.netns_list()
    hosts, shaping = [], {}
    for h in plan["hosts"]:
        proc = state.find("process", host=h["name"]) or {}
        up_ns = h["netns"] in namespaces
        shaping[h["index"]] = _tc_shaping(h["netns"]) if up_ns else (None, {})
        hosts.append({
            "name": h["name"], "netns": h["netns"], "netns_up": up_ns, "address": h["address"],
            "rate_bit": h["rate_bit"], "tc_rate_bit": shaping[h["index"]][0],
            "sshd_pid": proc.get("pid"), "sshd_alive": _sys.alive(proc.get("pid"), proc.get("start_time")),
            "processes": len(_sys.netns_pids(h["netns"])) if up_ns else 0})
    links = [{"hosts": [plan["hosts"][a]["name"], plan["hosts"][b]["name"]], "rate_bit": link["rate_bit"],
              "tc_rate_bit": [shaping[a][1].get(b), shaping[b][1].get(a)]}
             for link in plan.get("links", []) for a, b in [link["hosts"]]]
    return {"dir": plan["dir"], "prefix": plan["prefix"], "complete": state.data.get("complete", False),
            "cluster": str(pathlib.Path(plan["dir"]) / "cluster.yml"), "root_link": plan["root"]["link"],
            "root_address": plan["root"]["address"], "root_link_up": plan["root"]["link"] in _sys.root_links(),
            "hosts": hosts, "links": links}


def _tc_shaping(netns: str) -> tuple[int | None, dict[int, int]]:
    """The rate ``tc`` reports on the host's ``eth0`` (tbf's, or htb's class 1:1) and its slow links' rates
    by peer index (each peer class's ceil)."""
    proc = _sys.run(["tc", "-n", netns, "-j", "qdisc", "show", "dev", "eth0"], check=False)
    try:
        root = next((q for q in json.loads(proc.stdout or "[]") if q.get("kind") in ("tbf", "htb")), {})
        if root.get("kind") == "tbf":
            return int(root["options"]["rate"]) * 8, {}  # tc -j reports bytes per second
    except (ValueError, KeyError, TypeError):
        return None, {}
    if root.get("kind") != "htb":
        return None, {}
    ceils = {}  # tc 6.1 prints htb classes as text even with -j
    for line in _sys.run(["tc", "-n", netns, "class", "show", "dev", "eth0"], check=False).stdout.splitlines():
        if (m := _HTB_CLASS.match(line)) is not None:
            try:
                ceils[int(m[1], 16)] = round(parse_bandwidth_gbit(m[2]) * 1e9)
            except ValueError:
                continue
    return ceils.get(1), {minor - HTB_PEER_CLASS: c for minor, c in ceils.items() if minor >= HTB_PEER_CLASS}
