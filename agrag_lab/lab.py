"""The notebooks' indexes and questions: where they are, built on first use, opened read-only.

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

``agrag-lab lab`` (:mod:`agrag_lab.lab_server`) prepares the same indexes and
starts JupyterLab on the notebooks.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from agrag_lab.errors import DatasetError, IndexLockedError

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


def print_progress(message: str) -> None:
    """Say how the preparation of an index goes, on stderr (a notebook shows stdout as its output)."""
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

    target = prepare_workshop(path, embedder=embedder, log=print_progress)
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
            print_progress(str(report))

    return _built(carol_path(path), build, embedder=embedder, log=print_progress, wait=wait)


def open_carol(path: str | os.PathLike[str] | None = None, *, embedder: Embedder | None = None) -> Graph:
    """Open the imported GraphRAG index read-only, importing it first if needed (see :func:`prepare_carol`)."""
    from agrag_lab.graph import Graph

    return Graph.open(prepare_carol(path, embedder=embedder), embedder=embedder, read_only=True)


def open_musique(
    path: str | os.PathLike[str] | None = None, *, questions: int | None = None, embedder: Embedder | None = None
) -> Graph:
    """Open the MuSiQue slice index read-only, building it first if needed (see :func:`musique_path`)."""
    from agrag_lab.graph import Graph

    target = prepare_musique(path, questions=questions, embedder=embedder, log=print_progress)
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
