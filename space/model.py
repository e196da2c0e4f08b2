"""The model contract: load a user's model file, trace one training step, produce the inventory.

A model file defines ``build_model()`` (a Keras 3 model or a ``tf.Module``), ``loss_fn(model, batch)`` -> scalar,
``dataset_fn(worker_index, num_workers)`` -> ``tf.data.Dataset`` of batches, and optionally
``OPTIMIZER = {"name": "sgd"|"momentum"|"adam", "learning_rate": ..., ...}`` (default SGD 0.01).

TensorFlow is imported inside the functions, so ``import space`` stays free of it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import pathlib
import sys
import types
from typing import Any

from space.errors import ModelError
from space.inventory import Inventory, VariableInfo

REQUIRED = ("build_model", "loss_fn", "dataset_fn")
OPTIMIZERS = {"sgd": {"learning_rate"}, "momentum": {"learning_rate", "momentum", "nesterov"},
              "adam": {"learning_rate", "beta_1", "beta_2", "epsilon"}}
DEFAULT_OPTIMIZER = {"name": "sgd", "learning_rate": 0.01}


def file_hash(path: str | os.PathLike) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()[:16]


def import_model_file(path: str | os.PathLike) -> types.ModuleType:
    """Import the model file as a fresh module; every failure is a :class:`ModelError` naming the file."""
    p = pathlib.Path(path)
    if not p.is_file():
        raise ModelError(f"model file not found: {p}", hint="pass --model PATH to a .py file")
    name = f"autotune_model_{hashlib.sha1(str(p.resolve()).encode()).hexdigest()[:10]}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise ModelError("cannot import model file (not a Python file?)", str(p))
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(p.resolve().parent))  # let the model import its sibling files
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise ModelError(f"model file has a syntax error: {e.msg}", f"{p}:{e.lineno}") from None
    except Exception as e:
        raise ModelError(f"model file fails to import: {type(e).__name__}: {e}", str(p)) from None
    finally:
        sys.path.remove(str(p.resolve().parent))
    missing = [f for f in REQUIRED if not callable(getattr(module, f, None))]
    if missing:
        raise ModelError(f"model file does not define {', '.join(f'{m}()' for m in missing)}", str(p),
                         hint="see the model contract in the README")
    return module


def optimizer_config(module: types.ModuleType, source: str) -> dict[str, Any]:
    """The validated ``OPTIMIZER`` dict of a model module (default SGD, learning rate 0.01)."""
    cfg = getattr(module, "OPTIMIZER", None)
    if cfg is None:
        return dict(DEFAULT_OPTIMIZER)
    if not isinstance(cfg, dict) or cfg.get("name") not in OPTIMIZERS:
        raise ModelError(f"OPTIMIZER must be a dict with name in {sorted(OPTIMIZERS)}, got {cfg!r}", source)
    unknown = set(cfg) - {"name"} - OPTIMIZERS[cfg["name"]]
    if unknown:
        raise ModelError(f"OPTIMIZER has unknown key {sorted(unknown)[0]!r} for {cfg['name']}", source,
                         hint=f"allowed: {sorted(OPTIMIZERS[cfg['name']])}")
    lr = cfg.get("learning_rate", DEFAULT_OPTIMIZER["learning_rate"])
    if not isinstance(lr, (int, float)) or isinstance(lr, bool) or lr <= 0:
        raise ModelError(f"OPTIMIZER learning_rate must be a positive number, got {lr!r}", source)
    return {**cfg, "learning_rate": float(lr)}


@dataclasses.dataclass
class TracedStep:
    """One training step traced as a ``tf.function`` (TF objects; use in the process that traced it)."""

    path: str
    module: types.ModuleType
    model: Any
    trainable: list  # tf.Variable, in the model's order
    state: list  # non-trainable tf.Variable
    names: list[str]  # strategy names of ``trainable``
    state_names: list[str]
    concrete_function: Any  # batch -> (loss, grads)
    batch_spec: Any
    sample_batch: Any
    sparse: list[bool]
    gather_rows: list[int | None]
    optimizer: dict[str, Any]


def _tf_variable(v):
    import tensorflow as tf

    if isinstance(v, tf.Variable):
        return v
    inner = getattr(v, "_value", None)  # Keras 3 variable on the TensorFlow backend
    if isinstance(inner, tf.Variable):
        return inner
    raise ModelError(f"variable {getattr(v, 'name', v)!r} is not backed by a tf.Variable")


def _model_variables(model, source: str) -> tuple[list, list, list[str], list[str]]:
    """(trainable tf.Variables, state tf.Variables, their names): Keras paths where there are any."""
    if hasattr(model, "trainable_variables") and hasattr(model, "non_trainable_variables"):
        trainable, state = list(model.trainable_variables), list(model.non_trainable_variables)
    elif hasattr(model, "trainable_variables"):  # tf.Module
        trainable = list(model.trainable_variables)
        ids = {id(v) for v in trainable}
        state = [v for v in model.variables if id(v) not in ids]
    else:
        raise ModelError(f"build_model() returned {type(model).__name__}, not a Keras model or tf.Module", source)
    return ([_tf_variable(v) for v in trainable], [_tf_variable(v) for v in state],
            _names(trainable), _names(state))


def _names(variables) -> list[str]:
    out, seen = [], {}
    for v in variables:
        name = getattr(v, "path", None) or v.name  # Keras 3 path "model/layer/kernel" is the readable one
        name = name if ":" in name else f"{name}:0"
        if name in seen:  # tf.Module variables may share a name: make them unique, stably
            seen[name] += 1
            base, _, idx = name.rpartition(":")
            name = f"{base}_{seen[name]}:{idx}"
        seen.setdefault(name, 0)
        out.append(name)
    return out


def _fresh_keras_names() -> None:
    """Reset Keras' layer-name counters, so a model's variable names (the strategy's keys) do not depend on
    what this process built before (a second ``Dense`` would otherwise be ``dense_3``)."""
    try:
        import keras
    except ImportError:
        return
    keras.backend.clear_session(free_memory=False)


def trace_step(path: str | os.PathLike) -> TracedStep:
    """Import ``path``, build the model, run the loss once eagerly, and trace loss + gradients."""
    import tensorflow as tf

    source = str(path)
    _fresh_keras_names()
    module = import_model_file(path)
    optimizer = optimizer_config(module, source)
    try:
        model = module.build_model()
    except Exception as e:
        raise ModelError(f"build_model() failed: {type(e).__name__}: {e}", source) from None
    try:
        dataset = module.dataset_fn(0, 1)
    except Exception as e:
        raise ModelError(f"dataset_fn(0, 1) failed: {type(e).__name__}: {e}", source) from None
    if not isinstance(dataset, tf.data.Dataset):
        raise ModelError(f"dataset_fn(0, 1) returned {type(dataset).__name__}, not a tf.data.Dataset", source)
    try:
        batch = next(iter(dataset))
    except StopIteration:
        raise ModelError("dataset_fn(0, 1) returned an empty dataset", source) from None
    try:
        loss = module.loss_fn(model, batch)  # eager: builds lazily-created variables, checks the loss
    except Exception as e:
        raise ModelError(f"loss_fn(model, batch) failed: {type(e).__name__}: {e}", source) from None
    if not tf.is_tensor(loss) and not isinstance(loss, (float, int)):
        raise ModelError(f"loss_fn returned {type(loss).__name__}, not a scalar tensor", source)
    loss = tf.convert_to_tensor(loss)
    if loss.shape.rank != 0:
        raise ModelError(f"loss_fn must return a scalar, but returned shape {loss.shape.as_list()}", source,
                         hint="reduce it, e.g. tf.reduce_mean(...)")
    trainable, state, names, state_names = _model_variables(model, source)
    if not trainable:
        raise ModelError("the model has no trainable variables", source)
    batch_spec = tf.nest.map_structure(lambda t: tf.TensorSpec(t.shape, t.dtype), batch)

    @tf.function(autograph=False)
    def step(b):
        with tf.GradientTape() as tape:
            value = module.loss_fn(model, b)
        return value, tape.gradient(value, trainable)

    cf = step.get_concrete_function(batch_spec)
    _, grads = cf.structured_outputs
    missing = [n for n, g in zip(names, grads) if g is None]
    if missing:
        raise ModelError(f"variable {missing[0]!r} gets no gradient from loss_fn", source,
                         hint="remove unused layers or mark them trainable=False")
    sparse = [isinstance(g, tf.IndexedSlices) for g in grads]
    rows = [int(g.indices.shape[0]) if s and g.indices.shape[0] is not None else None
            for g, s in zip(grads, sparse)]
    return TracedStep(path=source, module=module, model=model, trainable=trainable, state=state, names=names,
                      state_names=state_names, concrete_function=cf, batch_spec=batch_spec, sample_batch=batch, sparse=sparse,
                      gather_rows=rows, optimizer=optimizer)


def inventory_from_trace(traced: TracedStep) -> Inventory:
    from space._flops import gradient_ready, graph_flops

    def info(v, name, trainable, sparse=False, rows=None, ready=None):
        return VariableInfo(name=name, shape=tuple(int(d) for d in v.shape), dtype=v.dtype.name,
                            trainable=trainable, sparse=sparse, gather_rows=rows, grad_ready=ready)

    first = traced.sample_batch
    leaves = __import__("tensorflow").nest.flatten(first)
    batch_size = int(leaves[0].shape[0]) if leaves and leaves[0].shape.rank else 1
    graph = traced.concrete_function.graph
    loss, grads = traced.concrete_function.structured_outputs
    ready = gradient_ready(loss, grads)
    return Inventory(
        model_path=traced.path, model_hash=file_hash(traced.path),
        variables=tuple(info(v, n, True, s, r, t) for v, n, s, r, t in
                        zip(traced.trainable, traced.names, traced.sparse, traced.gather_rows, ready)),
        state=tuple(info(v, n, False) for v, n in zip(traced.state, traced.state_names)),
        flops_per_step=graph_flops(graph), batch_size=batch_size,
        optimizer=traced.optimizer)


def default_cache_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("AUTOTUNE_CACHE_DIR") or pathlib.Path.home() / ".cache" / "autotune")


def load_inventory(path: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                   use_cache: bool = True) -> Inventory:
    """The model's inventory, from the cache (keyed by the file's content hash) or by tracing it."""
    p = pathlib.Path(path)
    if not p.is_file():
        raise ModelError(f"model file not found: {p}", hint="pass --model PATH to a .py file")
    cache = pathlib.Path(cache_dir) if cache_dir else default_cache_dir()
    entry = cache / f"inventory-{file_hash(p)}.json"
    if use_cache and entry.is_file():
        try:
            inv = Inventory.from_json(entry.read_text())
            if inv.version == Inventory.__dataclass_fields__["version"].default:
                return dataclasses.replace(inv, model_path=str(p))
        except (ValueError, KeyError, TypeError):
            pass  # a corrupt or old cache entry is simply rebuilt
    inv = inventory_from_trace(trace_step(p))
    if use_cache:
        try:
            cache.mkdir(parents=True, exist_ok=True)
            tmp = entry.with_suffix(".tmp")
            tmp.write_text(inv.to_json())
            tmp.replace(entry)
        except OSError:
            pass  # the cache is an optimisation; a read-only home must not fail the command
    return inv
