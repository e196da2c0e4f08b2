"""Servers on remote nodes over SSH (paramiko), with host keys pinned by the spec's ``known_hosts``.

The server runs as the command of its own SSH channel (no ``nohup``/``setsid``): its stdout (the readiness
line) comes back on the channel, its stderr goes to a log file on the node, and it watches the channel's
stdin (``--watch-fd 0``), so when the driver's connection drops for any reason the server exits.
"""
from __future__ import annotations

import contextlib
import os
import shlex
import socket
import threading
import time

import paramiko

from runners.launch._base import SERVER_MODULE, Launcher, ServerProcess
from runners.launch._logs import REMOTE_DIR, REMOTE_PRUNE
from space.cluster import ClusterSpec, Node, SSHGroup
from space.errors import RunError, SpecError, UnreachableHost

_PID_PREFIX = "autotune-pid:"
_PROBE = "import socket; s = socket.socket(); s.bind(('', 0)); print(s.getsockname()[1])"


class _AcceptForThisConnection(paramiko.MissingHostKeyPolicy):
    """Like ``AutoAddPolicy`` but never writes the key to a known_hosts file (no silent trust on first use)."""

    def missing_host_key(self, client, hostname, key):
        client.get_host_keys().add(hostname, key.get_name(), key)


class Heartbeat:
    """Asks the node's sshd for a reply every ``interval_s`` (an SSH global request, which OpenSSH answers even when
    it does not know it) and keeps the time of the last one. A host that vanished without closing the connection
    (power lost, cable pulled, network partitioned) sends nothing: TCP would notice only after minutes of
    retransmissions, a lapsed heartbeat within seconds."""

    def __init__(self, transport: paramiko.Transport, interval_s: float = 2.0) -> None:
        self.transport, self.interval_s = transport, interval_s
        self.last_reply = time.monotonic()
        threading.Thread(target=self._beat, name="autotune-ssh-heartbeat", daemon=True).start()

    def _beat(self) -> None:
        while self.transport.is_active():
            try:
                self.transport.global_request("keepalive@openssh.com", wait=True)  # returns on any reply
            except Exception:  # noqa: BLE001 - a broken transport ends the loop through is_active()
                pass
            if self.transport.is_active():
                self.last_reply = time.monotonic()
            time.sleep(self.interval_s)

    def silent_for(self) -> float:
        """Seconds since the node last answered."""
        return time.monotonic() - self.last_reply


class SSHProcess(ServerProcess):
    """A server that is the command of one SSH channel."""

    def __init__(self, node: Node, task: int, pid: int, log_path: str, launcher: "SSHLauncher",
                 channel: paramiko.Channel, early_output: bytes) -> None:
        super().__init__(node, task, pid, log_path)
        self._launcher, self._channel, self._out = launcher, channel, early_output

    def poll(self) -> int | None:
        if self._channel.exit_status_ready():
            return self._channel.recv_exit_status()
        if self._channel.closed or not self._channel.get_transport().is_active():
            self.lost = "its SSH connection was lost"
            return -1  # connection lost: the server sees EOF on stdin and exits by itself
        silent = self._launcher.silent_for(self.node)
        if silent > self._launcher.heartbeat_timeout_s:
            self.lost = f"its node has not answered an SSH heartbeat for {silent:.0f} s"
            return -1
        return None

    def output_lines(self) -> list[str]:
        while self._channel.recv_ready():
            self._out += self._channel.recv(65536)
        return self._out.decode(errors="replace").splitlines()

    def log_tail(self, lines: int = 20) -> str:
        try:
            code, out, _ = self._launcher.run(self.node, f"tail -n {int(lines)} {shlex.quote(self.log_path)}",
                                              timeout_s=10)
        except Exception:  # noqa: BLE001 - only for error messages
            return ""
        return out if code == 0 else ""

    def signal(self, name: str) -> None:
        if name not in ("TERM", "KILL"):
            raise ValueError(f"`name` must be 'TERM' or 'KILL', but got {name!r}")
        if self.poll() is None:  # while its channel is open the PID cannot have been reused
            self._launcher.run(self.node, f"kill -{name} {self.pid}", timeout_s=10)

    def release(self) -> None:
        self._channel.close()

    def discard_log(self) -> None:
        transport = self._channel.get_transport()
        if transport is None or not transport.is_active():
            return  # the node dropped off; reconnecting could hold up the stop for connect_timeout_s
        with contextlib.suppress(Exception):  # a log left behind must not mask the stop
            self._launcher.run(self.node, f"rm -f {shlex.quote(self.log_path)}", timeout_s=5)


class SSHLauncher(Launcher):
    """Launches servers through paramiko on nodes that name an ``ssh`` group in the spec.

    Host keys are checked against the group's ``known_hosts`` file, else the spec's top-level one, else the
    user's ``~/.ssh/known_hosts``; an unknown key is refused unless ``accept_unknown_hosts`` (then it is
    accepted for this connection only, nothing is written). A changed key is always refused.

    Args:
        spec: the cluster spec holding the ``ssh`` groups.
        accept_unknown_hosts: accept hosts whose key is not in known_hosts (AutoAddPolicy).
        connect_timeout_s: TCP connect, banner and authentication timeout.
        remote_log_dir: directory on each node for the server logs (default: ``server-logs`` in the node's cache
            dir, ``$AUTOTUNE_CACHE_DIR`` or ``~/.cache/autotune`` as the node's shell and the group's
            ``shared_envs`` set it; private, logs older than a week pruned). They are removed on a clean stop
            (of a cluster started without ``log_dir``) and kept when a start fails, for its error message.
        default_python: interpreter for nodes without ``python`` in the spec.
        heartbeat_timeout_s: a node that answers no SSH heartbeat (:class:`Heartbeat`) for this long is lost: its
            server counts as dead.
    """

    def __init__(self, spec: ClusterSpec, *, accept_unknown_hosts: bool = False, connect_timeout_s: float = 10.0,
                 remote_log_dir: str | None = None, default_python: str = "python3",
                 heartbeat_timeout_s: float = 8.0) -> None:
        self.spec = spec
        self.accept_unknown_hosts = accept_unknown_hosts
        self.connect_timeout_s = connect_timeout_s
        self.remote_log_dir = remote_log_dir
        self.default_python = default_python
        self.heartbeat_timeout_s = heartbeat_timeout_s
        self._clients: dict[tuple[str, int, str], paramiko.SSHClient] = {}
        self._heartbeats: dict[tuple[str, int, str], Heartbeat] = {}
        self._log_dirs: dict[str, str] = {}

    # ---- connections ---------------------------------------------------------------------------------
    def _group(self, node: Node) -> SSHGroup:
        if node.ssh_config is None or node.ssh_config not in self.spec.ssh:
            raise SpecError(f"node {node.name!r} has no usable `ssh_config`", self.spec.source,
                            hint="name a group defined under `ssh:`")
        return self.spec.ssh[node.ssh_config]

    def client(self, node: Node) -> paramiko.SSHClient:
        """The (cached) connection to ``node``; raises UnreachableHost with the reason."""
        group = self._group(node)
        key = (node.address, group.port, group.username)
        client = self._clients.get(key)
        if client is not None and client.get_transport() is not None and client.get_transport().is_active():
            return client
        client = paramiko.SSHClient()
        known_hosts = group.known_hosts or self.spec.known_hosts
        where = f"node {node.name} ({group.username}@{node.address}:{group.port})"
        try:
            if known_hosts:
                client.load_host_keys(os.path.expanduser(known_hosts))
            else:
                client.load_system_host_keys()
        except OSError as e:
            raise SpecError(f"cannot read known_hosts {known_hosts!r}: {e.strerror}", self.spec.source) from None
        client.set_missing_host_key_policy(_AcceptForThisConnection() if self.accept_unknown_hosts
                                           else paramiko.RejectPolicy())
        pkey = self._load_key(group) if group.key_file else None
        try:
            client.connect(node.address, port=group.port, username=group.username, pkey=pkey,
                           timeout=self.connect_timeout_s, banner_timeout=self.connect_timeout_s,
                           auth_timeout=self.connect_timeout_s, allow_agent=pkey is None,
                           look_for_keys=pkey is None)
        except paramiko.BadHostKeyException as e:
            client.close()
            raise UnreachableHost(f"host key of {where} does not match known_hosts ({e.key.get_name()} "
                                  f"{e.key.fingerprint})", self.spec.source,
                                  hint=f"if the host was reinstalled, update {known_hosts or '~/.ssh/known_hosts'}"
                                  ) from None
        except paramiko.AuthenticationException as e:
            client.close()
            raise UnreachableHost(f"SSH authentication failed for {where}: {e}", self.spec.source,
                                  hint=f"check `ssh.{group.name}.username` and `key_file`") from None
        except paramiko.SSHException as e:
            client.close()
            if "not found in known_hosts" in str(e):
                raise UnreachableHost(f"unknown host key for {where}", self.spec.source,
                                      hint=f"add it to {known_hosts or '~/.ssh/known_hosts'} "
                                      f"(ssh-keyscan -p {group.port} {node.address}) or pass "
                                      "accept_unknown_hosts / --accept-unknown-hosts") from None
            raise UnreachableHost(f"SSH to {where} failed: {e}", self.spec.source) from None
        except (OSError, socket.timeout) as e:
            client.close()
            reason = "timed out" if isinstance(e, socket.timeout) else (e.strerror or str(e))
            raise UnreachableHost(f"cannot reach {where}: {reason}", self.spec.source,
                                  hint="check the node's address, the group's port and that sshd runs") from None
        self._clients[key] = client
        self._heartbeats[key] = Heartbeat(client.get_transport())
        return client

    def local_address(self, node: Node) -> str | None:
        """This machine's address as ``node`` sees it: the source of the SSH connection (and of the driver's)."""
        try:
            return self.client(node).get_transport().sock.getsockname()[0]
        except Exception:  # noqa: BLE001 - the firewall then admits the members only
            return None

    def silent_for(self, node: Node) -> float:
        """Seconds since ``node`` last answered a heartbeat (0 before a connection to it exists)."""
        group = self._group(node)
        beat = self._heartbeats.get((node.address, group.port, group.username))
        return beat.silent_for() if beat is not None else 0.0

    def _load_key(self, group: SSHGroup) -> paramiko.PKey:
        path = os.path.expanduser(group.key_file)
        try:
            return paramiko.PKey.from_path(path)
        except FileNotFoundError:
            raise SpecError(f"`ssh.{group.name}.key_file` not found: {path}", self.spec.source) from None
        except (paramiko.SSHException, ValueError, OSError) as e:
            raise SpecError(f"cannot load `ssh.{group.name}.key_file` {path}: {e}", self.spec.source,
                            hint="use an unencrypted RSA, ECDSA or Ed25519 private key") from None

    def run(self, node: Node, command: str, timeout_s: float = 30.0) -> tuple[int, str, str]:
        """Run a short command on ``node``; returns (exit status, stdout, stderr)."""
        channel = self.client(node).get_transport().open_session(timeout=self.connect_timeout_s)
        try:
            channel.settimeout(timeout_s)
            channel.exec_command(command)
            channel.shutdown_write()
            out, err = bytearray(), bytearray()
            deadline = time.monotonic() + timeout_s
            while not (channel.exit_status_ready() and not channel.recv_ready() and not channel.recv_stderr_ready()):
                if time.monotonic() > deadline:
                    raise RunError(f"command on node {node.name} did not finish in {timeout_s:g} s: {command[:80]}")
                if channel.recv_ready():
                    out += channel.recv(65536)
                elif channel.recv_stderr_ready():
                    err += channel.recv_stderr(65536)
                else:
                    time.sleep(0.01)
            return channel.recv_exit_status(), out.decode(errors="replace"), err.decode(errors="replace")
        finally:
            channel.close()

    # ---- Launcher ------------------------------------------------------------------------------------
    def _prologue(self, node: Node) -> list[str]:
        """Shell steps before the python command: cd workdir, venv activation, exported env vars."""
        group = self._group(node)
        steps = []
        if node.workdir:
            steps.append(f"cd {shlex.quote(node.workdir)}")
        venv = (group.python_venv or "").strip()
        if venv:  # a directory is activated; anything else is run as given ("source ~/venv/bin/activate")
            steps.append(f". {shlex.quote(venv.rstrip('/') + '/bin/activate')}" if " " not in venv else venv)
        steps += [f"export {k}={shlex.quote(v)}" for k, v in group.shared_envs.items()]
        return steps

    def _python(self, node: Node) -> str:
        return shlex.quote(node.python or self.default_python)

    def free_port(self, node: Node) -> int:
        command = " && ".join(self._prologue(node) + [f"{self._python(node)} -c {shlex.quote(_PROBE)}"])
        code, out, err = self.run(node, command)
        if code != 0 or not out.strip().isdigit():
            raise RunError(f"cannot probe a free port on node {node.name} ({node.address}): exit {code}: "
                           f"{(err or out).strip()[-300:]}")
        return int(out.strip())

    def log_dir(self, node: Node) -> str:
        """The node's folder for server logs: ``remote_log_dir``, else the node's own cache (as the group's
        environment sets it), made private and pruned."""
        if self.remote_log_dir:
            return self.remote_log_dir.rstrip("/")
        if node.address not in self._log_dirs:
            steps = [s for s in self._prologue(node) if s.startswith("export ")] + [
                "umask 077", f'd="{REMOTE_DIR}"', 'mkdir -p "$d"', 'cd "$d"', "pwd", f"{{ {REMOTE_PRUNE} || true; }}"]
            code, out, err = self.run(node, " && ".join(steps))
            if code != 0 or not out.strip().startswith("/"):
                raise RunError(f"cannot make the folder for server logs on node {node.name} ({REMOTE_DIR}): "
                               f"exit {code}: {(err or out).strip()[-300:]}")
            self._log_dirs[node.address] = out.strip().splitlines()[0]
        return self._log_dirs[node.address]

    def launch(self, node: Node, task: int, server_args: list[str], log_name: str) -> ServerProcess:
        log_path = f"{self.log_dir(node)}/{log_name}"
        argv = ["-u", "-m", SERVER_MODULE, *server_args, "--watch-fd", "0", "--watch-parent"]
        command = " && ".join(self._prologue(node) + [
            f"echo {_PID_PREFIX}$$", "umask 077",  # the log is the user's alone
            f"exec {self._python(node)} {shlex.join(argv)} 2> {shlex.quote(log_path)}"])
        channel = self.client(node).get_transport().open_session(timeout=self.connect_timeout_s)
        channel.exec_command(command)
        out, err = b"", b""
        deadline = time.monotonic() + self.connect_timeout_s
        while _PID_PREFIX.encode() not in out or not out.split(_PID_PREFIX.encode(), 1)[1].count(b"\n"):
            if channel.recv_ready():
                out += channel.recv(65536)
            elif channel.recv_stderr_ready():
                err += channel.recv_stderr(65536)
            elif channel.exit_status_ready() or time.monotonic() > deadline:
                status = channel.recv_exit_status() if channel.exit_status_ready() else "none (timed out)"
                channel.close()
                raise RunError(f"cannot start the server of node {node.name} ({node.address}) over SSH, exit "
                               f"status {status}: {(err or out).decode(errors='replace').strip()[-300:]}")
            else:
                time.sleep(0.01)
        head, rest = out.split(_PID_PREFIX.encode(), 1)
        pid_text, rest = rest.split(b"\n", 1)
        return SSHProcess(node, task, int(pid_text), log_path, self, channel, head + rest)

    def close(self) -> None:
        for client in self._clients.values():
            client.close()
        self._clients.clear()

    def describe(self, node: Node) -> str:
        group = self._group(node)
        return f"ssh {group.username}@{node.address}:{group.port}"
