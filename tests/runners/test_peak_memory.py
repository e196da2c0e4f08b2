"""Reading a server's peak memory: the process status it reports, and what a job added at its peak."""
from __future__ import annotations

import pytest

from runners._peak_memory import TaskPeak, parse_status

STATUS = b"Name:\tpython3\nVmPeak:\t 3006304 kB\nVmHWM:\t  700000 kB\nVmRSS:\t  650000 kB\nRssAnon:\t 307812 kB\n"


def test_status_gives_the_resident_set_and_its_high_water_mark_in_bytes():
    assert parse_status(STATUS) == (650000 * 1024, 700000 * 1024)


def test_a_status_without_them_is_refused():
    with pytest.raises(ValueError, match="VmRSS and VmHWM"):
        parse_status(b"Name:\tpython3\nVmPeak:\t 1 kB\n")


@pytest.mark.parametrize("start, peak, grown", [(600, 750, 150), (600, 590, 0)])
def test_what_a_job_added_is_its_peak_above_the_start(start, peak, grown):
    record = TaskPeak("10.0.0.1", start, peak, setup_peak=peak + 10).to_dict()
    assert record["grown"] == grown and record["setup_grown"] == max(peak + 10 - start, 0)


class _Cluster:
    """What a watch asks of a running cluster: whether a server exited, and a session (which may hang)."""

    def __init__(self, dead_after: int) -> None:
        self.polls, self.dead_after, self.sessions = 0, dead_after, 0

    def dead_servers(self) -> list:
        self.polls += 1
        return ["h1"] if self.polls > self.dead_after else []

    def session(self, graph, operation_timeout_s):
        import threading

        self.sessions += 1
        threading.Event().wait(30)  # a session that waits on a server that has gone: gRPC's retries
        raise AssertionError("unreachable in the test's time")


@pytest.mark.parametrize("dead_after", [0, 3], ids=["dead-before", "dies-while-waiting"])
def test_a_watch_never_waits_on_a_dead_server(dead_after):
    """The session would wait 30 s; the watch returns at the first poll that sees the server dead (a watch that
    waited would poll ~150 times), its calls None, and starts no session for a server already dead."""
    from runners._peak_memory import PeakWatch

    watch = PeakWatch.__new__(PeakWatch)
    watch.cluster, watch.timeout_s, watch.graph = _Cluster(dead_after), 60.0, None
    assert watch._run("a", "b") == [None, None]
    assert watch.cluster.polls == dead_after + 1
    if dead_after == 0:
        assert watch.cluster.sessions == 0
