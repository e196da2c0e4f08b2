"""Lend one running cluster to every command of this process that would start the same one.

A notebook or a test module runs many commands (build, compare, train, search) on one spec; each would start its own
servers, which costs seconds of TensorFlow start-up per server. While a cluster is lent (:func:`lend`),
:func:`runners.cluster.start_cluster` with an equal spec and equal server settings returns a :class:`Borrowed` handle
instead: jobs on it take fresh collective instance keys from the lender, as a search's trials do, and closing the
handle clears the servers' default resource container instead of stopping them (a job destroys the resources of
its own container when it closes).
"""
from __future__ import annotations

import contextlib
import json
import threading
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:  # only for annotations: runners.cluster imports this module
    from runners.cluster import RunningCluster
    from space.cluster import ClusterSpec

_LOCK = threading.Lock()
_LENT: dict[str, "RunningCluster"] = {}


def _key(spec: "ClusterSpec", settings: dict[str, Any]) -> str:
    return json.dumps([spec.to_dict(), settings], sort_keys=True, default=str)


class Borrowed:
    """A lent cluster as its borrower sees it: every attribute is the lender's, but closing it only clears what the
    borrower's work left in the servers' default resource container."""

    def __init__(self, cluster: "RunningCluster") -> None:
        self._cluster = cluster
        self._closed = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cluster, name)

    @property
    def closed(self) -> bool:
        return self._closed or self._cluster.closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._cluster.closed:
            return
        if self._cluster.dead_servers() or self._cluster.unresponsive_tasks(timeout_s=5.0):
            _withdraw(self._cluster)  # a wedged or lost server: later starts get servers of their own
            return
        self._cluster.reset_resources()

    def __enter__(self) -> "Borrowed":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Borrowed({self._cluster!r})"


@contextlib.contextmanager
def lend(cluster: "RunningCluster", **settings: Any) -> Iterator["RunningCluster"]:
    """While inside, :func:`runners.cluster.start_cluster` of ``cluster.spec`` with these ``settings`` (its keyword
    arguments that shape the servers: ``intra_op_threads``, ``inter_op_threads``, ``instance_keys_per_trial``;
    defaults where not given) borrows ``cluster`` instead of starting servers, until a borrower leaves a server
    dead or wedged. The caller still owns and closes it."""
    key = _key(cluster.spec, _settings(**settings))
    with _LOCK:
        if key in _LENT:
            raise RuntimeError(f"a cluster of this spec is already lent: {_LENT[key]!r}")
        _LENT[key] = cluster
    try:
        yield cluster
    finally:
        with _LOCK:
            _LENT.pop(key, None)


def _settings(intra_op_threads: int = 0, inter_op_threads: int = 0, instance_keys_per_trial: int = 1 << 20
              ) -> dict[str, Any]:
    return {"intra_op_threads": intra_op_threads, "inter_op_threads": inter_op_threads,
            "instance_keys_per_trial": instance_keys_per_trial}


def _withdraw(cluster: "RunningCluster") -> None:
    with _LOCK:
        for key in [k for k, c in _LENT.items() if c is cluster]:
            del _LENT[key]


def borrow(spec: "ClusterSpec", **settings: Any) -> Borrowed | None:
    """A handle on the cluster lent for ``spec`` and ``settings``, if one is lent and all its servers still run."""
    with _LOCK:
        cluster = _LENT.get(_key(spec, _settings(**settings)))
    if cluster is None or cluster.closed or cluster.dead_servers():
        return None
    return Borrowed(cluster)
