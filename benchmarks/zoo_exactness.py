"""How exactly the backend trains each zoo model: 10 steps on two replicas of the loopback cluster under the PS,
all-reduce and mixed (parallax) builders, against single-device training (``runners.transform._reference``), and,
for a compiled model, that single-device training against ``model.fit`` itself.

    python benchmarks/zoo_exactness.py [--models a,b,...] [--steps 10] [--out runs/bench-zoo-exactness]

Each cell is the largest relative error max|a - b| / max|b| over the model's variables (the target is 1e-5).
The table goes to stdout and ``<out>/zoo_exactness.md``, one JSON line per model to ``<out>/zoo_exactness.jsonl``.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ZOO = ROOT / "examples" / "zoo"
BUILDERS = ("ps", "all_reduce", "parallax")


def rel_err(a, b) -> float:
    import numpy as np

    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-12)) if b.size else 0.0


def worst(got: dict, want: dict) -> float:
    return max((rel_err(got[n], want[n]) for n in want), default=0.0)


def measure(name: str, cluster, spec, steps: int) -> dict:
    from runners.transform import TrainingJob
    from runners.transform._reference import reference_train
    from space.builders import build_strategy
    from space.model import inventory_from_trace, trace_step

    path = ZOO / f"{name}.py"
    traced = trace_step(path)
    inventory = inventory_from_trace(traced)
    want, _, _ = reference_train(traced, 2, steps)
    row = {"model": name, "idiom": _idiom(path)}
    for alias in BUILDERS:
        with TrainingJob(traced, build_strategy(alias, inventory, spec), cluster, step_timeout_s=120) as job:
            job.run(steps)
            row[alias] = worst(job.values()[0], want)
    if traced.compiled:
        one, _, _ = reference_train(traced, 1, steps)
        traced.model.fit(traced.module.dataset_fn(0, 1).repeat(), steps_per_epoch=steps, epochs=1, verbose=0,
                         shuffle=False)
        row["model.fit"] = worst({n: v.numpy() for n, v in zip(traced.names, traced.trainable)}, one)
    return row


def _idiom(path: pathlib.Path) -> str:
    doc = path.read_text().split('"""')[1]
    return " ".join(doc.split()).split(": ")[0].split(". ")[0]


def table(rows: list[dict]) -> str:
    head = "| model | idiom | " + " | ".join(BUILDERS) + " | model.fit |\n|---|---|" + "---|" * (len(BUILDERS) + 1)
    lines = [head]
    for r in rows:
        cells = [f"{r[b]:.1e}" for b in BUILDERS] + [f"{r['model.fit']:.1e}" if "model.fit" in r else "-"]
        lines.append(f"| {r['model']} | {r['idiom']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="", help="comma-separated zoo models (default: all)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--out", default=str(ROOT / "runs" / "bench-zoo-exactness"))
    args = p.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from runners.cluster import start_cluster
    from space.cluster import load_cluster

    names = args.models.split(",") if args.models else sorted(p.stem for p in ZOO.glob("*.py"))
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    spec = load_cluster(ROOT / "examples" / "clusters" / "localhost.yml")
    rows = []
    t0 = time.perf_counter()
    with start_cluster(spec) as cluster, open(out / "zoo_exactness.jsonl", "w") as raw:
        for name in names:
            rows.append(measure(name, cluster, spec, args.steps))
            raw.write(json.dumps(rows[-1]) + "\n")
            raw.flush()
    text = table(rows)
    (out / "zoo_exactness.md").write_text(text + "\n")
    print(text)
    print(f"\n{len(rows)} models, {args.steps} steps, {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
