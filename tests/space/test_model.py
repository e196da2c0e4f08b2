"""The model contract: inventories of the examples, the cache, and one clear error per broken model file."""
from __future__ import annotations

import dataclasses
import itertools

import pytest

from testpaths import MODELS
from space.errors import ModelError
from space.inventory import Inventory, VariableInfo
from space.model import load_inventory

GOOD_TAIL = '''
import tensorflow as tf, keras
def build_model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
def loss_fn(model, batch):
    return tf.reduce_mean(model(batch) ** 2)
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(tf.ones([8, 3])).batch(4)
'''


COMPILED_TAIL = '''
import tensorflow as tf, keras
def build_model():
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.1))])
    m.compile(optimizer=keras.optimizers.Adam(0.01), loss='mse', metrics=['mae'])
    return m
def dataset_fn(worker_index, num_workers):
    x = tf.reshape(tf.range(24, dtype=tf.float32), [8, 3]) / 24.0
    return tf.data.Dataset.from_tensor_slices((x, x[:, :2])).batch(4)
'''


def test_mlp_inventory(inventories):
    inv = inventories("mlp")
    assert inv.names[0] == "mlp/dense/kernel:0"
    assert inv.variable("mlp/dense/kernel:0").shape == (784, 256)
    assert inv.variable("mlp/dense/kernel:0").bytes == 784 * 256 * 4
    assert inv.batch_size == 32 and not any(v.sparse for v in inv.variables)
    # matmuls: forward + weight gradient for every layer, input gradient for all but the first
    matmuls = 2 * 32 * (2 * 784 * 256 + 3 * 256 * 128 + 3 * 128 * 10)
    assert matmuls <= inv.flops_per_step <= 1.2 * matmuls
    assert inv.optimizer == {"name": "sgd", "learning_rate": 0.05, "momentum": 0.0, "nesterov": False}


def test_recommender_tables_are_sparse(inventories):
    inv = inventories("recommender")
    tables = {v.name: v for v in inv.variables if v.sparse}
    assert set(tables) == {"recommender/user_embedding/embeddings:0", "recommender/item_embedding/embeddings:0"}
    assert all(v.shape[0] >= 10_000 and v.gather_rows == 64 for v in tables.values())


def test_rows_touched_and_the_elements_an_optimizer_updates():
    """A sparse gradient covers the rows gathered (no more than the table has); plain SGD scatters it into those
    rows, momentum and Adam densify it and write every element. A dense variable is touched whole."""
    table = VariableInfo("t", (1000, 64), "float32", sparse=True, gather_rows=100)
    assert (table.rows_touched, table.touched_elements) == (100, 6400)
    assert table.updated_elements("sgd") == 6400 and table.updated_elements("adam") == 64_000
    small = VariableInfo("s", (50, 64), "float32", sparse=True, gather_rows=100)
    assert small.rows_touched == 50 and small.updated_elements("sgd") == small.num_elements == 3200
    dense = VariableInfo("d", (100, 64), "float32")
    assert dense.rows_touched is None and dense.updated_elements("sgd") == dense.touched_elements == 6400
    inv = Inventory("m.py", "h", (table,))
    assert inv.optimizer_name == "sgd" and dataclasses.replace(inv, optimizer={"name": "adam"}).optimizer_name == "adam"


def test_cnn_has_batchnorm_state(inventories):
    inv = inventories("cnn")
    assert any("moving_mean" in v.name for v in inv.state) and all(not v.trainable for v in inv.state)
    assert inv.optimizer["name"] == "momentum"


def test_transformer_token_table_is_sparse(inventories):
    inv = inventories("transformer")
    assert inv.variable("transformer/tokens/embeddings:0").sparse
    assert not inv.variable("transformer/positions:0").sparse
    assert len(inv.variables) > 30


def test_gradients_are_ready_as_the_backward_pass_reaches_them(inventories):
    """Traced: the share of the backward FLOPs each gradient waits for, its own and the later layers'. The cnn's
    dense layer holds 76% of its parameters but gets its gradient after a sliver of the backward pass, the first
    conv layer's last of all; in the mlp the first kernel waits for all of it and the last for little."""
    cnn = {v.name.split("/", 1)[1]: v.grad_ready for v in inventories("cnn").variables}
    assert cnn["dense/kernel:0"] < 0.1 and cnn["dense/bias:0"] < 0.1
    assert cnn["conv2d/kernel:0"] == 1.0 and 0.3 < cnn["conv2d_1/kernel:0"] < 0.7
    mlp = [v.grad_ready for v in inventories("mlp").variables]
    assert mlp[0] == 1.0 and mlp[4] < 0.1 and mlp[-1] < 1e-3
    assert all(a >= b for a, b in itertools.pairwise(mlp))  # each waits for the later layers' gradients too


def test_the_scorer_takes_the_traced_ready_times(inventories):
    """The scorer takes the traced times (falling with the index: the chains serve the units in index order, the
    last ready first). Without them, each variable's share of the parameters from it on."""
    import numpy as np

    from simulator import Calibration, Scorer
    from space.cluster import ClusterSpec

    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True}, {"address": "127.0.0.2"}]})
    inv = inventories("cnn")
    ready = Scorer(inv, spec, Calibration.from_spec(spec))._build_model().ready_frac
    assert np.all(np.diff(ready) <= 0) and list(ready) == [v.grad_ready for v in inv.variables]
    assert ready[6] < 0.1  # the dense kernel
    plain = dataclasses.replace(inv, variables=tuple(dataclasses.replace(v, grad_ready=None) for v in inv.variables))
    by_params = Scorer(plain, spec, Calibration.from_spec(spec))._build_model().ready_frac
    assert by_params[6] == pytest.approx((62720 + 40) / sum(v.bytes for v in inv.variables))  # the dense kernel


def test_inventory_is_cached_by_content(tmp_path):
    model = tmp_path / "m.py"
    model.write_text(GOOD_TAIL)
    first = load_inventory(model, cache_dir=tmp_path / "c")
    assert len(list((tmp_path / "c").glob("inventory-*.json"))) == 1
    assert load_inventory(model, cache_dir=tmp_path / "c") == first
    model.write_text(GOOD_TAIL.replace("Dense(2)", "Dense(5)"))
    assert load_inventory(model, cache_dir=tmp_path / "c").variables[0].shape == (3, 5)
    assert len(list((tmp_path / "c").glob("inventory-*.json"))) == 2


def test_inventory_json_round_trip(inventories):
    from space.inventory import Inventory

    inv = inventories("recommender")
    assert Inventory.from_json(inv.to_json()) == inv


def test_tf_module_model(tmp_path):
    model = tmp_path / "mod.py"
    model.write_text('''
import tensorflow as tf
class M(tf.Module):
    def __init__(self):
        self.w = tf.Variable(tf.ones([3, 2]), name="w")
        self.steps = tf.Variable(0, trainable=False, name="steps")
def build_model():
    return M()
def loss_fn(model, batch):
    return tf.reduce_sum(tf.matmul(batch, model.w))
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(tf.ones([8, 3])).batch(4)
''')
    inv = load_inventory(model, use_cache=False)
    assert inv.names == ["w:0"] and [v.name for v in inv.state] == ["steps:0"]


BROKEN = {
    "syntax_error": ("def build_model(:\n", r"syntax error.*m.py:1"),
    "import_error": ("import no_such_module_xyz\n", r"fails to import: ModuleNotFoundError"),
    "missing_function": (GOOD_TAIL.replace("def loss_fn", "def loss_fnx"), r"does not define loss_fn\(\)"),
    "non_scalar_loss": (GOOD_TAIL.replace("tf.reduce_mean(model(batch) ** 2)", "model(batch)"),
                        r"loss_fn must return a scalar, but returned shape \[4, 2\]"),
    "no_trainable_variables": (GOOD_TAIL.replace("keras.layers.Dense(2)", "keras.layers.Dense(2, trainable=False)"),
                               r"no trainable variables"),
    "loss_raises": (GOOD_TAIL.replace("return tf.reduce_mean", "raise ValueError('boom'); return tf.reduce_mean"),
                    r"loss_fn\(model, batch\) failed: ValueError: boom"),
    "dataset_not_dataset": (GOOD_TAIL.replace("return tf.data.Dataset.from_tensor_slices(tf.ones([8, 3])).batch(4)",
                                              "return [1, 2]"), r"returned list, not a tf.data.Dataset"),
    "bad_optimizer": ("OPTIMIZER = {'name': 'adafactor'}\n" + GOOD_TAIL, r"OPTIMIZER must be a dict with name in"),
    "unsupported_keras_optimizer": (GOOD_TAIL + "OPTIMIZER = keras.optimizers.Adafactor()\n",
                                    r"OPTIMIZER is Adafactor, which autotune cannot run"),
    "compiled_with_unsupported_optimizer": (
        COMPILED_TAIL.replace("keras.optimizers.Adam(0.01)", "keras.optimizers.Lamb()"),
        r"the compiled optimizer is Lamb, which autotune cannot run, .*m.py; hint: use one of Adadelta"),
    "gradient_accumulation": (GOOD_TAIL + "OPTIMIZER = keras.optimizers.SGD(0.1, gradient_accumulation_steps=2)\n",
                              r"OPTIMIZER sets gradient_accumulation_steps=2"),
    "compiled_without_loss": (COMPILED_TAIL.replace(", loss='mse'", ""),
                              r"does not define loss_fn\(\) and build_model\(\) returns a model compiled without a "
                              r"loss"),
    "train_step_override": (COMPILED_TAIL.replace("    m = keras.Sequential", "    m = Own").replace(
        "def build_model", "class Own(keras.Sequential):\n    def train_step(self, data):\n        return {}\n"
                           "def build_model"), r"Own overrides train_step\(\), which autotune does not call"),
    "constraint": (GOOD_TAIL.replace("keras.layers.Dense(2)", "keras.layers.Dense(2, kernel_constraint='non_neg')"),
                   r"has a constraint \(NonNeg\)"),
    "table_the_step_writes": (GOOD_TAIL.replace(
        "    return tf.reduce_mean(model(batch) ** 2)",
        "    TABLE.insert(tf.constant(['a']), tf.constant([1.0]))\n    return tf.reduce_mean(model(batch) ** 2)")
        + "TABLE = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, 0.0)\n",
        r"the step changes the lookup table TABLE \(LookupTableInsertV2\)"),
    "optimizer_unknown_key": ("OPTIMIZER = {'name': 'sgd', 'lr': 0.1}\n" + GOOD_TAIL, r"unknown key 'lr' for sgd"),
    "unused_variable": (GOOD_TAIL.replace("keras.layers.Dense(2)])", "keras.layers.Dense(2)])\n    m.extra = 1")
                        .replace("return keras.Sequential", "m = keras.Sequential").replace(
                            "    m.extra = 1", "    m.add_weight(shape=(2,), name='unused')\n    return m"),
                        r"gets no gradient"),
    "exit_on_import": ("import sys\nsys.exit(3)\n" + GOOD_TAIL, r"called sys.exit\(3\) on import, .*m.py:2"),
    "exit_in_build_model": (GOOD_TAIL.replace("    return keras.Sequential", "    raise SystemExit\n    return keras"),
                            r"build_model\(\) called sys.exit\(\), .*m.py:4"),
    "nan_loss": (GOOD_TAIL.replace("return tf.reduce_mean(model(batch) ** 2)", "return tf.math.log(-1.0 + 0 * "
                                   "tf.reduce_mean(model(batch)))"),
                 r"loss_fn returned nan on the first batch, .*m.py:5"),
    "integer_loss": (GOOD_TAIL.replace("return tf.reduce_mean(model(batch) ** 2)", "return tf.constant(1)"),
                     r"loss_fn returned a int32 tensor"),
    "empty_dataset": (GOOD_TAIL.replace("tf.ones([8, 3])).batch(4)", "tf.ones([8, 3])).batch(4).take(0)"),
                      r"dataset_fn\(0, 1\) returned an empty dataset"),
    "second_worker_differs": (GOOD_TAIL.replace("tf.ones([8, 3])).batch(4)",
                                                "tf.ones([8, 3 + worker_index])).batch(4)"),
                              r"dataset_fn\(1, 2\) yields batches of another structure"),
    "raises_in_dataset_fn_at_its_line": (GOOD_TAIL.replace("    return tf.data.Dataset",
                                                           "    x = {}['no such key']\n    return tf.data.Dataset"),
                                         r"dataset_fn\(0, 1\) failed: KeyError: 'no such key', .*m.py:8"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_model_names_file_and_problem(case, tmp_path):
    source, pattern = BROKEN[case]
    model = tmp_path / "m.py"
    model.write_text(source)
    with pytest.raises(ModelError, match=pattern) as info:
        load_inventory(model, use_cache=False)
    assert "m.py" in str(info.value)


def test_missing_model_file():
    with pytest.raises(ModelError, match="model file not found"):
        load_inventory(MODELS / "nope.py")


def test_a_directory_is_not_a_model_file(tmp_path):
    (tmp_path / "m.py").mkdir()
    with pytest.raises(ModelError, match="model file is a directory"):
        load_inventory(tmp_path / "m.py")


def test_user_code_runs_under_tf2_semantics_where_inspect_runs_it(tmp_path):
    """``==`` on tensors in dataset_fn, Python ``and`` / ``if`` on tensors in a map function and in loss_fn."""
    model = tmp_path / "m.py"
    model.write_text('''
import tensorflow as tf, keras
def build_model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
def loss_fn(model, batch):
    x, y = batch
    loss = tf.reduce_mean((model(x)[:, 0] - y) ** 2)
    if tf.reduce_sum(y) > 100.0:
        loss = loss * 2.0
    return loss
def dataset_fn(worker_index, num_workers):
    x = tf.reshape(tf.range(24, dtype=tf.float32), [8, 3])
    y = tf.cast(tf.range(8) % 2 == 0, tf.float32)
    def label(x, y):
        if x[0] > 3.0 and y > 0.5:
            return x, y + 1.0
        return x, y
    return tf.data.Dataset.from_tensor_slices((x, y)).map(label).batch(4)
''')
    inv = load_inventory(model, use_cache=False)
    assert inv.batch_size == 4


def test_a_compiled_model_is_a_whole_model_file(tmp_path):
    """No loss_fn, no OPTIMIZER: the compiled loss (with the regularizer's term) and optimizer; the first loss is
    Keras' own ``compute_loss``."""
    import tensorflow as tf

    from space.model import trace_step

    model = tmp_path / "m.py"
    model.write_text(COMPILED_TAIL)
    traced = trace_step(model)
    assert traced.optimizer["name"] == "adam" and traced.optimizer["learning_rate"] == 0.01 and traced.compiled
    x, y = traced.sample_batch
    keras_model = traced.model
    want = keras_model.compute_loss(x, y, keras_model(x, training=True), training=True)
    loss, _ = traced.concrete_function(traced.sample_batch)
    assert float(loss) == pytest.approx(float(want), rel=1e-6)
    plain = float(tf.reduce_mean(tf.square(keras_model(x) - y)))
    assert float(loss) > plain  # the L2 term is in it


@pytest.mark.parametrize("reads", [False, True], ids=["loss_fn-without", "loss_fn-adding-them"])
def test_model_losses_are_added_once(reads, tmp_path):
    """``model.losses`` are added to a loss_fn as ``model.fit`` adds them, unless loss_fn reads them itself."""
    import tensorflow as tf

    from space.model import trace_step

    model = tmp_path / "m.py"
    added = " + tf.add_n(model.losses)" if reads else ""
    model.write_text(GOOD_TAIL.replace("keras.layers.Dense(2)", "keras.layers.Dense(2, kernel_regularizer="
                                       "keras.regularizers.L2(0.5))").replace(
        "return tf.reduce_mean(model(batch) ** 2)", f"return tf.reduce_mean(model(batch) ** 2){added}"))
    traced = trace_step(model)
    loss, _ = traced.concrete_function(traced.sample_batch)
    kernel = traced.model.layers[0].kernel
    want = tf.reduce_mean(traced.model(traced.sample_batch) ** 2) + 0.5 * tf.reduce_sum(tf.square(kernel))
    assert float(loss) == pytest.approx(float(want), rel=1e-6)


def test_lookup_tables_in_the_model_are_state_on_every_replica(tmp_path):
    model = tmp_path / "m.py"
    model.write_text('''
import tensorflow as tf, keras
def build_model():
    words = keras.Input((), dtype="string")
    ids = keras.layers.StringLookup(vocabulary=["a", "b", "c"], name="words")(words)
    return keras.Model(words, keras.layers.Dense(1)(keras.layers.Embedding(4, 2)(ids)))
def loss_fn(model, batch):
    return tf.reduce_mean(model(batch) ** 2)
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(["a", "b", "z", "c"]).batch(2)
''')
    inv = load_inventory(model, use_cache=False)
    (table,) = inv.tables
    assert (table.name, table.kind, table.key_dtype, table.value_dtype, table.size) == \
        ("words/lookup_table", "HashTableV2", "string", "int64", 3)
    assert Inventory.from_json(inv.to_json()).tables == inv.tables


@pytest.mark.parametrize("name", ["sgd", "momentum", "adam", "adamw", "adagrad", "rmsprop", "adadelta", "adamax",
                                  "nadam", "ftrl", "lion"])
def test_every_optimizer_of_a_plain_dict(name):
    """Each name builds its Keras optimizer; a schedule is a dict naming the Keras schedule and its arguments."""
    from space import _keras

    schedule = {"schedule": "ExponentialDecay", "initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5}
    config, opt = _keras.from_dict({"name": name, "learning_rate": schedule, "clipnorm": 1.0}, "m.py")
    assert config["name"] == name and config["clipnorm"] == 1.0
    assert config["learning_rate"]["schedule"] == "ExponentialDecay" and float(opt.learning_rate) == pytest.approx(0.1)
    assert type(opt).__name__.lower() == {"momentum": "sgd"}.get(name, name)


def test_checking_a_model_leaves_its_variables_as_they_were(tmp_path):
    """The first loss runs eagerly on the model, a plain ``tf.Variable`` deep in a layer that counts its calls
    included: every variable has its value back afterwards."""
    from space.model import trace_step

    model = tmp_path / "m.py"
    model.write_text('''
import tensorflow as tf, keras
class Counting(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.inner = {"state": [tf.Variable(0.0, trainable=False)]}
    def call(self, x):
        self.inner["state"][0].assign_add(1.0)
        return x
def build_model():
    return keras.Sequential([keras.Input((3,)), Counting(), keras.layers.BatchNormalization(), keras.layers.Dense(2)])
def loss_fn(model, batch):
    return tf.reduce_mean(model(batch, training=True) ** 2)
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(tf.random.stateless_normal([8, 3], [1, 2])).batch(4)
''')
    traced = trace_step(model)
    counter = traced.model.layers[0].inner["state"][0]
    assert float(counter.numpy()) == 0.0
    moving_mean = traced.model.layers[1].moving_mean
    assert float(abs(moving_mean.numpy()).max()) == 0.0
