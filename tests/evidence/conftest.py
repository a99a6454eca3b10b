"""Fixtures of the evidence tests: the workshop index as data, a small index with a removed document."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from evidence_support import SMALL_DOCS, Universe, read_universe

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder


@pytest.fixture(scope="session")
def universe(workshop_graph: Graph) -> Universe:
    """Everything stored in the workshop index."""
    return read_universe(workshop_graph)


@pytest.fixture(params=["networkx", "falkordb"], scope="session")
def any_store_graph(request: pytest.FixtureRequest, workshop_graph: Graph) -> Graph:
    """The workshop index on each graph store (the FalkorDB one: tests/conftest.py's ``served_workshop_graph``)."""
    if request.param == "networkx":
        return workshop_graph
    served: Graph = request.getfixturevalue("served_workshop_graph")
    return served


@pytest.fixture(scope="module")
def small_graph(tmp_path_factory: pytest.TempPathFactory, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    """Three small documents with metadata; ``jacquard`` was then removed from search."""
    path = tmp_path_factory.mktemp("evidence-small") / "index"
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest(SMALL_DOCS)
        graph.remove("jacquard")
    graph = Graph.open(path, embedder=embedder, read_only=True)
    yield graph
    graph.close()


@pytest.fixture
def fresh_graph(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> Iterator[Graph]:
    """A writable index holding the small documents (for tests that change it)."""
    graph = Graph.open(tmp_path / "index", embedder=embedder)
    graph.ingest(SMALL_DOCS)
    yield graph
    graph.close()
