"""The model contract: load a user's model file, trace one training step, produce the inventory.

A model file defines ``build_model()`` (a Keras 3 model, compiled or not, or a ``tf.Module``) and
``dataset_fn(worker_index, num_workers)`` -> ``tf.data.Dataset`` of batches; ``loss_fn(model, batch)`` -> scalar
unless the model is compiled with a loss; optionally ``OPTIMIZER`` (a dict or a Keras optimizer; else the compiled
one, else SGD 0.01) and ``val_dataset_fn`` (same signature) for evaluation.

TensorFlow is imported inside the functions, so ``import space`` stays free of it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import importlib.util
import os
import pathlib
import sys
import traceback
import types
from typing import Any

import numpy as np

from space import _keras, _tables
from space._activations import saved_activation_bytes
from space._flops import count_flops, gradient_ready
from space._values import values_kept
from space.errors import ModelError
from space.inventory import Inventory, TableInfo, VariableInfo

REQUIRED = ("build_model", "dataset_fn")
_SAID: set[tuple[str, str]] = set()  # (model file, note) said in this process (``say_notes``)


def file_hash(path: str | os.PathLike) -> str:
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()[:16]


def user_line(tb, path: str | os.PathLike) -> str:
    """``file:line`` of the innermost frame of ``tb`` in the model's folder (the model file or a helper it imports),
    else the model file itself."""
    folder = pathlib.Path(path).resolve().parent
    where = str(path)
    for frame, lineno in traceback.walk_tb(tb):
        f = pathlib.Path(frame.f_code.co_filename)
        if f.is_absolute() and folder in f.parents and "site-packages" not in f.parts:
            where = f"{f}:{lineno}"
    return where


def call_user(source: str, what: str, fn, *args):
    """``fn(*args)``, a piece of the user's code: any failure, ``sys.exit()`` included, is a :class:`ModelError`
    naming ``what`` and the user's ``file:line``."""
    try:
        return fn(*args)
    except ModelError:
        raise
    except SystemExit as e:
        raise ModelError(f"{what} called sys.exit({'' if e.code is None else repr(e.code)})",
                         user_line(e.__traceback__, source),
                         hint="a model file must return, not exit: autotune runs it in its own process") from None
    except Exception as e:
        first = (str(e).strip().splitlines() or [""])[0][:300]
        raise ModelError(f"{what} failed: {type(e).__name__}: {first}", user_line(e.__traceback__, source)) from None


def model_file(path: str | os.PathLike) -> pathlib.Path:
    """``path`` as the model file it must be, else a :class:`ModelError` saying what it is instead."""
    p = pathlib.Path(path)
    if p.is_dir():
        raise ModelError(f"model file is a directory: {p}", hint="pass --model PATH to a .py file")
    if not p.is_file():
        raise ModelError(f"model file not found: {p}", hint="pass --model PATH to a .py file")
    return p


def import_model_file(path: str | os.PathLike) -> types.ModuleType:
    """Import the model file as a fresh module; every failure is a :class:`ModelError` naming the file."""
    p = model_file(path)
    name = f"autotune_model_{hashlib.sha1(str(p.resolve()).encode()).hexdigest()[:10]}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise ModelError("cannot import model file (not a Python file?)", str(p))
    module = importlib.util.module_from_spec(spec)
    # registered like any imported module: AutoGraph looks a function's module up there to convert it (a
    # `dataset.map` function with a Python `if` on a tensor), and pickling / inspect find it
    sys.modules[name] = module
    sys.path.insert(0, str(p.resolve().parent))  # let the model import its sibling files
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise ModelError(f"model file has a syntax error: {e.msg}", f"{p}:{e.lineno}") from None
    except SystemExit as e:
        raise ModelError(f"model file called sys.exit({'' if e.code is None else repr(e.code)}) on import",
                         user_line(e.__traceback__, p), hint="a model file must define functions, not exit") from None
    except Exception as e:
        raise ModelError(f"model file fails to import: {type(e).__name__}: {e}", user_line(e.__traceback__, p)) \
            from None
    finally:
        sys.path.remove(str(p.resolve().parent))
    missing = [f for f in REQUIRED if not callable(getattr(module, f, None))]
    if missing:
        raise ModelError(f"model file does not define {', '.join(f'{m}()' for m in missing)}", str(p),
                         hint="see the model contract in the README")
    return module


def optimizer_config(module: types.ModuleType, source: str) -> dict[str, Any]:
    """The plain optimizer config of a model module whose optimizer does not come from a compiled model."""
    return _keras.resolve_optimizer(module, None, source)[0]


@dataclasses.dataclass
class TracedStep:
    """One training step traced as a ``tf.function`` (TF objects; use in the process that traced it).

    ``concrete_function`` is traced on the first batch's exact shapes (the inventory's FLOPs and gathered rows come
    from it); ``step_function`` is what every batch runs through: the same function, or, where the dataset's
    batches may differ in shape (no ``drop_remainder``, padded batches), one traced on the dataset's own
    ``element_spec``.
    """

    path: str
    module: types.ModuleType
    model: Any
    trainable: list  # tf.Variable, in the model's order
    state: list  # non-trainable tf.Variable
    names: list[str]  # strategy names of ``trainable``
    state_names: list[str]
    concrete_function: Any  # batch -> (loss, grads), on the first batch's shapes
    batch_spec: Any
    sample_batch: Any
    sparse: list[bool]
    gather_rows: list[int | None]
    optimizer: dict[str, Any]  # plain config (``space._optimizers``)
    step_function: Any = None  # batch -> (loss, grads), on the dataset's element_spec
    element_spec: Any = None
    keras_optimizer: Any = None  # the Keras optimizer ``optimizer`` describes (a compiled model's own)
    tables: list = dataclasses.field(default_factory=list)  # ``space._tables.Table`` the step reads
    state_written: list = dataclasses.field(default_factory=list)  # per state variable: does the step assign it
    eval_function: Any = None  # val batch -> (loss, [y_pred] or []), with ``val_dataset_fn``
    eval_spec: Any = None  # the validation dataset's element_spec
    compiled: bool = False  # a compiled Keras model: its metrics are evaluated with the validation loss
    notes: tuple[str, ...] = ()  # what a person should know of how autotune runs the model (``say_notes``)
    input_bytes: int = 0  # a worker's serialized dataset graph (``input_graph_bytes``)

    def __post_init__(self) -> None:
        if self.step_function is None:
            self.step_function = self.concrete_function
        if self.element_spec is None:
            self.element_spec = self.batch_spec
        if not self.state_written:
            self.state_written = [True] * len(self.state)


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


def _first_batch(module, source: str, r: int, n: int, fn_name: str = "dataset_fn"):
    """(dataset, first batch) of ``<fn_name>(r, n)``, every failure a :class:`ModelError`."""
    import tensorflow as tf

    what = f"{fn_name}({r}, {n})"
    dataset = call_user(source, what, getattr(module, fn_name), r, n)
    if not isinstance(dataset, tf.data.Dataset):
        raise ModelError(f"{what} returned {type(dataset).__name__}, not a tf.data.Dataset", source)
    batch = call_user(source, f"the first batch of {what}", lambda: next(iter(dataset), None))
    if batch is None:
        raise ModelError(f"{what} returned an empty dataset", source)
    return dataset, batch


def _check_loss(loss, line: str) -> None:
    import tensorflow as tf

    if not tf.is_tensor(loss) and not isinstance(loss, (float, int)):
        raise ModelError(f"loss_fn returned {type(loss).__name__}, not a scalar tensor", line)
    loss = tf.convert_to_tensor(loss)
    if loss.shape.rank != 0:
        raise ModelError(f"loss_fn must return a scalar, but returned shape {loss.shape.as_list()}", line,
                         hint="reduce it, e.g. tf.reduce_mean(...)")
    if not loss.dtype.is_floating:
        raise ModelError(f"loss_fn returned a {loss.dtype.name} tensor, not a floating-point one", line)
    if not np.isfinite(float(loss)):
        raise ModelError(f"loss_fn returned {float(loss)} on the first batch", line,
                         hint="check the inputs and the initial weights; training would only spread it")


def _loss_line(module, source: str) -> str:
    """Where ``loss_fn`` is defined: the place a bad loss value is reported at."""
    code = getattr(getattr(module, "loss_fn", None), "__code__", None)
    return f"{code.co_filename}:{code.co_firstlineno}" if code is not None else source


def trace_step(path: str | os.PathLike) -> TracedStep:
    """Import ``path``, build the model, run the loss once eagerly, and trace loss + gradients.

    Everything the backend will need of the file is checked here, so that a file ``autotune inspect`` accepts
    does not fail later for a reason it could have seen: ``dataset_fn`` for two workers as well as one, with one
    batch structure; a loss (``loss_fn`` or the compiled one) and an optimizer autotune runs; a finite scalar loss;
    a gradient for every trainable variable; a step that traces on the dataset's batch shapes; the resources it
    reads; the validation step.
    """
    import tensorflow as tf

    source = str(path)
    _fresh_keras_names()
    module = import_model_file(path)
    model = call_user(source, "build_model()", module.build_model)
    loss_fn, what = _loss_of(module, model, source)
    optimizer, keras_optimizer = _keras.resolve_optimizer(module, model, source)
    dataset, batch = _first_batch(module, source, 0, 1)
    element_spec = dataset.element_spec
    input_bytes = _check_second_worker(module, source, element_spec)
    loss_fn, loss = _first_loss(model, loss_fn, what, batch, source)
    _check_loss(loss, _loss_line(module, source))
    trainable, state, names, state_names = _model_variables(model, source)
    if not trainable:
        raise ModelError("the model has no trainable variables", source)
    optimizer = _with_exclusions(optimizer, keras_optimizer, model, trainable, names, source)
    batch_spec = tf.nest.map_structure(tf.type_spec_from_value, batch)

    @tf.function  # AutoGraph on, as for any tf.function: the user's Python `if` on a tensor means tf.cond
    def step(b):
        with tf.GradientTape() as tape:
            value = loss_fn(model, b)
        return value, tape.gradient(value, trainable)

    cf = call_user(source, f"tracing {what} as a tf.function", step.get_concrete_function, batch_spec)
    _, grads = cf.structured_outputs
    _check_gradients(names, grads, source)
    step_cf = cf
    if not _fully_defined(element_spec):  # batches may differ in shape: one function for all of them
        step_cf = call_user(source, f"tracing {what} on the dataset's batch shapes {element_spec}",
                            step.get_concrete_function, element_spec)
    state, state_names = _with_untracked_state(cf, trainable, state, state_names)
    handles = {id(v.handle) for v in trainable + state}
    tables = _tables.captured_tables(cf, model, module, handles, source)
    eval_function, eval_spec = _eval_function(module, model, loss_fn, what, source)
    sparse = [isinstance(g, tf.IndexedSlices) for g in grads]
    rows = [int(g.indices.shape[0]) if s and g.indices.shape[0] is not None else None
            for g, s in zip(grads, sparse)]
    traced = TracedStep(path=source, module=module, model=model, trainable=trainable, state=state, names=names,
                        state_names=state_names, concrete_function=cf, batch_spec=batch_spec, sample_batch=batch,
                        sparse=sparse, gather_rows=rows, optimizer=optimizer, step_function=step_cf,
                        element_spec=element_spec, keras_optimizer=keras_optimizer, tables=tables,
                        state_written=_written(state, [cf, step_cf]), eval_function=eval_function,
                        eval_spec=eval_spec, compiled=_keras.is_compiled(model),
                        notes=_keras.ignored_compile_flags(model), input_bytes=input_bytes)
    say_notes(traced.notes, source)  # once the model is accepted: a refusal stays the only line
    return traced


def _check_second_worker(module, source: str, element_spec) -> int:
    """Check that ``dataset_fn(1, 2)`` yields what ``dataset_fn(0, 1)`` does; return its serialized graph's bytes
    (:func:`input_graph_bytes`)."""
    other, _ = _first_batch(module, source, 1, 2)
    if not _same_structure(other.element_spec, element_spec):
        raise ModelError("dataset_fn(1, 2) yields batches of another structure than dataset_fn(0, 1): "
                         f"{other.element_spec} vs {element_spec}", source,
                         hint="every worker's batches must have one structure and dtypes")
    return input_graph_bytes(other)


def input_graph_bytes(dataset) -> int:
    """The bytes of ``dataset``'s serialized graph, as a tower's pipeline travels to its server (the arrays of a
    ``from_tensor_slices`` inside); 0 where it cannot be serialized (a generator's pipeline is fed instead)."""
    try:
        return len(dataset._as_serialized_graph().numpy())
    except Exception:  # noqa: BLE001 -- any pipeline TensorFlow cannot serialize is fed by the driver, not sent
        return 0


def _check_gradients(names: list[str], grads, source: str) -> None:
    missing = [n for n, g in zip(names, grads) if g is None]
    if missing:
        raise ModelError(f"variable {missing[0]!r} gets no gradient from the loss", source,
                         hint="remove unused layers or mark them trainable=False")


def say_notes(notes, where: str | os.PathLike) -> None:
    """Each of a model's ``notes`` on stderr as ``note: <where>: <note>``, once per process: a command may trace a
    model and load its inventory both (a search), and says each note once."""
    for note in notes:
        key = (os.path.realpath(where), note)
        if key not in _SAID:
            _SAID.add(key)
            print(f"note: {where}: {note}", file=sys.stderr, flush=True)


def _with_exclusions(optimizer: dict, keras_optimizer, model, trainable: list, names: list[str], source: str) -> dict:
    """``optimizer`` with the variables Keras keeps out of weight decay (a variable constraint is refused)."""
    keras_vars = list(getattr(model, "trainable_variables", trainable))
    _keras.check_constraints(keras_vars, names, source)
    excluded = _keras.no_weight_decay(keras_optimizer, keras_vars, names)
    return {**optimizer, "no_weight_decay": excluded} if excluded else optimizer


def _loss_of(module, model, source: str):
    """(the loss callable, how to name it): ``loss_fn``, else the compiled model's loss."""
    user = getattr(module, "loss_fn", None)
    if callable(user):
        return user, "loss_fn"
    if _keras.has_compiled_loss(model):
        _keras.check_train_step(model, source)
        return _keras.compiled_loss_fn, "the compiled loss"
    compiled = " and build_model() returns a model compiled without a loss" if _keras.is_compiled(model) else ""
    raise ModelError(f"model file does not define loss_fn(){compiled}", source,
                     hint="define loss_fn(model, batch), or compile the model with a loss")


def _first_loss(model, loss_fn, what: str, batch, source: str):
    """(the step's loss callable, its value on ``batch``): ``loss_fn`` plus ``model.losses`` unless the user's code
    read ``model.losses`` itself (a loss that adds them already), run eagerly on values it leaves as they were."""
    with values_kept(model):  # checking the loss must not train: a step counter, BatchNorm statistics
        with _keras.LossesRead() as read:
            loss = call_user(source, f"{what}(model, batch)" if what == "loss_fn" else what, loss_fn, model, batch)
        if read.seen or not getattr(model, "losses", None):
            return loss_fn, loss
        total = _keras.with_model_losses(loss_fn)
        return total, call_user(source, "model.losses", _keras.add_losses, model, loss)


def _eval_function(module, model, loss_fn, what: str, source: str):
    """(the validation step, the validation batches' spec) of a file with ``val_dataset_fn``, else (None, None).

    The step is Keras' ``test_step`` less its metrics for a compiled model (its metrics are updated where the
    predictions arrive), else the training loss."""
    import tensorflow as tf

    if getattr(module, "val_dataset_fn", None) is None:
        return None, None
    if not callable(module.val_dataset_fn):
        raise ModelError("val_dataset_fn is not a function", source, hint="def val_dataset_fn(worker_index, "
                                                                          "num_workers): -> tf.data.Dataset")
    dataset, _ = _first_batch(module, source, 0, 1, "val_dataset_fn")
    compiled_loss = what != "loss_fn"
    predicts = _keras.is_compiled(model)

    @tf.function
    def evaluate(b):  # -> (loss, [predictions]) or (loss, [])
        if compiled_loss:
            loss, predictions = _keras.keras_loss(model, b, training=False)
            return loss, [predictions]
        return loss_fn(model, b), [_keras.keras_loss(model, b, training=False)[1]] if predicts else []

    cf = call_user(source, "tracing the validation step on val_dataset_fn(0, 1)'s batches",
                   evaluate.get_concrete_function, dataset.element_spec)
    return cf, dataset.element_spec


def _written(state: list, functions: list) -> list[bool]:
    """Per state variable, whether a step function does more than read it (an assign, a nested call)."""
    handles = {id(v.handle): j for j, v in enumerate(state)}
    written = [False] * len(state)
    for cf in functions:
        for external, internal in cf.graph.captures:
            j = handles.get(id(external))
            if j is not None and any(op.type not in ("ReadVariableOp", "ResourceGather")
                                     for op in internal.consumers()):
                written[j] = True
    return written


def _with_untracked_state(cf, trainable: list, state: list, state_names: list[str]) -> tuple[list, list[str]]:
    """``state`` plus every variable the step uses that the model does not list: Keras 3 does not track a plain
    ``tf.Variable`` set on a model (a step counter, a running mean), yet the step reads and assigns it like state."""
    known = {id(v.handle) for v in trainable + state}
    extra, seen = [], set()
    for v in cf.graph.variables:
        v = _tf_variable(v)
        if id(v.handle) not in known and id(v.handle) not in seen:
            seen.add(id(v.handle))
            extra.append(v)
    if not extra:
        return state, state_names
    names = _names(extra)
    taken = set(state_names)
    for i, name in enumerate(names):
        while name in taken:  # a Keras path and a plain variable's name may coincide
            base, _, idx = name.rpartition(":")
            name = f"{base}_untracked:{idx}"
        taken.add(name)
        names[i] = name
    return state + extra, state_names + names


def _fully_defined(spec) -> bool:
    import tensorflow as tf

    return all(s.shape.is_fully_defined() for s in tf.nest.flatten(spec, expand_composites=True))


def _same_structure(a, b) -> bool:
    import tensorflow as tf

    try:
        tf.nest.assert_same_structure(a, b, expand_composites=True)
    except (ValueError, TypeError):
        return False
    fa, fb = tf.nest.flatten(a, expand_composites=True), tf.nest.flatten(b, expand_composites=True)
    return all(x.dtype == y.dtype and x.shape.is_compatible_with(y.shape) for x, y in zip(fa, fb))


def inventory_from_trace(traced: TracedStep) -> Inventory:
    def info(v, name, trainable, sparse=False, rows=None, ready=None, lookups=None, vary=False):
        return VariableInfo(name=name, shape=tuple(int(d) for d in v.shape), dtype=v.dtype.name,
                            trainable=trainable, sparse=sparse, gather_rows=rows, grad_ready=ready,
                            gathers=lookups, rows_vary=vary)

    import tensorflow as tf

    leaves = tf.nest.flatten(traced.sample_batch)  # a ragged leaf's first dimension is its rows too
    batch_size = int(leaves[0].shape[0]) if leaves and leaves[0].shape.rank else 1
    graph = traced.concrete_function.graph
    loss, grads = traced.concrete_function.structured_outputs
    ready = gradient_ready(loss, grads)
    flops = count_flops(graph)
    lookups, vary = _lookups(traced)
    return Inventory(
        model_path=traced.path, model_hash=file_hash(traced.path),
        variables=tuple(info(v, n, True, s, r, t, k, y) for v, n, s, r, t, k, y in
                        zip(traced.trainable, traced.names, traced.sparse, traced.gather_rows, ready, lookups, vary)),
        state=tuple(info(v, n, False) for v, n in zip(traced.state, traced.state_names)),
        flops_per_step=flops.flops, flops_lower_bound=flops.lower_bound, flops_note=flops.note,
        batch_size=batch_size, optimizer=traced.optimizer,
        tables=tuple(TableInfo(t.name, t.kind, t.key_dtype.name, t.value_dtype.name, t.size) for t in traced.tables),
        notes=traced.notes, activation_bytes=saved_activation_bytes(graph), input_bytes=traced.input_bytes,
        graph_ops=len(graph.get_operations()))


def _lookups(traced: TracedStep) -> tuple[list[int], list[bool]]:
    """Per trainable variable, the embedding lookups of it in the step every batch runs (``GatherV2`` on axis 0 of
    a read of it), 0 where any read of it is something else; and whether its sparse gradient's rows vary with the
    batch's shape."""
    import tensorflow as tf

    cf = traced.step_function
    handles = {id(v.handle): i for i, v in enumerate(traced.trainable)}
    lookups = [0] * len(traced.trainable)
    for external, internal in cf.graph.captures:
        i = handles.get(id(external))
        if i is None or not traced.sparse[i]:
            continue
        found = []
        for read in internal.consumers():
            uses = read.outputs[0].consumers() if read.type == "ReadVariableOp" else [read]
            found += [c.type == "GatherV2" and c.inputs[0] is read.outputs[0] and c.get_attr("batch_dims") == 0
                      and tf.get_static_value(c.inputs[2]) == 0 for c in uses]
        lookups[i] = len(found) if found and all(found) else 0
    _, grads = cf.structured_outputs
    vary = [isinstance(g, tf.IndexedSlices) and not (g.indices.shape.is_fully_defined()
                                                      and g.values.shape.is_fully_defined()) for g in grads]
    return lookups, vary


def default_cache_dir() -> pathlib.Path:
    return pathlib.Path(os.environ.get("AUTOTUNE_CACHE_DIR") or pathlib.Path.home() / ".cache" / "autotune")


def load_inventory(path: str | os.PathLike, cache_dir: str | os.PathLike | None = None,
                   use_cache: bool = True) -> Inventory:
    """The model's inventory, from the cache (keyed by the file's content hash) or by tracing it."""
    p = model_file(path)
    cache = pathlib.Path(cache_dir) if cache_dir else default_cache_dir()
    entry = cache / f"inventory-{file_hash(p)}.json"
    if use_cache and entry.is_file():
        try:
            inv = Inventory.from_json(entry.read_text())
            if inv.version == Inventory.__dataclass_fields__["version"].default:
                # an entry written without notes reads as none (they do not make the cache stale): every command
                # that runs the step traces the model afresh and says them there
                say_notes(inv.notes, p)
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
