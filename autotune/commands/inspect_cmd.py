"""``autotune inspect --model m.py``: the model's variables (shape, bytes, sparse gradient), its state (lookup tables
included), FLOPs, batch, activations and optimizer."""
from __future__ import annotations

from autotune._quiet import stdout_to_stderr
from autotune.commands import _common
from space import format_table
from space._optimizers import describe
from space._units import format_bytes


def register(sub) -> None:
    p = sub.add_parser("inspect", help="list a model's variables (shape, bytes, sparse gradient)",
                       description=__doc__)
    _common.add_model(p)
    p.add_argument("--json", action="store_true", help="print the inventory as JSON")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.json:
        with stdout_to_stderr():  # the model's own prints must not spoil the JSON
            inv = _common.inventory(args)
        _common.print_json(inv.to_dict())
        return 0
    inv = _common.inventory(args)
    rows = [{"variable": v.name, "shape": "x".join(map(str, v.shape)) or "scalar", "dtype": v.dtype,
             "bytes": v.bytes, "gradient": "sparse" if v.sparse else "dense",
             "rows/step": v.gather_rows if v.sparse else ""} for v in inv.variables]
    print(format_table(rows))
    if inv.state or inv.tables:
        state = [f"{v.name} {list(v.shape)}" for v in inv.state]
        state += [f"{t.name} (lookup table {t.key_dtype} -> {t.value_dtype}, {t.size} entries, on every replica)"
                  for t in inv.tables]
        print("\nnon-trainable state: " + ", ".join(state))
    print(f"\n{len(inv.variables)} trainable variables, {inv.total_bytes / 1e6:.3f} MB; "
          f"batch {inv.batch_size}; ~{inv.flops_per_step / 1e6:.1f} MFLOP per step"
          f"{f' ({inv.flops_note})' if inv.flops_note else ''}; "
          f"activations {format_bytes(inv.activation_bytes)} a replica; "
          f"optimizer {describe(inv.optimizer)}")
    return 0
