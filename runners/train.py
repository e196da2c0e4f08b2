"""Run a real training job with a strategy file and export a checkpoint of the single-device model.

The checkpoint holds the model's variables (trainable and state) as the single-device model names them:
``model.weights.h5`` for a Keras model (``model.load_weights``), a ``tf.train.Checkpoint(model=...)`` for a
``tf.Module``; all-reduced variables come from replica 0, partitioned ones are reassembled. ``variables.npz`` holds
every one of them by its strategy name (``trainable/<name>``, ``state/<name>``), those Keras does not track too.
"""
from __future__ import annotations

import dataclasses
import json
import pathlib
import time


@dataclasses.dataclass
class TrainResult:
    steps: int
    losses: list[float]
    seconds: float
    checkpoint: str | None
    values: dict
    state: dict


def train_strategy(traced, strategy, cluster, *, steps: int, checkpoint_dir: str | None = None,
                   step_timeout_s: float = 120.0, log=None) -> TrainResult:
    """Train ``steps`` steps of ``strategy`` on a running cluster; save a checkpoint if ``checkpoint_dir``."""
    from runners.transform import TrainingJob

    losses: list[float] = []

    def on_step(s: int, dt: float, loss: float) -> None:
        losses.append(loss)
        if log and (s == 0 or (s + 1) % max(1, steps // 10) == 0 or s + 1 == steps):
            log(f"step {s + 1}/{steps}  loss {loss:.5f}  {dt * 1e3:.1f} ms")

    t0 = time.perf_counter()
    with TrainingJob(traced, strategy, cluster, step_timeout_s=step_timeout_s) as job:
        job.run(steps, on_step=on_step)
        values, state = job.values()
    seconds = time.perf_counter() - t0
    path = save_checkpoint(traced, values, state, checkpoint_dir, strategy=strategy, steps=steps) \
        if checkpoint_dir else None
    return TrainResult(steps=steps, losses=losses, seconds=seconds, checkpoint=path, values=values, state=state)


def save_checkpoint(traced, values: dict, state: dict, directory: str, *, strategy=None, steps: int = 0) -> str:
    """Write ``values``/``state`` into the traced model and save it; returns the path to load from."""
    import numpy as np
    import tensorflow as tf

    out = pathlib.Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    for v, name in zip(traced.trainable, traced.names):
        v.assign(values[name])
    for v, name in zip(traced.state, traced.state_names):
        v.assign(state[name])
    model = traced.model
    if hasattr(model, "save_weights") and hasattr(model, "load_weights"):
        path = out / "model.weights.h5"
        model.save_weights(str(path))
    else:
        path = pathlib.Path(tf.train.Checkpoint(model=model).write(str(out / "ckpt")))
    # every variable by its strategy name, plain numpy: what Keras' weights file leaves out (a plain tf.Variable on
    # a Keras model), and a record any tool can read
    arrays = {**{f"trainable/{n}": values[n] for n in traced.names},
              **{f"state/{n}": state[n] for n in traced.state_names}}
    tmp = out / "variables.tmp.npz"
    np.savez(tmp, **arrays)
    tmp.replace(out / "variables.npz")
    meta = {"model": traced.path, "steps": steps, "weights": path.name, "variables": "variables.npz",
            "strategy_id": strategy.proto.id if strategy is not None else None}
    if strategy is not None:
        strategy.save(out / "strategy.pb")
    (out / "train.json").write_text(json.dumps(meta, indent=1) + "\n")
    return str(path)
