"""``autotune testbed up|shape|status|down``: an emulated multi-host cluster on this machine (needs root).

``up`` makes N network namespaces with addresses from 198.18.0.0/15, shaped veth links into a bridge and a
key-only sshd per host, and writes ``<dir>/cluster.yml`` for ``--spec``; with ``--slurm``, also a real Slurm (a
slurmd per host); ``shape`` changes a host's or a link's rate while it runs (a degraded link, for
``train --adapt``); ``down`` removes what ``up`` made.
"""
from __future__ import annotations

import argparse
import json
import sys

import runners.testbed as tb
from runners.testbed import DEFAULT_PREFIX, DEFAULT_SUBNET, check_prefix, default_dir, format_rate


def register(sub) -> None:
    p = sub.add_parser("testbed", help="emulated multi-host cluster on this machine (root)", description=__doc__)
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)

    def where(q: argparse.ArgumentParser) -> None:
        q.add_argument("--prefix", default=DEFAULT_PREFIX, metavar="NAME",
                       help=f"names of namespaces and links (default {DEFAULT_PREFIX})")
        q.add_argument("--dir", default=None, metavar="DIR",
                       help="state directory (default /tmp/autotune-testbed-<prefix>)")

    u = verbs.add_parser("up", help="create the hosts, links and sshds; write <dir>/cluster.yml")
    u.add_argument("--hosts", type=int, required=True, metavar="N", help="number of emulated hosts")
    u.add_argument("--bandwidth", required=True, metavar="RATE", help="each host's link rate, e.g. 1gbit, 200mbit")
    u.add_argument("--per-host", action="append", default=[], metavar="I=RATE",
                   help="rate of host I (0 = chief), e.g. 2=100mbit; repeatable")
    u.add_argument("--link", action="append", default=[], metavar="I-J=RATE",
                   help="a slow link: hosts I and J exchange at RATE both ways, at most the slower host's rate, "
                        "e.g. 0-2=50mbit; repeatable")
    u.add_argument("--threads", type=int, default=None, metavar="N",
                   help="intra-op threads of each host's TensorFlow server (default: this machine's cores / hosts, "
                        "at least 1; 0 = TensorFlow's default of one per core)")
    u.add_argument("--subnet", default=DEFAULT_SUBNET, metavar="CIDR",
                   help=f"inside 198.18.0.0/15 (default {DEFAULT_SUBNET})")
    u.add_argument("--slurm", action="store_true",
                   help="also run Slurm: munged and slurmctld here, a slurmd per host (apt-get install slurmd "
                        "slurmctld munge slurm-client)")
    where(u)
    u.set_defaults(func=run_up)
    s = verbs.add_parser("status", help="hosts, addresses, rates, whether each sshd is alive (exit 1 if not all up)")
    where(s)
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=run_status)
    c = verbs.add_parser("shape", help="change a host's or a link's rate while the testbed runs")
    c.add_argument("--per-host", action="append", default=[], metavar="I=RATE",
                   help="the new rate of host I, e.g. 2=100mbit; repeatable")
    c.add_argument("--link", action="append", default=[], metavar="I-J=RATE",
                   help="the new rate between hosts I and J, e.g. 0-2=50mbit (the slower host's rate: no longer "
                        "slow); repeatable")
    where(c)
    c.set_defaults(func=run_shape)
    d = verbs.add_parser("down", help="remove everything the state file records (idempotent)")
    where(d)
    d.set_defaults(func=run_down)


def _dir(args) -> str:
    return args.dir or default_dir(check_prefix(args.prefix))


def run_up(args) -> int:
    plan = tb.make_plan(args.hosts, args.bandwidth, args.per_host, args.link, prefix=args.prefix,
                        subnet=args.subnet, directory=args.dir, threads=args.threads)
    tb.up(plan)
    conf = None
    try:
        conf = tb.slurm_up(plan["dir"]) if args.slurm else None
    except BaseException:
        tb.down(plan["dir"])  # all or nothing, as `up` is
        raise
    _print_status(tb.status(plan["dir"]))
    print(f"\nuse it:  autotune <command> --spec {plan['dir']}/cluster.yml ...")
    if conf is not None:
        print(f"Slurm:   export SLURM_CONF={conf}; salloc -N {args.hosts} autotune <command> --spec slurm ...")
    print(f"remove:  autotune testbed down --dir {plan['dir']}")
    return 0


def run_shape(args) -> int:
    if not (args.per_host or args.link):
        raise tb.TestbedRefused("`testbed shape` needs --per-host I=RATE or --link I-J=RATE",
                                hint="e.g. autotune testbed shape --link 0-2=50mbit")
    for line in tb.shape(_dir(args), args.per_host, args.link):
        print(line)
    return 0


def run_status(args) -> int:
    info = tb.status(_dir(args))
    if args.json:
        json.dump(info, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        _print_status(info)
    healthy = info["complete"] and info["root_link_up"] and all(h["netns_up"] and h["sshd_alive"]
                                                                for h in info["hosts"])
    return 0 if healthy else 1


def run_down(args) -> int:
    directory = _dir(args)
    removed = tb.down(directory)
    print(f"removed {len(removed)} object(s) recorded in {directory}" if removed
          else f"nothing to remove: no testbed recorded in {directory}")
    return 0


def _print_status(info: dict) -> None:
    state = "up" if info["complete"] else "INCOMPLETE (run `autotune testbed down`)"
    print(f"testbed {info['prefix']}: {state}; state in {info['dir']}; spec {info['cluster']}")
    print(f"driver link {info['root_link']} {info['root_address']} ({'up' if info['root_link_up'] else 'MISSING'})")
    print(f"{'host':<6}{'netns':<14}{'address':<16}{'rate':<10}{'tc rate':<10}{'sshd':<16}{'procs':>5}")
    for h in info["hosts"]:
        sshd = f"{h['sshd_pid'] or '-'} {'alive' if h['sshd_alive'] else 'DEAD'}"
        tc = format_rate(h["tc_rate_bit"]) if h["tc_rate_bit"] else "-"
        ns = h["netns"] if h["netns_up"] else f"{h['netns']}!"
        print(f"{h['name']:<6}{ns:<14}{h['address']:<16}{format_rate(h['rate_bit']):<10}{tc:<10}{sshd:<16}"
              f"{h['processes']:>5}")
    for link in info.get("links", []):
        a, b = link["hosts"]
        tc = [format_rate(r) if r else "-" for r in link["tc_rate_bit"]]
        print(f"link {a}-{b}: {format_rate(link['rate_bit'])} both ways (tc: {tc[0]} {a}->{b}, {tc[1]} {b}->{a})")
