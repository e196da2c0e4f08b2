"""The persistent Optuna study of a search: storage, samplers, and the trials it keeps."""
from __future__ import annotations

import os
import pathlib
import sqlite3
import time
from typing import Any

import optuna

from autotune.tuner._record import RECORDS, StudyKeys, TrialRecord
from autotune.tuner._types import SAMPLERS
from space.errors import BadInput


def make_sampler(name: str, seed: int | None) -> optuna.samplers.BaseSampler:
    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, multivariate=False, n_startup_trials=20)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed)
    if name == "cmaes":
        # CMA-ES handles numeric parameters only; the categorical ones fall back to a seeded random sampler
        return optuna.samplers.CmaEsSampler(seed=seed, independent_sampler=optuna.samplers.RandomSampler(seed=seed),
                                            warn_independent_sampling=False)
    raise BadInput(f"unknown sampler {name!r}", hint=f"use one of {', '.join(SAMPLERS)}")


def default_name(model: str | os.PathLike, cluster) -> str:
    """The study's name where --study-name gives none: the model's and the cluster's."""
    return f"{pathlib.Path(model).stem}-{cluster.fingerprint[:8]}"


def storage_url(storage: str | None, output: pathlib.Path) -> str:
    """The storage URL: as given (any SQLAlchemy URL, e.g. postgresql://...), else SQLite in the output dir."""
    if storage:
        return storage
    return f"sqlite:///{(output / 'study.db').resolve()}"


SQLITE_MAGIC = b"SQLite format 3\x00"


def check_sqlite_file(url: str, resume: bool) -> None:
    """Refuse a SQLite study file that cannot hold a study, before anything is written to it: an empty file would
    silently become a new study (and a resumed search would profile everything again), any other bytes fail
    deep inside SQLAlchemy."""
    if not url.startswith("sqlite:///"):
        return
    path = pathlib.Path(url[len("sqlite:///"):])
    if not path.is_file():
        return
    with open(path, "rb") as fh:
        head = fh.read(len(SQLITE_MAGIC))
    if not head:
        if resume:
            raise BadInput(f"the study file {path} is empty: there is nothing to resume",
                           hint="remove it and run without --resume, or point --storage at the study to resume")
        return
    if head != SQLITE_MAGIC:
        raise BadInput(f"the study file {path} is not an SQLite database", hint="remove or move it, or give another "
                       "--output / --storage; a search writes its study there itself")


LOCK_PROBE_S = 1.0  # a study file locked longer than this is worth a note before SQLite's silent wait


def note_lock(url: str, say) -> None:
    """Say who holds a SQLite study file locked, before waiting for it (SQLite waits without a word)."""
    if not url.startswith("sqlite:///") or not pathlib.Path(url[len("sqlite:///"):]).is_file():
        return
    path = pathlib.Path(url[len("sqlite:///"):])
    try:
        con = sqlite3.connect(str(path), timeout=LOCK_PROBE_S, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            con.execute("ROLLBACK")
        finally:
            con.close()
    except sqlite3.OperationalError as e:
        if "locked" in str(e):
            say(f"note: waiting for the lock on {path}, held by {_holders(path)}")


def _holders(path: pathlib.Path) -> str:
    """The processes that have the file (or its journal) open, as far as this user can see them."""
    names = {str(path.resolve()), f"{path.resolve()}-journal", f"{path.resolve()}-wal"}
    found = []
    for proc in pathlib.Path("/proc").glob("[0-9]*"):
        if proc.name == str(os.getpid()):
            continue
        try:
            if any(os.readlink(fd) in names for fd in (proc / "fd").iterdir()):
                argv = " ".join((proc / "cmdline").read_bytes().decode(errors="replace").replace("\0", " ").split())
                found.append(f"pid {proc.name} ({argv[:80]})")
        except OSError:
            continue
    return ", ".join(found) or "another process"


def _create(url: str, name: str, directions: list[str], attempts: int = 8) -> optuna.Study:
    """The study, created or loaded. Searchers started together on a new storage race to create its tables (an
    ``IntegrityError`` on ``alembic_version`` for all but one): the losers try again. SQLite waits up to 60 s for a
    lock instead of failing at once, as several searchers write one file."""
    import sqlalchemy.exc

    for attempt in range(attempts):
        try:
            storage = optuna.storages.RDBStorage(
                url, engine_kwargs={"connect_args": {"timeout": 60}} if url.startswith("sqlite:") else None)
            return optuna.create_study(storage=storage, study_name=name, directions=directions, load_if_exists=True)
        except (sqlalchemy.exc.IntegrityError, sqlalchemy.exc.OperationalError) as e:
            racing = isinstance(e, sqlalchemy.exc.IntegrityError) or "locked" in str(e) or "already exists" in str(e)
            if not racing or attempt == attempts - 1:
                raise
            time.sleep(0.1 * (attempt + 1))
    raise AssertionError("unreachable")


def open_study(url: str, name: str, *, directions: list[str], attrs: dict[str, Any], resume: bool,
               say=lambda _m: None) -> optuna.Study:
    """Create the persistent study, or load it when it exists and belongs to the same model and cluster."""
    check_sqlite_file(url, resume)
    note_lock(url, say)
    try:
        study = _create(url, name, directions)
    except optuna.exceptions.OptunaError as e:
        raise BadInput(f"cannot open study {name!r}: {e}", url) from None
    except Exception as e:  # SQLAlchemy: bad URL, unreachable database
        raise BadInput(f"cannot open storage: {type(e).__name__}: {str(e).splitlines()[0]}", url,
                       hint="give a SQLAlchemy URL such as sqlite:///study.db or postgresql://user@host/db") from None
    old = study.user_attrs
    for key in StudyKeys.OWNED:
        if key in old and old[key] != attrs[key]:
            raise BadInput(f"study {name!r} belongs to another {key.split('_')[0]} ({key} {old[key]} != {attrs[key]})",
                           url, hint="use another --study-name or --output")
    kept = any(TrialRecord.of(t).stage in RECORDS for t in study.trials)
    if old and not resume and kept:
        raise BadInput(f"study {name!r} already has trials", url,
                       hint="pass --resume to continue it, or another --study-name / --output")
    if resume and not kept:
        say(f"note: nothing to resume: study {name!r} in {url} holds no trials yet, so the search starts afresh")
    for key, value in attrs.items():
        study.set_user_attr(key, value)
    return study


def distributions(space) -> dict[str, optuna.distributions.BaseDistribution]:
    return {name: optuna.distributions.CategoricalDistribution(list(choices))
            for name, choices in space.distributions().items()}


def record(study: optuna.Study, dists: dict, params: dict, value: float | list[float] | None,
           rec: TrialRecord) -> None:
    """Add one finished trial (a simulated candidate or a profiled measurement) to the persistent study; with
    ``value`` None, a FAIL trial (a candidate whose profiling failed, the record's ``error`` saying why)."""
    attrs = rec.to_attrs()
    if value is None:
        trial = optuna.trial.create_trial(state=optuna.trial.TrialState.FAIL, params=params,
                                          distributions={k: dists[k] for k in params}, user_attrs=attrs)
        study.add_trial(trial)
        return
    values = value if isinstance(value, list) else [value]
    trial = optuna.trial.create_trial(params=params, distributions={k: dists[k] for k in params},
                                      values=values, user_attrs=attrs)
    study.add_trial(trial)
