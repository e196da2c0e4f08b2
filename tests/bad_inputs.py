"""Bad inputs a user may give, and what each must get: one line on stderr naming what and where, the right exit
code, no traceback and nothing printed before it.

``python tests/bad_inputs.py [--jobs N]`` runs every case as a fresh ``autotune`` process (TensorFlow's start-up
logging included, nothing set in the environment) and prints a table and the count of clean refusals;
``tests/autotune/test_bad_inputs.py`` runs the same cases in-process.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import os
import pathlib
import subprocess
import sys
import tempfile
from typing import Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = str(ROOT / "examples" / "models" / "mlp.py")
SPEC = str(ROOT / "examples" / "clusters" / "localhost.yml")

GOOD_MODEL = '''
import tensorflow as tf, keras
def build_model():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
def loss_fn(model, batch):
    return tf.reduce_mean(model(batch) ** 2)
def dataset_fn(worker_index, num_workers):
    return tf.data.Dataset.from_tensor_slices(tf.ones([8, 3])).batch(4)
'''
GOOD_SPEC = "nodes:\n  - address: 127.0.0.1\n    chief: true\n  - address: 127.0.0.2\n"


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]  # {d} is the case's own directory, {model} / {spec} the bundled mlp / localhost
    files: dict[str, str | bytes] = dataclasses.field(default_factory=dict)  # written into {d} first
    code: int = 2
    needle: str = ""  # must appear in the error line

    def args(self, d: pathlib.Path) -> list[str]:
        return [a.format(d=d, model=MODEL, spec=SPEC) for a in self.argv]

    def prepare(self, d: pathlib.Path) -> None:
        for name, content in self.files.items():
            p = d / name
            if content == "<dir>":
                p.mkdir(parents=True, exist_ok=True)
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(content if isinstance(content, bytes) else content.encode())


def _model(name: str, text: str, needle: str, code: int = 2) -> Case:
    return Case(name, ("inspect", "--model", "{d}/m.py", "--cache-dir", "{d}/cache"), {"m.py": text}, code, needle)


def _spec(name: str, text: str, needle: str) -> Case:
    return Case(name, ("build", "--builder", "ps", "--model", "{model}", "--spec", "{d}/c.yml", "-o", "{d}/s.pb",
                       "--cache-dir", "{d}/cache"), {"c.yml": text}, 2, needle)


def _search(name: str, extra: tuple[str, ...], needle: str, files: dict | None = None) -> Case:
    return Case(name, ("search", "--model", "{model}", "--spec", "{spec}", "-o", "{d}/run", "--cache-dir",
                       "{d}/cache", "--simulate-only", "--quiet", *extra), files or {}, 2, needle)


def _replace(old: str, new: str) -> str:
    assert old in GOOD_MODEL
    return GOOD_MODEL.replace(old, new)


CASES: list[Case] = [
    # the model file
    Case("model file missing", ("inspect", "--model", "{d}/nope.py"), needle="model file not found"),
    Case("model path is a directory", ("inspect", "--model", "{d}/m.py"), {"m.py": "<dir>"}, needle="is a directory"),
    _model("syntax error", "def build_model(:\n", "syntax error"),
    _model("import error", "import no_such_module_xyz\n" + GOOD_MODEL, "ModuleNotFoundError"),
    _model("no dataset_fn", _replace("def dataset_fn", "def data_fn"), "does not define dataset_fn()"),
    _model("loss not a scalar", _replace("tf.reduce_mean(model(batch) ** 2)", "model(batch)"), "must return a scalar"),
    _model("loss is NaN", _replace("tf.reduce_mean(model(batch) ** 2)", "tf.reduce_mean(model(batch)) * float('nan')"),
           "loss_fn returned nan"),
    _model("loss is an integer", _replace("tf.reduce_mean(model(batch) ** 2)", "tf.constant(3)"),
           "not a floating-point one"),
    _model("loss is a string", _replace("tf.reduce_mean(model(batch) ** 2)", "'low'"), "not a scalar tensor"),
    _model("dataset_fn returns a list", _replace("return tf.data.Dataset.from_tensor_slices(tf.ones([8, 3])).batch(4)",
                                                 "return [1, 2]"), "not a tf.data.Dataset"),
    _model("empty dataset", _replace(".batch(4)", ".batch(4).take(0)"), "empty dataset"),
    _model("build_model raises",
           _replace("    return keras.Sequential", "    raise ValueError('no')\n    return keras"),
           "build_model() failed: ValueError: no"),
    _model("sys.exit in build_model", _replace("    return keras.Sequential", "    raise SystemExit(0)\n    return k"),
           "called sys.exit(0)"),
    _model("sys.exit on import", "import sys\nsys.exit()\n" + GOOD_MODEL, "called sys.exit() on import"),
    _model("unknown optimizer", "OPTIMIZER = {'name': 'adafactor'}\n" + GOOD_MODEL, "OPTIMIZER must be a dict"),
    _model("a Keras optimizer autotune cannot run", GOOD_MODEL + "OPTIMIZER = keras.optimizers.Adafactor()\n",
           "OPTIMIZER is Adafactor, which autotune cannot run"),
    _model("a compiled model without a loss", _replace(
        "    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])",
        "    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])\n    m.compile('adam')\n    return m"
    ).replace("def loss_fn", "def unused_loss_fn"), "compiled without a loss"),
    _model("a compiled model with its own train_step", _replace(
        "    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])",
        "    m = Own([keras.Input((3,)), keras.layers.Dense(2)])\n    m.compile('adam', 'mse')\n    return m"
    ).replace("def loss_fn", "def unused_loss_fn").replace(
        "def build_model", "class Own(keras.Sequential):\n    def train_step(self, data):\n        return {}\n"
                           "def build_model"), "overrides train_step()"),
    _model("optimizer key typo", "OPTIMIZER = {'name': 'adam', 'lr': 0.1}\n" + GOOD_MODEL, "unknown key 'lr'"),
    _model("negative learning rate", "OPTIMIZER = {'name': 'sgd', 'learning_rate': -1}\n" + GOOD_MODEL,
           "learning_rate must be a positive number"),
    _model("variable without gradient",
           _replace("    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])",
                    "    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])\n"
                    "    m.add_weight(shape=(2,), name='unused')\n    return m"),
           "gets no gradient"),
    _model("no trainable variables", _replace("keras.layers.Dense(2)", "keras.layers.Dense(2, trainable=False)"),
           "no trainable variables"),
    _model("second worker's batches differ", _replace("tf.ones([8, 3])", "tf.ones([8, 3 + worker_index])"),
           "another structure"),
    _model("dataset_fn raises", _replace("    return tf.data", "    {}['k']\n    return tf.data"),
           "dataset_fn(0, 1) failed: KeyError"),
    _model("a lookup table the step writes", _replace(
        "    return tf.reduce_mean(model(batch) ** 2)",
        "    TABLE.insert(tf.constant(['a']), tf.constant([1.0]))\n    return tf.reduce_mean(model(batch) ** 2)")
        + "TABLE = tf.lookup.experimental.MutableHashTable(tf.string, tf.float32, 0.0)\n",
        "changes the lookup table"),
    # the cluster spec
    Case("spec missing", ("build", "--builder", "ps", "--model", "{model}", "--spec", "{d}/nope.yml", "-o", "{d}/s.pb"),
         needle="not found"),
    _spec("spec not YAML", "nodes: [address: {\n", "YAML"),
    _spec("spec empty", "", "empty"),
    _spec("no chief", "nodes:\n  - address: 127.0.0.1\n  - address: 127.0.0.2\n", "chief"),
    _spec("two chiefs", "nodes:\n  - {address: 127.0.0.1, chief: true}\n  - {address: 127.0.0.2, chief: true}\n",
          "chief"),
    _spec("duplicate address", "nodes:\n  - {address: 127.0.0.1, chief: true}\n  - {address: 127.0.0.1}\n",
          "127.0.0.1"),
    _spec("unknown node key", "nodes:\n  - {address: 127.0.0.1, chief: true, gpu: [0]}\n", "gpu"),
    _spec("undefined ssh group", "nodes:\n  - {address: 10.0.0.1, chief: true, ssh_config: lab}\n", "lab"),
    _spec("bandwidth not a rate", "nodes:\n  - {address: 127.0.0.1, chief: true, network_bandwidth: fast}\n",
          "network_bandwidth"),
    _spec("no nodes", "nodes: []\n", "nodes"),
    _spec("gpus not a list", "nodes:\n  - {address: 127.0.0.1, chief: true, gpus: two}\n", "gpus"),
    Case("spec is a directory", ("build", "--builder", "ps", "--model", "{model}", "--spec", "{d}/c.yml", "-o",
                                 "{d}/s.pb"), {"c.yml": "<dir>"}, needle="c.yml"),
    # strategies and builders
    Case("strategy file missing", ("show", "{d}/nope.pb"), needle="strategy file not found"),
    Case("strategy file is garbage", ("show", "{d}/s.pb"), {"s.pb": b"\x00\xffnot a protobuf\x13"}, needle="s.pb"),
    Case("unknown builder", ("build", "--builder", "fastest", "--model", "{model}", "--spec", "{spec}", "-o",
                             "{d}/s.pb", "--cache-dir", "{d}/cache"), needle="unknown builder 'fastest'"),
    Case("builder file missing", ("build", "--builder", "{d}/mine.py", "--model", "{model}", "--spec", "{spec}", "-o",
                                  "{d}/s.pb", "--cache-dir", "{d}/cache"), needle="mine.py"),
    Case("strategy of another model", ("train", "--model", "{d}/m.py", "--spec", "{spec}", "--strategy", "{d}/s.pb",
                                       "--steps", "1"),
         {"m.py": GOOD_MODEL, "s.pb": b""}, needle="s.pb"),
    # options
    Case("step timeout 0", ("profile", "--model", "{model}", "--spec", "{spec}", "--strategy", "s.pb",
                            "--step-timeout", "0"), needle="--step-timeout"),
    Case("step timeout negative", ("profile", "--model", "{model}", "--spec", "{spec}", "--strategy", "s.pb",
                                   "--step-timeout", "-1"), needle="--step-timeout"),
    Case("step timeout not a number", ("train", "--model", "{model}", "--spec", "{spec}", "--strategy", "s.pb",
                                       "--steps", "1", "--step-timeout", "soon"), needle="--step-timeout"),
    _search("zero trials", ("--trials", "0"), "--trials"),
    _search("negative top-k", ("--top-k", "-1"), "--top-k"),
    _search("prune ratio 1", ("--prune-ratio", "1"), "--prune-ratio"),
    _search("time budget 0", ("--time-budget", "0"), "--time-budget"),
    _search("unknown sampler", ("--sampler", "grid"), "--sampler"),
    Case("zero steps", ("train", "--model", "{model}", "--spec", "{spec}", "--strategy", "s.pb", "--steps", "0"),
         needle="--steps"),
    Case("unknown command", ("optimise",), needle="invalid choice"),
    Case("unknown option", ("inspect", "--model", "{model}", "--fast"), needle="--fast"),
    Case("missing --model", ("inspect",), needle="--model"),
    # outputs and storage
    Case("search -o is a file", ("search", "--model", "{model}", "--spec", "{spec}", "-o", "{d}/out", "--quiet",
                                 "--simulate-only"), {"out": "results"}, needle="is a file"),
    Case("build -o is a directory", ("build", "--builder", "ps", "--model", "{model}", "--spec", "{spec}", "-o",
                                     "{d}/out", "--cache-dir", "{d}/cache"), {"out": "<dir>"}, needle="is a directory"),
    Case("checkpoint is a file", ("train", "--model", "{model}", "--spec", "{spec}", "--strategy", "s.pb", "--steps",
                                  "1", "--checkpoint", "{d}/ckpt"), {"ckpt": "x"}, needle="is a file"),
    Case("compare -o is a file", ("compare", "s.pb", "--model", "{model}", "--spec", "{spec}", "-o", "{d}/out"),
         {"out": "x"}, needle="is a file"),
    Case("report on an empty directory", ("report", "{d}/run"), {"run": "<dir>"}, needle="run"),
    Case("report with DIR and --storage", ("report", "{d}", "--storage", "sqlite:///x.db", "--study", "s"),
         needle="not both"),
    _search("storage URL of no database", ("--storage", "nosuch://host/db"), "storage"),
    _search("resume from an empty study file", ("--resume",), "is empty", {"run/study.db": b""}),
    _search("resume from a study file of random bytes", ("--resume",), "not an SQLite database",
            {"run/study.db": os.urandom(64)}),
    Case("export to an unknown format", ("export", "{d}/s.pb", "--to", "yaml"), needle="--to"),
    Case("calibrate sizes not sizes", ("calibrate", "--spec", "{spec}", "--sizes", "big"), needle="big"),
]


def check(case: Case, code: int, err: str) -> str:
    """'' when the refusal is clean, else what is wrong with it."""
    lines = err.splitlines()
    if code != case.code:
        return f"exit {code}, expected {case.code}"
    if "Traceback" in err:
        return "traceback"
    if len(lines) != 1:
        return f"{len(lines)} lines on stderr"
    if not lines[0].startswith("error: "):
        return "the line does not start with 'error: '"
    if case.needle and case.needle not in lines[0]:
        return f"{case.needle!r} not in the line"
    return ""


def run_process(case: Case, timeout_s: float = 300.0) -> tuple[int, str]:
    """Run ``case`` as a fresh process in a directory of its own; returns (exit code, stderr)."""
    with tempfile.TemporaryDirectory(prefix="autotune-bad-") as tmp:
        d = pathlib.Path(tmp)
        case.prepare(d)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "AUTOTUNE_"))}
        env["AUTOTUNE_CACHE_DIR"] = str(d / "cache")
        env["PYTHONPATH"] = str(ROOT)
        p = subprocess.run([sys.executable, "-m", "autotune", *case.args(d)], cwd=d, env=env, capture_output=True,
                           text=True, timeout=timeout_s, stdin=subprocess.DEVNULL)
        return p.returncode, p.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (2)")
    args = parser.parse_args(argv)
    runner: Callable = run_process
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(runner, CASES))
    clean = 0
    print(f"{'case':44s} {'exit':>4s}  verdict")
    for case, (code, err) in zip(CASES, results):
        problem = check(case, code, err)
        clean += not problem
        print(f"{case.name:44s} {code:4d}  {problem or 'clean'}")
    print(f"\n{clean} of {len(CASES)} bad inputs refused cleanly (one line, exit {CASES[0].code}, nothing before it)")
    return 0 if clean == len(CASES) else 1


if __name__ == "__main__":
    sys.exit(main())
