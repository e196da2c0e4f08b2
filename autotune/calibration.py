"""A stored calibration brought up to this version's cost model before anything predicts with it, and the table
``autotune calibrate`` prints of what it measured and derived.

``autotune calibrate`` stores the anchor steps it timed (``Calibration.anchors_s``) beside the costs it derived from
them, and the version of the cost model that derived them (``Calibration.cost_model``). A later version may derive
other costs from the same steps (each cost is what makes the model's prediction of a step, or of the difference of
two, meet the measurement), so a file derived by another version is derived again here, from its own steps, with no
new measurement and nothing replaced by defaults, and the caller's progress line says so.
"""
from __future__ import annotations

from collections.abc import Callable
import pathlib

from runners._measurements import cluster_probes, from_cluster_probes
from runners.calibrate import run_calibration
from simulator import (ANCHOR_MISFIT, ANCHOR_PAIRS, COST_MODEL_VERSION, PIECE_PAIRS, RESOLVED_SE, Calibration,
                       CalibrationError, anchor_costs, anchor_misfits, borrowed_piece_cost, calibration_path, fit_link,
                       pair_difference, resolved, to_calibration)
from space.cluster import ClusterSpec
from space.inventory import Inventory
from space.model import default_cache_dir


def measure_and_store(spec: ClusterSpec, model: str | None, cache_dir: str | None, source: str, *,
                      progress: Callable[[str], None], accept_unknown_hosts: bool = False, reuse=None, **probes):
    """Measure ``spec`` (and ``model``'s steps) on the cluster, turn it into a Calibration and store it where
    ``search`` and ``validate-simulator`` look for it. With ``reuse`` (a calibration of this spec that kept its
    cluster probes, :func:`cluster_calibration`) only the model's part is measured, the cluster's taken from it.
    Returns (measurements, inventory, calibration, path)."""
    kept = from_cluster_probes(reuse.probes) if reuse is not None else None
    m, inventory = run_calibration(spec, model_path=model, accept_unknown_hosts=accept_unknown_hosts,
                                   probes=kept, progress=progress, **probes)
    cal = to_calibration(m, spec, inventory, source=source).replace(probes=cluster_probes(m))
    directory = pathlib.Path(cache_dir) if cache_dir else default_cache_dir()
    return m, inventory, cal, cal.save(calibration_path(directory / "calibration", spec, cal.model_hash))


def stored_calibration(spec: ClusterSpec, inventory: Inventory, cache_dir: str | None):
    """The calibration stored for ``spec`` and this model (``autotune calibrate --model``, or a search's quick one),
    else the spec's model-less one; None where there is neither."""
    directory = (pathlib.Path(cache_dir) if cache_dir else default_cache_dir()) / "calibration"
    for model_hash in (inventory.model_hash, None):
        path = calibration_path(directory, spec, model_hash)
        if path.is_file():
            return Calibration.load(path, cluster=spec, model_hash=model_hash)
    return None


def cluster_calibration(directory, spec: ClusterSpec):
    """The newest calibration stored in ``directory`` for ``spec`` (any model's, or none's) that kept its cluster
    probes, and its path; None where there is none. A file that does not load (malformed, another spec's) is
    passed over: it is not the one asked for, and the caller measures instead."""
    found = []
    for path in pathlib.Path(directory).glob(f"{spec.fingerprint}*.json"):
        try:
            cal = Calibration.load(path, cluster=spec)
        except CalibrationError:
            continue
        if cal.probes is not None:
            found.append((cal.created_at, str(path), cal))
    if not found:
        return None
    _, path, cal = max(found, key=lambda f: f[:2])
    return cal, pathlib.Path(path)


def current_costs(cal, inventory: Inventory, cluster: ClusterSpec, say: Callable[[str], None]):
    """``cal`` with its anchor costs as this version's cost model derives them from its stored anchor steps (the
    same object when it has none, or when this version derived them). A stored residual is kept: it was fitted to
    the older model's predictions, which the line says, with how to fit it again without measuring."""
    if not cal.anchors_s or cal.cost_model == COST_MODEL_VERSION:
        return cal
    new = anchor_costs(cal, inventory, cluster)
    changed = [f"{name} {_value(getattr(cal, name))} -> {_value(getattr(new, name))}" for name in DERIVED
               if moved(getattr(cal, name), getattr(new, name))]
    line = (f"calibration {cal.source} was derived by cost model {cal.cost_model or 1}; the anchor costs derived "
            f"again by this version's ({COST_MODEL_VERSION}) from its {len(cal.anchors_s)} anchor steps: "
            + ("; ".join(changed) if changed else f"none moved by more than {MOVED:.1%}"))
    if cal.residual is not None:
        line += (" (its residual was fitted to the older model's predictions: `autotune validate-simulator --reuse "
                 "RUN_DIR --fit-residual` fits it again from a run's measurements, without profiling)")
    say(line)
    return new


# the fields ``anchor_costs`` sets, in the order its line names them
DERIVED = ("collective_bandwidth_factor", "collective_overhead_s", "ar_piece_s", "ps_piece_s", "ps_serial_fraction",
           "ps_spread_serial", "ps_spread_busiest", "powersgd_matrix_s")


MOVED = 1e-3  # a cost that moves less is the solver's tolerance (each solve starts from the stored value)


def moved(old, new) -> bool:
    """Whether a derived cost moved beyond the solver's tolerance (by more than ``MOVED`` of itself, and 1e-9)."""
    if old is None or new is None:
        return old is not new
    return abs(new - old) > MOVED * max(abs(old), abs(new)) and abs(new - old) > 1e-9


def _value(x) -> str:
    return "none" if x is None else f"{x:.4g}"


def format_table(m, cal, fit: dict[str, tuple[float, float]] | None = None) -> str:
    """Human-readable summary of calibrate's measurements (``runners.calibrate.Measurements``) and the constants
    derived from them; with ``fit`` (``simulator.anchor_fit``), each anchor step as the cost model predicts it,
    and the ones it misses."""
    lines = [f"{'link':<36}{'bandwidth':>14}{'latency':>12}   medians per size"]
    for f in map(fit_link, m.links):
        per = ", ".join(f"{_size(s)} {t * 1e3:.2f}ms" for s, t in zip(f.sizes, f.seconds))
        lines.append(f"{f.src + ' -> ' + f.dst:<36}{f.bandwidth_gbit * 1e3:>9.1f} Mbit{f.latency_s * 1e6:>9.0f} us"
                     f"   {per} (session {f.base_s * 1e3:.2f}ms)")
    lines.append("")
    rows = _constant_rows(m, cal)
    bases = {name: base for _, name, base in ANCHOR_PAIRS if base is not None}
    sets = _anchor_sets(cal)
    for name, t in m.anchors_s.items():
        predicted = f" (the cost model: {fit[name][1] * 1e3:.2f} ms)" if fit and name in fit else ""
        line = f"{t * 1e3:.2f} ms{_per_call(m, name)}{predicted} {sets.get(name, '')}".rstrip()
        rows.append((f"model step, {name}", line + _pair_note(cal, name, bases.get(name))))
    width = max(len(k) for k, _ in rows)
    lines += [f"{k:<{width}}  {v}" for k, v in rows]
    missed = anchor_misfits(fit or {})
    if missed:
        lines += ["", (f"the cost model misses {len(missed)} of its own anchor steps by more than {ANCHOR_MISFIT:.0%} "
                       f"(predicted over measured): {', '.join(missed)}; strategies like them will be predicted off "
                       "by about as much (`autotune validate-simulator --fit-residual` fits a correction)")]
    return "\n".join(lines)


def _constant_rows(m, cal) -> list[tuple[str, str]]:
    """(name, value) of every constant the probes set, and of the model's steps without the anchors."""
    rows = [("node bandwidth", ", ".join(f"{a} {g * 1e3:.1f} Mbit/s" for a, g in cal.node_bandwidth_gbit.items())),
            ("slower links", ", ".join(f"{k} {g * 1e3:.1f} Mbit/s" for k, g in cal.link_bandwidth_gbit.items())
             or "none"),
            ("latency (alpha)", f"{cal.latency_s * 1e6:.0f} us"),
            ("all-reduce bandwidth factor", f"{cal.collective_bandwidth_factor:.3f}"
             + (" (from the all_reduce step below)" if "all_reduce" in m.anchors_s else "")),
            ("all-reduce overhead", f"{cal.collective_overhead_s * 1e3:.3f} ms"),
            ("per-tensor RPC overhead", f"{cal.rpc_overhead_s * 1e6:.1f} us"),
            ("run spanning every node", f"+{cal.step_overhead_s * 1e3:.3f} ms"
             + (" a step (a call's, over its steps)" if m.steps_per_call.get("nosync", 1) > 1 else "")),
            ("PowerSGD round", f"{cal.powersgd_matrix_s * 1e3:.3f} ms per matrix + "
                               f"{(cal.powersgd_s_per_flop or 0) * 1e12:.1f} ps/flop"),
            ("reduce cost (gamma)", f"{cal.reduce_s_per_byte * 1e12:.1f} ps/byte"),
            ("cast cost", f"{cal.cast_s_per_byte * 1e12:.1f} ps/byte/pass")]
    if m.step_single_s is not None:
        rows.append(("model step, one replica alone", f"{m.step_single_s * 1e3:.2f} ms{_per_call(m, 'alone')}"))
    if cal.update_s is not None:
        rows.append(("optimizer update, every variable once", f"{cal.update_s * 1e3:.2f} ms (one node)"))
    if m.nosync_step_s is not None:
        rows.append(("model step, every replica, nothing synced",
                     f"{m.nosync_step_s * 1e3:.2f} ms{_per_call(m, 'nosync')} "
                     f"(compute {cal.step_time_s * 1e3:.2f} ms + spanning the nodes)"))
    if m.nosync_noupdate_s is not None and cal.update_share is not None:
        rows.append(("the same, no update applied", (f"{m.nosync_noupdate_s * 1e3:.2f} ms (the updates: "
                                                     f"{cal.update_share:.0%} of the compute)")))
    return rows


def _per_call(m, job: str) -> str:
    """`` (8 steps per call)``: the steps per call calibrate ran a model-step job at, where more than one."""
    k = m.steps_per_call.get(job, 1)
    return f" ({k} steps per call)" if k > 1 else ""


def _anchor_sets(cal) -> dict[str, str]:
    """Anchor step -> what its pair set, as its line ends."""
    sets = {"all_reduce": f"-> all-reduce bandwidth factor {cal.collective_bandwidth_factor:.3f}",
            "ar_split": f"-> {cal.ar_piece_s * 1e3:.3f} ms per extra all-reduced piece",
            "ar_groups": f"-> {cal.collective_overhead_s * 1e3:.3f} ms per extra collective",
            "ps": f"-> a PS step on one server loses {cal.ps_serial_fraction:.2f} of its staggering",
            "ps_split": f"-> {cal.ps_piece_s * 1e3:.3f} ms per extra PS piece",
            "powersgd": f"-> {cal.powersgd_matrix_s * 1e3:.3f} ms per PowerSGD matrix"}
    if cal.ps_spread_serial is not None:
        sets["ps_lb"] = (f"-> spread over the servers (the busiest {cal.ps_spread_busiest:.0%} of the load), a PS "
                         f"step loses {cal.ps_spread_serial:.2f} of its staggering")
    return sets


def _pair_note(cal, name: str, base: str | None) -> str:
    """`` (+1.60 ± 2.10 ms against ps, not resolved: ...)``: an anchor pair's measured difference, with two
    standard errors where the rounds were kept; empty for an anchor that is no pair's."""
    if base is None or base not in cal.anchors_s or name not in cal.anchors_s:
        return ""
    difference, se = pair_difference(cal, name, base)
    spread = f" ± {RESOLVED_SE * se * 1e3:.2f}" if se is not None else ""
    note = f"{difference * 1e3:+.2f}{spread} ms against {base}"
    if not resolved(difference, se):
        takes = {"ps_piece_s": ": a PS shard takes an all-reduced shard's cost",
                 "ar_piece_s": ": an all-reduced shard takes a PS shard's cost"}
        borrowed = borrowed_piece_cost(cal)
        note += ", not resolved" + (takes[borrowed[0]] if borrowed and PIECE_PAIRS[borrowed[0]][0] == name else "")
    return f" ({note})"


def _size(nbytes: int) -> str:
    for unit, scale in (("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:g}{unit}"
    return f"{nbytes}B"
