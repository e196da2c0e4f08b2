"""The task of a Slurm step on each node: ``srun ... python -m runners.launch._slurm_task``.

It tells the driver its node and a free port, then follows JSON lines the driver writes to srun's stdin (srun
gives every task the same lines; each names its node): ``run`` a short shell command (the firewall's), ``start``
the node's TensorFlow server, ``signal`` it. It reports on stdout (srun labels each line with the task's rank):

- ``autotune-slurm-task node=NAME port=PORT pid=PID job=JOB step=STEP`` first;
- ``autotune-slurm-run {"id": ..., "code": ..., "out": ..., "err": ...}`` after each command;
- ``autotune-slurm-server pid=PID`` once the server runs, ``autotune-slurm-exit status=S`` when it ended.

The server's stdout and stderr are this task's (srun carries them to the driver). The server watches a pipe only
this task holds, and this task ends its server when stdin ends: the driver, its srun, or the job went away.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

from runners.launch._base import SERVER_MODULE

HELLO = "autotune-slurm-task"
RAN = "autotune-slurm-run"
STARTED = "autotune-slurm-server"
EXITED = "autotune-slurm-exit"
_LOCK = threading.Lock()


def say(line: str) -> None:
    with _LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))  # TF's gRPC server listens on all interfaces, so probe all of them
        return s.getsockname()[1]


def run_command(msg: dict) -> None:
    try:
        p = subprocess.run(["/bin/sh", "-c", msg["cmd"]], capture_output=True, text=True,
                           timeout=float(msg.get("timeout_s", 30)), stdin=subprocess.DEVNULL)
        reply = {"code": p.returncode, "out": p.stdout, "err": p.stderr}
    except (OSError, subprocess.TimeoutExpired) as e:
        reply = {"code": 127, "out": "", "err": str(e)}
    say(f"{RAN} {json.dumps({'id': msg['id'], **reply})}")


def start_server(msg: dict) -> subprocess.Popen:
    read_end, write_end = os.pipe()  # the server's lifeline: EOF when this task ends, however it ends
    argv = [msg["python"], "-u", "-m", SERVER_MODULE, *msg["argv"], "--watch-fd", str(read_end), "--watch-parent"]
    try:
        child = subprocess.Popen(argv, stdin=subprocess.DEVNULL, pass_fds=(read_end,), cwd=msg.get("cwd"))
    except OSError as e:
        print(f"error: cannot start the server ({' '.join(argv[:4])} ...): {e}", file=sys.stderr, flush=True)
        say(f"{EXITED} status=127")
        raise SystemExit(0) from None
    finally:
        os.close(read_end)
    say(f"{STARTED} pid={child.pid}")

    def report() -> None:
        code = child.wait()
        say(f"{EXITED} status={code}")

    threading.Thread(target=report, name="autotune-slurm-wait", daemon=True).start()
    child.lifeline = write_end  # type: ignore[attr-defined] - held open until this task exits
    return child


def stop(child: subprocess.Popen | None, grace_s: float = 5.0) -> None:
    if child is None or child.poll() is not None:
        return
    child.terminate()
    try:
        child.wait(grace_s)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def main() -> int:
    node = os.environ.get("SLURMD_NODENAME") or socket.gethostname()
    say(f"{HELLO} node={node} port={free_port()} pid={os.getpid()} job={os.environ.get('SLURM_JOB_ID', '')} "
        f"step={os.environ.get('SLURM_STEP_ID', '')}")
    child = None
    for line in iter(sys.stdin.readline, ""):
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        kind, body = next(iter(msg.items()), (None, None))
        if not isinstance(body, dict) or body.get("node") != node:
            continue
        if kind == "run":
            run_command(body)
        elif kind == "start" and child is None:
            child = start_server(body)
        elif kind == "signal" and child is not None and child.poll() is None:
            child.send_signal(getattr(signal, f"SIG{body['name']}"))
    stop(child)
    return 0


if __name__ == "__main__":
    sys.exit(main())
