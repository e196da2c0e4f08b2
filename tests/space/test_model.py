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


def test_mlp_inventory(inventories):
    inv = inventories("mlp")
    assert inv.names[0] == "mlp/dense/kernel:0"
    assert inv.variable("mlp/dense/kernel:0").shape == (784, 256)
    assert inv.variable("mlp/dense/kernel:0").bytes == 784 * 256 * 4
    assert inv.batch_size == 32 and not any(v.sparse for v in inv.variables)
    # matmuls: forward + weight gradient for every layer, input gradient for all but the first
    matmuls = 2 * 32 * (2 * 784 * 256 + 3 * 256 * 128 + 3 * 128 * 10)
    assert matmuls <= inv.flops_per_step <= 1.2 * matmuls
    assert inv.optimizer == {"name": "sgd", "learning_rate": 0.05}


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
    "bad_optimizer": ("OPTIMIZER = {'name': 'rmsprop'}\n" + GOOD_TAIL, r"OPTIMIZER must be a dict with name in"),
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
