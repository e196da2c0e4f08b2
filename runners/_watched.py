"""One ``Session.run`` on a running cluster, cut after a time limit and watched: a server that dies ends the call
at once, and every failure becomes a :class:`RunError` that names the node."""
from __future__ import annotations

import queue
import re
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from space.errors import RunError

if TYPE_CHECKING:
    from runners.cluster import RunningCluster


def run_with_timeout(session, fetches, timeout_s: float, *, cluster: RunningCluster | None = None,
                     feed_dict=None, options=None, run_metadata=None, probe_timeout_s: float = 5.0,
                     watchdog: bool = False,
                     grace_s: float = 5.0, poll_s: float = 0.2, build_s: float = 0.0,
                     on_wait: Callable[[float], None] | None = None, wait_every_s: float = 15.0):
    """``session.run(fetches)`` cut after ``timeout_s``; failures become :class:`RunError` naming a node.

    ``RunOptions.timeout_in_ms`` cancels a step that hangs on the servers. With ``cluster`` given, the call runs
    in a helper thread (one per calling thread, reused: a hand-off costs ~20 us) while this one watches the
    servers every ``poll_s``: a server that dies ends the call at once, naming the node, its exit status and
    the last lines of its log (kept for that message), where TensorFlow's own retries would take minutes (a
    killed chief blocked a step for over 200 s). The call is also given up after ``timeout_s + grace_s``
    whatever TensorFlow does (creating a session blocks forever while a server is stopped). ``watchdog=True``
    watches the time limit without a cluster. A call given up stays blocked in its daemon thread, so its
    session must not be closed; when the time limit gave it up, the cluster is closed and the run should end.
    On a timeout or a lost/aborted peer, the cluster (if given) is checked: a dead server is named with its
    log tail; otherwise servers that do not answer a trivial op within ``probe_timeout_s`` are named; if all
    answer, the step itself was stuck (e.g. a collective whose peers never joined). Other TF errors (bad
    graphs) propagate unchanged. ``run_metadata`` receives what the call traced (``options.trace_level``).

    ``build_s``: the call is the first of its kind on these servers, which build its executors before any step runs
    (outside TensorFlow's step timeout): seconds for a small step, minutes for many copies of a large one on a
    starved machine. The watchdog then allows ``build_s`` more, and ``on_wait(seconds so far)`` is told every
    ``wait_every_s`` that the call is still building rather than stuck.
    """
    import tensorflow as tf

    opts = tf.compat.v1.RunOptions()
    if options is not None:
        opts.CopyFrom(options)
    opts.timeout_in_ms = max(1, int(timeout_s * 1000))
    if cluster is not None:
        cluster.check_alive()
    try:
        if cluster is None and not watchdog:
            return session.run(fetches, feed_dict=feed_dict, options=opts, run_metadata=run_metadata)
        return _run_watched(session, fetches, feed_dict, opts, timeout_s + grace_s + build_s, cluster, poll_s,
                            on_wait if build_s > 0 else None, wait_every_s, run_metadata)
    except tf.errors.DeadlineExceededError as e:
        raise RunError(_diagnose(cluster, f"step did not finish within {timeout_s:g} s", e, probe_timeout_s)) from e
    except (tf.errors.UnavailableError, tf.errors.AbortedError, tf.errors.CancelledError) as e:
        raise RunError(_diagnose(cluster, f"step failed ({type(e).__name__})", e, probe_timeout_s)) from e
    except _ServerDied:
        raise RunError(_diagnose(cluster, "step failed", None, probe_timeout_s)) from None
    except _Abandoned:
        within = f"{timeout_s + grace_s + build_s:g} s" + (f", {build_s:g} s of them to build its executors"
                                                           if build_s > 0 else "")
        message = _diagnose(cluster, f"step did not return within {within} (blocked outside the step, e.g. "
                                     "creating a session while a server is down)", None, probe_timeout_s)
        if cluster is not None:
            cluster.close()
            message += "; the cluster was stopped"
        raise RunError(message) from None


class _Abandoned(Exception):
    """The watchdog gave up on a call that is still blocked in its thread."""


class _ServerDied(Exception):
    """A server of the cluster exited while a call was running."""


class _StepThread:
    """A daemon thread that runs one call at a time for one calling thread. Not a ``ThreadPoolExecutor``: the
    interpreter joins those at exit, and a call given up on may never return."""

    def __init__(self) -> None:
        self._calls: "queue.SimpleQueue" = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="autotune-step", daemon=True).start()

    def _serve(self) -> None:
        while True:
            fn, box, done = self._calls.get()
            try:
                box["value"] = fn()
            except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
                box["error"] = e
            done.set()
            del fn, box, done  # waiting for the next call, hold nothing of this one (its session above all)

    def submit(self, fn) -> tuple[dict, threading.Event]:
        box: dict[str, Any] = {}
        done = threading.Event()
        self._calls.put((fn, box, done))
        return box, done


_STEP_THREAD = threading.local()  # each calling thread's helper (towers of an asynchronous job call at once)


def _run_watched(session, fetches, feed_dict, opts, limit_s: float, cluster: RunningCluster | None,
                 poll_s: float, on_wait: Callable[[float], None] | None = None, wait_every_s: float = 15.0,
                 run_metadata=None):
    helper = getattr(_STEP_THREAD, "helper", None)
    if helper is None:
        helper = _STEP_THREAD.helper = _StepThread()
    box, done = helper.submit(lambda: session.run(fetches, feed_dict=feed_dict, options=opts,
                                                  run_metadata=run_metadata))
    start = time.monotonic()
    end, told = start + limit_s, start
    while not done.wait(poll_s):
        died = cluster is not None and bool(cluster.dead_servers())
        now = time.monotonic()
        if on_wait is not None and now - told >= wait_every_s:
            told = now
            on_wait(now - start)
        if died or now > end:
            _STEP_THREAD.helper = None  # its thread stays blocked in the call; the next call gets a new one
            raise _ServerDied() if died else _Abandoned()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _diagnose(cluster: RunningCluster | None, what: str, error: Exception | None, probe_timeout_s: float) -> str:
    lines = [line for line in str(error or "").strip().splitlines() if line.strip() and "Graph execution" not in line]
    first = lines[0][:300] if lines else type(error).__name__
    if cluster is None:
        return f"{what}: {first}"
    end = time.monotonic() + 2.0  # a server killed mid-step may take a moment to be reaped
    while not (dead := cluster.dead_servers()) and time.monotonic() < end:
        time.sleep(0.1)
    if dead:
        return f"{what}: {cluster.death_message(dead[0])}"
    stuck = cluster.unresponsive_tasks(probe_timeout_s)
    if stuck:
        names = ", ".join(f"node {cluster.node_of_task(k).name} ({cluster.addresses[k]}, task {k})" for k in stuck)
        return f"{what}; not responding: {names}" + (f"; TF said: {first}" if error else "")
    named = sorted({int(t) for t in re.findall(r"/job:\w+/replica:\d+/task:(\d+)", str(error))})
    hint = "".join(f"; mentioned: node {cluster.node_of_task(k).name} (task {k})" for k in named
                   if k < len(cluster.servers))
    stuck = ("so the step itself is stuck (e.g. a collective or queue waiting for a peer that never joins)"
             if error is None or "did not finish" in what else "so the failure is TensorFlow's")
    return f"{what}; every server is alive and responding, {stuck}{hint}" + (f"; TF said: {first}" if error else "")
