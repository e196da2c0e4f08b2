"""The srun step's protocol reader and state, fed the lines srun prints (the real step runs in the Slurm testbed)."""
from __future__ import annotations

import io
import json
import sys
import threading

import pytest

from runners.launch import _slurm_task as task
from runners.launch._slurm_step import SrunStep, StepReader, StepState


def _reader() -> tuple[StepState, StepReader]:
    state = StepState()
    return state, StepReader(state)


def test_a_hello_names_the_rank_and_later_lines_land_on_its_node():
    state, reader = _reader()
    reader.on_out(f"0: {task.HELLO} node=n1 port=4242 pid=7 job=12 step=3")
    reader.on_out(f"1: {task.HELLO} node=n2 port=4343 pid=8 job=12 step=3")
    reader.on_out(f"1: {task.STARTED} pid=99")
    reader.on_out("0: hello from the server")
    reader.on_out("not a labelled line")
    assert state.hello("n1") == {"node": "n1", "port": "4242", "pid": "7", "job": "12", "step": "3"}
    assert state.hello("n2")["pid"] == "99"
    assert state.output_lines("n1") == ["hello from the server"]
    assert state.output_lines("n2") == []
    assert state.status("n1") is None


def test_an_exit_line_and_an_srun_task_end_give_each_node_its_status():
    state, reader = _reader()
    for rank, node in enumerate(("n1", "n2", "n3")):
        reader.on_out(f"{rank}: {task.HELLO} node={node} port=1 pid=1 job=5 step=0")
    reader.on_out(f"0: {task.EXITED} status=3")
    reader.on_err("srun: error: n2: task 1: Exited with exit code 7")
    reader.on_err("srun: error: n3: task 2: Killed")
    assert state.status("n1") == (3, "")
    assert state.status("n2") == (7, "srun says its task exited with exit code 7")
    assert state.status("n3") == (-9, "srun says its task killed")


@pytest.mark.parametrize("line", ["slurmstepd: error: *** STEP 5.0 ON n1 CANCELLED AT 2020-01-01T00:00:00 ***",
                                  "0: slurmstepd: error: *** STEP 5.0 ON n1 CANCELLED AT 2020-01-01T00:00:00 ***"],
                         ids=["srun's", "a task's"])
def test_a_cancelled_step_ends_every_node_with_slurms_words(line, tmp_path):
    state, reader = _reader()
    reader.on_out(f"0: {task.HELLO} node=n1 port=1 pid=1 job=5 step=0")
    reader.open_log("n1", str(tmp_path / "n1.log"))
    reader.on_err(line)
    reader.on_err("srun: error: n1: task 0: Terminated")
    code, why = state.status("n1")
    assert code == -15 and why.startswith("the Slurm step ended: *** STEP 5.0 ON n1 CANCELLED")


def test_a_tasks_stderr_waits_for_its_log_then_goes_there(tmp_path):
    state, reader = _reader()
    reader.on_out(f"0: {task.HELLO} node=n1 port=1 pid=1 job=5 step=0")
    reader.on_err("0: early words")
    log = tmp_path / "n1.log"
    reader.open_log("n1", str(log))
    reader.on_err("0: later words")
    assert log.read_text() == "early words\nlater words\n"
    assert oct(log.stat().st_mode & 0o777) == "0o600"


def test_waiting_for_a_reply_wakes_on_the_reply_or_on_the_end_of_the_output():
    state, reader = _reader()
    reader.on_out(f"0: {task.HELLO} node=n1 port=1 pid=1 job=5 step=0")
    reply = {"id": 4, "code": 0, "out": "ok", "err": ""}
    threading.Timer(0.05, reader.on_out, args=(f"0: {task.RAN} {json.dumps(reply)}",)).start()
    assert state.wait_for_reply(4, timeout_s=30) == reply

    def end() -> None:
        state.stream_ended()
        state.stream_ended()
    threading.Timer(0.05, end).start()
    assert state.wait_for_reply(5, timeout_s=30) is None
    assert state.output_complete()


def test_waiting_for_hellos_reports_the_nodes_that_did_not_come():
    state, reader = _reader()
    reader.on_out(f"0: {task.HELLO} node=n1 port=1 pid=1 job=5 step=0")
    reader.on_out(f"1: {task.HELLO} node=wrong port=1 pid=1 job=5 step=0")
    assert state.wait_for_hellos(["n1", "n2"], timeout_s=30) == (["n2"], ["n1", "wrong"])
    assert state.wait_for_hellos(["n1"], timeout_s=30) == ([], ["n1", "wrong"])


def test_read_marks_its_stream_ended_even_when_a_line_fails():
    state, reader = _reader()

    def boom(line: str) -> None:
        raise ValueError(line)
    with pytest.raises(ValueError):
        reader.read(io.BytesIO(b"x\n"), boom)
    reader.read(io.BytesIO(b""), reader.on_out)
    assert state.output_complete()


def test_an_srun_that_exits_at_once_ends_the_waits(tmp_path):
    """A real child process in srun's place, printing one hello and exiting: the waits end without a timeout."""
    script = tmp_path / "fake_srun.py"
    script.write_text(f"print('0: {task.HELLO} node=n1 port=1 pid=1 job=5 step=0', flush=True)\n"
                      "import sys; sys.stderr.write('srun: error: Unable to create step\\n')\n")
    step = SrunStep([sys.executable, str(script)], env={})
    try:
        missing, reported = step.state.wait_for_hellos(["n1", "n2"], timeout_s=60)
        assert (missing, reported) == (["n2"], ["n1"])
        assert step.ask("n1", "true", timeout_s=60) is None
        step.close(timeout_s=30)
        assert step.status("n2")[0] == -1 and "Unable to create step" in step.status("n2")[1]
    finally:
        step.close(timeout_s=5)
