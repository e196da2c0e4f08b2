"""A search on a model whose step takes about a second: its wall time by stage, against the first-answer target.

    python benchmarks/slow_step.py [--batch 384] [--spec examples/clusters/localhost.yml] [--out /tmp/bench-slow]
                                   [--uncut]

The model is the foreign set's small Xception (``examples/foreign/xception_small.py``, adapted from a keras.io
example) at ``--batch`` images per replica, written under ``--out``: at 384 its all-reduce step takes about 1 s on
two loopback nodes sharing a core. Each run is a default ``autotune search`` in its own process with a cache of its
own, so it measures a quick calibration first, as a new user's first search does. ``--uncut`` runs a second search
beside it with the slow-step cuts off: every job probed for its steps per call at the cap and timed for every
sample asked for (``runners.profile.samples_within`` and ``TrainingJob.most_wanted`` patched back to the
examples' behaviour); it takes over 40 minutes on this machine and is stopped at ``--limit``. Target: the first
answer of a 1 s-step model within 5 minutes. Everything goes under --out.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

MODEL = '''"""The foreign set's small Xception at {batch} images per replica (benchmarks/slow_step.py)."""
import sys

sys.path.insert(0, {root!r})
import examples.foreign.xception_small as base  # noqa: E402

base.BATCH = {batch}
BATCH, OPTIMIZER = base.BATCH, base.OPTIMIZER
build_model, loss_fn, dataset_fn = base.build_model, base.loss_fn, base.dataset_fn
'''

# the search with the slow-step cuts undone: the examples' probe and sample counts for every step
UNCUT = """
import runners.calibrate, runners.profile, runners.transform._driver as d
runners.profile.samples_within = runners.calibrate.samples_within = lambda samples, sample_s, within_s: samples
d.TrainingJob.most_wanted = lambda self, step_s, floor: self.MAX_STEPS_PER_CALL
from autotune.cli import main
sys.exit(main(sys.argv[1:]))
"""


def search(model: pathlib.Path, spec: str, out: pathlib.Path, limit_s: float, uncut: bool) -> dict:
    """One default search in its own process; its summary's timing, exit code and wall seconds."""
    cache = out.with_name(out.name + "-cache")
    cache.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "AUTOTUNE_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    args = ["search", "--model", str(model), "--spec", spec, "-o", str(out)]
    cmd = [sys.executable, "-c", "import sys" + UNCUT, *args] if uncut else [sys.executable, "-m", "autotune", *args]
    started = time.monotonic()
    with open(out.with_suffix(".log"), "w") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        try:
            code = proc.wait(timeout=limit_s)
        except subprocess.TimeoutExpired:
            proc.terminate()  # as Ctrl-C: the search keeps what it measured and writes its summary
            code = proc.wait()
    wall = time.monotonic() - started
    summary = out / "summary.json"
    s = json.loads(summary.read_text()) if summary.is_file() else {}
    return {"code": code, "wall_s": wall, "timing": s.get("timing") or {}, "winner": s.get("winner"),
            "runs": len(list((out / "measured").glob("*.pb"))) if (out / "measured").is_dir() else 0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=384)
    ap.add_argument("--spec", default=str(ROOT / "examples" / "clusters" / "localhost.yml"))
    ap.add_argument("--uncut", action="store_true", help="also run the search with the slow-step cuts off")
    ap.add_argument("--limit", type=float, default=2400.0, help="stop a search after this many seconds (2400)")
    ap.add_argument("--out", default="/tmp/bench-slow")
    args = ap.parse_args()
    out = pathlib.Path(args.out) / time.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True)
    model = out / f"xception_b{args.batch}.py"
    model.write_text(MODEL.format(root=str(ROOT), batch=args.batch))
    load = os.getloadavg()[0]
    rows = [("cut", search(model, args.spec, out / "cut", args.limit, uncut=False))]
    if args.uncut:
        rows.append(("uncut", search(model, args.spec, out / "uncut", args.limit, uncut=True)))
    print(f"load average (1 min) before: {load:.1f}, after: {os.getloadavg()[0]:.1f}; runs in {out}\n")
    print("| search | exit | winner | profiling runs | calibration | simulated | profiling | confirm | total |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in rows:
        t = r["timing"]
        cells = " | ".join(f"{t[k]:.0f} s" if k in t else "–"
                           for k in ("calibration_s", "simulated_s", "profiling_s", "confirm_s"))
        print(f"| {name} | {r['code']} | {r['winner'] or '–'} | {r['runs']} | {cells} | {r['wall_s']:.0f} s |")
    if len(rows) == 2:
        print(f"\ncut / uncut wall time: {rows[0][1]['wall_s'] / rows[1][1]['wall_s']:.2f}"
              " (the uncut search stopped at --limit if its exit is not 0)")
    print(f"\ntarget: the first answer within 300 s; cut: {rows[0][1]['wall_s']:.0f} s")


if __name__ == "__main__":
    main()
