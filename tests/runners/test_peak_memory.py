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
