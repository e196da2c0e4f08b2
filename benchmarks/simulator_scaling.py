"""How the simulator's cost grows with the cluster and the model: strategies per second over nodes x variables.

Run: python3 benchmarks/simulator_scaling.py [--nodes 3 16 64 256] [--variables 200 2000] [--budget 3]
     [--racks 8] [--out runs/bench-simulator_scaling]

``--racks R`` puts the nodes in R groups whose traffic across is capped at a quarter of the NICs (the cost model's
resources across groups, as on examples/clusters/racks_256.yml); without it the nodes are alike and flat.

Per cell: the Scorer's construction, ``score_choices`` (vectorised) and ``Scorer.predict`` (one Strategy at a
time), each timed on as many strategies as fit in about ``--budget`` seconds (after a small warm-up that sizes
it). A PS variable takes 1 to ``--max-shards`` shards, as a search would draw them: a strategy with a shard on
every node of 256 has 256 times the columns to score. Rates are per wall-clock second and per CPU second of this
process (what the code costs when the 2 shared cores are busy with other work); the growth exponents are
log-log least-squares slopes of the CPU seconds per strategy: in nodes at each variable count, in variables at
each node count.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import simulator  # noqa: E402
from simulator_throughput import make_cluster, make_model, random_choices, random_strategy  # noqa: E402


def _timed(fn, count: int) -> tuple[float, float]:
    """Strategies per second of ``fn`` scoring ``count`` strategies: (wall clock, CPU time of this process)."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn(count)
    return count / max(time.perf_counter() - t0, 1e-9), count / max(time.process_time() - c0, 1e-9)


def _sized(fn, budget_s: float, warm: int, most: int) -> tuple[float, float, int]:
    """(wall rate, CPU rate, strategies): a warm-up of ``warm`` strategies sizes the run to about ``budget_s``."""
    first = _timed(fn, warm)
    count = int(np.clip(first[0] * budget_s, warm, most))
    wall, cpu = _timed(fn, count)
    return wall, cpu, count


def in_racks(cluster, racks: int):
    """``cluster`` with its nodes in ``racks`` groups (consecutive nodes together), capped across at NIC / 4."""
    from space.cluster import ClusterSpec

    d = cluster.to_dict()
    per = -(-len(d["nodes"]) // racks)
    for i, node in enumerate(d["nodes"]):
        node["group"] = f"rack{i // per}"
    d["topology"] = {"inter_group": {"bandwidth": min(n["network_bandwidth"] for n in d["nodes"]) / 4}}
    return ClusterSpec.from_dict(d)


def measure(nodes: int, variables: int, budget_s: float, max_shards: int, racks: int = 0) -> dict:
    inv, cluster = make_model(variables), make_cluster(nodes)
    if racks and nodes >= 2 * racks:
        cluster = in_racks(cluster, racks)
    t0 = time.perf_counter()
    scorer = simulator.Scorer(inv, cluster, simulator.Calibration.from_spec(cluster))
    build_s = time.perf_counter() - t0
    pool = random_choices(inv, nodes, 20_000, max_shards=max_shards)
    rng = np.random.default_rng(2)
    strategies = [random_strategy(inv, cluster, rng, max_shards=max_shards) for _ in range(64)]

    def vectorised(count: int) -> None:
        scorer.score_choices(simulator.Choices(**{k: None if v is None else v[:count] for k, v in vars(pool).items()}))

    def one_at_a_time(count: int) -> None:
        for i in range(count):
            scorer.predict(strategies[i % len(strategies)])

    vec, vec_cpu, n_vec = _sized(vectorised, budget_s, 16, 20_000)
    one, one_cpu, n_one = _sized(one_at_a_time, budget_s, 2, 2_000)
    return dict(nodes=nodes, variables=variables, build_s=build_s, vectorised=vec, vectorised_cpu=vec_cpu,
                n_vectorised=n_vec, one=one, one_cpu=one_cpu, n_one=n_one)


def slope(x, y) -> float:
    """Least-squares slope of log(y) against log(x)."""
    return float(np.polyfit(np.log(x), np.log(y), 1)[0]) if len(x) > 1 else float("nan")


def exponents(rows: list[dict], key: str) -> tuple[dict, dict]:
    """Growth exponents of the seconds per strategy on path ``key``: (per variable count in nodes, per node count
    in variables)."""
    cost = {(r["nodes"], r["variables"]): 1.0 / r[key] for r in rows}
    nodes, variables = sorted({n for n, _ in cost}), sorted({v for _, v in cost})
    in_nodes = {v: slope(nodes, [cost[n, v] for n in nodes]) for v in variables}
    in_vars = {n: slope(variables, [cost[n, v] for v in variables]) for n in nodes}
    return in_nodes, in_vars


def report(rows: list[dict]) -> str:
    lines = [f"{'nodes':>5s} {'variables':>9s} {'build_s':>8s} {'vectorised/s':>13s} {'per CPU s':>10s} {'(n)':>6s} "
             f"{'one at a time/s':>16s} {'per CPU s':>10s} {'(n)':>5s}"]
    for r in rows:
        lines.append(f"{r['nodes']:5d} {r['variables']:9d} {r['build_s']:8.3f} {r['vectorised']:13,.0f} "
                     f"{r['vectorised_cpu']:10,.0f} {r['n_vectorised']:6d} {r['one']:16,.1f} {r['one_cpu']:10,.1f} "
                     f"{r['n_one']:5d}")
    lines.append("growth exponent of the CPU seconds per strategy (log-log least squares):")
    for key, name in (("vectorised_cpu", "vectorised"), ("one_cpu", "one at a time")):
        in_nodes, in_vars = exponents(rows, key)
        lines.append(f"  {name:14s} in nodes:     " + ", ".join(f"{e:.2f} ({v} variables)"
                                                            for v, e in in_nodes.items()))
        lines.append(f"  {'':14s} in variables: " + ", ".join(f"{e:.2f} ({n} nodes)" for n, e in in_vars.items()))
    return "\n".join(lines)


def plot(rows: list[dict], path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for key, style in (("vectorised_cpu", "-o"), ("one_cpu", "--s")):
        for v in sorted({r["variables"] for r in rows}):
            cell = [r for r in rows if r["variables"] == v]
            ax.plot([r["nodes"] for r in cell], [r[key] for r in cell], style,
                    label=f"{'score_choices' if key == 'vectorised_cpu' else 'predict'}, {v} variables")
    ax.set(xscale="log", yscale="log", xlabel="nodes", ylabel="strategies per CPU second",
           title="Simulator throughput by cluster size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="+", default=[3, 16, 64, 256])
    ap.add_argument("--variables", type=int, nargs="+", default=[200, 2000])
    ap.add_argument("--budget", type=float, default=3.0, help="seconds per path and cell, about")
    ap.add_argument("--max-shards", type=int, default=4)
    ap.add_argument("--racks", type=int, default=0, help="nodes in this many groups, capped across (0: flat)")
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("runs/bench-simulator_scaling"))
    args = ap.parse_args(argv)

    rows = [measure(n, v, args.budget, args.max_shards, args.racks) for v in args.variables for n in args.nodes]
    text = report(rows)
    print(text)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scaling.txt").write_text(text + "\n")
    plot(rows, args.out / "scaling.png")
    print(f"wrote {args.out / 'scaling.txt'} and {args.out / 'scaling.png'}")


if __name__ == "__main__":
    main()
