"""optuna-dashboard served on a search's study: located from the run directory, bound to one address, read-only
unless asked, stopped by the caller (Ctrl-C for the command, the search's end for ``search --dashboard``)."""
from __future__ import annotations

import dataclasses
import errno
import json
import pathlib
import socketserver
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from space.errors import BadInput

READ_METHODS = ("GET", "HEAD")
INSTALL_HINT = "pip install 'autotune[dashboard]' (or pip install optuna-dashboard)"


@dataclasses.dataclass(frozen=True)
class StudyRef:
    """Where a search keeps its study: the storage URL and the study's name in it."""
    storage: str
    name: str


def locate(run_dir: str | pathlib.Path) -> StudyRef:
    """The study of the search that wrote ``run_dir``: as its ``summary.json`` names it, else the one study in its
    ``study.db`` (a search stopped before writing its summary)."""
    d = pathlib.Path(run_dir)
    if not d.is_dir():
        raise BadInput(f"run directory {d} not found" if not d.exists() else f"{d} is a file, not a run directory",
                       hint="give the output directory of `autotune search` (-o)")
    summary, db = d / "summary.json", d / "study.db"
    if summary.is_file():
        try:
            data = json.loads(summary.read_text())
            ref = StudyRef(str(data["storage"]), str(data["study_name"]))
        except (ValueError, KeyError, TypeError):
            raise BadInput(f"{summary} names no study (storage, study_name)",
                           hint="give the output directory of a finished `autotune search`") from None
        return _sqlite_here(ref, db, summary)
    if not db.is_file():
        raise BadInput(f"no study in {d} (neither summary.json nor study.db)",
                       hint="give the output directory of `autotune search` (-o)")
    url = f"sqlite:///{db.resolve()}"
    names = _study_names(url)
    if len(names) != 1:
        raise BadInput(f"{db} holds {len(names)} studies ({', '.join(names) or 'none'})",
                       hint="serve a run directory with a summary.json, which names its study")
    return StudyRef(url, names[0])


def _sqlite_here(ref: StudyRef, db: pathlib.Path, summary: pathlib.Path) -> StudyRef:
    """A SQLite study as the run directory holds it: its own ``study.db`` where it has one (a run directory moved
    or copied still names the file where it was written); never a file that is not there (SQLite would make one)."""
    if not ref.storage.startswith("sqlite:///"):
        return ref
    if db.is_file():
        return StudyRef(f"sqlite:///{db.resolve()}", ref.name)
    path = pathlib.Path(ref.storage[len("sqlite:///"):])
    if not path.is_file():
        raise BadInput(f"the study file {path} that {summary} names is missing",
                       hint="serve the run directory where its study.db is, or copy the file back")
    return ref


def _study_names(url: str) -> list[str]:
    import optuna

    try:
        return sorted(optuna.get_all_study_names(storage=url))
    except Exception as e:  # SQLAlchemy: not a database, unreachable server
        raise BadInput(f"cannot read the study storage: {type(e).__name__}: {str(e).splitlines()[0]}", url) from None


def check_study(ref: StudyRef) -> None:
    """Refuse a storage that does not hold the study (removed, renamed, another database)."""
    names = _study_names(ref.storage)
    if ref.name not in names:
        raise BadInput(f"no study {ref.name!r} in {ref.storage}",
                       hint=f"the storage holds {', '.join(names) or 'no study'}; was it removed or moved?")


def require_dashboard() -> None:
    try:
        import optuna_dashboard  # noqa: F401
    except ImportError:
        raise BadInput("optuna-dashboard is not installed", hint=INSTALL_HINT) from None


def read_only(app):
    """``app`` refusing every request that could change the study: only GET and HEAD pass (optuna-dashboard has
    no read-only mode of its own), the rest get 405 with a reason the dashboard shows."""
    def guarded(environ, start_response):
        if environ.get("REQUEST_METHOD", "GET").upper() in READ_METHODS:
            return app(environ, start_response)
        body = json.dumps({"reason": "this dashboard is read-only (start it with --allow-writes to change the "
                                     "study)"}).encode()
        start_response("405 Method Not Allowed", [("Content-Type", "application/json"), ("Allow", "GET, HEAD"),
                                                  ("Content-Length", str(len(body)))])
        return [body]
    return guarded


class _Quiet(WSGIRequestHandler):
    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        pass  # one line per request would bury the search's progress


class _ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a page left open must not keep the command alive after Ctrl-C


@dataclasses.dataclass
class Dashboard:
    """A bound dashboard server; ``url`` is where to point a browser."""
    server: WSGIServer
    url: str
    thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        self.server.serve_forever(poll_interval=0.2)

    def start(self) -> "Dashboard":
        self.thread = threading.Thread(target=self.serve_forever, name="dashboard", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        if self.thread is not None:
            self.server.shutdown()
            self.thread.join()
        self.server.server_close()


def _storage(url: str):
    import optuna

    connect = {"connect_args": {"timeout": 60}} if url.startswith("sqlite:") else None  # a search may be writing
    try:
        return optuna.storages.RDBStorage(url, engine_kwargs=connect)
    except Exception as e:  # SQLAlchemy: bad URL, unreachable database
        raise BadInput(f"cannot open storage: {type(e).__name__}: {str(e).splitlines()[0]}", url) from None


def _url(host: str, port: int, path: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{path}"


def open_dashboard(storage_url: str, study_name: str | None, *, host: str = "127.0.0.1", port: int = 8080,
                   allow_writes: bool = False) -> Dashboard:
    """Bind optuna-dashboard on ``host``:``port`` (0: any free port) serving ``storage_url``; its URL opens
    ``study_name``'s page where the study exists already, else the list of studies."""
    require_dashboard()
    import optuna_dashboard

    storage = _storage(storage_url)
    app = optuna_dashboard.wsgi(storage)
    try:
        server = make_server(host, port, app if allow_writes else read_only(app), server_class=_ThreadingServer,
                             handler_class=_Quiet)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise BadInput(f"port {port} on {host} is in use", hint="give another --port (0 picks a free one)") \
                from None
        raise BadInput(f"cannot listen on {host}:{port}: {e.strerror or e}",
                       hint="give --host an address of this machine (default 127.0.0.1)") from None
    path = "/dashboard"
    if study_name is not None:
        try:
            path += f"/studies/{storage.get_study_id_from_name(study_name)}"
        except KeyError:
            pass  # not created yet: a search about to start shows in the list
    return Dashboard(server, _url(host, server.server_address[1], path))
