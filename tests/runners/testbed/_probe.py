"""TCP throughput probe run inside a testbed namespace: ``recv`` or ``send``, bounded in time and bytes.

``python _probe.py recv ADDR PORT MAX_BYTES TIMEOUT_S`` prints JSON ``{"bytes", "seconds", "bits_per_s"}``
measured after the first MiB (so the handshake and slow start do not count).
``python _probe.py send ADDR PORT MAX_BYTES SECONDS`` sends until either bound is reached.
"""
import json
import os
import socket
import sys
import time

SKIP = 1 << 20
CHUNK = 1 << 16


def recv(addr: str, port: int, max_bytes: int, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    with socket.create_server((addr, port)) as srv:
        srv.settimeout(timeout_s)
        conn, _ = srv.accept()
        with conn:
            conn.settimeout(max(0.1, deadline - time.monotonic()))
            total, t_skip, t_last = 0, None, None
            while total < max_bytes and time.monotonic() < deadline:
                data = conn.recv(CHUNK)
                if not data:
                    break
                total += len(data)
                t_last = time.monotonic()
                if t_skip is None and total >= SKIP:
                    t_skip, skipped = t_last, total
    if t_skip is None or t_last <= t_skip:
        print(json.dumps({"bytes": total, "seconds": 0.0, "bits_per_s": 0.0}))
        return
    moved = total - skipped
    print(json.dumps({"bytes": moved, "seconds": t_last - t_skip, "bits_per_s": moved * 8 / (t_last - t_skip)}))


def send(addr: str, port: int, max_bytes: int, seconds: float) -> None:
    payload = os.urandom(CHUNK)
    deadline = time.monotonic() + seconds
    sent = 0
    with socket.create_connection((addr, port), timeout=10) as s:
        while sent < max_bytes and time.monotonic() < deadline:
            sent += s.send(payload)


if __name__ == "__main__":
    mode, addr, port, limit, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    (recv if mode == "recv" else send)(addr, port, limit, seconds)
