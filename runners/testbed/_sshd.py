"""A key-only ``sshd`` per emulated host, plus the generated client key and ``known_hosts``."""
from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import time

from runners.testbed._errors import TestbedFailed

SSHD_READY_TIMEOUT_S = 15.0


def write_keypair(private_path: pathlib.Path, comment: str) -> str:
    """Write a new Ed25519 key in OpenSSH format (mode 0600) and ``.pub``; returns the public line."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                serialization.NoEncryption())
    public = key.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                           serialization.PublicFormat.OpenSSH).decode() + f" {comment}"
    fd = os.open(private_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(private)
    private_path.with_name(private_path.name + ".pub").write_text(public + "\n")
    return public


def config_text(address: str, port: int, host_key: pathlib.Path, authorized_keys: pathlib.Path,
                pid_file: pathlib.Path, user: str) -> str:
    """``sshd_config`` for one host: listens on its address only, public keys only, no PAM."""
    return "\n".join([
        "# written by `autotune testbed up`; removed by `autotune testbed down`",
        f"ListenAddress {address}",
        f"Port {port}",
        f"HostKey {host_key}",
        f"PidFile {pid_file}",
        f"AuthorizedKeysFile {authorized_keys}",
        f"AllowUsers {user}",
        "PermitRootLogin prohibit-password",
        "PubkeyAuthentication yes",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        # the key files live in the 0700 state directory; StrictModes would reject any parent such as /tmp
        "StrictModes no",
        "PrintMotd no",
        "MaxStartups 64:30:128",
        "MaxSessions 64",
        "Subsystem sftp internal-sftp",
        "",
    ])


def start(sshd: str, netns: str, config: pathlib.Path, log: pathlib.Path) -> subprocess.Popen:
    """Start ``sshd -D`` inside ``netns`` (``ip netns exec`` execs, so the PID is sshd's own)."""
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege separation directory
    with open(log, "ab") as out:
        return subprocess.Popen(["ip", "netns", "exec", netns, sshd, "-D", "-f", str(config), "-E", str(log)],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def wait_ready(proc: subprocess.Popen, address: str, port: int, log: pathlib.Path,
               timeout_s: float = SSHD_READY_TIMEOUT_S) -> None:
    """Wait until sshd answers with its banner on ``address:port`` (reached through the root link)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise TestbedFailed(f"sshd for {address} exited with {proc.returncode}: {_tail(log)}")
        try:
            with socket.create_connection((address, port), timeout=1.0) as s:
                if s.recv(64).startswith(b"SSH-"):
                    return
        except OSError:
            pass
        time.sleep(0.05)
    raise TestbedFailed(f"sshd for {address}:{port} not ready after {timeout_s:.0f} s: {_tail(log)}")


def _tail(log: pathlib.Path, lines: int = 3) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-lines:]) or "(empty log)"
    except OSError:
        return "(no log)"
