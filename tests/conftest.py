"""Shared fixtures: repository paths and traced inventories of the example models (traced once per run)."""
from __future__ import annotations

import os
import pathlib

import pytest

from testpaths import CLUSTERS, EXAMPLE_CLUSTERS, MODELS, ROOT  # noqa: F401

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


@pytest.fixture(scope="session", autouse=True)
def temp_dir(tmp_path_factory):
    """Temporary files of the code under test (and of the processes it starts) go under pytest's own directory, and
    so does the default cache dir: a server log kept after a test killed its server, for one, is left neither in
    /tmp nor in the user's ~/.cache."""
    import tempfile

    path = tmp_path_factory.mktemp("tmp")
    saved = {k: os.environ.get(k) for k in ("TMPDIR", "AUTOTUNE_CACHE_DIR")}
    before_module = tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = str(path), str(path)
    os.environ.setdefault("AUTOTUNE_CACHE_DIR", str(tmp_path_factory.mktemp("default-cache")))
    yield path
    tempfile.tempdir = before_module
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory) -> pathlib.Path:
    """One inventory cache for the whole run, so each example model is traced once."""
    return tmp_path_factory.mktemp("inventory-cache")


@pytest.fixture(scope="session")
def inventories(cache_dir):
    """name -> Inventory of each example model (lazy, cached)."""
    from space.model import load_inventory

    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = load_inventory(MODELS / f"{name}.py", cache_dir=cache_dir)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def clusters():
    from space.cluster import load_cluster

    return {name: load_cluster(CLUSTERS / f"{name}.yml") for name in EXAMPLE_CLUSTERS}


@pytest.fixture
def run(capsys):
    """The CLI in-process: ``run(*argv) -> (exit code, stdout, stderr)``."""
    from autotune.cli import main

    def _run(*argv):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        return code, out, err
    return _run


@pytest.fixture(scope="session")
def neighbour():
    """A second, unprivileged user of this machine (its ``pwd`` entry): made with ``useradd`` for the session (root
    only) and removed after it."""
    import shutil
    import subprocess

    if os.geteuid() != 0:
        pytest.skip("needs root to add a second user (useradd)")
    missing = [t for t in ("useradd", "userdel", "setpriv") if not shutil.which(t, path="/usr/sbin:/usr/bin:/sbin")]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (passwd, util-linux)")
    name = f"atn{os.getpid()}"
    made = subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name],
                          capture_output=True, text=True, timeout=30)
    if made.returncode != 0:
        pytest.skip(f"useradd failed: {made.stderr.strip()}")
    try:
        import pwd

        yield pwd.getpwnam(name)
    finally:
        subprocess.run(["userdel", name], capture_output=True, timeout=30)


@pytest.fixture(scope="module")
def lent_localhost():
    """The loopback cluster of ``examples/clusters/localhost.yml``, started once for the module and lent to every
    command it runs in-process (``runners.lend``): each command would otherwise start its own servers."""
    from runners import lend, start_cluster
    from space.cluster import load_cluster

    with start_cluster(load_cluster(CLUSTERS / "localhost.yml"), timeout_s=120) as running, lend(running):
        yield running
