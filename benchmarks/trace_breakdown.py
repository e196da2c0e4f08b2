"""Tracing's cost and the cost model's parts against the traced ones, per strategy, on the local cluster.

    python benchmarks/trace_breakdown.py [--quick] [--models mlp,cnn] [--builders ps,all_reduce,parallax]
                                         [--steps 20 --warmup 5 --rounds 2] [--calibration FILE] [--out DIR]

For every (model, builder): ``profile_strategy`` run without a trace and with one (``trace_dir``), in ``--rounds``
rounds, the order swapped each round so that the machine's drift falls on both; the wall time of each (job set-up,
warm-up, timed samples and, with a trace, the traced steps and the files written), their ratio, and the share of the
traced run's wall the tracing itself took (target <= 10%). Then each strategy's step by part, predicted
(``Scorer.breakdown`` with the stored calibration of the cluster, ``--calibration``, or the spec's nominal values)
beside measured (the last trace), with the parts off by more than 25% flagged (``autotune.parts``). Traces go to
``--out`` (default /tmp/trace_breakdown). ``--quick``: 10 samples, one round, the mlp only unless ``--models`` names
others (well under 3 minutes for the mlp).

Each traced step is also printed as a whole (every task at once: compute, exposed communication, idle) with its
busiest link's busy time beside its wire time (without each transfer's latency): what the parts are made of.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _calibration(spec, inventory, path: str | None):
    from simulator import Calibration, calibration_path
    from space.model import default_cache_dir

    if path:
        return Calibration.load(path, cluster=spec, model_hash=inventory.model_hash), path
    directory = default_cache_dir() / "calibration"
    for model_hash in (inventory.model_hash, None):
        found = calibration_path(directory, spec, model_hash)
        if found.is_file():
            return Calibration.load(found, cluster=spec, model_hash=model_hash), str(found)
    return Calibration.from_spec(spec), "the spec's nominal values (no calibration stored)"


def _walls(traced, strategy, cluster, args, out: pathlib.Path):
    """(walls without a trace, walls with one, trace seconds of each traced run, the last traced result)."""
    from runners.profile import profile_strategy

    plain, with_trace, trace_s, last = [], [], [], None
    for r in range(args.rounds):
        for tracing in ((False, True) if r % 2 == 0 else (True, False)):
            t0 = time.perf_counter()
            res = profile_strategy(traced, strategy, cluster, steps=args.steps, warmup=args.warmup,
                                   trace_dir=str(out) if tracing else None)
            wall = time.perf_counter() - t0
            (with_trace if tracing else plain).append(wall)
            if tracing:
                trace_s.append(res.trace_s)
                last = res
    return plain, with_trace, trace_s, last


def _shapes(shapes) -> str:
    """Each traced step as a whole and its busiest link, busy and on the wire (ms per step)."""
    from autotune.parts import busiest_wire

    lines = [f"{'traced step':24} {'span':>7} {'compute':>8} {'comm':>7} {'idle':>7}  {'busiest link':24} "
             f"{'busy':>7} {'wire':>7} {'latency':>8} {'transfers':>9}"]
    for label, trace in shapes:
        st, top = trace.step, busiest_wire(trace)
        if st is None or top is None:
            continue
        lines.append(f"{label:24} {st.span_s * 1e3:7.3f} {st.compute_s * 1e3:8.3f} {st.comm_s * 1e3:7.3f} "
                     f"{st.idle_s * 1e3:7.3f}  {top.src + '->' + top.dst:24} {top.busy_s * 1e3:7.3f} "
                     f"{top.wire_s * 1e3:7.3f} {top.latency_s * 1e3:8.3f} {top.transfers:9.1f}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=None, help="comma-separated examples/models (default mlp,cnn; --quick: mlp)")
    p.add_argument("--builders", default="ps,all_reduce,parallax")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--calibration", default=None)
    p.add_argument("--out", default="/tmp/trace_breakdown")
    p.add_argument("--quick", action="store_true")
    args = p.parse_args(argv)
    if args.quick:
        args.models, args.steps, args.rounds = args.models or "mlp", 10, 1
    args.models = args.models or "mlp,cnn"
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from autotune import parts
    from runners.cluster import start_cluster
    from simulator import Scorer
    from space.builders import build_strategy
    from space.cluster import load_cluster
    from space.model import inventory_from_trace, trace_step

    spec = load_cluster(ROOT / "examples" / "clusters" / "localhost.yml")
    cost, rows, shapes = [], [], []
    started = time.perf_counter()
    with start_cluster(spec, timeout_s=120) as cluster:
        for model in args.models.split(","):
            traced = trace_step(str(ROOT / "examples" / "models" / f"{model}.py"))
            inventory = inventory_from_trace(traced)
            cal, source = _calibration(spec, inventory, args.calibration)
            print(f"{model}: predicting with {source}", flush=True)
            scorer = Scorer(inventory, spec, cal)
            for builder in args.builders.split(","):
                strategy = build_strategy(builder, inventory, spec)
                plain, with_trace, trace_s, last = _walls(traced, strategy, cluster, args,
                                                          pathlib.Path(args.out) / model)
                label = f"{model}/{builder}"
                cost.append((label, statistics.median(plain), statistics.median(with_trace),
                             max(t / w for t, w in zip(trace_s, with_trace))))
                rows += parts.rows_for(label, scorer.breakdown(strategy), last.median_s, last.trace)
                shapes.append((label, last.trace))
    print(f"\nprofile wall without / with a trace ({args.steps} samples, {args.warmup} warm-up, {args.rounds} "
          f"round(s); load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}, under load)")
    print(f"{'strategy':24} {'plain s':>8} {'traced s':>9} {'ratio':>6} {'trace share':>12}")
    for label, a, b, share in cost:
        print(f"{label:24} {a:8.2f} {b:9.2f} {b / a:6.2f} {share:12.1%}")
    print("\n" + _shapes(shapes))
    print("\n" + parts.table(rows))
    print(f"\ntraces in {args.out}; {time.perf_counter() - started:.0f} s in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
