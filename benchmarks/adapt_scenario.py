"""A link degrades under a running job: ``train --adapt`` against the fixed winner and an oracle, on the testbed.

    python benchmarks/adapt_scenario.py [--model dlrm] [--bandwidth 1gbit] [--degrade 0-2=50mbit] [--at 300]
                                        [--steps 900] [--stable-runs 3] [--stable-steps 500] [--out runs/bench-adapt]

As root: brings a 3-host testbed up (prefix ``ad``). A search (its own quick calibration) on the healthy testbed picks
the winner; a second search, with its own calibration cache, on the testbed already degraded picks the oracle's
strategy. Then three jobs of ``--steps`` steps each, the link degraded (``testbed shape``) when the job reaches step
``--at`` and restored after it: the fixed winner, the winner with ``--adapt``, and the oracle's strategy. Then
``--stable-runs`` jobs with ``--adapt`` and one without on the healthy testbed: switches, and the step time adapt
costs. Prints a table; writes ``steps.png`` (step time over steps, the three jobs) and ``results.json`` to ``--out``.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


@contextlib.contextmanager
def _testbed(hosts: int, bandwidth: str, out: pathlib.Path):
    import runners.testbed as tb

    plan = tb.make_plan(hosts, bandwidth, [], [], prefix="ad", subnet="198.18.21.0/24", directory=str(out / "tb"),
                        python=sys.executable)
    try:
        tb.up(plan)
        yield plan
    finally:
        tb.down(plan["dir"])


def _search(model: str, spec: str, out: pathlib.Path, cache: pathlib.Path, trials: int) -> dict:
    import autotune

    if (out / "summary.json").is_file():  # a search of an earlier run of the benchmark: reused
        return json.loads((out / "summary.json").read_text())
    started = time.monotonic()
    found = autotune.search(model, spec, out, trials=trials, cache_dir=str(cache), progress=True)
    summary = dict(found.summary, bench_wall_s=time.monotonic() - started)
    return summary


class _Degrade:
    """A step callback that shapes the link when the job reaches ``at`` (and records when)."""

    def __init__(self, directory: str, link: str, at: int) -> None:
        self.directory, self.link, self.at, self.when = directory, link, at, None
        self.seen: dict[int, float] = {}  # step -> when the job reported it (monotonic seconds)

    def __call__(self, info) -> None:
        import runners.testbed as tb

        self.seen[info.step] = time.monotonic()
        if self.when is None and self.at and info.step >= self.at:
            tb.shape(self.directory, links=[self.link])
            self.when = time.monotonic()


def _train(model: str, spec: str, strategy: pathlib.Path, steps: int, ckpt: pathlib.Path, degrade: _Degrade | None,
           adapt: bool, restore: str | None, tb_dir: str) -> dict:
    import shutil

    import autotune
    import runners.testbed as tb

    shutil.rmtree(ckpt, ignore_errors=True)
    lines: list[str] = []
    started = time.monotonic()
    try:
        history = autotune.train(model, spec, strategy, steps, checkpoint=ckpt, adapt=adapt,
                                 callbacks=[degrade] if degrade else [], log=lambda m: (lines.append(m), print(m)))
    finally:
        if restore:
            tb.shape(tb_dir, links=[restore])
    seen = degrade.seen if degrade else {}
    return {"steps": history.steps, "step_times_s": history.step_times_s, "seconds": time.monotonic() - started,
            "adapt": history.adapt, "lines": lines,
            "degraded_after_s": (degrade.when - started) if degrade and degrade.when else None,
            "step_at_s": {str(k): v - started for k, v in sorted(seen.items())}}


def _after(run: dict, start: int) -> float:
    return statistics.median(run["step_times_s"][start:]) if run["step_times_s"][start:] else float("nan")


def _switch_step(run: dict) -> int | None:
    return next((d["step"] for d in run["adapt"] if d["event"] == "switch"), None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", default="dlrm", help="a name in examples/models/ or a model file")
    ap.add_argument("--hosts", type=int, default=3)
    ap.add_argument("--bandwidth", default="1gbit")
    ap.add_argument("--degrade", default="0-2=50mbit", metavar="I-J=RATE")
    ap.add_argument("--at", type=int, default=300)
    ap.add_argument("--steps", type=int, default=900)
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--stable-runs", type=int, default=3)
    ap.add_argument("--stable-steps", type=int, default=500)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/bench-adapt"))
    args = ap.parse_args()
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    model = str(ROOT / "examples" / "models" / f"{args.model}.py") if not args.model.endswith(".py") else args.model
    pair, _, _ = args.degrade.partition("=")
    restore_rate = args.bandwidth  # both hosts run at --bandwidth: that rate is no slow link
    with _testbed(args.hosts, args.bandwidth, out) as plan:
        import runners.testbed as tb

        spec, tb_dir = str(pathlib.Path(plan["dir"]) / "cluster.yml"), plan["dir"]
        healthy_cache, degraded_cache = out / "cache-healthy", out / "cache-degraded"
        os.environ["AUTOTUNE_CACHE_DIR"] = str(healthy_cache)  # the adaptive job finds the winner's calibration
        winner = _search(model, spec, out / "search-healthy", healthy_cache, args.trials)
        tb.shape(tb_dir, links=[args.degrade])
        try:
            oracle = _search(model, spec, out / "search-degraded", degraded_cache, args.trials)
        finally:
            tb.shape(tb_dir, links=[f"{pair}={restore_rate}"])
        runs = {}
        for name, strategy, adapt in (("fixed", out / "search-healthy" / "best.pb", False),
                                      ("adapt", out / "search-healthy" / "best.pb", True),
                                      ("oracle", out / "search-degraded" / "best.pb", False)):
            print(f"--- {name}: {args.steps} steps, {args.degrade} at step {args.at}", flush=True)
            runs[name] = _train(model, spec, strategy, args.steps, out / f"ckpt-{name}",
                                _Degrade(tb_dir, args.degrade, args.at), adapt, f"{pair}={restore_rate}", tb_dir)
        stable = []
        for k in range(args.stable_runs + 1):
            adapt = k < args.stable_runs
            print(f"--- stable {k}: {args.stable_steps} steps, adapt={adapt}", flush=True)
            stable.append(_train(model, spec, out / "search-healthy" / "best.pb", args.stable_steps,
                                 out / f"ckpt-stable{k}", None, adapt, None, tb_dir) | {"adapt_on": adapt})
    results = {"args": {k: str(v) for k, v in vars(args).items()}, "winner": winner.get("winner"),
               "oracle": oracle.get("winner"), "runs": runs, "stable": stable,
               "search_s": {"healthy": winner.get("wall_s"), "degraded": oracle.get("wall_s")}}
    (out / "results.json").write_text(json.dumps(results, indent=1))
    _report(results, args, out)
    return 0


def _report(results: dict, args, out: pathlib.Path) -> None:
    runs, at = results["runs"], args.at
    switch = _switch_step(runs["adapt"])
    settled = (switch or at) + 60  # the new segment's build and probes behind it
    print(f"\nmodel {args.model}, {args.hosts} hosts at {args.bandwidth}, {args.degrade} from step {at}; winner "
          f"{results['winner']}, oracle {results['oracle']}")
    print("| job | before the change, ms | after it, ms | settled (from step {0}), ms | x oracle settled | wall s |"
          .format(settled))
    print("|---|---|---|---|---|---|")
    ref = _after(runs["oracle"], settled)
    for name in ("fixed", "adapt", "oracle"):
        r = runs[name]
        before = statistics.median(r["step_times_s"][50:at]) if len(r["step_times_s"]) > at else float("nan")
        print(f"| {name} | {before * 1e3:.2f} | {_after(r, at) * 1e3:.2f} | {_after(r, settled) * 1e3:.2f} | "
              f"{_after(r, settled) / ref:.2f} | {r['seconds']:.0f} |")
    if switch is not None:
        a = runs["adapt"]
        stamps = {int(k): v for k, v in a["step_at_s"].items()}
        at_ckpt = next((int(line.split("resuming at step ")[1].split()[0]) for line in a["lines"]
                        if "resuming at step " in line), switch)
        resumed = min((k for k in stamps if k > at_ckpt), default=None)
        took = stamps[resumed] - a["degraded_after_s"] if resumed is not None else float("nan")
        plan = next(d for d in a["adapt"] if d["event"] == "switch")
        print(f"adapt: the change seen {plan['step'] - at} steps after it; re-planning {plan['replanning_s']:.1f} s; "
              f"the new strategy's first step {took:.1f} s after the change (detection, re-planning, checkpoint, "
              f"build); decisions: {[d['event'] for d in a['adapt']]}")
    else:
        print(f"adapt: no switch; decisions: {[d['event'] for d in runs['adapt']['adapt']]}")
    stable = results["stable"]
    on = [s for s in stable if s["adapt_on"]]
    off = [s for s in stable if not s["adapt_on"]]
    switches = sum(d["event"] in ("switch", "back") for s in on for d in s["adapt"])
    changes = sum("change" in d for s in on for d in s["adapt"])

    def steady(s: dict) -> float:
        return statistics.median(s["step_times_s"][50:])

    cost = statistics.median(steady(s) for s in on) / steady(off[0]) - 1 if on and off else float("nan")
    print(f"stable: {len(on)} runs with --adapt: {changes} change(s) seen, {switches} switch(es); median step "
          f"with --adapt against without: {cost:+.1%}")
    _plot(runs, at, out / "steps.png")


def _plot(runs: dict, at: int, path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    for name, r in runs.items():
        t = [x * 1e3 for x in r["step_times_s"]]
        smooth = [statistics.median(t[max(0, i - 8):i + 1]) for i in range(len(t))]
        ax.plot(range(1, len(t) + 1), smooth, label=name, lw=1.2)
    ax.axvline(at, color="grey", ls="--", lw=0.8)
    ax.set_xlabel("step")
    ax.set_ylabel("step time, ms (median of 9)")
    ax.set_yscale("log")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"wrote {path}")


if __name__ == "__main__":
    raise SystemExit(main())
