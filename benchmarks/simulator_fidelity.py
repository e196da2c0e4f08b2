"""Simulator fidelity on the emulated testbed (the targets: Kendall tau >= 0.85, MAPE <= 10%).

Brings up a testbed (3 hosts at 200mbit by default; needs root) unless ``--spec`` names a running cluster, then per
model:

1. ``autotune calibrate --model``;
2. a *dev* run, ``autotune validate-simulator --fit-residual`` on ``--strategies`` strategies (seed ``--seed``): the
   raw model on all of them, and a residual fitted on 70% and stored with the calibration;
3. a *fresh* run on as many new strategies (seed ``--seed + 1``), predicted with the stored calibration, residual
   included, as ``autotune search`` would: the number that counts, since none of these strategies was seen by the fit.

Each run profiles every strategy in ``--repeats`` passes of head-to-head groups of ``--together`` (6) strategies,
with the machine's drift between groups divided out, and reports the measurement's own noise (one pass against
another). One row per model is printed; the testbed is removed at the end (``--keep`` leaves it up), also after
Ctrl-C or a SIGTERM (forwarded to the running ``autotune`` command, which stops its servers first).

    python benchmarks/simulator_fidelity.py --models mlp,recommender --strategies 30

Everything a run writes goes under ``--out`` (default ``runs/bench-simulator_fidelity``, which git ignores).
``--resume`` goes on with an interrupted run there (calibrations and finished runs kept, the unfinished run resumed
from its ``measurements.jsonl``).

``--reuse DIR`` skips the testbed: it predicts the strategies saved by an earlier run (``DIR/<model>/`` and
``DIR/<model>-fresh/``) again with the current simulator and the calibrations cached in ``DIR/cache``, e.g. after a
cost-model change (the residual is fitted again on the dev run, in memory, and applied to the fresh one).

``--archive DIR`` copies what ``--reuse`` needs of each model's runs (strategies, rows.csv, the step times, the
calibration and the inventory: 200-460 KB) into ``DIR/<model>-s<seed>/``: ``--reuse DIR/mlp-s111 --models mlp``
predicts one again in seconds. ``--kept DIR`` predicts every run archived in DIR again and prints one row each, with
whether it meets the targets (raw, or with the machine's drift since calibrate divided out). A few archived runs are
kept as test fixtures (``tests/fixtures/fidelity_runs/``), which the tests predict again so.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


_running: list[subprocess.Popen] = []  # the autotune command running now, for the SIGTERM handler
STOP_WAIT_S = 120  # for a stopped command to stop its servers, before it is killed


def _cli(*args: str) -> None:
    cmd = [sys.executable, "-m", "autotune", *args]
    print("$ autotune " + " ".join(args), file=sys.stderr, flush=True)
    proc = subprocess.Popen(cmd, cwd=ROOT)
    _running.append(proc)
    try:
        code = proc.wait()
    except BaseException:  # Ctrl-C (the command got it too) or SIGTERM (forwarded): it stops its servers first
        try:
            proc.wait(STOP_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise
    finally:
        _running.remove(proc)
    if code:
        raise subprocess.CalledProcessError(code, cmd)


def _on_sigterm(signum, frame) -> None:
    """SIGTERM stops the run as Ctrl-C does: the running command gets it (the product stops as after Ctrl-C, exit
    143), then the ``finally`` below takes the testbed down, which a second SIGTERM does not interrupt."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for proc in _running:
        proc.send_signal(signal.SIGTERM)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="mlp,cnn,recommender,transformer,dlrm",
                   help="example models (examples/models/<name>.py)")
    p.add_argument("--strategies", type=int, default=30, help="strategies per run (30)")
    p.add_argument("--seed", type=int, default=0, help="seed of the dev run; the fresh run uses seed + 1")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeats", type=int, default=2, help="passes per run (2)")
    p.add_argument("--holdout", type=float, default=0.3)
    p.add_argument("--together", type=int, default=6,
                   help="head-to-head groups of this many strategies (validate-simulator --together; 1: one at a time)")
    p.add_argument("--no-fresh", action="store_true", help="only the dev run")
    p.add_argument("--spec", default=None, help="use this cluster instead of bringing up a testbed")
    p.add_argument("--hosts", type=int, default=3)
    p.add_argument("--bandwidth", default="200mbit")
    p.add_argument("--prefix", default="calfid")
    p.add_argument("--subnet", default="198.18.7.0/24")
    p.add_argument("--keep", action="store_true", help="leave the testbed up")
    p.add_argument("--sizes", default="512k,2m,4m", help="calibration message sizes")
    p.add_argument("--cache-dir", default=None, help="calibration/inventory cache (default: a fresh one in --out)")
    p.add_argument("--out", default="runs/bench-simulator_fidelity",
                   help="output directory (runs/bench-simulator_fidelity)")
    p.add_argument("--reuse", default=None, metavar="DIR",
                   help="re-predict the measurements of an earlier run's output directory (no testbed, no profiling); "
                        "the residual is fitted again on the split each dev run drew (the seed its journal records)")
    p.add_argument("--kept", default=None, metavar="DIR",
                   help="re-predict every run --archive wrote in DIR, one row each, with the targets met or not (no "
                        "testbed, no profiling)")
    p.add_argument("--archive", default=None, metavar="DIR",
                   help="also copy what --reuse needs of each model's runs into DIR/<model>-s<seed>/ (small: to keep "
                        "beside other runs, or as a test fixture)")
    p.add_argument("--resume", action="store_true",
                   help="go on with an interrupted run in --out: keep its calibrations and finished runs, resume the "
                        "unfinished one from its journal")
    args = p.parse_args(argv)

    out = (ROOT / args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    if args.kept:
        return _kept(args, out)
    if args.reuse:
        return _reuse(args, out)
    cache = pathlib.Path(args.cache_dir or out / "cache").resolve()
    signal.signal(signal.SIGTERM, _on_sigterm)
    testbed_dir = None
    spec = args.spec
    if spec is None:
        testbed_dir = str(out / f"testbed-{args.prefix}")
        _cli("testbed", "up", "--hosts", str(args.hosts), "--bandwidth", args.bandwidth, "--prefix", args.prefix,
             "--subnet", args.subnet, "--dir", testbed_dir)
        spec = os.path.join(testbed_dir, "cluster.yml")
    results = {}

    def finished(run: pathlib.Path) -> bool:
        return args.resume and (run / "summary.json").is_file()

    try:
        for name in args.models.split(","):
            model = str(ROOT / "examples" / "models" / f"{name}.py")
            t0 = time.monotonic()
            if not (args.resume and (out / f"{name}-calibration.json").is_file()):
                _cli("calibrate", "--spec", spec, "--model", model, "--sizes", args.sizes, "--cache-dir", str(cache),
                     "--output", str(out / f"{name}-calibration.json"))
            common = ["--model", model, "--spec", spec, "--strategies", str(args.strategies), "--steps",
                      str(args.steps), "--warmup", str(args.warmup), "--repeats", str(args.repeats),
                      "--together", str(args.together), "--cache-dir", str(cache)]
            common += ["--resume"] if args.resume else []
            if not finished(out / name):
                _cli("validate-simulator", *common, "--seed", str(args.seed), "--fit-residual", "--holdout",
                     str(args.holdout), "-o", str(out / name))
            results[name] = {"dev": json.loads((out / name / "summary.json").read_text())}
            if not args.no_fresh:
                if not finished(out / f"{name}-fresh"):
                    _cli("validate-simulator", *common, "--seed", str(args.seed + 1), "-o", str(out / f"{name}-fresh"))
                results[name]["fresh"] = json.loads((out / f"{name}-fresh" / "summary.json").read_text())
            results[name]["wall_s"] = time.monotonic() - t0
            if args.archive:
                _archive(out, name, cache, (ROOT / args.archive) / f"{name}-s{args.seed}")
    finally:
        if testbed_dir and not args.keep:
            _cli("testbed", "down", "--dir", testbed_dir)

    _print(results, out)
    return 0


ARCHIVED = ("rows.csv", "summary.json", "cluster.yml", "measurements.jsonl", "strategies")


def _archive(out: pathlib.Path, name: str, cache: pathlib.Path, dest: pathlib.Path) -> None:
    """Copy the runs of ``name`` (dev and fresh) with their calibration and inventory into ``dest``, laid out as
    ``--reuse`` reads them: ``dest/<run>/`` and ``dest/cache/``."""
    from simulator import calibration_path
    from space.cluster import load_cluster

    runs = [out / r for r in (name, f"{name}-fresh") if (out / r / "rows.csv").is_file()]
    if not runs:
        return
    inventory = json.loads((out / f"{name}-calibration.json").read_text()).get("model_hash", "")
    for run in runs:
        for item in ARCHIVED:
            src, to = run / item, dest / run.name / item
            if src.is_dir():
                shutil.copytree(src, to, dirs_exist_ok=True)
            elif src.is_file():
                to.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, to)
    spec = load_cluster(runs[0] / "cluster.yml")
    cal = calibration_path(cache / "calibration", spec, inventory)
    for src in (cal, cache / f"inventory-{inventory}.json"):
        to = dest / "cache" / src.relative_to(cache)
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, to)
    print(f"archived {', '.join(r.name for r in runs)} in {dest}", file=sys.stderr, flush=True)


def _reuse(args, out: pathlib.Path) -> int:
    """Re-predict the dev run (fitting the residual again, in memory) and the fresh run with that residual."""
    src = pathlib.Path(args.reuse).resolve()
    cache = pathlib.Path(args.cache_dir or src / "cache").resolve()
    results = {name: _repredict(src, name, out, cache, args) for name in args.models.split(",")}
    _print(results, out)
    return 0


def _repredict(src: pathlib.Path, name: str, out: pathlib.Path, cache: pathlib.Path, args) -> dict:
    """One model's runs saved in ``src`` predicted again by this checkout's cost model, written to ``out/<run>/``."""
    from autotune import fidelity
    from autotune.fidelity import _io as fidelity_io
    from simulator import Calibration, Scorer, anchor_costs, calibration_path
    from space.cluster import load_cluster
    from space.model import load_inventory

    for run in (d for d in (src / name, src / f"{name}-fresh")
                if (d / "strategies").is_dir() and not (out / d.name / "strategies").exists()):
        shutil.copytree(run / "strategies", out / run.name / "strategies")  # the new rows.csv stays reusable
        shutil.copyfile(run / "cluster.yml", out / run.name / "cluster.yml")
    t0 = time.monotonic()
    spec = load_cluster(src / name / "cluster.yml")
    inv = load_inventory(ROOT / "examples" / "models" / f"{name}.py", cache_dir=cache)
    cal = Calibration.load(calibration_path(cache / "calibration", spec, inv.model_hash), spec, inv.model_hash)
    cal = anchor_costs(cal, inv, spec)  # the anchor costs as the current cost model derives them (if kept)
    raw = Scorer(inv, spec, cal.replace(residual=None))
    picked, measured = fidelity_io.load_measured(src / name)
    seed = fidelity_io.recorded_seed(src / name)  # the split the run drew itself, as validate-simulator --reuse
    seed = args.seed if seed is None else seed
    dev = fidelity.repredict(raw, picked, measured, fit=True, holdout=args.holdout, seed=seed)
    fidelity.since_calibration(dev, picked, raw)
    fidelity.anchor_fit(dev, raw)
    fidelity_io.write_outputs(dev, out / name, title=name)
    result = {"dev": json.loads((out / name / "summary.json").read_text())}
    if (src / f"{name}-fresh" / "rows.csv").is_file():
        fitted = Scorer(inv, spec, cal.replace(residual=dev.residual))
        picked, measured = fidelity_io.load_measured(src / f"{name}-fresh")
        fresh = fidelity.repredict(fitted, picked, measured)
        fidelity_io.write_outputs(fresh, out / f"{name}-fresh", title=f"{name} (fresh)")
        result["fresh"] = json.loads((out / f"{name}-fresh" / "summary.json").read_text())
        bare = fidelity.repredict(raw, picked, measured)  # the raw model on the new strategies, as on the dev run
        fidelity.since_calibration(bare, picked, raw)
        result["fresh_raw"] = {"metrics": bare.metrics, "noise": bare.noise,
                               "since_calibration": bare.since_calibration,
                               "metrics_at_calibration": bare.metrics_at_calibration}
    result["wall_s"] = time.monotonic() - t0
    result["update_share"] = cal.update_share  # None: calibrated before calibrate timed the step without updates
    result["lacks"] = _lacks(cal, inv, spec)
    result["anchor_fit"] = dev.anchor_fit or {}  # the calibration's anchor steps: (measured, predicted)
    return result


def _lacks(cal, inventory, spec) -> list[str]:
    """What the calibration lacks of those this checkout's ``calibrate`` measures: anchor steps it did not time, and
    the updates' share. A run whose calibration lacks none predicts as a run measured today would."""
    from space.anchors import anchor_strategies

    missing = [f"{name} step" for name in anchor_strategies(inventory, spec) if name not in cal.anchors_s]
    return missing + (["updates' share"] if cal.update_share is None else [])


TAU_TARGET, MAPE_TARGET = 0.85, 0.10  # what a run must reach for the simulator to rank a search's candidates


def _kept(args, out: pathlib.Path) -> int:
    """Every kept run in ``args.kept`` (``<model>-s<seed>/``) predicted again: one row each, with the targets met."""
    root = (ROOT / args.kept).resolve()
    runs = [d for d in root.iterdir() if d.is_dir() and _run_name(d.name)] if root.is_dir() else []
    if not runs:
        print(f"error: no kept runs (<model>-s<seed>/) in {root}; hint: --archive DIR writes them", file=sys.stderr)
        return 2
    rows = []
    for run in sorted(runs, key=lambda d: _run_name(d.name)):
        model, seed = _run_name(run.name)
        print(f"re-predicting {run.name}", file=sys.stderr, flush=True)
        # the residual fitted on the train split the run itself drew: its journal's seed, else its name's
        own = argparse.Namespace(**{**vars(args), "seed": seed})
        result = _repredict(run, model, out / run.name, run / "cache", own)
        calibration = {"update_share": result["update_share"], "lacks": result["lacks"],
                       "anchor_fit": result["anchor_fit"]}
        rows.append({**_kept_row(model, seed, result["dev"]), **calibration})
        if "fresh_raw" in result:  # new strategies (seed + 1), the raw model's metrics as for the dev run
            fitted = result["fresh"]["metrics"]  # the same, with the residual fitted on the dev run
            rows.append({**_kept_row(model, seed + 1, result["fresh_raw"]), **calibration, "fresh": True,
                         "fitted_tau": fitted["kendall_tau"], "fitted_mape": fitted["mape"],
                         "fitted_meets": _meets(fitted["kendall_tau"], fitted["mape"])})
    _print_kept(rows, out)
    return 0


def _run_name(name: str) -> tuple[str, int] | None:
    model, _, seed = name.rpartition("-s")
    return (model, int(seed)) if model and seed.isdigit() else None


def _label(row: dict) -> str:
    return f"{row['model']} s{row['seed']}" + (" fresh" if row.get("fresh") else "")


def _kept_row(model: str, seed: int, summary: dict) -> dict:
    """A run's metrics and whether it meets the targets: raw, with the machine's drift divided out, or not."""
    m = summary.get("raw_metrics") or summary["metrics"]
    drift_free = summary.get("metrics_at_calibration")
    noise = summary.get("noise") or {}
    if _meets(m["kendall_tau"], m["mape"]):
        meets = "yes"
    elif m["kendall_tau"] >= TAU_TARGET and drift_free and drift_free["mape"] <= MAPE_TARGET:
        meets = "drift divided out"
    else:
        meets = "no"
    return {"model": model, "seed": seed, "tau": m["kendall_tau"], "mape": m["mape"],
            "top1_regret": m.get("top1_regret"), "n": int(m["n"]), "machine": summary.get("since_calibration"),
            "drift_free_mape": drift_free["mape"] if drift_free else None,
            "noise_tau": noise.get("kendall_tau"), "noise_mape": noise.get("mape"), "meets": meets}


def _meets(tau: float, mape: float) -> bool:
    return tau >= TAU_TARGET and mape <= MAPE_TARGET


def _fitted(row: dict) -> str:
    """A fresh row's metrics with the residual fitted on its dev run: ``"0.884 / 5.2% yes"``; "–" for a dev row."""
    if "fitted_tau" not in row:
        return "–"
    return f"{row['fitted_tau']:.3f} / {row['fitted_mape']:.1%} {'yes' if row['fitted_meets'] else 'no'}"


def _print_kept(rows: list[dict], out: pathlib.Path) -> None:
    def pct(x):
        return f"{x:>6.1%}" if x is not None else f"{'-':>6}"

    print(f"\n{'run':<22} {'tau':>6} {'MAPE':>6} {'top-1':>6} {'n':>3} | {'machine':>8} {'MAPE':>6} | "
          f"{'noise tau':>9} {'MAPE':>6} | {'updates':>7} | {'calibration lacks':<28} | {'targets met':<17} | "
          "fresh with the dev residual")
    for r in rows:
        machine = f"{r['machine']:>7.3f}x" if r["machine"] is not None else f"{'-':>8}"
        noise = f"{r['noise_tau']:>9.3f}" if r["noise_tau"] is not None else f"{'-':>9}"
        print(f"{_label(r):<22} {r['tau']:>6.3f} {pct(r['mape'])} {pct(r['top1_regret'])} "
              f"{r['n']:>3} | {machine} {pct(r['drift_free_mape'])} | {noise} {pct(r['noise_mape'])} | "
              f"{pct(r.get('update_share')):>7} | {_lacking(r):<28} | {r['meets']:<17} | {_fitted(r)}")
    print()
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model]
        raw = sum(r["meets"] == "yes" for r in mine)
        drift = sum(r["meets"] == "drift divided out" for r in mine)
        now = [r for r in mine if not r.get("lacks")]
        print(f"{model}: {raw + drift} of {len(mine)} runs meet the targets"
              + (f" ({drift} with the drift divided out)" if drift else "")
              + f"; tau {_span([r['tau'] for r in mine], '.3f')}, MAPE {_span([r['mape'] for r in mine], '.1%')}"
              + f"; calibrated as calibrate does now: {sum(r['meets'] != 'no' for r in now)} of {len(now)}")
        fresh = [r for r in mine if "fitted_tau" in r]
        if fresh:
            mean = {k: statistics.fmean(r[k] for r in fresh) for k in ("fitted_tau", "fitted_mape", "tau", "mape")}
            print(f"  fresh runs with the residual fitted on their dev run: {sum(r['fitted_meets'] for r in fresh)} of "
                  f"{len(fresh)} meet the targets raw (without it: {sum(r['meets'] == 'yes' for r in fresh)}); "
                  f"mean tau {mean['fitted_tau']:.3f}, MAPE {mean['fitted_mape']:.1%} "
                  f"(without: {mean['tau']:.3f}, {mean['mape']:.1%})")
        missed = _misses([r for r in mine if not r.get("fresh")])
        if missed:
            from simulator import ANCHOR_MISFIT

            print(f"  anchor steps the cost model misses by more than {ANCHOR_MISFIT:.0%}: {missed}")
    print(f"\ntargets: Kendall tau >= {TAU_TARGET}, MAPE <= {MAPE_TARGET:.0%}, raw or with the machine's drift "
          "since calibrate divided out (machine: now / then); noise: one pass against the other; updates: the "
          "optimizer updates' share of the lockstep step, '-' where calibrate did not time it (the one-node probe's "
          "share stands in); calibration lacks: what this checkout's calibrate measures that the run's calibration "
          "does not hold; anchor steps: the run's calibration's own steps as this cost model predicts them from the "
          "costs it derives from them (predicted over measured, over the runs whose calibration timed the step)")
    (out / "kept.json").write_text(json.dumps(rows, indent=1) + "\n")
    head = ("| run | τ / MAPE / top-1 regret | machine vs its calibration; MAPE with that divided out | noise τ / MAPE "
            "| updates' share | calibration lacks | targets met | fresh: τ / MAPE with the dev run's residual |")
    md = [head, "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        machine = f"{r['machine']:.3f}× ; {r['drift_free_mape']:.1%}" if r["machine"] is not None else "–"
        noise = f"{r['noise_tau']:.3f} / {r['noise_mape']:.1%}" if r["noise_tau"] is not None else "–"
        regret = f"{r['top1_regret']:.1%}" if r["top1_regret"] else "0"
        share = f"{r['update_share']:.0%}" if r.get("update_share") is not None else "–"
        md.append(f"| {_label(r)} | {r['tau']:.3f} / {r['mape']:.1%} / {regret} | {machine} | {noise} "
                  f"| {share} | {_lacking(r)} | {r['meets']} | {_fitted(r)} |")
    (out / "kept.md").write_text("\n".join(md) + "\n")


def _span(values, spec: str, sep: str = "-") -> str:
    """``"0.884-0.939"``: the least and the greatest of ``values`` formatted by ``spec``; one of them if alike."""
    lo, hi = format(min(values), spec), format(max(values), spec)
    return lo if lo == hi else f"{lo}{sep}{hi}"


def _misses(rows: list[dict]) -> str:
    """Per anchor step, how far the cost model predicts it off on the runs that miss it by more than
    ``ANCHOR_MISFIT``: ``"ar_groups -17%..-13% (7 of 7 runs)"``; empty when none does."""
    from simulator import ANCHOR_MISFIT

    out = []
    names = dict.fromkeys(name for r in rows for name in r.get("anchor_fit") or {})
    for name in names:
        errors = [p / t - 1 for r in rows for t, p in [(r.get("anchor_fit") or {}).get(name, (0.0, 0.0))] if t > 0]
        off = sorted(e for e in errors if abs(e) > ANCHOR_MISFIT)
        if off:
            out.append(f"{name} {_span(off, '+.0%', '..')} ({len(off)} of {len(errors)} runs)")
    return ", ".join(out)


def _lacking(row: dict) -> str:
    """The kept row's ``lacks``, short: the anchor steps' names, then the updates' share; "–" for none."""
    lacks = [x.removesuffix(" step") for x in row.get("lacks") or []]
    return ", ".join(lacks) if lacks else "–"


def _print(results: dict, out: pathlib.Path) -> None:
    def fmt(m):
        if not m:
            return f"{'-':>6} {'-':>6} {'-':>6} {'-':>3}"
        regret = f"{m['top1_regret']:>6.1%}" if m.get("top1_regret") is not None else f"{'-':>6}"
        return f"{m['kendall_tau']:>6.3f} {m['mape']:>6.1%} {regret} {int(m['n']):>3}"

    def machine(d):  # the machine's speed against its calibration, and the dev run's MAPE with it divided out
        if d.get("since_calibration") is None:
            return f"{'-':>7} {'-':>6}"
        return f"{d['since_calibration']:>6.3f}x {d['metrics_at_calibration']['mape']:>6.1%}"

    head = f"{'tau':>6} {'MAPE':>6} {'regret':>6} {'n':>3}"
    cols = ["dev: raw model", "fresh: raw model", "fresh: with residual", "noise (pass vs pass)"]
    print("\n" + f"{'model':<12}| " + " | ".join(f"{c:<27}" for c in cols) + " | dev: machine  | wall")
    print(f"{'':<12}| " + " | ".join(f"{head:<27}" for _ in cols) + f" | {'speed':>7} {'MAPE':>6}|")
    for name, r in results.items():
        dev, fresh = r["dev"], r.get("fresh") or {}
        dev_raw = dev.get("raw_metrics") or dev["metrics"]
        fresh_raw = fresh.get("raw_metrics") or fresh.get("metrics")
        fresh_res = fresh.get("metrics") if fresh.get("raw_metrics") else None
        noise = fresh.get("noise") or dev.get("noise")
        print(f"{name:<12}| " + " | ".join(f"{fmt(m):<27}" for m in (dev_raw, fresh_raw, fresh_res, noise))
              + f" | {machine(dev)}| {r['wall_s']:.0f} s")
    print(f"\ntargets: Kendall tau >= {TAU_TARGET}, MAPE <= {MAPE_TARGET:.0%}; outputs in", out)
    print("dev: machine = the anchor steps calibrate timed, measured again in the run (now / then), and the MAPE with "
          "that divided out")
    (out / "fidelity.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted; the testbed is down, and --resume goes on from what was measured", file=sys.stderr)
        sys.exit(130)
