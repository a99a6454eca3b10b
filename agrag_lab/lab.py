"""``agrag-lab lab``: prepare the workshop indexes and start JupyterLab.

The notebooks find their indexes through :func:`open_workshop` and
:func:`open_musique`: a path given explicitly, else the ``AGRAG_WORKSHOP_INDEX``
/ ``AGRAG_MUSIQUE_INDEX`` environment variables (``agrag-lab lab`` and the
tests set them), else ``.agrag/workshop`` and ``.agrag/musique-lab`` in the
repository. An index that is missing or empty is built first (ingest is
idempotent, so this happens once); the notebooks then open it read-only, so
several kernels can share it.

Examples
--------
In a notebook::

    from agrag_lab.lab import open_workshop
    graph = open_workshop()              # builds .agrag/workshop on first use
    run = graph.engine().run("Who worked with Babbage?", recipes.HYBRID)

From a shell (``make lab`` does this)::

    agrag-lab lab          # prints http://127.0.0.1:PORT/lab/tree/notebooks/01_quickstart.ipynb?token=...

JupyterLab serves working copies of the notebooks in ``.agrag/lab/notebooks``
(ignored by git), so its autosaves never write outputs into the tracked ones.
"""

from __future__ import annotations

import argparse
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agrag_lab.errors import DatasetError, IndexLockedError, ServiceError
from agrag_lab.extras import require
from agrag_lab.notebook_inputs import INDEX_ENV

if TYPE_CHECKING:
    from agrag_lab.embedding import Embedder
    from agrag_lab.eval.benchmark import Benchmark
    from agrag_lab.graph import Graph

#: Environment variables naming the indexes the notebooks use.
WORKSHOP_ENV = "AGRAG_WORKSHOP_INDEX"
MUSIQUE_ENV = "AGRAG_MUSIQUE_INDEX"
MUSIQUE_QUESTIONS_ENV = "AGRAG_MUSIQUE_QUESTIONS"
CAROL_ENV = "AGRAG_CAROL_INDEX"
#: MuSiQue questions in the lab's slice (20 passages each): small enough to build in minutes.
DEFAULT_MUSIQUE_QUESTIONS = 5
#: The repository (``agrag_lab``'s parent folder).
REPO = Path(__file__).resolve().parent.parent
#: How long to wait for another process that is building an index.
LOCK_WAIT_SECONDS = 900.0

Log = Callable[[str], None]


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def root_folder() -> Path:
    """Where ``.agrag/`` lives: the repository when running from a checkout, else the working folder."""
    return REPO if (REPO / "pyproject.toml").is_file() else Path.cwd()


def workshop_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The workshop index: ``path``, else ``$AGRAG_WORKSHOP_INDEX``, else ``.agrag/workshop``."""
    chosen = path or os.environ.get(WORKSHOP_ENV) or root_folder() / ".agrag" / "workshop"
    return Path(chosen)


def musique_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The MuSiQue slice index: ``path``, else ``$AGRAG_MUSIQUE_INDEX``, else ``.agrag/musique-lab``."""
    chosen = path or os.environ.get(MUSIQUE_ENV) or root_folder() / ".agrag" / "musique-lab"
    return Path(chosen)


def musique_questions(questions: int | None = None) -> int:
    """Questions in the MuSiQue slice: ``questions``, else ``$AGRAG_MUSIQUE_QUESTIONS``, else 5."""
    if questions is not None:
        return questions
    return int(os.environ.get(MUSIQUE_QUESTIONS_ENV) or DEFAULT_MUSIQUE_QUESTIONS)


def musique_benchmark(questions: int | None = None) -> Benchmark:
    """The first ``questions`` MuSiQue questions and their passages (see :func:`musique_questions`)."""
    from agrag_lab.eval import musique

    return musique(questions=musique_questions(questions))


def prepare(
    path: str | os.PathLike[str],
    benchmark: Benchmark,
    *,
    embedder: Embedder | None = None,
    log: Log | None = None,
    wait: float = LOCK_WAIT_SECONDS,
) -> Path:
    """Make sure the index at ``path`` holds ``benchmark``'s documents; build it when empty.

    If another process is building it (the writer lock is held), wait for it
    (up to ``wait`` seconds) instead of failing.
    """
    from agrag_lab.eval.indexing import ensure_index

    return _built(Path(path), lambda target: ensure_index(target, benchmark, embedder=embedder, log=log),
                  embedder=embedder, log=log, wait=wait)


def _built(
    target: Path, build: Callable[[Path], object], *, embedder: Embedder | None, log: Log | None, wait: float
) -> Path:
    """``target`` once it holds documents: checked read-only, built by ``build`` (under the writer lock) when empty.

    A filled index is never opened for writing, so any number of kernels can
    prepare and open it at once; while another process holds the writer lock
    (building it), this waits up to ``wait`` seconds, then raises
    :class:`~agrag_lab.errors.IndexLockedError`.
    """
    from agrag_lab.eval.indexing import document_count

    deadline = time.monotonic() + wait
    while True:
        try:
            if document_count(target, embedder) == 0:
                build(target)
            return target
        except IndexLockedError:
            if time.monotonic() > deadline:
                raise
            if log is not None:
                log(f"{target} is being built by another process; waiting")
            time.sleep(2.0)


def prepare_workshop(
    path: str | os.PathLike[str] | None = None,
    *,
    embedder: Embedder | None = None,
    log: Log | None = None,
    wait: float = LOCK_WAIT_SECONDS,
) -> Path:
    """Build the workshop index (its 24 documents, then the revised one) unless it exists."""
    from agrag_lab.eval import workshop

    return prepare(workshop_path(path), workshop(), embedder=embedder, log=log, wait=wait)


def prepare_musique(
    path: str | os.PathLike[str] | None = None,
    *,
    questions: int | None = None,
    embedder: Embedder | None = None,
    log: Log | None = None,
) -> Path:
    """Build the MuSiQue slice index unless it exists (100 passages for 5 questions)."""
    return prepare(musique_path(path), musique_benchmark(questions), embedder=embedder, log=log)


def open_workshop(path: str | os.PathLike[str] | None = None, *, embedder: Embedder | None = None) -> Graph:
    """Open the workshop index read-only, building it first if needed (see :func:`workshop_path`).

    The embedding model is loaded here, as a step of its own (its time is
    printed), so the first search's time is the search alone.
    """
    from agrag_lab.graph import Graph

    target = prepare_workshop(path, embedder=embedder, log=_log)
    return _warmed(Graph.open(target, embedder=embedder, read_only=True))


def carol_source(version: str = "v3") -> Path:
    """The bundled GraphRAG output of "A Christmas Carol" (``v3``: 2.x/3.x names, ``v1``: 1.x)."""
    return REPO / "datasets" / "msgraphrag_christmas_carol" / version


def retrieval_results() -> Path:
    """The per-question scores of the last ``make bench`` retrieval run (notebook 07 reads them).

    Found from the package, not from the notebook's folder: ``make lab`` and the browser tests
    serve working copies of the notebooks elsewhere, where a relative path would miss it.

    Raises
    ------
    DatasetError
        The file is not there (a checkout without ``benchmarks/``); the message says how to make it.
    """
    path = REPO / "benchmarks" / "results" / "retrieval.json"
    if not path.is_file():
        raise DatasetError(
            f"no saved retrieval results at {path}; run `make bench` (or `python -m benchmarks.retrieval`) "
            "in a checkout of agrag_lab to make them"
        )
    return path


def carol_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The imported GraphRAG index: ``path``, else ``$AGRAG_CAROL_INDEX``, else ``.agrag/carol``."""
    return Path(path or os.environ.get(CAROL_ENV) or root_folder() / ".agrag" / "carol")


def prepare_carol(
    path: str | os.PathLike[str] | None = None, *, embedder: Embedder | None = None, wait: float = LOCK_WAIT_SECONDS
) -> Path:
    """Import the bundled GraphRAG 3.x output into :func:`carol_path` unless it is imported.

    As :func:`prepare`: an imported index is only read (never locked for
    writing), and an import under way in another process is waited for.
    """
    from agrag_lab.graph import Graph

    def build(target: Path) -> None:
        with Graph.open(target, embedder=embedder) as graph:
            report = graph.import_graphrag(carol_source())
        if not report.unchanged:
            _log(str(report))

    return _built(carol_path(path), build, embedder=embedder, log=_log, wait=wait)


def open_carol(path: str | os.PathLike[str] | None = None, *, embedder: Embedder | None = None) -> Graph:
    """Open the imported GraphRAG index read-only, importing it first if needed (see :func:`prepare_carol`)."""
    from agrag_lab.graph import Graph

    return Graph.open(prepare_carol(path, embedder=embedder), embedder=embedder, read_only=True)


def open_musique(
    path: str | os.PathLike[str] | None = None, *, questions: int | None = None, embedder: Embedder | None = None
) -> Graph:
    """Open the MuSiQue slice index read-only, building it first if needed (see :func:`musique_path`)."""
    from agrag_lab.graph import Graph

    target = prepare_musique(path, questions=questions, embedder=embedder, log=_log)
    return _warmed(Graph.open(target, embedder=embedder, read_only=True))


def _warmed(graph: Graph) -> Graph:
    """Load the graph's embedding model now, and say how long it took (never part of a search's time)."""
    from agrag_lab.embedding import warm

    seconds = warm(graph.embedder)
    if seconds > 0:  # a notice, not a warning: on stdout (a notebook draws stderr in a red box)
        print(f"embedding model {graph.embedder.name} loaded in {seconds:.1f} s (once per kernel; "
              "not part of any search time)", flush=True)
    return graph


def kernel_env(
    workshop: str | os.PathLike[str],
    musique: str | os.PathLike[str] | None = None,
    *,
    questions: int | None = None,
    threads: int | None = None,
    base: dict[str, str] | None = None,
    carol: str | os.PathLike[str] | None = None,
) -> dict[str, str]:
    """The environment of a JupyterLab server or a kernel that runs the notebooks.

    Parameters
    ----------
    workshop, musique : path
        The indexes (see :func:`workshop_path` and :func:`musique_path`).
    questions : int, optional
        Questions in the MuSiQue slice (see :func:`musique_questions`).
    threads : int, optional
        Limit torch/BLAS threads (``OMP_NUM_THREADS``). On a small shared
        machine, where a browser, a server and the kernel share two cores,
        ``1`` keeps a query embedding at ~20 ms instead of over a second.
    base : dict, optional
        The environment to extend (default: this process's).
    carol : path, optional
        The imported GraphRAG index (see :func:`carol_path`).

    Examples
    --------
    >>> env = kernel_env("/idx/w", "/idx/m", questions=3, threads=1, base={})
    >>> env["AGRAG_WORKSHOP_INDEX"], env["AGRAG_MUSIQUE_QUESTIONS"], env["OMP_NUM_THREADS"]
    ('/idx/w', '3', '1')
    """
    env = dict(os.environ if base is None else base)
    env[WORKSHOP_ENV] = str(workshop)
    if musique is not None:
        env[MUSIQUE_ENV] = str(musique)
        env[MUSIQUE_QUESTIONS_ENV] = str(musique_questions(questions))
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("ANONYMIZED_TELEMETRY", "False")
    env.setdefault("TOKENIZERS_PARALLELISM", "false")
    if carol is not None:
        env[CAROL_ENV] = str(carol)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


# -- JupyterLab ----------------------------------------------------------------------------


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def stop_process(process: subprocess.Popen[Any], *, timeout: float = 30.0) -> None:
    """Stop a child process: ``terminate``, then ``kill`` if it has not exited within ``timeout`` seconds.

    The one way the lab, the browser and MCP test servers and the benchmarks' Chroma server are stopped.

    Examples
    --------
    >>> import sys
    >>> child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    >>> stop_process(child, timeout=5)
    >>> child.poll() is not None
    True
    """
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=timeout)


def lab_url(port: int, token: str, path: str = "lab") -> str:
    """The URL of a JupyterLab page, with its token.

    Examples
    --------
    >>> lab_url(8888, "abc", "lab/tree/notebooks/01_quickstart.ipynb")
    'http://127.0.0.1:8888/lab/tree/notebooks/01_quickstart.ipynb?token=abc'
    """
    return f"http://127.0.0.1:{port}/{path.lstrip('/')}?token={token}"


def lab_command(*, port: int, root_dir: str | os.PathLike[str], extra: Sequence[str] = ()) -> list[str]:
    """The command that starts JupyterLab on 127.0.0.1, serving ``root_dir``.

    The token is not part of it: the process list is readable by every local
    user, and the token runs code through the kernels. Pass it in the
    environment (:func:`lab_env`). It never opens a browser and never checks
    for updates, news or PyPI (offline machines). As root (a container), it
    passes ``--allow-root``, which JupyterLab otherwise requires.

    Examples
    --------
    >>> any("token" in part.lower() for part in lab_command(port=8888, root_dir="."))
    False
    """
    as_root = ["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    return [
        sys.executable, "-m", "jupyterlab",
        "--ip=127.0.0.1", f"--port={port}", "--port-retries=0", "--no-browser",
        f"--ServerApp.root_dir={Path(root_dir).resolve()}",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--LabApp.news_url=",
        "--LabApp.extension_manager=readonly", *as_root, *extra,
    ]


def lab_env(token: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: this process's) with the JupyterLab token in ``JUPYTER_TOKEN``.

    JupyterLab reads its token from there; an environment is readable only by
    its user (``/proc/PID/environ`` is mode 400), a command line by everyone.

    Examples
    --------
    >>> lab_env("abc", {"PATH": "/bin"})
    {'PATH': '/bin', 'JUPYTER_TOKEN': 'abc'}
    """
    if not token:
        raise ServiceError("the JupyterLab token is empty; set JUPYTER_TOKEN or pass --token-file")
    merged = dict(os.environ if env is None else env)
    merged.pop("JUPYTER_TOKEN_FILE", None)  # JupyterLab would read the file first otherwise
    merged["JUPYTER_TOKEN"] = token
    return merged


def read_token_file(path: str | os.PathLike[str]) -> str:
    """The token in ``path``, a file only its owner may read (mode 600 or stricter).

    Raises
    ------
    ServiceError
        The file cannot be read, is empty, or other users may read or write it.
    """
    path = Path(path)
    try:
        mode = path.stat().st_mode
        text = path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ServiceError(f"cannot read the token file {str(path)!r} ({exc.strerror or exc}); "
                           "write the token in a file with mode 600") from exc
    if mode & 0o077:
        raise ServiceError(f"the token file {str(path)!r} has mode {mode & 0o777:o}: other users may read it; "
                           f"run chmod 600 {path}")
    if not text:
        raise ServiceError(f"the token file {str(path)!r} is empty; write the token in it")
    return text


def wait_ready(port: int, token: str, *, timeout: float = 120.0, process: subprocess.Popen[Any] | None = None) -> None:
    """Wait until the server on ``port`` answers ``/api/status``.

    Raises
    ------
    ServiceError
        The server exited or did not answer within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    url = lab_url(port, token, "api/status")
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise ServiceError(f"JupyterLab exited with code {process.returncode} before it was ready; see its log")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    raise ServiceError(f"JupyterLab did not answer on 127.0.0.1:{port} within {timeout:g} s")


def working_copy(source: str | os.PathLike[str], target: str | os.PathLike[str], *, fresh: bool = False) -> list[Path]:
    """Copy the notebooks of ``source`` into ``target`` (the folder JupyterLab serves); return the copies made.

    JupyterLab autosaves what it serves; serving a copy keeps the tracked
    notebooks free of outputs. A copy you have used (it differs from what was
    copied) is kept, even when the tracked notebook changed, unless ``fresh``;
    an untouched copy follows the tracked notebook. What was copied is
    remembered in ``target/.copied.json`` (a hash per notebook).

    Examples
    --------
    >>> import tempfile
    >>> src, dst = Path(tempfile.mkdtemp()), Path(tempfile.mkdtemp()) / "notebooks"
    >>> _ = (src / "01.ipynb").write_text("{}")
    >>> [p.name for p in working_copy(src, dst)], working_copy(src, dst)
    (['01.ipynb'], [])
    >>> _ = (src / "01.ipynb").write_text('{"new": 1}')     # the tracked notebook changed
    >>> [p.name for p in working_copy(src, dst)]            # the untouched copy follows it
    ['01.ipynb']
    >>> _ = (dst / "01.ipynb").write_text('{"outputs": 1}')  # you ran it: your copy is kept
    >>> _ = (src / "01.ipynb").write_text('{"newer": 1}')
    >>> working_copy(src, dst), (dst / "01.ipynb").read_text()
    ([], '{"outputs": 1}')
    """
    import hashlib
    import json

    def digest(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    source, target = Path(source), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    record = target / ".copied.json"
    try:
        copied: dict[str, str] = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        copied = {}
    made = []
    for notebook in sorted(source.glob("*.ipynb")):
        copy = target / notebook.name
        untouched = copy.exists() and copied.get(notebook.name) == digest(copy)
        if fresh or not copy.exists() or (untouched and digest(notebook) != copied.get(notebook.name)):
            copy.write_bytes(notebook.read_bytes())
            copied[notebook.name] = digest(copy)
            made.append(copy)
    record.write_text(json.dumps(copied, indent=1), encoding="utf-8")
    return made


def cmd_lab(args: argparse.Namespace) -> int:
    """Prepare the indexes, start JupyterLab, print the URL with its token, wait."""
    require("lab", feature="agrag-lab lab")  # before minutes of index preparation
    given = _given_index(args.index)
    musique: Path | None = None
    questions = musique_questions(args.musique_questions)
    if given is not None:  # the notebooks open this index (INDEX None reads $AGRAG_INDEX): nothing bundled is built
        workshop = workshop_path(args.workshop_index).resolve()
        _log(f"the notebooks open {given} (read-only); their INDEX parameter overrides it")
    else:
        workshop = prepare_workshop(args.workshop_index, log=_log).resolve()
        if not args.no_musique:
            musique = prepare_musique(args.musique_index, questions=questions, log=_log).resolve()
    if args.prepare_only:
        print(f"indexes ready: workshop {workshop}" + (f", MuSiQue {musique}" if musique else ""))
        return 0
    env = kernel_env(workshop, musique, questions=questions)
    if given is not None:
        env[INDEX_ENV] = str(given)
    port = args.port or free_port()
    # the token never goes on a command line (every local user can read the process list)
    if args.token_file is not None:
        token = read_token_file(args.token_file)
    else:
        token = os.environ.get("JUPYTER_TOKEN") or secrets.token_hex(24)
    # JupyterLab serves a working copy (.agrag/lab/notebooks): its autosaves never touch tracked files
    root = root_folder() / ".agrag" / "lab"
    source = Path(args.notebooks) if Path(args.notebooks).is_absolute() else root_folder() / args.notebooks
    working_copy(source, root / "notebooks", fresh=args.fresh)
    settings = quiet_settings(root / ".settings")
    _log(f"serving working copies of {source} in {root / 'notebooks'} (--fresh copies them again)")
    process = subprocess.Popen(lab_command(port=port, root_dir=root, extra=[f"--LabApp.user_settings_dir={settings}"]),
                               env=lab_env(token, env), cwd=root)
    try:
        wait_ready(port, token, process=process)
        first = Path("notebooks") / "01_quickstart.ipynb"
        page = f"lab/tree/{first.as_posix()}" if (root / first).is_file() else "lab"
        print(f"JupyterLab is running on 127.0.0.1:{port} (Ctrl-C stops it). Open:", flush=True)
        print(lab_url(port, token, page), flush=True)
        return process.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        stop_process(process, timeout=20)


#: JupyterLab's own settings for the workbench: no news, no update checks (an offline workshop machine;
#: its notice covered the corner of the first widget).
QUIET_SETTINGS = {
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def quiet_settings(folder: str | os.PathLike[str]) -> Path:
    """A JupyterLab user-settings folder with news and update checks off; a setting already there is kept.

    Examples
    --------
    >>> import json, tempfile
    >>> folder = quiet_settings(tempfile.mkdtemp())
    >>> json.loads((folder / next(iter(QUIET_SETTINGS))).read_text())["fetchNews"]
    'false'
    """
    import json

    root = Path(folder)
    for name, values in QUIET_SETTINGS.items():
        path = root / name
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values), encoding="utf-8")
    return root


def _given_index(index: str | None) -> Path | None:
    """The folder of ``agrag-lab lab --index PATH``, checked to hold an index (never built into or written)."""
    if index is None:
        return None
    from agrag_lab.notebook_inputs import index_folder

    return index_folder(index).resolve()


def register(subparsers: Any) -> None:
    """Add ``agrag-lab lab`` to the CLI (called by :func:`agrag_lab.cli.build_parser`)."""
    p = subparsers.add_parser("lab", help="prepare the workshop indexes and start JupyterLab (127.0.0.1, token)")
    p.add_argument("--index", default=None, metavar="PATH",
                   help="open the notebooks on this index (yours, or an imported GraphRAG / LightRAG one; only read): "
                   "every notebook whose INDEX parameter is None uses it, and nothing bundled is built")
    p.add_argument("--workshop-index", default=None,
                   help=f"the bundled workshop index (default ${WORKSHOP_ENV} or .agrag/workshop), built if missing")
    p.add_argument("--musique-index", default=None,
                   help=f"MuSiQue slice index (default ${MUSIQUE_ENV} or .agrag/musique-lab)")
    p.add_argument("--musique-questions", type=int, default=None,
                   help=f"MuSiQue questions in the slice (default {DEFAULT_MUSIQUE_QUESTIONS})")
    p.add_argument("--no-musique", action="store_true", help="skip the MuSiQue slice (notebooks 03, 06 need it)")
    p.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    p.add_argument("--token-file", default=None, metavar="PATH",
                   help="read the access token from this file (mode 600); default: $JUPYTER_TOKEN, else a random "
                   "one, printed in the URL. Never on the command line: every local user can read it there")
    p.add_argument("--notebooks", default="notebooks", help="folder of the notebooks, relative to the repository")
    p.add_argument("--fresh", action="store_true",
                   help="copy the notebooks into the working copy again (drops your edits there)")
    p.add_argument("--prepare-only", action="store_true", help="build the indexes and exit")
    p.set_defaults(func=cmd_lab)
