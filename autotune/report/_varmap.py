"""The per-variable map of a strategy: which variable sits on which PS, in which all-reduce group,
compressed or not, sharded how, next to its size. One row per variable, largest first."""
from __future__ import annotations

import pathlib

from matplotlib.ticker import FuncFormatter

from autotune.report.figures import _save, plt
from space.strategy import COMPRESSOR_SHORT, Compressor

PS_COLORS = ["#1f77b4", "#17becf", "#2ca02c", "#9467bd", "#8c564b", "#7f7f7f", "#aec7e8", "#98df8a"]
AR_COLORS = ["#ff7f0e", "#d62728", "#e377c2", "#bcbd22", "#ffbb78", "#ff9896", "#f7b6d2", "#dbdb8d"]


def _tensors(node):
    """``[(shard node, fraction of the variable)]``: the node itself, or one entry per shard."""
    parts = list(node.part_config) or [node]
    return [(p, 1 / len(parts)) for p in parts]


def _key(node) -> tuple[str, str]:
    """(colour key, short label) of one tensor's synchronizer."""
    kind = node.WhichOneof("synchronizer")
    if kind == "PSSynchronizer":
        s = node.PSSynchronizer
        flags = ["sync" if s.sync else f"async s={s.staleness}" if s.staleness else "async"]
        if s.local_replication:
            flags.append("proxy")
        return f"PS {s.reduction_destination}", " ".join(flags)
    if kind == "AllReduceSynchronizer":
        s = node.AllReduceSynchronizer
        comp = COMPRESSOR_SHORT[Compressor.Name(s.compressor)]
        if comp == "powersgd":
            comp += f" r={s.powersgd_rank or 1}"
        return f"AR group {s.group}", "" if comp == "none" else comp
    return "none", ""


def strategy_map(strategy, path: pathlib.Path, inventory=None, *, max_rows: int = 40,
                 title: str = "") -> pathlib.Path:
    """Draw the map; ``inventory`` (``space.inventory.Inventory``) gives sizes and sparse flags, else names only."""
    from matplotlib.patches import Patch

    nodes = list(strategy.proto.node_config)
    sizes = {v.name: v for v in inventory.variables} if inventory is not None else {}
    nodes.sort(key=lambda n: -(sizes[n.var_name].bytes if n.var_name in sizes else 0))
    shown, rest = nodes[:max_rows], nodes[max_rows:]
    keys = sorted({_key(p)[0] for n in nodes for p, _ in _tensors(n)},
                  key=lambda k: (not k.startswith("PS"), int(k.split()[-1]) if k.startswith("AR") else 0, k))
    ps = [k for k in keys if k.startswith("PS")]
    ar = [k for k in keys if k.startswith("AR")]
    color = {k: PS_COLORS[i % len(PS_COLORS)] for i, k in enumerate(ps)}
    color.update({k: AR_COLORS[i % len(AR_COLORS)] for i, k in enumerate(ar)})
    color["none"] = "white"
    tag = {k: (f"PS{i}" if k.startswith("PS") else f"G{k.split()[-1]}") for i, k in enumerate(ps)}
    tag.update({k: f"G{k.split()[-1]}" for k in ar})
    tag["none"] = "?"

    n = len(shown)
    height = 0.34 * n + 2.0
    fig, (axs, axm) = plt.subplots(1, 2, figsize=(12, height), sharey=True,
                                   gridspec_kw={"width_ratios": [1, 2.4] if sizes else [0.01, 2.4], "wspace": 0.03})
    y = list(range(n))
    labels = []
    for node in shown:
        info = sizes.get(node.var_name)
        labels.append(node.var_name.removesuffix(":0") + (" (sparse)" if info is not None and info.sparse else ""))
    axs.set_yticks(y, labels, fontsize=7)
    _draw_sizes(axs, shown, sizes)
    axm.tick_params(axis="y", left=False)
    fig.subplots_adjust(top=1 - 0.95 / height, bottom=0.6 / height)
    _draw_placements(axm, shown, color, tag)
    axm.set_xlim(0, 1.12)
    axm.set_xticks([])
    axm.invert_yaxis()
    for spine in ("top", "right", "bottom"):
        axm.spines[spine].set_visible(False)
    handles = [Patch(color=color[k], label=f"{tag[k]} = {k.removeprefix('PS ')}" if k.startswith("PS")
                     else f"{tag[k]} = {k}") for k in ps + ar]
    handles.append(Patch(facecolor="white", edgecolor="gray", hatch="///", label="compressed (fp16 / PowerSGD)"))
    handles.append(Patch(facecolor="gray", alpha=0.45, label="asynchronous PS (s = staleness)"))
    axm.legend(handles=handles, fontsize=7, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=3, frameon=False)
    head = title or f"Strategy {strategy.proto.id}: per-variable map, largest first"
    if rest:
        head += f"\n{len(rest)} smaller variables not shown"
    fig.suptitle(head, fontsize=10, x=0.02, y=1 - 0.1 / height, ha="left", va="top")
    return _save(fig, path, tight=False)


def human_bytes(b: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= scale:
            return f"{b / scale:.3g} {unit}"
    return f"{b:.0f} B"


def _draw_sizes(axs, shown: list, sizes: dict) -> None:
    """The left panel: each shown variable's size as a bar on a log axis (blank without an inventory)."""
    if not sizes:
        axs.set_xticks([])
        for spine in axs.spines.values():
            spine.set_visible(False)
        return
    nbytes = [sizes[v.var_name].bytes if v.var_name in sizes else 0 for v in shown]
    axs.barh(list(range(len(shown))), nbytes, color="#bbbbbb", height=0.6)
    axs.set_xscale("log")
    axs.set_xlim(min([b for b in nbytes if b > 0] or [1]) / 3, max(nbytes or [1]) * 60)
    axs.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: human_bytes(v)))
    axs.set_xlabel("size (log)")
    for i, b in enumerate(nbytes):
        axs.text(b, i, " " + human_bytes(b), va="center", fontsize=7)
    for spine in ("top", "right"):
        axs.spines[spine].set_visible(False)


def _draw_placements(axm, shown: list, color: dict, tag: dict) -> None:
    """The right panel: each shown variable's shards, side by side, colored by where they are synchronized."""
    for i, node in enumerate(shown):
        left = 0.0
        tensors = _tensors(node)
        for part, frac in tensors:
            key, flags = _key(part)
            compressed = key.startswith("AR") and flags != ""
            axm.barh(i, frac, left=left, height=0.7, color=color[key], edgecolor="white", linewidth=1.2,
                     hatch="///" if compressed else None, alpha=0.55 if "async" in flags else 1.0)
            text = tag[key] if len(tensors) > 2 else f"{tag[key]} {flags}".strip()
            axm.text(left + frac / 2, i, text, ha="center", va="center", fontsize=7,
                     bbox={"facecolor": "white", "alpha": 0.7, "linewidth": 0, "pad": 0.8})
            left += frac
        if node.partitioner:
            axm.text(1.005, i, f"{len(tensors)} shards", va="center", fontsize=7)
