"""The fidelity harness's measurement journal: every run or comparison appended as it ends (``--resume``)."""
from __future__ import annotations

import json
import pathlib

from space.errors import BadInput


class MeasurementJournal:
    """Every measurement as it is taken, one JSON line per run or comparison in ``path``, so that a run that
    crashes or is stopped keeps what it measured and ``--resume`` goes on from there.

    The first line says what the measurements are of (the strategies' content keys, steps, passes, grouping,
    seed); a journal of other measurements is refused. Each further line is ``{"key": [...], "steps": [[...]]}``
    (each member's step times) or ``{"key": [...], "error": "..."}``. Keys are the position in the run's plan,
    which is deterministic: the same picks and seed replay the same comparisons.
    """

    def __init__(self, path: pathlib.Path | None, header: dict, *, resume: bool = False) -> None:
        self.path, self.header, self.entries = (pathlib.Path(path) if path else None), header, {}
        self.replayed = 0  # runs answered from the journal
        if self.path is None:
            return
        lines = self.path.read_text().splitlines() if self.path.is_file() else []
        if lines and not resume:
            raise BadInput(f"{self.path} holds {len(lines) - 1} measurement(s) of an earlier run",
                           hint="pass --resume to go on with them, or another -o DIR")
        if lines:
            try:
                found = json.loads(lines[0])
            except json.JSONDecodeError:
                raise BadInput(f"{self.path}:1 is not a measurement journal") from None
            differs = [k for k in header if found.get(k) != header[k]]
            if differs:
                raise BadInput(f"{self.path} holds measurements of another run (its {', '.join(differs)} differ)",
                               hint="resume with the same model, spec, --strategies, --seed, --steps, --warmup, "
                                    "--repeats and --together, or pass another -o DIR")
            for n, line in enumerate(lines[1:], start=2):
                try:
                    rec = json.loads(line)
                    self.entries[tuple(rec["key"])] = rec.get("error") or rec["steps"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    if n < len(lines):  # only the last line may be cut short (a crash while writing it)
                        raise BadInput(f"{self.path}:{n} is not a journal entry") from None
                    lines.pop()  # dropped, and measured again
            self.path.write_text("\n".join(lines) + "\n")  # whole lines only: the next entry starts on its own
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps(header) + "\n")

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: tuple) -> list[list[float]] | str | None:
        hit = self.entries.get(key)
        if hit is not None:
            self.replayed += 1
        return hit

    def put(self, key: tuple, result: list[list[float]] | str) -> None:
        self.entries[key] = result
        if self.path is not None:
            rec = {"key": list(key), **({"error": result} if isinstance(result, str) else {"steps": result})}
            with open(self.path, "a") as fh:
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
