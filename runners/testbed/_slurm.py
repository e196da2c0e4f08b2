"""A real Slurm on the testbed: ``munged`` and ``slurmctld`` on the driver's side, one ``slurmd`` per host.

Each emulated host runs its own ``slurmd`` inside its namespace, with the host's name as ``NodeName``, its address
as ``NodeAddr`` and a spool folder of its own; ``slurmctld`` listens in the root namespace and names the driver link's
address as its own, so ``salloc``, ``sbatch`` and ``srun`` work from the driver and from every host. Everything lives
in ``<testbed dir>/slurm`` (``slurm.conf`` there: set ``SLURM_CONF`` to it), and every daemon is recorded in the
testbed's state before it starts, so ``down`` stops each by its PID. Jobs run as root with no accounting database
(``sacct`` needs ``slurmdbd``), no cgroup confinement and no CPU binding: the hosts share this machine's cores.
"""
from __future__ import annotations

import os
import pathlib
import secrets
import socket
import subprocess
import time

from runners.testbed import _sys
from runners.testbed._errors import MissingTool, TestbedFailed
from runners.testbed._state import State

SLURM_DIR = "slurm"
CONF = "slurm.conf"
SLURM_HINT = "apt-get install -y slurmd slurmctld munge slurm-client"
READY_TIMEOUT_S = 30.0
SLURMD_PORT = 6818  # each host has its own network namespace, so one port serves all


def conf_path(directory: str | os.PathLike) -> pathlib.Path:
    return pathlib.Path(directory) / SLURM_DIR / CONF


def conf_text(plan: dict, root: pathlib.Path, ctld_port: int, hostname: str) -> str:
    """``slurm.conf``: one node per host (its name, address, spool folder and CPUs), one partition of them all."""
    cpus = max(1, plan.get("threads") or 1)
    lines = [
        f"# written by `autotune testbed up --slurm` (prefix {plan['prefix']}); removed by `autotune testbed down`",
        f"ClusterName={plan['prefix']}",
        f"SlurmctldHost={hostname}({plan['root']['address']})",
        f"SlurmctldPort={ctld_port}", f"SlurmdPort={SLURMD_PORT}",
        "SlurmUser=root", "SlurmdUser=root",
        "AuthType=auth/munge", "CredType=cred/munge", f"AuthInfo=socket={root / 'munge' / 'munge.sock'}",
        f"StateSaveLocation={root / 'ctld'}", f"SlurmctldPidFile={root / 'ctld' / 'slurmctld.pid'}",
        f"SlurmctldLogFile={root / 'ctld' / 'slurmctld.log'}",
        f"SlurmdSpoolDir={root}/%n", f"SlurmdPidFile={root}/%n/slurmd.pid", f"SlurmdLogFile={root}/%n/slurmd.log",
        "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "JobAcctGatherType=jobacct_gather/none",
        "AccountingStorageType=accounting_storage/none", "JobCompType=jobcomp/none", "MpiDefault=none",
        "SchedulerType=sched/builtin", "SelectType=select/cons_tres", "SelectTypeParameters=CR_CPU",
        "ReturnToService=2", "KillWait=5", "InactiveLimit=0",
    ]
    for h in plan["hosts"]:
        lines.append(f"NodeName={h['name']} NodeAddr={h['address']} NodeHostname={hostname} CPUs={cpus} "
                     "State=UNKNOWN")
    lines.append(f"PartitionName={plan['prefix']} Nodes={','.join(h['name'] for h in plan['hosts'])} Default=YES "
                 "MaxTime=INFINITE State=UP")
    return "\n".join(lines) + "\n"


def cgroup_text() -> str:
    """slurmd loads a cgroup plugin even when nothing is confined; name the hierarchy this machine mounts."""
    v2 = pathlib.Path("/sys/fs/cgroup/cgroup.controllers").exists()
    return f"CgroupPlugin=cgroup/{'v2' if v2 else 'v1'}\nCgroupMountpoint=/sys/fs/cgroup\n"


def _free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return s.getsockname()[1]


def _start(state: State, role: str, host: str, argv: list[str], log: pathlib.Path, env: dict) -> subprocess.Popen:
    obj = state.record("process", role=role, host=host, pid=None, start_time=None)
    with open(log, "ab") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    obj.update(pid=proc.pid, start_time=_sys.start_time(proc.pid))
    state.save()
    return proc


def _wait(what: str, ready, procs: list[subprocess.Popen], log: pathlib.Path, timeout_s: float = READY_TIMEOUT_S):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for p in procs:
            if p.poll() is not None:
                raise TestbedFailed(f"{what} exited with status {p.returncode}: {_tail(log)}")
        if ready():
            return
        time.sleep(0.1)
    raise TestbedFailed(f"{what} not ready after {timeout_s:.0f} s: {_tail(log)}")


def _tail(log: pathlib.Path, lines: int = 3) -> str:
    try:
        text = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(x for x in text if "error" in x.lower())[-400:] or " | ".join(text[-lines:]) or "(empty log)"


def up(directory: str | os.PathLike) -> pathlib.Path:
    """Start munged, slurmctld and a slurmd per host of the testbed recorded in ``directory``; returns the path of
    its ``slurm.conf``. Each daemon is recorded in the state file before it starts."""
    tools = {t: _sys.which(t) for t in ("munged", "slurmctld", "slurmd", "sinfo")}
    missing = [t for t, p in tools.items() if not p]
    if missing:
        raise MissingTool(f"{', '.join(missing)} not found", hint=SLURM_HINT)
    state = State.load(directory)
    if state is None or not state.data.get("complete"):
        raise TestbedFailed(f"no complete testbed recorded in {directory}")
    plan = state.plan
    root = pathlib.Path(plan["dir"]) / SLURM_DIR
    for sub in ["munge", "ctld"] + [h["name"] for h in plan["hosts"]]:
        (root / sub).mkdir(mode=0o700, parents=True, exist_ok=True)
    key = root / "munge" / "munge.key"
    key.write_bytes(secrets.token_bytes(128))
    key.chmod(0o600)
    conf = root / CONF
    conf.write_text(conf_text(plan, root, _free_port(plan["root"]["address"]), socket.gethostname()))
    (root / "cgroup.conf").write_text(cgroup_text())
    env = dict(os.environ, SLURM_CONF=str(conf))
    m = root / "munge"
    sock = m / "munge.sock"
    munged = _start(state, "munged", "driver", [tools["munged"], "--foreground", "--force", f"--socket={sock}",
                                                f"--key-file={key}", f"--pid-file={m / 'munged.pid'}",
                                                f"--log-file={m / 'munged.log'}", f"--seed-file={m / 'seed'}"],
                    m / "out.log", env)
    _wait("munged", sock.exists, [munged], m / "munged.log")
    ctld = _start(state, "slurmctld", "driver", [tools["slurmctld"], "-D", "-i", "-f", str(conf)],
                  root / "ctld" / "out.log", env)
    _wait("slurmctld", lambda: _sinfo(tools["sinfo"], env) is not None, [ctld], root / "ctld" / "slurmctld.log")
    daemons = [_start(state, "slurmd", h["name"], ["ip", "netns", "exec", h["netns"], tools["slurmd"], "-D", "-f",
                                                   str(conf), "-N", h["name"]], root / h["name"] / "out.log", env)
               for h in plan["hosts"]]
    names = {h["name"] for h in plan["hosts"]}
    _wait("slurmd", lambda: (_sinfo(tools["sinfo"], env) or {}).keys() >= names and all(
        s.startswith("idle") for s in _sinfo(tools["sinfo"], env).values()), daemons + [ctld],
        root / plan["hosts"][0]["name"] / "out.log")
    return conf


def _sinfo(sinfo: str, env: dict) -> dict[str, str] | None:
    """Node name -> state as slurmctld reports it; None while it does not answer."""
    p = subprocess.run([sinfo, "-h", "-N", "-o", "%N %T"], capture_output=True, text=True, env=env, timeout=30)
    if p.returncode != 0:
        return None
    return dict(line.split(None, 1) for line in p.stdout.splitlines() if " " in line)
