"""What Keras supplies to a model file: a compiled model's loss, optimizer and metrics, ``model.losses``, the
optimizer of a plain ``OPTIMIZER`` dict, and the validation step.

A compiled model trains as ``model.fit`` trains it: its loss is Keras' own ``compute_loss`` (the compiled loss plus
``model.losses``), its optimizer is the compiled one. TensorFlow and Keras are imported inside the functions.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from space import _optimizers
from space.errors import ModelError

FIX_OPTIMIZER = ("use one of " + ", ".join(sorted({c for c in _optimizers.KERAS_CLASSES.values()}))
                 + " (keras.optimizers)")


def is_compiled(model) -> bool:
    return bool(getattr(model, "compiled", False))


def has_compiled_loss(model) -> bool:
    return is_compiled(model) and getattr(model, "_compile_loss", None) is not None


def ignored_compile_flags(model) -> tuple[str, ...]:
    """What a compiled model asks of Keras' own train function that autotune does not do, for a note: it runs its
    step as a TensorFlow graph, neither eagerly (``run_eagerly``) nor through XLA (``jit_compile``, which Keras also
    turns on by itself on a GPU)."""
    if not is_compiled(model):
        return ()
    flags = [f"{key}=True" for key in ("run_eagerly", "jit_compile") if getattr(model, key, False) is True]
    if not flags:
        return ()
    xla = ", without XLA" if "jit_compile=True" in flags else ""
    return (f"the model is compiled with {' and '.join(flags)}, which autotune ignores: it runs the step as a "
            f"graph{xla}",)


def check_train_step(model, source: str) -> None:
    """A compiled model whose own ``train_step`` would compute the step: autotune splits a step into gradients and
    their update itself, so it cannot run that code; the loss it may take from ``compute_loss`` or ``loss_fn``."""
    import keras

    mine = getattr(type(model), "train_step", None)
    if mine is not None and mine is not keras.Model.train_step:
        raise ModelError(f"{type(model).__name__} overrides train_step(), which autotune does not call", source,
                         hint="compute the loss in compute_loss() or in loss_fn(model, batch), and let autotune "
                              "apply the gradients")


def keras_loss(model, batch, training: bool = True):
    """``(loss, y_pred)`` of a compiled model on ``batch``, computed as Keras' ``train_step``/``test_step`` do."""
    import keras

    x, y, sample_weight = keras.utils.unpack_x_y_sample_weight(batch)
    y_pred = model(x, training=training) if getattr(model, "_call_has_training_arg", True) else model(x)
    compute = getattr(model, "_compute_loss", None) or model.compute_loss
    return compute(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=training), y_pred


class LossesRead:
    """Within the block, whether the user's code read ``.losses`` of any Keras layer (the model's included): a
    ``loss_fn`` that does adds ``model.losses`` itself."""

    def __enter__(self) -> "LossesRead":
        import keras

        self.seen = False
        self.cls = keras.layers.Layer
        self.prop = self.cls.__dict__["losses"]
        prop, me = self.prop, self

        def read(layer):
            me.seen = True
            return prop.fget(layer)

        self.cls.losses = property(read)
        return self

    def __exit__(self, *exc) -> None:
        self.cls.losses = self.prop


def add_losses(model, value):
    """``value`` plus the sum of ``model.losses`` (regularizers, ``add_loss``), as ``model.fit`` adds them."""
    import tensorflow as tf

    value = tf.convert_to_tensor(value)
    extra = [tf.cast(tf.reduce_sum(tf.convert_to_tensor(x)), value.dtype) for x in getattr(model, "losses", [])]
    return value + tf.add_n(extra) if extra else value


def with_model_losses(loss_fn: Callable) -> Callable:
    """``loss_fn`` plus ``model.losses``."""
    def loss(model, batch):
        return add_losses(model, loss_fn(model, batch))

    return loss


def compiled_loss_fn(model, batch):
    return keras_loss(model, batch, training=True)[0]


# ---- the optimizer -----------------------------------------------------------------------------------------------
def resolve_optimizer(module, model, source: str) -> tuple[dict, Any]:
    """(plain config, Keras optimizer) of the model: ``OPTIMIZER`` (a dict or a Keras optimizer), else the compiled
    model's, else SGD with learning rate 0.01."""
    import keras

    cfg = getattr(module, "OPTIMIZER", None)
    if cfg is not None:
        if isinstance(cfg, dict):
            return from_dict(cfg, source)
        if isinstance(cfg, keras.optimizers.Optimizer):
            return from_keras(cfg, source, "OPTIMIZER")
        raise ModelError(f"OPTIMIZER must be a dict or a keras.optimizers.Optimizer, got {type(cfg).__name__}",
                         source, hint=FIX_OPTIMIZER)
    if is_compiled(model) and getattr(model, "optimizer", None) is not None:
        return from_keras(model.optimizer, source, "the compiled optimizer")
    return from_dict(dict(_optimizers.DEFAULT), source)


def from_dict(cfg: dict, source: str) -> tuple[dict, Any]:
    """A plain ``OPTIMIZER`` dict, checked, as the Keras optimizer it names."""
    import keras

    name = cfg.get("name") if isinstance(cfg, dict) else None
    if name not in _optimizers.KERAS_CLASSES:
        raise ModelError(f"OPTIMIZER must be a dict with name in {sorted(_optimizers.KERAS_CLASSES)}, got {cfg!r}",
                         source)
    unknown = sorted(set(cfg) - {"name"} - set(_optimizers.keys_of(name)))
    if unknown:
        raise ModelError(f"OPTIMIZER has unknown key {unknown[0]!r} for {name}", source,
                         hint=f"allowed: {sorted(_optimizers.keys_of(name))}")
    kwargs = {k: float(v) if isinstance(v, int) and not isinstance(v, bool) else v
              for k, v in cfg.items() if k != "name"}
    lr = kwargs.get("learning_rate")
    if isinstance(lr, dict):
        kwargs["learning_rate"] = _schedule(lr, source)
    elif lr is not None and (not isinstance(lr, float) or lr <= 0):
        raise ModelError(f"OPTIMIZER learning_rate must be a positive number, got {lr!r}", source)
    if name == "momentum":
        kwargs.setdefault("momentum", 0.9)
    try:
        opt = getattr(keras.optimizers, _optimizers.KERAS_CLASSES[name])(**kwargs)
    except (ValueError, TypeError) as e:
        raise ModelError(f"OPTIMIZER {name}: {str(e).splitlines()[0]}", source) from None
    return from_keras(opt, source, "OPTIMIZER")


def _schedule(cfg: dict, source: str):
    import keras

    kind = cfg.get("schedule")
    if kind not in _optimizers.SCHEDULES:
        raise ModelError(f"OPTIMIZER learning_rate schedule must be one of {list(_optimizers.SCHEDULES)}, got "
                         f"{kind!r}", source, hint='e.g. {"schedule": "ExponentialDecay", "initial_learning_rate": '
                                               '0.1, "decay_steps": 100, "decay_rate": 0.9}')
    try:
        return getattr(keras.optimizers.schedules, kind)(**{k: v for k, v in cfg.items() if k != "schedule"})
    except (ValueError, TypeError) as e:
        raise ModelError(f"OPTIMIZER learning_rate {kind}: {str(e).splitlines()[0]}", source) from None


def from_keras(opt, source: str, what: str) -> tuple[dict, Any]:
    """The plain config of a Keras optimizer autotune runs, else a :class:`ModelError` naming it."""
    import keras

    classes = {getattr(keras.optimizers, c): n for n, c in _optimizers.KERAS_CLASSES.items() if n != "momentum"}
    name = classes.get(type(opt))
    if name is None:
        raise ModelError(f"{what} is {type(opt).__name__}, which autotune cannot run", source, hint=FIX_OPTIMIZER)
    for key, why in _optimizers.UNSUPPORTED.items():
        if getattr(opt, key, None):
            raise ModelError(f"{what} sets {key}={getattr(opt, key)!r}: {why}", source, hint=f"drop {key}")
    if name == "sgd" and opt.momentum:
        name = "momentum"
    config: dict = {"name": name, "learning_rate": _learning_rate(opt, source, what)}
    config.update({k: getattr(opt, k) for k in _optimizers.HYPERPARAMETERS[name]})
    for key in _optimizers.COMMON[1:]:
        value = getattr(opt, key, None)
        if value is not None and value is not False and (key != "ema_momentum" or opt.use_ema):
            config[key] = value
    return json.loads(json.dumps(config, default=float)), opt


def _learning_rate(opt, source: str, what: str):
    import keras

    lr = opt._learning_rate  # noqa: SLF001 - the schedule itself; the public property evaluates it
    if isinstance(lr, keras.optimizers.schedules.LearningRateSchedule):
        return {"schedule": type(lr).__name__, **lr.get_config()}
    if isinstance(lr, keras.Variable) or hasattr(lr, "numpy"):
        return float(f"{float(lr.numpy()):.7g}")  # the float32 variable's value, as it was written
    if isinstance(lr, (int, float)):
        return float(lr)
    raise ModelError(f"{what} has a learning_rate callable that is not a LearningRateSchedule", source,
                     hint="use a keras.optimizers.schedules.LearningRateSchedule (it is evaluated in the graph)")


def no_weight_decay(opt, keras_variables: list, names: list[str]) -> list[str]:
    """The trainable variables (by strategy name) ``opt`` excludes from weight decay, as Keras decides it."""
    if getattr(opt, "weight_decay", None) is None:
        return []
    return [n for v, n in zip(keras_variables, names) if not opt._use_weight_decay(v)]  # noqa: SLF001


def check_constraints(keras_variables: list, names: list[str], source: str) -> None:
    for v, n in zip(keras_variables, names):
        if getattr(v, "constraint", None) is not None:
            raise ModelError(f"variable {n!r} has a constraint ({type(v.constraint).__name__}), which autotune "
                             "does not apply after the update", source, hint="drop the layer's *_constraint")
