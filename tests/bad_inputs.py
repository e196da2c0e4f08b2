"""Bad inputs a user may give, and what each must get: a refusal is one line on stderr naming what and where, with
exit code 2, no traceback and nothing printed before it; an input that is accepted (a model's stray thread, a
locked study) must end as specified, without a traceback.

``python tests/bad_inputs.py [--jobs N] [-k TEXT]`` runs every case (or those named with TEXT) as a fresh ``autotune``
process (TensorFlow's start-up logging included, nothing set in the environment) and prints a table and the count of
inputs handled as specified;
``tests/autotune/test_bad_inputs.py`` runs the same cases in-process (those only a fresh process can show, in one).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import dataclasses
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = str(ROOT / "examples" / "models" / "mlp.py")
SPEC = str(ROOT / "examples" / "clusters" / "localhost.yml")
# reading as root: without these capabilities root is refused a file of mode 000, as any user is
NO_DAC = ["setpriv", "--inh-caps=-dac_override,-dac_read_search", "--bounding-set=-dac_override,-dac_read_search",
          "--"]
HOLD_S = 2.0  # how long a case's study file stays locked once the command opened it (past its 1 s probe)

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
    needle: str = ""  # must appear in the error line (a refusal), or on stderr (an accepted input)
    before: tuple[tuple[str, ...], ...] = ()  # commands run first (each must succeed), e.g. a strategy to use
    executable: tuple[str, ...] = ()  # files made executable
    unreadable: tuple[str, ...] = ()  # files made mode 000 (and root's override of it dropped)
    hold: str = ""  # a SQLite file another process holds locked until HOLD_S seconds after the command opens it
    json_out: bool = False  # stdout must be one JSON document
    fresh: bool = False  # only a fresh process shows it (the process's own end, root's file access)
    slow: bool = False  # starts TensorFlow servers
    env: dict[str, str | None] = dataclasses.field(default_factory=dict)  # the command's environment (None: unset)

    def args(self, d: pathlib.Path, argv: tuple[str, ...] | None = None) -> list[str]:
        return [a.format(d=d, model=MODEL, spec=SPEC) for a in (self.argv if argv is None else argv)]

    def prepare(self, d: pathlib.Path) -> None:
        for name, content in self.files.items():
            p = d / name
            if content == "<dir>":
                p.mkdir(parents=True, exist_ok=True)
                continue
            p.parent.mkdir(parents=True, exist_ok=True)
            text = content if isinstance(content, bytes) else \
                content.replace("{python}", sys.executable).replace("{d}", str(d)).encode()
            p.write_bytes(text)
        for name in self.executable:
            (d / name).chmod(0o755)
        for name in self.unreadable:
            (d / name).chmod(0)

    @contextlib.contextmanager
    def holding(self, d: pathlib.Path):
        """While the block runs, another process holds ``hold`` locked, until HOLD_S seconds after another process
        opened it (or a minute)."""
        if not self.hold:
            yield
            return
        (d / self.hold).parent.mkdir(parents=True, exist_ok=True)
        holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(d / self.hold), str(HOLD_S)],
                                  stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "held"
            yield
        finally:
            holder.kill()
            holder.wait()


_HOLDER = """import os, sqlite3, sys, time
path = os.path.realpath(sys.argv[1])
con = sqlite3.connect(path, isolation_level=None)
con.execute("CREATE TABLE IF NOT EXISTS held (x)")
con.execute("BEGIN EXCLUSIVE")
print("held", flush=True)


def opened_elsewhere():
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if int(pid) != os.getpid() and any(os.readlink(f"/proc/{pid}/fd/{fd}") == path
                                               for fd in os.listdir(f"/proc/{pid}/fd")):
                return True
        except OSError:
            pass
    return False


end = time.monotonic() + 60
while not opened_elsewhere() and time.monotonic() < end:
    time.sleep(0.1)
time.sleep(float(sys.argv[2]))
con.execute("ROLLBACK")
"""


def _npz(**shapes) -> bytes:
    """An ``np.savez`` file of float32 zeros of the given shapes."""
    import numpy as np

    out = io.BytesIO()
    np.savez(out, **{name: np.zeros(shape, "float32") for name, shape in shapes.items()})
    return out.getvalue()


def _checkpoint(step: int, variables: dict[str, tuple[int, ...]], truncated: bool = False) -> dict[str, bytes]:
    """The files of checkpoint ``ckpt-<step>`` (runners.train's layout) of two replicas, every variable zero, under
    ``ckpt/``; ``truncated``: its ``variables.npz`` cut short, as a crash or a full disk leaves it."""
    name = f"ckpt/ckpt-{step:08d}"
    meta = {"step": step, "batches_done": [step, step], "loss": 1.0, "weights": "model.weights.h5"}
    arrays = _npz(**{f"trainable/{k}": v for k, v in variables.items()})
    return {f"{name}/checkpoint.json": json.dumps(meta).encode(),
            f"{name}/variables.npz": arrays[:len(arrays) // 2] if truncated else arrays}


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


GOOD_VARIABLES = {"sequential/dense/kernel:0": (3, 2), "sequential/dense/bias:0": (2,)}  # of GOOD_MODEL
BUILD_GOOD = ("build", "--builder", "ps", "--model", "{d}/m.py", "--spec", "{spec}", "-o", "{d}/s.pb", "--cache-dir",
              "{d}/cache")  # a strategy of GOOD_MODEL on the bundled localhost spec
RESUME_GOOD = ("train", "--model", "{d}/m.py", "--spec", "{spec}", "--strategy", "{d}/s.pb", "--steps", "2",
               "--checkpoint", "{d}/ckpt", "--resume")
SEARCH = ("search", "--model", "{model}", "--spec", "{spec}", "-o", "{d}/run", "--cache-dir", "{d}/cache",
          "--simulate-only", "--quiet", "--trials", "20")
NO_TENSORFLOW = "#!/bin/sh\nexec {python} -S \"$@\"\n"  # the interpreter without its site-packages


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
    _spec("memory not an amount", "nodes:\n  - {address: 127.0.0.1, chief: true, memory: lots}\n", "memory"),
    _spec("memory in one letter", "nodes:\n  - {address: 127.0.0.1, chief: true, memory: 4G}\n", "unit"),
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
    Case("profile --trace is a file", ("profile", "--model", "{model}", "--spec", "{spec}", "--strategy", "{d}/s.pb",
                                       "--trace", "{d}/out"), {"out": "x"}, needle="--trace"),
    Case("compare -o is a file", ("compare", "s.pb", "--model", "{model}", "--spec", "{spec}", "-o", "{d}/out"),
         {"out": "x"}, needle="is a file"),
    Case("report on an empty directory", ("report", "{d}/run"), {"run": "<dir>"}, needle="run"),
    Case("dashboard on a directory without a study", ("dashboard", "{d}/run"), {"run": "<dir>"},
         needle="no study in"),
    Case("dashboard on a summary naming no study", ("dashboard", "{d}"), {"summary.json": "{}"},
         needle="names no study"),
    Case("dashboard port out of range", ("dashboard", "{d}", "--port", "70000"), needle="a port is 0 to 65535"),
    Case("report with DIR and --storage", ("report", "{d}", "--storage", "sqlite:///x.db", "--study", "s"),
         needle="not both"),
    _search("storage URL of no database", ("--storage", "nosuch://host/db"), "storage"),
    _search("resume from an empty study file", ("--resume",), "is empty", {"run/study.db": b""}),
    _search("resume from a study file of random bytes", ("--resume",), "not an SQLite database",
            {"run/study.db": os.urandom(64)}),
    Case("export to an unknown format", ("export", "{d}/s.pb", "--to", "yaml"), needle="--to"),
    Case("export slurm name with a line break", ("export", "{d}/s.pb", "--to", "slurm", "--spec", "{spec}",
                                                 "--model", "{model}", "--name", "job\ntouch pwned"),
         needle="Slurm job name"),
    Case("export slurm name of 300 characters", ("export", "{d}/s.pb", "--to", "slurm", "--spec", "{spec}",
                                                 "--model", "{model}", "--name", "j" * 300),
         needle="1-128 characters"),
    Case("export k8s name with a space, capitals", ("export", "{d}/s.pb", "--to", "k8s", "--spec", "{spec}",
                                                    "--model", "{model}", "--image", "i", "--name", "My Job"),
         needle="DNS-1035 label"),
    Case("export k8s name too long for its pods", ("export", "{d}/s.pb", "--to", "k8s", "--spec", "{spec}",
                                                   "--model", "{model}", "--image", "i", "--name", "a" * 62),
         needle="at most 61 characters"),
    Case("calibrate sizes not sizes", ("calibrate", "--spec", "{spec}", "--sizes", "big"), needle="big"),
    # counts checked before anything starts
    Case("profile steps 0", ("profile", "--model", "{model}", "--spec", "{spec}", "--strategy", "{d}/s.pb",
                             "--steps", "0"), needle="--steps"),
    Case("profile warm-up -1", ("profile", "--model", "{model}", "--spec", "{spec}", "--strategy", "{d}/s.pb",
                                "--warmup", "-1"), needle="--warmup"),
    Case("train steps beyond a 64-bit count", ("train", "--model", "{model}", "--spec", "{spec}", "--strategy",
                                               "{d}/s.pb", "--steps", "100000000000000000000"), needle="--steps"),
    # strategy files
    Case("strategy path is a directory", ("show", "{d}/s.pb"), {"s.pb": "<dir>"}, needle="is a directory"),
    Case("empty strategy file", ("show", "{d}/s.pb"), {"s.pb": b""}, needle="empty strategy file"),
    # what a model file does
    Case("model file unreadable", ("inspect", "--model", "{d}/m.py", "--cache-dir", "{d}/cache"),
         {"m.py": GOOD_MODEL}, unreadable=("m.py",), needle="Permission denied", fresh=True),
    Case("model leaves a thread running", ("inspect", "--model", "{d}/m.py", "--cache-dir", "{d}/cache"),
         {"m.py": "import threading, time\nthreading.Thread(target=time.sleep, args=(600,)).start()\n" + GOOD_MODEL},
         code=0, fresh=True),
    Case("model prints megabytes to inspect --json", ("inspect", "--model", "{d}/m.py", "--cache-dir", "{d}/cache",
                                                      "--json"),
         {"m.py": "print('x' * 4_000_000)\n" + GOOD_MODEL}, code=0, json_out=True),
    # nodes no server can be
    _spec("IPv6 node", "nodes:\n  - {address: '::1', chief: true}\n", "IPv6"),
    _spec("CPU device 999", "nodes:\n  - {address: 127.0.0.1, chief: true, cpus: [999]}\n", "cpus"),
    _spec("a billion threads", "nodes:\n  - {address: 127.0.0.1, chief: true, intra_op_threads: 1000000000}\n",
          "intra_op_threads"),
    Case("node python without TensorFlow", ("calibrate", "--spec", "{d}/c.yml", "--cache-dir", "{d}/cache",
                                            "--quiet"),
         {"c.yml": "nodes:\n  - {address: 127.0.0.1, chief: true}\n  - {address: 127.0.0.2, python: '{d}/py'}\n",
          "py": NO_TENSORFLOW}, executable=("py",), needle="cannot import", slow=True),
    # studies
    dataclasses.replace(_search("resume with nothing to resume", ("--resume", "--trials", "20"), "nothing to resume"),
                        code=0),
    Case("study file locked by another process", SEARCH, hold="run/study.db", code=0,
         needle=", held by pid "),
    # checkpoints
    Case("resume from another model's checkpoint", RESUME_GOOD,
         {"m.py": GOOD_MODEL, **_checkpoint(1, {"other/kernel:0": (3, 2)})}, before=(BUILD_GOOD,),
         needle="of another model"),
    Case("only checkpoint truncated", RESUME_GOOD,
         {"m.py": GOOD_MODEL, **_checkpoint(1, GOOD_VARIABLES, truncated=True)}, before=(BUILD_GOOD,),
         needle="unreadable checkpoint file"),
    Case("newest checkpoint truncated", RESUME_GOOD,
         {"m.py": GOOD_MODEL, **_checkpoint(1, GOOD_VARIABLES), **_checkpoint(2, GOOD_VARIABLES, truncated=True)},
         before=(BUILD_GOOD,), code=0, needle="ckpt-00000002/variables.npz", slow=True),
    # what a message must name exactly, and settings autotune does not act on
    Case("a Slurm job without its node list", ("calibrate", "--spec", "slurm", "--cache-dir", "{d}/cache"),
         env={"SLURM_JOB_ID": "42", "SLURM_JOB_NODELIST": None, "SLURM_NODELIST": None},
         needle="SLURM_JOB_NODELIST is not set, though SLURM_JOB_ID is"),
    _spec("a node address with a URL scheme", "nodes:\n  - {address: 'grpc://127.0.0.1', chief: true}\n",
          "has the URL scheme grpc://, which a node's address must not have"),
    Case("cache dir is a file", ("inspect", "--model", "{model}", "--cache-dir", "{d}/cache"), {"cache": "x"},
         needle="cache is a file, not a directory"),
    _search("negative budget", ("--budget", "-5m"), "(90s, 3m, 1h), got '-5m'"),
    _search("negative budget after =", ("--budget=-5m",), "(90s, 3m, 1h), got '-5m'"),
    _model("a compiled model that runs eagerly", _replace(
        "    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])",
        "    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])\n"
        "    m.compile('adam', run_eagerly=True)\n    return m"), "run_eagerly=True, which autotune ignores", code=0),
    _model("a compiled model with XLA", _replace(
        "    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])",
        "    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])\n"
        "    m.compile('adam', jit_compile=True)\n    return m"), "jit_compile=True, which autotune ignores", code=0),
    Case("adapt from a strategy outside a search", RESUME_GOOD[:-1] + ("--adapt",), {"m.py": GOOD_MODEL},
         before=(BUILD_GOOD,), code=0, needle="is not in a search's output directory", slow=True),
]


def check(case: Case, code: int, err: str, out: str = "") -> str:
    """'' when the input was handled as specified, else what is wrong."""
    lines = err.splitlines()
    if code != case.code:
        return f"exit {code}, expected {case.code}" + (f" ({lines[-1][:80]})" if lines else "")
    if "Traceback" in err:
        return "traceback"
    if case.json_out:
        try:
            json.loads(out)
        except ValueError:
            return "stdout is not one JSON document"
    if case.code == 0:
        return f"{case.needle!r} not on stderr" if case.needle and case.needle not in err else ""
    if len(lines) != 1:
        return f"{len(lines)} lines on stderr"
    if not lines[0].startswith("error: "):
        return "the line does not start with 'error: '"
    if case.needle and case.needle not in lines[0]:
        return f"{case.needle!r} not in the line"
    return ""


def run_process(case: Case, timeout_s: float = 300.0) -> tuple[int, str, str]:
    """Run ``case`` as fresh processes in a directory of its own; returns (exit code, stdout, stderr) of its command
    (-1 and 'timed out' when it did not end in ``timeout_s``)."""
    with tempfile.TemporaryDirectory(prefix="autotune-bad-") as tmp:
        d = pathlib.Path(tmp)
        case.prepare(d)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_", "AUTOTUNE_"))}
        env["AUTOTUNE_CACHE_DIR"] = str(d / "cache")
        env["PYTHONPATH"] = str(ROOT)
        env["TMPDIR"] = str(d / "tmp")  # whatever a case leaves in the temporary directory goes with it
        (d / "tmp").mkdir()
        env.update({k: v for k, v in case.env.items() if v is not None})
        for key in [k for k, v in case.env.items() if v is None]:
            env.pop(key, None)

        def autotune(argv: list[str], prefix: list[str] = ()) -> subprocess.CompletedProcess:
            return subprocess.run([*prefix, sys.executable, "-m", "autotune", *argv], cwd=d, env=env,
                                  capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL)

        for argv in case.before:
            done = autotune(case.args(d, argv))
            if done.returncode != 0:
                return done.returncode, done.stdout, f"a command before it failed: {done.stderr}"
        prefix = NO_DAC if case.unreadable and os.geteuid() == 0 and shutil.which("setpriv") else []
        try:
            with case.holding(d):
                p = autotune(case.args(d), prefix)
        except subprocess.TimeoutExpired:
            return -1, "", f"timed out after {timeout_s:g} s"
        return p.returncode, p.stdout, p.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once (2)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a case may take (300)")
    parser.add_argument("-k", dest="only", action="append", default=[], metavar="TEXT",
                        help="only the cases whose name holds TEXT (repeatable; default: every case)")
    args = parser.parse_args(argv)
    cases = [c for c in CASES if not args.only or any(t in c.name for t in args.only)]
    runner: Callable = lambda case: run_process(case, args.timeout)  # noqa: E731
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(runner, cases))
    good = 0
    print(f"{'case':44s} {'exit':>4s}  verdict")
    for case, (code, out, err) in zip(cases, results):
        problem = check(case, code, err, out)
        good += not problem
        print(f"{case.name:44s} {code:4d}  {problem or ('clean' if case.code else 'accepted as specified')}")
    refused = sum(c.code != 0 for c in cases)
    print(f"\n{good} of {len(cases)} bad inputs handled as specified ({refused} to refuse in one line with exit 2, "
          f"{len(cases) - refused} to accept) in {time.monotonic() - started:.0f} s")
    return 0 if good == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
