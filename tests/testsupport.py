"""Small helpers shared by the tests (imported as ``testsupport``): processes, network namespaces, checkpoints."""
from __future__ import annotations

import os
import subprocess
import time


def alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie (a reparented zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pids, timeout_s: float) -> list[int]:
    """Wait up to ``timeout_s`` for every pid to be gone; return the ones still alive."""
    end = time.monotonic() + timeout_s
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < end:
        time.sleep(0.1)
    return left


def netns_forbidden() -> str | None:
    """Why real network namespaces cannot be used on this machine, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces, veth, tc)"
    from runners.testbed._sys import which

    missing = [t for t in ("ip", "tc", "sshd") if not which(t)]
    if missing:
        return f"{', '.join(missing)} missing; apt-get install -y iproute2 openssh-server"
    probe = f"atprobe{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=10)
    if made.returncode != 0:
        return f"`ip netns add` is not permitted here: {made.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=10)
    return None


def servers_of(parent: int) -> dict[int, list[int]]:
    """The ``runners.server_main`` children of ``parent``: PID -> the ports of their cluster (from its command line)."""
    import json
    import pathlib

    out = {}
    for children in pathlib.Path(f"/proc/{parent}/task").glob("*/children"):
        try:
            pids = children.read_text().split()
        except OSError:
            continue
        for pid in pids:
            try:
                argv = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
            except OSError:
                continue
            if "runners.server_main" in argv:
                cluster = json.loads(argv[argv.index("--cluster") + 1])
                out[int(pid)] = [int(a.rsplit(":", 1)[1]) for job in cluster.values() for a in job]
    return out


def listening(port: int) -> bool:
    """Whether anything accepts TCP connections on ``port`` of this machine."""
    import socket

    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


class Leftovers:
    """What a fault may leave behind, taken before it and compared after: processes, listening ports, nftables
    tables of the driver processes watched, network namespaces named with ``netns_prefix``, and files in the
    temporary directory (the tests point every process's ``TMPDIR`` there: anything left in /tmp lands in it)."""

    def __init__(self, netns_prefix: str | None = None) -> None:
        self.netns_prefix = netns_prefix
        self.drivers = {os.getpid()}
        self.pids: set[int] = set()
        self.ports: set[int] = set()
        self.before = self._state()

    def watch(self, parent: int) -> dict[int, list[int]]:
        """Note ``parent`` as a driver and the servers it runs now (call it while they run); returns them."""
        self.drivers.add(parent)
        found = servers_of(parent)
        self.pids.update(found)
        self.ports.update(p for ports in found.values() for p in ports)
        return found

    def _state(self) -> dict[str, set[str]]:
        import shutil
        import tempfile

        def lines(argv):
            if not shutil.which(argv[0], path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin") or os.geteuid() != 0:
                return set()
            return set(subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.splitlines())

        tables = {t.split()[-1] for t in lines(["nft", "list", "tables"])}
        return {"nft table": {t for t in tables if any(t.startswith(f"autotune_{d}_") for d in self.drivers)},
                "network namespace": {n.split()[0] for n in lines(["ip", "netns", "list"])
                                      if self.netns_prefix and n.startswith(self.netns_prefix)},
                # AutoGraph's generated modules are TensorFlow's, removed when the interpreter exits
                "temporary file": {e for e in os.listdir(tempfile.gettempdir())
                                   if not e.startswith("__autograph_generated_file")}}

    def left(self, timeout_s: float = 10.0) -> list[str]:
        """What is left that was not there before, as readable lines ([] when nothing)."""
        out = [f"process {p}" for p in wait_gone(sorted(self.pids), timeout_s)]
        out += [f"port {p} still listening" for p in sorted(self.ports) if listening(p)]
        for what, items in self._state().items():
            out += [f"{what} {item}" for item in sorted(items - self.before.get(what, set()))]
        return out


def connects_as(user, address: str, port: int, netns: str | None = None) -> bool:
    """Whether a TCP connection to ``address:port`` by ``user`` (a ``pwd`` entry; from network namespace ``netns``)
    is accepted: bash's /dev/tcp, run with ``setpriv`` as that user and group (and none of root's groups)."""
    argv = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups", "--", "bash", "-c",
            f"exec 3<>/dev/tcp/{address}/{port}"]
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    try:
        return subprocess.run(argv, capture_output=True, timeout=10).returncode == 0
    except subprocess.TimeoutExpired:  # dropped rather than refused
        return False


def rel_err(a, b) -> float:
    """The largest difference of ``a`` from ``b`` over ``b``'s largest magnitude."""
    import numpy as np

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12))


def worst_checkpoint_error(ckpt, traced, want: dict, reference) -> tuple[str, float]:
    """The newest checkpoint in ``ckpt`` against single-device training: the variable or optimizer slot furthest
    from it and its relative error. ``want``: the reference's variables; ``reference``: the Keras optimizer that
    trained it (its slots)."""
    import json

    import numpy as np

    from runners.train import keras_optimizer, load_checkpoint

    index = json.loads((ckpt / "train.json").read_text())
    saved = np.load(ckpt / index["variables"])
    errors = {n: rel_err(saved[f"trainable/{n}"], want[n]) for n in want}
    restored = keras_optimizer(load_checkpoint(ckpt), traced)
    errors.update({f"slot {v.name}": rel_err(v.numpy(), w.numpy())
                   for v, w in zip(restored.variables, reference.variables)})
    worst = max(errors, key=errors.get)
    return worst, errors[worst]
