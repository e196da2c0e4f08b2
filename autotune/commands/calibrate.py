"""``autotune calibrate --spec cluster.yml [--model m.py]``: measure the cost model's constants on the cluster.

Starts the cluster's servers once; measures per-link bandwidth and latency, all-reduce and per-tensor overheads,
and with ``--model`` the model's one-replica step time; stores the calibration where ``autotune search`` and
``autotune validate-simulator`` look for it (keyed by the spec's content and the model's hash).
"""
from __future__ import annotations

import re
import sys

from autotune.calibration import format_table, measure_and_store
from autotune.commands import _common
from simulator import anchor_fit
from space.cluster import load_cluster
from space.errors import BadInput
from space.model import model_file

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmg]i?b?|b)?\s*$", re.IGNORECASE)
DEFAULT_SIZES = "256k,1m,4m"


def parse_sizes(text: str) -> list[int]:
    """``"256k,1m,4m"`` -> bytes (k/m/g are powers of 1024); at least two different sizes."""
    out = []
    for item in text.split(","):
        m = _SIZE.match(item)
        if not m:
            raise BadInput(f"`--sizes` items must be sizes such as 256k or 4m, but got {item.strip()!r}",
                           hint=f"e.g. --sizes {DEFAULT_SIZES}")
        scale = {"": 1, "b": 1, "k": 2**10, "m": 2**20, "g": 2**30}[(m.group(2) or "")[:1].lower()]
        out.append(int(float(m.group(1)) * scale))
    if len(set(out)) < 2 or min(out) < 4:
        raise BadInput(f"`--sizes` needs at least two different sizes of at least 4 bytes, but got {text!r}",
                       hint=f"e.g. --sizes {DEFAULT_SIZES}")
    return sorted(set(out))


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="measure bandwidths, latencies, overheads and the step time on the cluster",
                       description=__doc__)
    p.add_argument("--spec", required=True, metavar="CLUSTER.YML", help="cluster spec")
    p.add_argument("--model", default=None, metavar="M.PY", help="also measure this model's single-replica step")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="where calibrations are stored: DIR/calibration/ (default: $AUTOTUNE_CACHE_DIR or "
                        "~/.cache/autotune)")
    p.add_argument("--sizes", default=DEFAULT_SIZES, metavar="LIST",
                   help=f"message sizes per link and all-reduce (default {DEFAULT_SIZES}; k/m = KiB/MiB)")
    p.add_argument("--repeats", type=int, default=5, help="timed runs per probe, median taken (5)")
    p.add_argument("--rpc-tensors", type=int, default=200, help="tiny tensors of the per-tensor overhead probe (200)")
    p.add_argument("--steps", type=int, default=20, help="timed model steps (20)")
    p.add_argument("--warmup", type=int, default=3, help="untimed model steps first (3)")
    p.add_argument("--output", default=None, metavar="FILE", help="also write the calibration to FILE")
    p.add_argument("--accept-unknown-hosts", action="store_true", help="accept SSH host keys not in known_hosts")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.set_defaults(func=run)


def run(args) -> int:
    sizes = parse_sizes(args.sizes)
    checks = {"repeats": args.repeats >= 1, "rpc-tensors": args.rpc_tensors >= 2, "steps": args.steps >= 1,
              "warmup": args.warmup >= 0}
    for name, ok in checks.items():
        if not ok:
            raise BadInput(f"`--{name}` is out of range: {getattr(args, name.replace('-', '_'))!r}",
                           hint="repeats/steps >= 1, rpc-tensors >= 2, warmup >= 0")
    if args.model is not None:
        model_file(args.model)
    if args.output:
        _common.writable_file(args.output, "--output")
    spec = load_cluster(args.spec)
    say = (lambda _m: None) if args.quiet else (lambda m: print(f"calibrate: {m}", file=sys.stderr, flush=True))
    m, inventory, cal, path = measure_and_store(
        spec, args.model, args.cache_dir, f"autotune calibrate --spec {args.spec}", progress=say,
        accept_unknown_hosts=args.accept_unknown_hosts, sizes=sizes, repeats=args.repeats,
        rpc_tensors=args.rpc_tensors, steps=args.steps, warmup=args.warmup)
    fit = anchor_fit(cal, inventory, spec) if inventory is not None and cal.anchors_s else None
    print(format_table(m, cal, fit))
    print(f"\nwrote {path}")
    if args.output:
        print(f"wrote {cal.save(args.output)}")
    return 0
