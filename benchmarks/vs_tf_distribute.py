"""autotune against what users run today: tf.distribute, side by side on the emulated testbed.

For each model, on one testbed (hosts and rates as flags; default 3 hosts x 200 Mbit/s, one intra-op thread per host
for every contender), in interleaved repeats, each a real training run of the model's own ``dataset_fn``, optimizer
and per-replica batch:

- ``MultiWorkerMirroredStrategy`` (ring all-reduce), one worker process per host, in the host's namespace;
- ``ParameterServerStrategy`` (the TF2 coordinator; a PS and a worker task on every host, the coordinator in the
  chief's namespace), where the model runs under it (the table says why where it does not);
- autotune's search winner and its best builder (the fastest builder the search measured), run by ``autotune.train``.

    python benchmarks/vs_tf_distribute.py                       # every example model (root: it makes the testbed)
    python benchmarks/vs_tf_distribute.py --models recommender dlrm --repeats 3
    python benchmarks/vs_tf_distribute.py --contenders mwms all_reduce    # the backend against MWMS

Prints one table (step time median / p10 / p90, examples/s, the ratio to the best tf.distribute contender, and
the steps per call each autotune run chose) and writes it, a PNG and every raw run under --out (default
runs/bench-vs_tf_distribute, which git ignores). autotune's timed steps leave out, as MWMS's warm-up leaves out its
function's tracing, the calls that choose the steps per call and the first call of each number of steps (it builds
its executors on the servers); each of its samples is a call's seconds over its steps.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import pathlib
import re
import signal
import statistics
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
JOBS = pathlib.Path(__file__).resolve().parent / "_tf_distribute_jobs.py"
MODELS = ["mlp", "cnn", "recommender", "transformer", "dlrm"]
TF_PORT, PS_PORT = 23456, 23457
CONTENDERS = ("mwms", "pss", "winner", "builder", "all_reduce")


@contextlib.contextmanager
def testbed(args, directory: pathlib.Path):
    import runners.testbed as tb

    plan = tb.make_plan(args.hosts, args.bandwidth, args.per_host, args.link, prefix="vtd", subnet="198.18.17.0/24",
                        directory=str(directory), python=sys.executable, threads=args.threads)
    try:
        tb.up(plan)
        yield plan
    finally:
        tb.down(plan["dir"])


def _in(netns: str | None, argv: list[str]) -> list[str]:
    return ["ip", "netns", "exec", netns, *argv] if netns else argv


def _env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT), "TF_CPP_MIN_LOG_LEVEL": "2"}


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
    for p in procs:
        with contextlib.suppress(Exception):
            p.wait(10)


def run_mwms(plan, model: str, args, out: pathlib.Path) -> dict:
    hosts = plan["hosts"]
    cluster = {"worker": [f"{h['address']}:{TF_PORT}" for h in hosts]}
    procs = []
    try:
        for i, h in enumerate(hosts):
            config = json.dumps({"cluster": cluster, "task": {"type": "worker", "index": i}})
            procs.append(subprocess.Popen(_in(h["netns"], [
                sys.executable, str(JOBS), "mwms", "--model", model, "--tf-config", config, "--steps", str(args.steps),
                "--warmup", str(args.warmup), "--threads", str(args.threads), "--out", str(out.with_suffix(f".{i}"))]),
                env=_env(), stdout=subprocess.DEVNULL, stderr=open(out.with_suffix(f".{i}.log"), "w")))
        procs[0].wait(args.timeout)
        for p in procs[1:]:
            p.wait(60)
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {args.timeout} s"}
    finally:
        _stop(procs)
    return _read(out.with_suffix(".0"))


def run_pss(plan, model: str, args, out: pathlib.Path) -> dict:
    hosts = plan["hosts"]
    cluster = {"chief": [f"{hosts[0]['address']}:{TF_PORT + 10}"],
               "worker": [f"{h['address']}:{TF_PORT}" for h in hosts],
               "ps": [f"{h['address']}:{PS_PORT}" for h in hosts]}
    servers = []
    try:
        for kind in ("worker", "ps"):
            for i, h in enumerate(hosts):
                config = json.dumps({"cluster": cluster, "task": {"type": kind, "index": i}})
                servers.append(subprocess.Popen(_in(h["netns"], [
                    sys.executable, str(JOBS), "server", "--tf-config", config, "--threads", str(args.threads)]),
                    env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        config = json.dumps({"cluster": cluster, "task": {"type": "chief", "index": 0}})
        coordinator = subprocess.run(_in(hosts[0]["netns"], [
            sys.executable, str(JOBS), "pss", "--model", model, "--tf-config", config, "--steps", str(args.steps),
            "--warmup", str(args.warmup), "--threads", str(args.threads), "--out", str(out)]),
            env=_env(), capture_output=True, text=True, timeout=args.timeout)
        if not out.is_file():
            return {"error": (coordinator.stderr.strip().splitlines() or ["no result"])[-1][:300]}
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {args.timeout} s"}
    finally:
        _stop(servers)
    return _read(out)


def run_autotune(plan, model: str, strategy: pathlib.Path, args, out: pathlib.Path) -> dict:
    spec = str(pathlib.Path(plan["dir"]) / "cluster.yml")
    try:
        subprocess.run([sys.executable, str(JOBS), "autotune", "--model", model, "--spec", spec, "--strategy",
                        str(strategy), "--steps", str(args.steps), "--warmup", str(args.warmup), "--out", str(out)],
                       env=_env(), capture_output=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {args.timeout} s"}
    return _read(out)


def _read(path: pathlib.Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"error": "no result"}


def search(plan, model: str, args, out: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path, str]:
    """Run ``autotune search``; (winner's strategy file, best builder's strategy file, its name)."""
    spec = str(pathlib.Path(plan["dir"]) / "cluster.yml")
    cmd = [sys.executable, "-m", "autotune", "search", "--model", model, "--spec", spec, "-o", str(out),
           "--trials", str(args.trials), "--quiet"]
    if args.calibrate:
        subprocess.run([sys.executable, "-m", "autotune", "calibrate", "--spec", spec, "--model", model, "--quiet"],
                       env=_env(), check=True, capture_output=True)
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True)
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise RuntimeError(f"autotune search failed: {lines[-1] if lines else done.returncode}")
    summary = json.loads((out / "summary.json").read_text())
    builders = [r for r in summary["rows"] if not r["strategy"].startswith("trial") and r["measured_ms"] not in
                ("-", "failed")]
    best = min(builders, key=lambda r: float(r["measured_ms"]))["strategy"].removesuffix(" *")
    alias = best.split("+")[0]
    return out / "best.pb", _build(plan, model, alias, out / f"builder-{alias}.pb"), alias


def _build(plan, model: str, alias: str, path: pathlib.Path) -> pathlib.Path:
    spec = str(pathlib.Path(plan["dir"]) / "cluster.yml")
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "autotune", "build", "--builder", alias, "--model", model, "--spec", spec,
                    "-o", str(path)], env=_env(), check=True, capture_output=True)
    return path


def summarize(runs: list[dict], batch: int) -> dict:
    times = [t for r in runs for t in r.get("step_times_s", [])]
    if not times:
        return {"error": next((r["error"] for r in runs if "error" in r), "no result")}
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * (len(times) - 1)))]  # noqa: E731
    med = statistics.median(times)
    calls = [str(r["steps_per_call"]) for r in runs if r.get("steps_per_call")]  # autotune's, each run's
    return {"median_ms": med * 1e3, "p10_ms": q(0.1) * 1e3, "p90_ms": q(0.9) * 1e3,
            "examples_per_s": batch / med, "steps": len(times), **({"steps_per_call": ", ".join(calls)} if calls
                                                                    else {})}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", nargs="+", default=MODELS)
    p.add_argument("--hosts", type=int, default=3)
    p.add_argument("--bandwidth", default="200mbit")
    p.add_argument("--per-host", action="append", default=[], metavar="I=RATE")
    p.add_argument("--link", action="append", default=[], metavar="I-J=RATE", help="a slow link, e.g. 0-2=50mbit")
    p.add_argument("--threads", type=int, default=1, help="intra-op threads per host, every contender (1)")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--trials", type=int, default=500)
    p.add_argument("--calibrate", action="store_true", help="calibrate each model before its search")
    p.add_argument("--contenders", nargs="+", default=list(CONTENDERS), choices=CONTENDERS,
                   help="which to run: tf.distribute's mwms and pss, autotune's search winner and best builder, "
                        "and its all_reduce builder (the strategy MWMS runs, through autotune's backend)")
    p.add_argument("--timeout", type=int, default=600)
    p.add_argument("--out", default=str(ROOT / "runs" / "bench-vs_tf_distribute"))
    args = p.parse_args(argv)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from space.model import load_inventory

    rows = []
    with testbed(args, out / "testbed") as plan:
        for name in args.models:
            model = str(ROOT / "examples" / "models" / f"{name}.py")
            batch = load_inventory(model).batch_size * len(plan["hosts"])
            want = set(args.contenders)
            contenders = {}
            if "mwms" in want:
                contenders["MWMS (ring)"] = lambda o: run_mwms(plan, model, args, o)
            if "pss" in want:
                contenders["PSS (coordinator)"] = lambda o: run_pss(plan, model, args, o)
            if "all_reduce" in want:  # the strategy MWMS runs, through autotune's backend: measures the backend
                ar = _build(plan, model, "all_reduce", out / name / "builder-all_reduce.pb")
                contenders["autotune all_reduce builder"] = lambda o: run_autotune(plan, model, ar, args, o)
            try:
                if want & {"winner", "builder"}:
                    winner, builder, alias = search(plan, model, args, out / name / "search")
            except (RuntimeError, OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
                print(f"{name}: {e}", flush=True)  # tf.distribute still runs; autotune's rows say why not
                rows.append({"model": name, "contender": "autotune", "error": str(e)})
            else:
                if "winner" in want:
                    contenders["autotune winner"] = lambda o, w=winner: run_autotune(plan, model, w, args, o)
                if "builder" in want:
                    contenders[f"autotune best builder ({alias})"] = \
                        lambda o, b=builder: run_autotune(plan, model, b, args, o)
            runs: dict[str, list[dict]] = {c: [] for c in contenders}
            for r in range(args.repeats):
                order = list(contenders)[r % len(contenders):] + list(contenders)[:r % len(contenders)]
                for c in order:
                    slug = re.sub(r"[^a-z0-9]+", "-", c.lower()).strip("-")
                    runs[c].append(contenders[c](out / name / f"{slug}-r{r}.json"))
                    print(f"{name} repeat {r + 1}: {c}: "
                          f"{summarize(runs[c][-1:], batch).get('median_ms', runs[c][-1].get('error'))}", flush=True)
            stats = {c: summarize(v, batch) for c, v in runs.items()}
            tfd = [s["median_ms"] for c, s in stats.items() if c.split()[0] in ("MWMS", "PSS") and "median_ms" in s]
            best_tfd = min(tfd) if tfd else None
            for c, s in stats.items():
                rows.append({"model": name, "contender": c, **s,
                             "x_best_tf_distribute": round(best_tfd / s["median_ms"], 2)
                             if best_tfd and "median_ms" in s else None})
            _write(rows, out, final=False)  # what is measured so far survives a later model's crash
    _write(rows, out)
    return 0


def _write(rows: list[dict], out: pathlib.Path, final: bool = True) -> None:
    cols = ["model", "contender", "median_ms", "p10_ms", "p90_ms", "examples_per_s", "x_best_tf_distribute",
            "steps_per_call", "error"]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in rows:
        cells = [f"{r[c]:.1f}" if isinstance(r.get(c), float) else str(r.get(c, "") or "") for c in cols]
        lines.append("| " + " | ".join(cells) + " |")
    table = "\n".join(lines)
    (out / "table.md").write_text(table + "\n")
    (out / "rows.json").write_text(json.dumps(rows, indent=1))
    if not final:
        return
    print("\n" + table)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    measured = [r for r in rows if "median_ms" in r]
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(measured) + 1.5))
    labels = [f"{r['model']}: {r['contender']}" for r in measured]
    ax.barh(labels, [r["examples_per_s"] for r in measured], color=["tab:blue" if "autotune" in r["contender"]
                                                                    else "tab:gray" for r in measured])
    ax.invert_yaxis()
    ax.set_xlabel("examples/s (median step)")
    ax.set_title("autotune vs tf.distribute on the testbed")
    fig.tight_layout()
    fig.savefig(out / "vs_tf_distribute.png", dpi=110)
    print(f"wrote {out / 'table.md'}, {out / 'vs_tf_distribute.png'}")


if __name__ == "__main__":
    sys.exit(main())
