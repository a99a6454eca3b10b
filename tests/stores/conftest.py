"""The store contract suite's fixtures: one small graph, every store over it, one FalkorDB server per session.

The graph is the kg tests' Babbage/Lovelace corpus (four documents, one of them
also in a superseded version), built with the rule extractor: entities of
several labels, relations of several types in both directions, aliases seen
in different documents, history chunks, communities and reports.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kg"))

from kg_corpus import extract_documents, make_documents

from agrag_lab.documents import Document
from agrag_lab.graph_stores.build import build_store
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.graph_store import GraphStore

STORES = ("networkx", "falkordb")


@pytest.fixture(scope="session")
def reference() -> NetworkXGraphStore:
    """The in-process store: the reference every store must equal."""
    documents = make_documents()
    old = [Document(d.id, d.title, d.text.replace("London", "Londinium")) for d in documents[:1]]
    items = extract_documents(documents) + extract_documents(old, current=False)
    return build_store(items)


def _served(server: tuple[str, int], graph: str, source: NetworkXGraphStore) -> GraphStore:
    """``source`` pushed to the graph ``graph`` (emptied first) on the session's FalkorDB server."""
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore

    host, port = server
    store = FalkorDBGraphStore.connect(host, port, graph=graph)
    store.clear()
    store.push(source)
    return store


@pytest.fixture(scope="session")
def falkordb_store(falkordb_server: tuple[str, int], reference: NetworkXGraphStore) -> GraphStore:
    return _served(falkordb_server, "contract", reference)


@pytest.fixture(params=STORES, scope="session")
def store(request: pytest.FixtureRequest, reference: NetworkXGraphStore) -> GraphStore:
    """Each store over the reference graph."""
    if request.param == "networkx":
        return reference
    found: GraphStore = request.getfixturevalue("falkordb_store")
    return found


@pytest.fixture(scope="session")
def described_reference(reference: NetworkXGraphStore) -> NetworkXGraphStore:
    """The reference graph with one relation described by its builder, as an import marks GraphRAG's."""
    from dataclasses import replace

    from agrag_lab.kg.described import DESCRIBED_BY
    from agrag_lab.kg.model import KnowledgeGraph

    g = reference.graph
    first, *rest = g.edges
    marked = replace(first, description="They worked together.", attributes=(*first.attributes, (DESCRIBED_BY, "graphrag")))
    graph = KnowledgeGraph.create(g.entities.values(), [marked, *rest], g.history_entities.values(), g.history_edges,
                                  g.mentions, g.chunk_documents, g.current_chunks, g.schema)
    communities, reports = reference.stored()
    return NetworkXGraphStore(graph, communities, reports)


@pytest.fixture(scope="session")
def described_falkordb_store(falkordb_server: tuple[str, int], described_reference: NetworkXGraphStore) -> GraphStore:
    """:func:`described_reference` pushed to a graph of its own on the session's server."""
    return _served(falkordb_server, "contract-described", described_reference)
