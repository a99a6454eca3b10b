"""The bundled GraphRAG output, imported once per session per format (real parquet, real model)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from carol_support import CAROL

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.importing import ImportReport

#: --doctest-modules would import this file as "conftest" (see tests/notebooks/conftest.py).
collect_ignore = ["conftest.py"]

def _imported(version: str, factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> tuple[Path, ImportReport]:
    path = factory.getbasetemp() / f"carol-{version}" / "index"
    with Graph.open(path, embedder=embedder) as graph:
        report = graph.import_graphrag(CAROL / version)
    return path, report


@pytest.fixture(scope="session")
def carol_v3(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> tuple[Path, ImportReport]:
    """The 3.x output imported (folder, report)."""
    return _imported("v3", tmp_path_factory, embedder)


@pytest.fixture(scope="session")
def carol_v1(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> tuple[Path, ImportReport]:
    """The 1.x output imported (folder, report)."""
    return _imported("v1", tmp_path_factory, embedder)


@pytest.fixture(scope="session", params=["v3", "v1"])
def carol(request: pytest.FixtureRequest, embedder: SentenceTransformerEmbedder) -> Iterator[tuple[str, Graph, ImportReport]]:
    """Each format's imported index, opened read-only: (version, graph, report)."""
    path, report = request.getfixturevalue(f"carol_{request.param}")
    with Graph.open(path, embedder=embedder, read_only=True) as graph:
        yield request.param, graph, report
