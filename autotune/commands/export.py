"""``autotune export s.pb --to tf-config|json|slurm|k8s [--spec cluster.yml] [-o FILE]``: a strategy for other
launchers.

``tf-config``: the TF_CONFIG of each node (job "worker", task i = i-th node of the spec). ``json``: a plain,
versioned description of every variable's synchronizer. What a format cannot express is listed on stderr.
``slurm``: an sbatch script that trains with the strategy; ``k8s``: manifests (an indexed Job and a headless
Service, or a Kubeflow TFJob) whose pods serve the spec's nodes and train with it.
"""
from __future__ import annotations

import pathlib
import sys

from autotune.commands import _common
from autotune.export import DEFAULT_PORT, TARGETS, check_job, export
from space.cluster import load_cluster
from space.errors import BadInput
from space.strategy import Strategy


def _ports(text: str) -> int | list[int]:
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise BadInput(f"--port takes a port or a comma-separated list of ports, got {text!r}",
                       hint="--port 2222 or --port 2222,2223") from None
    return values[0] if len(values) == 1 else values


def register(sub) -> None:
    p = sub.add_parser("export", help="export a strategy as TF_CONFIG per node or versioned JSON", description=__doc__)
    p.add_argument("strategy", metavar="S.PB", help="strategy file (.pb or .pbtxt)")
    p.add_argument("--to", required=True, choices=TARGETS, help="target format")
    p.add_argument("--spec", default=None, metavar="CLUSTER.YML",
                   help="cluster spec: fixes task order and chief (tf-config; default: the strategy's devices)")
    p.add_argument("--port", default=str(DEFAULT_PORT), metavar="PORT[,PORT...]",
                   help=f"server port, one for all nodes or one per node in spec order ({DEFAULT_PORT})")
    p.add_argument("--task", type=int, default=None, metavar="I",
                   help="tf-config: print only task I's TF_CONFIG value (for `export TF_CONFIG=$(...)`)")
    p.add_argument("--model", default=None, metavar="M.PY", help="slurm, k8s: the model file to train")
    p.add_argument("--steps", type=_common.count(1), default=1000, help="slurm, k8s: training steps (1000)")
    p.add_argument("--checkpoint", default=None, metavar="DIR", help="slurm, k8s: checkpoint folder of the job")
    p.add_argument("--image", default=None, help="k8s: container image with autotune and what the model imports")
    p.add_argument("--name", default="autotune-train",
                   help="k8s, slurm: the job's name (autotune-train); slurm: 1-128 of A-Z a-z 0-9 . _ -; k8s: a "
                   "DNS-1035 label (a-z 0-9 -, a letter first) short enough for its pods' names")
    p.add_argument("--kind", choices=["job", "tfjob"], default="job",
                   help="k8s: an indexed Job with a headless Service (job), or a Kubeflow TFJob (tfjob)")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write here instead of stdout")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.output:
        _common.writable_file(args.output, "-o")
    spec = load_cluster(args.spec) if args.spec else None
    # the job's name and paths are refused before the strategy is read
    check_job(args.to, spec, {"name": args.name, "kind": args.kind, "checkpoint": args.checkpoint})
    strategy = Strategy.load(args.strategy)
    result = export(strategy, args.to, spec=spec, ports=_ports(args.port), model=args.model, steps=args.steps,
                    checkpoint=args.checkpoint, image=args.image, name=args.name, kind=args.kind,
                    strategy_path=args.strategy)
    text = result.text()
    if args.task is not None:
        tasks = result.document.get("tasks", [])
        if args.to != "tf-config" or not 0 <= args.task < len(tasks):
            raise BadInput(f"--task {args.task} needs --to tf-config and 0 <= I < {len(tasks)}",
                           hint="task indices follow the nodes of the spec")
        text = tasks[args.task]["TF_CONFIG"] + "\n"
    if args.output:
        path = pathlib.Path(args.output)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path} ({args.to})", file=sys.stderr)
    else:
        sys.stdout.write(text)
    for note in result.document.get("notes", []):
        print(f"note: {note}", file=sys.stderr)
    if result.dropped:
        print(f"note: --to {args.to} cannot express, and drops: " + result.dropped[0], file=sys.stderr)
        for line in result.dropped[1:]:
            print(f"note: {line}", file=sys.stderr)
        print("note: run the job with `autotune train --strategy S.PB` (or export --to json for a launcher that "
              "applies per-variable settings)", file=sys.stderr)
    return 0
