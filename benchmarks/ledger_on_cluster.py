"""The bytes ledger against a real cluster: what TensorFlow itself sends, per link and direction.

    python benchmarks/ledger_on_cluster.py [--nodes 3] [--cases mlp:all_reduce,recommender:ps,...] [--steps 30]
                                           [--out runs/bench-ledger]

Starts ``--nodes`` TensorFlow servers on loopback addresses (127.0.0.1, .2, ...) and runs each case (model:builder)
there. Per link a -> b it prints the cost model's ledger (``Scorer.ledger``), the count read from the built graph
(``TrainGraph.traffic``), and two measurements:

- **tf_tensors**: the tensors TensorFlow's partition graphs send between tasks in one step (``_Send`` nodes, their
  sizes from a full trace), against ``graph_tensors``, the graph count without its collectives. Exact wherever
  the sizes are static; a partitioned table's rows per shard depend on the batch's ids, which the count takes at
  their expected share.
- **sockets**: the payload the servers' TCP connections carry per step (``ss``, bytes acknowledged over
  ``--steps`` steps): tensors and collectives with gRPC's framing and every RPC's own messages, against the count.

Raw rows go to ``--out/rows.json``.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEFAULT_CASES = ("mlp:all_reduce,mlp:all_reduce_fp16,mlp:all_reduce_powersgd,mlp:ps,recommender:ps,"
                 "recommender:partitioned_ps,recommender:all_reduce,cnn:ps_async,examples/zoo/shared_embedding.py:ps_lb,"
                 "examples/zoo/tied_weights.py:ps")


def socket_bytes(pids: dict[int, str]) -> collections.Counter:
    """Bytes acknowledged so far on the TCP connections between the servers ``pids`` (pid -> node address), per
    (sending node, receiving node)."""
    out = subprocess.run(["ss", "-tinpH"], capture_output=True, text=True, check=True).stdout.splitlines()
    socks = []
    for line, info in zip(out[::2], out[1::2]):
        m = re.search(r"pid=(\d+)", line)
        if m and int(m.group(1)) in pids:
            acked = re.search(r"bytes_acked:(\d+)", info)
            fields = line.split()
            socks.append((int(m.group(1)), fields[3], fields[4], int(acked.group(1)) if acked else 0))
    owner = {local: pid for pid, local, _, _ in socks}
    total: collections.Counter = collections.Counter()
    for pid, _, peer, acked in socks:
        if owner.get(peer, pid) != pid:
            total[(pids[pid], pids[owner[peer]])] += acked
    return total


def run_case(cluster, spec, traced, inv, alias: str, steps: int) -> list[dict]:
    from runners.transform import TrainingJob
    from simulator import Calibration, Scorer
    from space.builders import build_strategy

    strategy = build_strategy(alias, inv, spec)
    ledger = Scorer(inv, spec, Calibration.from_spec(spec)).ledger(strategy)
    pids = {s.pid: s.node.address for s in cluster.servers}
    with TrainingJob(traced, strategy, cluster) as job:
        items: list = []
        from runners.transform._traffic import partition_traffic, step_traffic

        graph = step_traffic(job.graph, items)
        graph_tensors: collections.Counter = collections.Counter()
        for a, b, name, nbytes in items:
            if not name.startswith("Collective"):
                graph_tensors[(a, b)] += nbytes
        job.run(3)
        sent = collections.Counter(partition_traffic(job))
        before = socket_bytes(pids)
        job.run(steps)
        after = socket_bytes(pids)
    rows = []
    for link in sorted(set(ledger) | set(graph) | set(sent) | set(after)):
        sock = (after[link] - before[link]) / steps
        rows.append({"link": f"{link[0]}->{link[1]}", "ledger": ledger.get(link, 0.0), "graph": graph.get(link, 0.0),
                     "graph_tensors": graph_tensors[link], "tf_tensors": sent[link], "sockets": sock})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--cases", default=DEFAULT_CASES, help="model:builder,... (a model name or a model file)")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--out", default="runs/bench-ledger")
    args = ap.parse_args()
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from runners.cluster import start_cluster
    from space.cluster import ClusterSpec
    from space.model import inventory_from_trace, trace_step

    spec = ClusterSpec.from_dict({"nodes": [{"address": f"127.0.0.{i + 1}", "chief": i == 0, "cpus": [0]}
                                            for i in range(args.nodes)]})
    traced: dict = {}
    results = []
    print(f"{'model':<20} {'builder':<22} {'link':<22} {'ledger':>10} {'graph':>10} {'graph_tensors':>13} "
          f"{'tf_tensors':>10} {'sockets':>10} {'over':>7}")
    with start_cluster(spec, timeout_s=120) as cluster:
        for case in args.cases.split(","):
            model, alias = case.rsplit(":", 1)
            if model not in traced:
                path = model if model.endswith(".py") else ROOT / "examples" / "models" / f"{model}.py"
                t = trace_step(path)
                traced[model] = (t, inventory_from_trace(t))
            for row in run_case(cluster, spec, *traced[model], alias, args.steps):
                results.append({"model": model, "builder": alias, **row})
                over = (row["sockets"] - row["graph"]) / row["graph"] * 100 if row["graph"] else float("nan")
                print(f"{pathlib.Path(model).stem:<20} {alias:<22} {row['link']:<22} {row['ledger']:>10.0f} "
                      f"{row['graph']:>10.0f} {row['graph_tensors']:>13.0f} {row['tf_tensors']:>10.0f} "
                      f"{row['sockets']:>10.0f} {over:>6.1f}%")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "rows.json").write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
