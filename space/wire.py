"""What crosses the network, as the backend sends it and the cost model's ledger counts it: both read this, so
that they agree on the form of what they send (the collectives' counts are TensorFlow's algorithms).

- **Row ids** of a sparse gradient or of an embedding's remote gather travel as int32 (4 bytes), int64 for a table
  of 2^31 rows or more, whatever the model's ids are.

- **Ranks.** TensorFlow ranks a group's devices by task name as a string (``task:10`` before ``task:2``), then by
  device; a ring goes from each rank to the next, the last to the first.
- **All-reduce** (``CollectiveReduceV2``, the ring algorithm, one subdivision): the tensor is cut into N chunks of
  ``chunk_elements`` (rounded up to the alignment of TensorFlow's buffers, so the last chunks may be short or
  empty). Rank r sends every chunk but chunk r + 1 while reducing and every chunk but chunk r + 2 while gathering:
  2 S less those two chunks, 2 (N - 1)/N S on average.
- **All-gather** (``CollectiveGatherV2``, a ring): every rank sends the N - 1 inputs but the next rank's.
- **All-to-all** (``CollectiveAllToAllV2``): every rank sends one N-th of its input straight to each other rank.
"""
from __future__ import annotations

import re

# EIGEN_MAX_ALIGN_BYTES of TensorFlow's builds: a ring chunk's bytes are rounded up past a multiple of it
ALIGN_BYTES = 64
_TASK_DEVICE = re.compile(r"^(?P<task>.*/task:\d+)/device:(?P<kind>[A-Za-z_]+):(?P<index>\d+)$")


def index_itemsize(rows: int) -> int:
    """Bytes of one row id sent for a table of ``rows`` rows."""
    return 4 if rows < 2**31 else 8


def rank_key(device: str) -> tuple[str, str, int]:
    """Where TensorFlow ranks ``device`` (``/job:j/replica:0/task:t/device:CPU:0``) in a collective group: by task
    name as a string, then by device type and index. A task's GPUs it orders by their links instead, alike on alike
    nodes: GPU j of one unit then holds the same chunk as GPU j of another."""
    m = _TASK_DEVICE.match(device)
    return (m["task"], m["kind"], int(m["index"])) if m else (device, "", 0)


def task_rank_key(task: int, kind: str = "CPU", index: int = 0) -> tuple[str, str, int]:
    """:func:`rank_key` of device ``kind:index`` of task number ``task``: the order depends on the task number
    written out, whatever the job's name."""
    return (f"task:{task}", kind, index)


def chunk_elements(elements: int, itemsize: int, chunks: int) -> int:
    """Elements per chunk of a ring all-reduce of ``elements`` cut into ``chunks``: a ceiling division, its bytes
    then rounded up past the next multiple of :data:`ALIGN_BYTES` (a whole multiple moves on by one more)."""
    base = -(-elements // chunks)
    if itemsize >= ALIGN_BYTES:
        return base
    nbytes = base * itemsize
    pad = ALIGN_BYTES - nbytes if nbytes < ALIGN_BYTES else ALIGN_BYTES - nbytes % ALIGN_BYTES
    return base + pad // itemsize


def ring_reduce_sent(elements: int, itemsize: int, n: int) -> list[int]:
    """Bytes rank r sends to rank r + 1 in a ring all-reduce of ``elements`` over ``n`` ranks, for each r."""
    if n < 2 or elements <= 0:
        return [0] * max(n, 0)
    c = chunk_elements(elements, itemsize, n)
    size = [max(0, min(c, elements - i * c)) for i in range(n)]
    return [(2 * elements - size[(r + 1) % n] - size[(r + 2) % n]) * itemsize for r in range(n)]


def sends(kind: str, nodes: list[str], elements: int, itemsize: int) -> dict[tuple[str, str], float]:
    """Bytes from node a to node b of one collective whose members, in rank order, are on ``nodes``; ``elements``
    of ``itemsize`` bytes are each member's input. ``kind``: ``reduce``, ``gather`` or ``all_to_all``."""
    n = len(nodes)
    out: dict[tuple[str, str], float] = {}

    def add(a: str, b: str, nbytes: float) -> None:
        if a != b and nbytes:
            out[(a, b)] = out.get((a, b), 0.0) + nbytes

    if n < 2:
        return out
    if kind == "reduce":
        for r, nbytes in enumerate(ring_reduce_sent(elements, itemsize, n)):
            add(nodes[r], nodes[(r + 1) % n], nbytes)
    elif kind == "gather":
        for r in range(n):
            add(nodes[r], nodes[(r + 1) % n], (n - 1) * elements * itemsize)
    elif kind == "all_to_all":
        for r in range(n):
            for j in range(n):
                add(nodes[r], nodes[j], elements // n * itemsize)
    else:
        raise ValueError(f"`kind` must be one of reduce, gather, all_to_all, but got {kind!r}.")
    return out
