"""``autotune calibrate --spec cluster.yml [--model m.py]``: measure the cost model's constants on the cluster.

Starts the cluster's servers once; measures per-link bandwidth and latency, all-reduce and per-tensor overheads,
and with ``--model`` the model's one-replica step time; stores the calibration where ``autotune search`` and
``autotune validate-simulator`` look for it (keyed by the spec's content and the model's hash).
"""
from __future__ import annotations

import sys

from autotune._configs import CalibrateConfig
from autotune._options import add_options, values
from autotune.calibration import format_table, measure_and_store
from autotune.commands import _common
from simulator import anchor_fit
from space.cluster import load_cluster
from space.model import model_file


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="measure bandwidths, latencies, overheads and the step time on the cluster",
                       description=__doc__)
    p.add_argument("--spec", required=True, metavar="CLUSTER.YML", help="cluster spec")
    add_options(p, CalibrateConfig)
    p.set_defaults(func=run)


def run(args) -> int:
    cfg = CalibrateConfig(**values(args, CalibrateConfig))
    if cfg.model is not None:
        model_file(cfg.model)
    if cfg.output:
        _common.writable_file(cfg.output, "--output")
    spec = load_cluster(args.spec)
    say = (lambda _m: None) if cfg.quiet else (lambda m: print(f"calibrate: {m}", file=sys.stderr, flush=True))
    m, inventory, cal, path = measure_and_store(
        spec, cfg.model, cfg.cache_dir, f"autotune calibrate --spec {args.spec}", progress=say,
        accept_unknown_hosts=cfg.accept_unknown_hosts, sizes=list(cfg.sizes), repeats=cfg.repeats,
        rpc_tensors=cfg.rpc_tensors, steps=cfg.steps, warmup=cfg.warmup)
    fit = anchor_fit(cal, inventory, spec) if inventory is not None and cal.anchors_s else None
    print(format_table(m, cal, fit))
    print(f"\nwrote {path}")
    if cfg.output:
        print(f"wrote {cal.save(cfg.output)}")
    return 0
