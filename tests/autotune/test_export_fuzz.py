"""``export --to slurm|k8s`` with hostile names and paths: a name or path a shell would run as a command runs nothing
when the generated file runs, a path reaches ``python3`` byte for byte, and what the scheduler would reject or a
script would misread is refused in one line that names the rule. No TensorFlow: the strategies are built by hand."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import time

import pytest
import yaml

from autotune import _job_files
from space.cluster import ClusterSpec, load_cluster
from space.errors import BadInput
from space.strategy import Strategy, ps_node
from testpaths import ROOT

SPEC = ROOT / "examples/clusters/localhost.yml"
MODEL = ROOT / "examples/models/mlp.py"
MARKER = "pwned"  # what every payload below touches, in the directory the script runs in
# id -> (a hostile string, a naive shell line in which it runs `touch pwned`: the harness's own check)
HOSTILE = {
    "newline": ("job\ntouch pwned", "# strategy {}"),
    "carriage return": ("job\r\ntouch pwned", "# strategy {}"),
    "command substitution": ("$(touch pwned)", 'echo "{}"'),
    "backticks": ("`touch pwned`", 'echo "{}"'),
    "semicolon": ("job; touch pwned", "echo {}"),
    "single quotes": ("job'; touch pwned; '", "echo '{}'"),
    "double quotes": ('job"; touch pwned; "', 'echo "{}"'),
    "spaces": ("my job $(touch pwned)", "echo {}"),
    "unicode": ("jöb 名前 `touch pwned`", 'echo "{}"'),
    "300 characters": ("j" * 286 + "$(touch pwned)", 'echo "{}"'),
}
BREAKS = ["newline", "carriage return"]  # control characters: refused in a path
PRINTABLE = [k for k in HOSTILE if k not in BREAKS]
REFUSED_NAMES = {**{k: v for k, (v, _) in HOSTILE.items()}, "empty": "", "hash": "job#1"}

DNS_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
DNS_1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
SLURM_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")


@pytest.fixture(scope="module")
def strategy_file(tmp_path_factory):
    return _localhost_strategy().save(tmp_path_factory.mktemp("fuzz") / "s.pb")


def _localhost_strategy() -> Strategy:
    return Strategy.build([ps_node("w:0", "127.0.0.1:CPU:0")], ["127.0.0.1:CPU:0", "127.0.0.2:CPU:0"])


def _run_job(shell: str, text: str, tmp_path, calls: int, **env) -> list[list[str]]:
    """Run ``text`` under ``shell`` with a fake python3 first on PATH (touch and the rest still found, so an
    injected command would run); each python3 call's argv, NUL-separated, goes to a file of its own."""
    bin_dir, work, argv = tmp_path / "bin", tmp_path / "work", tmp_path / "argv"
    for d in (bin_dir, work, argv):
        d.mkdir(parents=True)
    fake = bin_dir / "python3"
    fake.write_text(f"#!/bin/sh\nprintf '%s\\0' \"$@\" > {shlex.quote(str(argv))}/argv.$$\n")
    fake.chmod(0o755)
    (work / "job.sh").write_bytes(text.encode())
    p = subprocess.run([shell, "job.sh"], cwd=work, capture_output=True, timeout=30,
                       env={"PATH": f"{bin_dir}:/usr/bin:/bin", **env})
    assert p.returncode == 0, p.stderr
    deadline = time.monotonic() + 10
    while len(list(argv.iterdir())) < calls and time.monotonic() < deadline:  # a server starts in the background
        time.sleep(0.01)
    assert not list(tmp_path.rglob(MARKER)), "an injected command ran"
    runs = [f.read_bytes().split(b"\0")[:-1] for f in argv.iterdir()]
    return sorted([a.decode() for a in run] for run in runs)


def _refused(run, strategy_file, target: str, *argv) -> str:
    extra = ("--image", "reg.example/at:1") if target == "k8s" else ()
    code, out, err = run("export", strategy_file, "--to", target, "--spec", SPEC, "--model", MODEL, *extra, *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and err.startswith("error: "), err
    return err


# ---- the harness ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", HOSTILE)
def test_the_harness_sees_each_payload_run_where_it_is_not_quoted(key, tmp_path):
    value, naive = HOSTILE[key]
    subprocess.run(["bash", "-c", naive.format(value)], cwd=tmp_path, capture_output=True, timeout=30)
    assert (tmp_path / MARKER).exists()


# ---- Slurm ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", REFUSED_NAMES)
def test_a_slurm_name_outside_the_safe_set_is_refused(key, run, strategy_file):
    err = _refused(run, strategy_file, "slurm", f"--name={REFUSED_NAMES[key]}")
    assert "Slurm job name must be 1-128 characters of A-Z a-z 0-9 . _ -" in err
    assert SLURM_NAME.fullmatch(re.search(r"hint: --name (\S+)$", err.strip()).group(1))


@pytest.mark.parametrize("name", ["a", "0123456789", "Job_1.2-x", "x" * 128, "-leading-dash"])
def test_an_unusual_legal_slurm_name_is_written_quoted(name, tmp_path):
    script = _job_files.sbatch_script("/data/s.pb", load_cluster(SPEC), model="/data/m.py", steps=7, name=name)
    assert f'#SBATCH --job-name="{name}"' in script.splitlines()
    assert _run_job("bash", script, tmp_path, 1) == [["-m", "autotune", "train", "--model", "/data/m.py", "--spec",
                                                       "slurm", "--strategy", "/data/s.pb", "--steps", "7"]]


@pytest.mark.parametrize("key", PRINTABLE)
def test_a_hostile_path_reaches_python_byte_for_byte_from_the_sbatch_script(key, tmp_path):
    value = HOSTILE[key][0]
    model, strategy, checkpoint = f"/nonexistent/{value}/m.py", f"/nonexistent/{value}.pb", f"/scratch/{value}"
    script = _job_files.sbatch_script(strategy, load_cluster(SPEC), model=model, steps=7, checkpoint=checkpoint)
    assert subprocess.run(["bash", "-n"], input=script, text=True, timeout=30).returncode == 0
    assert _run_job("bash", script, tmp_path, 1) == [["-m", "autotune", "train", "--model", model, "--spec", "slurm",
                                                       "--strategy", strategy, "--steps", "7",
                                                       "--checkpoint", checkpoint]]


@pytest.mark.parametrize("flag", ["--model", "--checkpoint", "S.PB"])
@pytest.mark.parametrize("key", BREAKS)
def test_a_path_with_a_line_break_is_refused_for_slurm(key, flag, run, strategy_file, tmp_path):
    value = HOSTILE[key][0]
    paths = {"--model": str(MODEL), "--checkpoint": "/scratch/ckpt", "S.PB": str(strategy_file)}
    paths[flag] = str(strategy_file.with_name(f"s{value}.pb")) if flag == "S.PB" else f"/data/{value}"
    if flag == "S.PB":
        _localhost_strategy().save(paths["S.PB"])  # it must be read before its path is written
    code, out, err = run("export", paths["S.PB"], "--to", "slurm", "--spec", SPEC, "--model", paths["--model"],
                         "--checkpoint", paths["--checkpoint"])
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "must hold no control characters or line breaks" in err and f", {flag};" in err


def test_the_cli_writes_a_script_whose_strategy_path_round_trips(run, tmp_path):
    strategy = _localhost_strategy().save(tmp_path / "s $(touch pwned) `x`;'\"ö.pb")
    code, script, err = run("export", strategy, "--to", "slurm", "--spec", SPEC, "--model", MODEL, "--steps", "7",
                            "--name=Job_1.x")
    assert code == 0, err
    ran = _run_job("bash", script, tmp_path / "job", 1)
    assert ran == [["-m", "autotune", "train", "--model", str(MODEL.resolve()), "--spec", "slurm", "--strategy",
                    str(strategy.resolve()), "--steps", "7"]]


def test_a_slurm_node_name_a_nodelist_would_misread_is_refused():
    spec = ClusterSpec.from_dict({"nodes": [{"address": "127.0.0.1", "chief": True, "hostname": "n$(touch pwned)"},
                                            {"address": "127.0.0.2"}]})
    with pytest.raises(BadInput, match=r"a Slurm node name must be .* but got 'n\$\(touch pwned\)', nodes\[0\]"):
        _job_files.sbatch_script("/data/s.pb", spec, model="/data/m.py", steps=7)


# ---- Kubernetes ----------------------------------------------------------------------------------------

def _is_subdomain(name: str) -> bool:
    return len(name) <= 253 and all(DNS_1123_LABEL.fullmatch(p) and len(p) <= 63 for p in name.split("."))


def _label_values(docs: list[dict]) -> list[str]:
    found = []

    def walk(x):
        if isinstance(x, dict):
            for key, value in x.items():
                if key in ("labels", "matchLabels") or (key == "selector" and "matchLabels" not in value):
                    found.extend(value.values())
                else:
                    walk(value)
        elif isinstance(x, list):
            for item in x:
                walk(item)

    walk(docs)
    return found


def _assert_k8s_names(docs: list[dict], kind: str, n: int) -> list[str]:
    """Every name the manifests hold, and those the cluster derives from them, follows Kubernetes' rules; returns
    the pods' addresses of cluster.yml."""
    name = docs[-1]["metadata"]["name"]
    assert all(_is_subdomain(d["metadata"]["name"]) for d in docs)
    values = _label_values(docs)
    assert values and all(len(v) <= 63 and LABEL_VALUE.fullmatch(v) for v in values)
    template = docs[-1]["spec"]["template"] if kind == "job" else \
        docs[-1]["spec"]["tfReplicaSpecs"]["Worker"]["template"]
    assert _is_subdomain(template["spec"]["volumes"][0]["configMap"]["name"])
    if kind == "job":
        service = next(d for d in docs if d["kind"] == "Service")["metadata"]["name"]
        assert DNS_1035.fullmatch(service) and len(service) <= 63 and template["spec"]["subdomain"] == service
        derived = [f"{name}-{i}" for i in range(n)]  # an indexed Job's pod hostnames
    else:
        derived = [f"{name}-worker-{i}" for i in range(n)]  # the Services the operator makes
    assert all(DNS_1035.fullmatch(h) and len(h) <= 63 for h in derived)
    addresses = [node["address"] for node in yaml.safe_load(docs[0]["data"]["cluster.yml"])["nodes"]]
    assert all(_is_subdomain(a) for a in addresses) and [a.split(".")[0] for a in addresses] == derived
    return addresses


def _k8s(name: str, kind: str = "job", checkpoint: str | None = None, spec=None, strategy=None) -> list[dict]:
    docs = _job_files.k8s_documents(strategy or _localhost_strategy(), spec or load_cluster(SPEC), model=str(MODEL),
                                    steps=7, image="reg.example/at:1", name=name, kind=kind, checkpoint=checkpoint)
    return list(yaml.safe_load_all(_job_files.dump_yaml(docs)))  # as kubectl reads them


K8S_REFUSED = {**REFUSED_NAMES, "uppercase": "MyJob", "underscore": "my_job", "a dot": "my.job",
               "leading digit": "9job", "trailing dash": "job-", "62 characters": "a" * 62}


@pytest.mark.parametrize("kind", ["job", "tfjob"])
@pytest.mark.parametrize("key", K8S_REFUSED)
def test_a_k8s_name_that_is_no_dns_label_is_refused(key, kind, run, strategy_file):
    err = _refused(run, strategy_file, "k8s", "--kind", kind, f"--name={K8S_REFUSED[key]}")
    bound = 61 if kind == "job" else 54
    assert "must be a DNS-1035 label" in err and f"at most {bound} characters" in err
    hint = re.search(r"hint: --name (\S+)$", err.strip()).group(1)
    assert DNS_1035.fullmatch(hint) and len(hint) <= bound


@pytest.mark.parametrize("name,kind", [("a", "job"), ("a" * 40, "job"), ("a1-2b3", "job"), ("a" * 61, "job"),
                                       ("a", "tfjob"), ("x9" * 27, "tfjob")],
                         ids=["a", "40 characters", "digits and dashes", "61 characters: the bound on two nodes",
                              "tfjob a", "tfjob 54 characters"])
def test_a_legal_k8s_name_makes_manifests_and_a_pod_script_that_hold(name, kind, tmp_path):
    docs = _k8s(name, kind)
    addresses = _assert_k8s_names(docs, kind, 2)
    ran = _run_job("sh", docs[0]["data"]["run.sh"], tmp_path, 2, JOB_COMPLETION_INDEX="0")
    server = next(a for a in ran if "runners.server_main" in a)
    cluster = json.loads(server[server.index("--cluster") + 1])
    assert cluster == {"worker": [f"{a}:{2222 + i}" for i, a in enumerate(addresses)]}


@pytest.mark.parametrize("key", PRINTABLE)
def test_a_hostile_checkpoint_reaches_python_byte_for_byte_from_the_pod_script(key, tmp_path):
    checkpoint = f"/ckpt/{HOSTILE[key][0]}"
    docs = _k8s("autotune-train", checkpoint=checkpoint)
    ran = _run_job("sh", docs[0]["data"]["run.sh"], tmp_path, 2, JOB_COMPLETION_INDEX="0")
    assert ["-m", "autotune", "train", "--model", "/etc/autotune/model.py", "--spec", "/etc/autotune/cluster.yml",
            "--strategy", "/etc/autotune/strategy.pbtxt", "--steps", "7", "--checkpoint", checkpoint] in ran


@pytest.mark.parametrize("key", BREAKS)
def test_a_checkpoint_with_a_line_break_is_refused_for_k8s(key, run, strategy_file):
    err = _refused(run, strategy_file, "k8s", "--checkpoint", f"/ckpt/{HOSTILE[key][0]}")
    assert "must hold no control characters or line breaks" in err and ", --checkpoint;" in err


@pytest.mark.parametrize("kind,length,allowed", [("job", 60, True), ("job", 61, False), ("tfjob", 53, True),
                                                 ("tfjob", 54, False)])
def test_the_name_bound_follows_the_node_count(kind, length, allowed):
    spec = ClusterSpec.from_dict({"nodes": [{"address": "198.18.0.1", "chief": True, "count": 11}]})
    addresses = [n.address for n in spec.nodes]
    strategy = Strategy.build([ps_node("w:0", f"{addresses[0]}:CPU:0")], [f"{a}:CPU:0" for a in addresses])
    if allowed:  # the last pod's name is exactly 63 characters
        _assert_k8s_names(_k8s("a" * length, kind, spec=spec, strategy=strategy), kind, 11)
    else:
        with pytest.raises(BadInput, match=f"at most {length - 1} characters"):
            _k8s("a" * length, kind, spec=spec, strategy=strategy)
