"""Evaluation during training: the validation loss and a compiled model's metrics on ``val_dataset_fn(0, 1)``.

The validation step runs on the chief's replica, in the training graph (``runners.transform._eval``), on the
variables where the strategy keeps them; the driver feeds it each validation batch and updates the compiled
metrics with the predictions it gets back, with Keras' own metric objects. The loss is averaged over the batches
weighted by their size, as ``model.evaluate`` does. Names are Keras' for validation logs (``val_loss``,
``val_<metric>``).
"""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from space.errors import BadInput
from space.model import call_user


@dataclasses.dataclass
class Evaluation:
    step: int
    metrics: dict  # "val_loss", "val_<metric>" -> value
    seconds: float

    def line(self) -> str:
        values = "  ".join(f"{k} {v:.5g}" for k, v in self.metrics.items())
        return f"step {self.step}  {values}  ({self.seconds:.2f} s)"

    def to_dict(self) -> dict:
        return {"step": self.step, **self.metrics}


def check(traced, eval_every: int, eval_steps: int | None) -> None:
    """Before any server starts: evaluation needs ``val_dataset_fn``, and an endless one a number of batches."""
    import tensorflow as tf

    if not eval_every:
        return
    if traced.eval_function is None:
        raise BadInput("--eval-every needs val_dataset_fn(worker_index, num_workers) in the model file",
                       traced.path, hint="define val_dataset_fn, or drop --eval-every")
    if eval_steps is None:
        dataset = traced.module.val_dataset_fn(0, 1)
        if dataset.cardinality() == tf.data.INFINITE_CARDINALITY:
            raise BadInput("val_dataset_fn(0, 1) never ends", traced.path,
                           hint="give --eval-steps N, or leave out its .repeat()")


class Evaluator:
    """Evaluates the running job (a ``TrainingJob`` whose graph has a validation step) at a given step."""

    def __init__(self, traced, job, eval_steps: int | None = None) -> None:
        self.traced, self.job, self.eval_steps = traced, job, eval_steps

    def __call__(self, step: int) -> Evaluation:
        import keras
        import tensorflow as tf

        t0 = time.perf_counter()
        traced, ops = self.traced, self.job.graph.evaluation
        model = traced.model
        dataset = call_user(traced.path, "val_dataset_fn(0, 1)", traced.module.val_dataset_fn, 0, 1)
        if self.eval_steps:
            dataset = dataset.take(self.eval_steps)
        if traced.compiled:
            model.reset_metrics()
        total, count, results = 0.0, 0, {}
        for batch in dataset:
            flat = tf.nest.flatten(batch, expand_composites=True)
            loss, outputs = self.job.evaluate(dict(zip(ops.feeds, [np.asarray(x) for x in flat])))
            x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(batch)
            size = int(tf.shape(tf.nest.flatten(x)[0])[0]) if tf.nest.flatten(x) else 1
            total, count = total + float(loss) * size, count + size
            if traced.compiled and not isinstance(outputs, tuple):
                predictions = tf.nest.map_structure(tf.convert_to_tensor, outputs)
                results = model.compute_metrics(x, y, predictions, sample_weight=sample_weight)
        metrics = {"val_loss": total / max(count, 1)}
        metrics.update({f"val_{k}": float(v) for k, v in _flat(results).items() if k != "loss"})
        return Evaluation(step=step, metrics=metrics, seconds=time.perf_counter() - t0)


def _flat(results: dict) -> dict:
    out = {}
    for k, v in (results or {}).items():
        if isinstance(v, dict):
            out.update(_flat(v))
        else:
            out[k] = v
    return out
