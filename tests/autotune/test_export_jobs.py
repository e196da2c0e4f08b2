"""``export --to k8s|slurm``: manifests valid against the Kubernetes and Kubeflow schemas, pods that serve the
spec's tasks and train with the strategy, and servers started by someone else that ``launcher: external`` trains on."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
import yaml

from testpaths import ROOT

MODEL = "examples/models/mlp.py"
SPEC = "examples/clusters/localhost.yml"
K8S_VERSION = "1.33.0"  # successPolicy of an indexed Job is on by default from 1.31


@pytest.fixture(scope="module")
def strategy(tmp_path_factory, cache_dir):
    from autotune.cli import main

    path = tmp_path_factory.mktemp("export-jobs") / "ps.pb"
    assert main(["build", "--builder", "ps", "--model", str(ROOT / MODEL), "--spec", str(ROOT / SPEC), "-o", str(path),
                 "--cache-dir", str(cache_dir)]) == 0
    return path


def _export(run, strategy, *extra):
    code, out, err = run("export", strategy, "--spec", ROOT / SPEC, "--model", ROOT / MODEL, "--steps", "7", *extra)
    assert code == 0, err
    return out


def _documents(run, strategy, *extra) -> list[dict]:
    return list(yaml.safe_load_all(_export(run, strategy, "--to", "k8s", "--image", "reg.example/at:1", *extra)))


def test_the_indexed_job_and_its_service_are_valid_kubernetes(run, strategy):
    import kubernetes_validate

    docs = _documents(run, strategy)
    assert [d["kind"] for d in docs] == ["ConfigMap", "Service", "NetworkPolicy", "Job"]
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)  # raises on any unknown or mistyped field
    service, job = docs[1], docs[3]
    assert service["spec"]["clusterIP"] == "None"  # headless: each pod gets a DNS name
    spec = job["spec"]
    assert spec["completionMode"] == "Indexed" and spec["completions"] == spec["parallelism"] == 2
    assert spec["template"]["spec"]["subdomain"] == service["metadata"]["name"]
    assert spec["successPolicy"] == {"rules": [{"succeededIndexes": "0"}]}  # the driver's pod ends the job


def test_a_broken_manifest_fails_the_kubernetes_schema(run, strategy):
    import kubernetes_validate

    job = _documents(run, strategy)[3]
    job["spec"]["completions"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(job, K8S_VERSION, strict=True)


def test_the_tfjob_is_valid_against_kubeflow_and_kubernetes(run, strategy):
    import jsonschema
    import kubernetes_validate

    docs = _documents(run, strategy, "--kind", "tfjob")
    assert [d["kind"] for d in docs] == ["ConfigMap", "NetworkPolicy", "TFJob"]
    schema = json.loads((ROOT / "tests/fixtures/kubeflow/tfjob-v1.schema.json").read_text())
    tfjob = docs[2]
    jsonschema.validate(tfjob, schema)
    worker = tfjob["spec"]["tfReplicaSpecs"]["Worker"]
    assert worker["replicas"] == 2
    kubernetes_validate.validate({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "t"},
                                  "template": worker["template"]}, K8S_VERSION, strict=True)
    tfjob["spec"]["tfReplicaSpecs"]["Workers"] = tfjob["spec"]["tfReplicaSpecs"].pop("Worker")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(tfjob, schema)


def test_the_pods_spec_and_strategy_name_the_pods(run, strategy, inventories):
    from space.cluster import ClusterSpec
    from space.strategy import Strategy
    from space.validate import validate

    config = _documents(run, strategy)[0]["data"]
    spec = ClusterSpec.from_dict(yaml.safe_load(config["cluster.yml"]))
    assert spec.launcher == "external" and [n.address for n in spec.nodes] == [
        "autotune-train-0.autotune-train", "autotune-train-1.autotune-train"]
    moved = Strategy.from_text(config["strategy.pbtxt"])
    assert moved.replicas == [f"{n.address}:CPU:0" for n in spec.nodes]
    validate(moved, inventories("mlp"), spec)  # every device the strategy names is a device of the pods' spec
    assert len(moved.nodes) == len(Strategy.load(strategy).nodes)


@pytest.mark.parametrize("index,serves", [("0", "--task 0"), ("1", "--task 1")], ids=["driver pod", "server pod"])
def test_each_pod_runs_its_task(run, strategy, tmp_path, index, serves):
    script = _documents(run, strategy)[0]["data"]["run.sh"]
    fake = tmp_path / "python3"  # records what the pod would run instead of running it
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {tmp_path}/ran\n")
    fake.chmod(0o755)
    (tmp_path / "run.sh").write_text(script)
    env = {"PATH": f"{tmp_path}:/usr/bin:/bin", "JOB_COMPLETION_INDEX": index}
    assert subprocess.run(["sh", str(tmp_path / "run.sh")], env=env, timeout=30).returncode == 0
    deadline, ran = time.monotonic() + 10, ""
    while serves not in ran and time.monotonic() < deadline:  # the server starts in the background of the script
        ran = (tmp_path / "ran").read_text() if (tmp_path / "ran").exists() else ""
        time.sleep(0.05)
    assert serves in ran and '"worker": ["autotune-train-0.autotune-train:2222"' in ran
    assert ("autotune train" in ran and "--steps 7" in ran) == (index == "0")


def test_a_task_the_cluster_lacks_is_refused_by_the_pod(run, strategy, tmp_path):
    (tmp_path / "run.sh").write_text(_documents(run, strategy)[0]["data"]["run.sh"])
    p = subprocess.run(["sh", str(tmp_path / "run.sh")], env={"PATH": "/usr/bin:/bin", "JOB_COMPLETION_INDEX": "5"},
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "no task 5" in p.stderr


def test_the_sbatch_script_trains_on_the_spec_nodes(run, strategy):
    script = _export(run, strategy, "--to", "slurm", "--checkpoint", "/scratch/ckpt")
    lines = script.splitlines()
    assert lines[0] == "#!/bin/bash" and "#SBATCH --nodes=2" in lines
    assert "#SBATCH --nodelist=127.0.0.1,127.0.0.2" in lines
    assert lines[-1].startswith("exec python3 -m autotune train ") and "--spec slurm" in lines[-1]
    assert "--checkpoint /scratch/ckpt" in lines[-1] and "--steps 7" in lines[-1]
    assert subprocess.run(["bash", "-n"], input=script, text=True, timeout=30).returncode == 0


@pytest.mark.parametrize("argv,match", [(["--to", "k8s"], "--image"), (["--to", "slurm", "--model", ""], "--model"),
                                        (["--to", "k8s", "--image", "i", "--port", "2222,2223"], "one --port")],
                         ids=["no image", "no model", "two ports"])
def test_launch_files_refuse_what_they_lack(run, strategy, argv, match):
    code, out, err = run("export", strategy, "--spec", ROOT / SPEC, "--model", ROOT / MODEL, *argv)
    assert code == 2 and out == "" and match in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
def test_training_on_servers_a_scheduler_started(run, strategy, tmp_path):
    """What pod 0 does: the servers run already (here, local processes with the manifests' arguments), and the
    driver with ``launcher: external`` only connects to them, trains, and leaves them running."""
    from runners.cluster import server_args
    import socket

    from space.cluster import load_cluster

    local = load_cluster(ROOT / SPEC)
    with socket.socket() as s:
        s.bind(("", 0))
        base = s.getsockname()[1]
    cluster = json.dumps({"worker": [f"{n.address}:{base + i}" for i, n in enumerate(local.nodes)]})
    servers = [subprocess.Popen([sys.executable, "-m", "runners.server_main", *server_args(n, i, cluster)],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for i, n in enumerate(local.nodes)]
    try:
        spec = tmp_path / "external.yml"
        spec.write_text(yaml.safe_dump({"launcher": "external", "external": {"port": base},
                                        "nodes": [{"address": n.address, "chief": n.chief} for n in local.nodes]}))
        code, out, err = run("train", "--model", ROOT / MODEL, "--spec", spec, "--strategy", strategy, "--steps", "3")
        assert code == 0 and "trained to step 3" in out, err
        assert all(s.poll() is None for s in servers)  # their scheduler stops them, not the driver
    finally:
        for s in servers:
            s.kill()
            s.wait()
