"""Callbacks of a training job: plain callables told each step's :class:`runners.train.StepInfo`, and Keras
callbacks for the hooks that mean the same here.

A Keras callback is told ``on_train_begin``, ``on_train_batch_begin``/``on_train_batch_end`` around each step
(logs: the step's ``loss`` and ``learning_rate``), ``on_epoch_begin``/``on_epoch_end`` around each stretch between
evaluations (logs: the last step's loss and learning rate, and the ``val_*`` results), and ``on_train_end``.
Setting ``model.stop_training`` stops the job at the end of the call the step ran in (``EarlyStopping`` works so).
The model a callback holds is the driver's copy, whose weights are not the cluster's: callbacks that read or
change weights, the optimizer or the files autotune writes are refused, each with what to use instead.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from space.errors import BadInput

REFUSED = {
    "ModelCheckpoint": "use --checkpoint DIR --save-every N",
    "BackupAndRestore": "use --checkpoint DIR and --resume",
    "ReduceLROnPlateau": "give the optimizer a learning_rate schedule",
    "LearningRateScheduler": "give the optimizer a learning_rate schedule",
    "TensorBoard": "use --logdir (the learning rate and the validation results are scalars there)",
    "SwapEMAWeights": "the checkpoint keeps the moving averages as the slot 'average'",
}


def split(callbacks: Iterable) -> tuple[list[Callable], list[Any]]:
    """(plain callables, Keras callbacks), each checked; a callback autotune cannot honour is a :class:`BadInput`."""
    try:
        import keras

        base = keras.callbacks.Callback
    except ImportError:  # a model without Keras has only plain callables
        base = ()
    plain, hooks = [], []
    for cb in callbacks:
        if base and isinstance(cb, base):
            name = type(cb).__name__
            if name in REFUSED:
                raise BadInput(f"the Keras callback {name} cannot run under autotune", hint=REFUSED[name])
            if getattr(cb, "restore_best_weights", False):
                raise BadInput(f"{name}(restore_best_weights=True) cannot reach the cluster's weights",
                               hint="resume from the checkpoint of the best step instead")
            hooks.append(cb)
        elif callable(cb):
            plain.append(cb)
        else:
            raise BadInput(f"a callback must be callable or a keras.callbacks.Callback, got {type(cb).__name__}")
    return plain, hooks


class KerasHooks:
    """The Keras callbacks of one job, called as ``model.fit`` calls them where the hooks mean the same."""

    def __init__(self, callbacks: list, model, steps: int) -> None:
        self.callbacks, self.model, self.epoch = callbacks, model, 0
        for cb in callbacks:
            cb.set_model(model)
            cb.set_params({"verbose": 0, "epochs": None, "steps": steps})
        if callbacks and hasattr(model, "stop_training"):
            model.stop_training = False
        self.epoch_open = False

    def _call(self, hook: str, *args) -> None:
        for cb in self.callbacks:
            getattr(cb, hook)(*args)

    def begin(self) -> None:
        self._call("on_train_begin", {})

    def step(self, step: int, logs: dict) -> None:
        if not self.callbacks:
            return
        if not self.epoch_open:
            self._call("on_epoch_begin", self.epoch, {})
            self.epoch_open = True
        self._call("on_train_batch_begin", step - 1, {})
        self._call("on_train_batch_end", step - 1, dict(logs))

    def epoch_end(self, logs: dict) -> None:
        if self.callbacks and self.epoch_open:
            self._call("on_epoch_end", self.epoch, dict(logs))
            self.epoch, self.epoch_open = self.epoch + 1, False

    def end(self, logs: dict) -> None:
        self.epoch_end(logs)
        self._call("on_train_end", dict(logs))

    @property
    def stop(self) -> bool:
        return bool(self.callbacks) and bool(getattr(self.model, "stop_training", False))
