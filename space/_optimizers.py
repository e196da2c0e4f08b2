"""The optimizers a model trains with: Keras 3's, by name, with the keyword arguments each takes (plain data).

A model's optimizer is described by a plain dict (the inventory's and the checkpoint's ``optimizer``): ``name``,
``learning_rate`` (a number, or a schedule as ``{"schedule": "CosineDecay", ...its arguments}``) and the
optimizer's own hyperparameters under Keras' names. SGD with momentum is named ``momentum``: its update touches
every element of a sparse gradient's table, where plain SGD and Adagrad touch only the rows gathered.
"""
from __future__ import annotations

# name -> Keras class name
KERAS_CLASSES = {"sgd": "SGD", "momentum": "SGD", "adam": "Adam", "adamw": "AdamW", "adagrad": "Adagrad",
                 "rmsprop": "RMSprop", "adadelta": "Adadelta", "adamax": "Adamax", "nadam": "Nadam", "ftrl": "Ftrl",
                 "lion": "Lion"}
# name -> the optimizer's own keyword arguments (Keras 3's names)
HYPERPARAMETERS = {
    "sgd": ("momentum", "nesterov"),
    "momentum": ("momentum", "nesterov"),
    "adam": ("beta_1", "beta_2", "epsilon", "amsgrad"),
    "adamw": ("beta_1", "beta_2", "epsilon", "amsgrad"),
    "adagrad": ("initial_accumulator_value", "epsilon"),
    "rmsprop": ("rho", "momentum", "epsilon", "centered"),
    "adadelta": ("rho", "epsilon"),
    "adamax": ("beta_1", "beta_2", "epsilon"),
    "nadam": ("beta_1", "beta_2", "epsilon"),
    "ftrl": ("learning_rate_power", "initial_accumulator_value", "l1_regularization_strength",
             "l2_regularization_strength", "l2_shrinkage_regularization_strength", "beta"),
    "lion": ("beta_1", "beta_2"),
}
# what every Keras optimizer takes and autotune runs
COMMON = ("learning_rate", "weight_decay", "clipnorm", "clipvalue", "global_clipnorm", "use_ema", "ema_momentum",
          "ema_overwrite_frequency")
# Keras options autotune refuses: the reason, and what to do instead
UNSUPPORTED = {"loss_scale_factor": "loss scaling is for float16, which autotune does not train",
               "gradient_accumulation_steps": "autotune applies every step's gradient; raise the batch instead"}
SPARSE_UPDATES = frozenset({"sgd", "adagrad"})  # a sparse gradient updates only its rows (and their slots)
# update rules that read the squares of a gradient (Keras squares a sparse one's row pieces one by one)
SQUARES = frozenset({"adam", "adamw", "adagrad", "rmsprop", "adadelta", "nadam", "ftrl"})
DEFAULT = {"name": "sgd", "learning_rate": 0.01}
# learning-rate schedules a plain dict may name (any keras.optimizers.schedules class works from a Keras optimizer)
SCHEDULES = ("ExponentialDecay", "CosineDecay", "CosineDecayRestarts", "PiecewiseConstantDecay", "PolynomialDecay",
             "InverseTimeDecay")


# slot variables Keras 3 keeps per model variable, each of its shape and dtype, with the defaults of each optimizer
# (the options that add one are in ``slot_count``)
SLOTS = {"sgd": 0, "momentum": 1, "adam": 2, "adamw": 2, "adagrad": 1, "rmsprop": 1, "adadelta": 2, "adamax": 2,
         "nadam": 2, "ftrl": 2, "lion": 1}


def slot_count(config: dict | None) -> int:
    """Variable-sized slots the optimizer ``config`` keeps per variable: SGD's momentum (when > 0), Adam's and AMSGrad's
    moments, RMSprop's momentum and centred mean, and the EMA copy ``use_ema`` keeps."""
    config = config or DEFAULT
    name = config.get("name", "sgd")
    n = SLOTS.get(name, 2)  # an optimizer not listed: Adam's two, the common case
    if name == "sgd" and config.get("momentum"):
        n += 1
    if name in ("adam", "adamw") and config.get("amsgrad"):
        n += 1
    if name == "rmsprop":
        n += bool(config.get("momentum")) + bool(config.get("centered"))
    return n + bool(config.get("use_ema"))


def keys_of(name: str) -> tuple[str, ...]:
    """Every key the optimizer ``name`` takes in a plain dict (``name`` itself aside)."""
    return COMMON + HYPERPARAMETERS[name]


def piece_sums(config: dict | None) -> tuple[str, ...]:
    """The dense per-row sums the optimizer ``config`` reads of a sparse gradient besides its sum, once the
    gradient is densified to be all-reduced: ``sq``, the squares of its row pieces (the rules of ``SQUARES``, and
    the norm ``clipnorm`` and ``global_clipnorm`` take), and ``ab``, their absolute values (Adamax). Each is a tensor
    of the variable's shape, all-reduced beside the gradient."""
    config = config or DEFAULT
    name = config.get("name", "sgd")
    squares = name in SQUARES or bool(config.get("clipnorm") or config.get("global_clipnorm"))
    return ("sq",) * squares + ("ab",) * (name == "adamax")


def reads_pieces(config: dict | None) -> bool:
    """Whether the optimizer ``config`` reads more of a sparse gradient than its dense sum: the sums of
    :func:`piece_sums`, or its pieces clipped one by one (``clipvalue``)."""
    return bool(piece_sums(config)) or bool((config or {}).get("clipvalue"))


def describe(config: dict) -> str:
    """One line for people: ``adamw, learning rate CosineDecay, global_clipnorm 1.0``."""
    if not config:
        return DEFAULT["name"]
    lr = config.get("learning_rate")
    parts = [config.get("name", "sgd")]
    if isinstance(lr, dict):
        parts.append(f"learning rate {lr.get('schedule', 'schedule')}")
    elif lr is not None:
        parts.append(f"learning rate {lr:g}")
    for key in ("weight_decay", "clipnorm", "clipvalue", "global_clipnorm"):
        if config.get(key) is not None:
            parts.append(f"{key} {config[key]:g}")
    if config.get("use_ema"):
        parts.append("EMA")
    return ", ".join(parts)
