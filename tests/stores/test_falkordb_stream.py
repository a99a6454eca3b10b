"""A graph streamed into FalkorDB a slice of documents at a time equals the whole build pushed (issue 29).

The contract suite's corpus (four documents, one also in a superseded
version) is built in three slices by :func:`~agrag_lab.graph_stores.falkordb.stream.stream_graph`
and, whole, by :func:`~agrag_lab.kg.extract.pipeline.build_graph` then
:meth:`~agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore.push`: the two server
graphs hold the same records, and read the same.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from kg_corpus import extract_documents, make_documents

from agrag_lab.documents import Document
from agrag_lab.errors import GraphServerError
from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
from agrag_lab.graph_stores.falkordb.stream import graph_records, stream_graph
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract.build import ChunkExtraction
from agrag_lab.kg.extract.pipeline import build_graph
from agrag_lab.kg.text import natural_key


def _documents() -> list[tuple[Document, Document | None]]:
    """The corpus's documents in id order, each with its superseded version (the first one has one)."""
    documents = make_documents()
    old = {documents[0].id: Document(documents[0].id, documents[0].title, documents[0].text.replace("London", "Londinium"))}
    return [(d, old.get(d.id)) for d in sorted(documents, key=lambda d: natural_key(d.id))]


def _extract(part: Sequence[tuple[Document, Document | None]]) -> list[ChunkExtraction]:
    found: list[ChunkExtraction] = extract_documents([d for d, _ in part])
    return [*found, *extract_documents([o for _, o in part if o], current=False)]


def _slices(parts: Sequence[Sequence[tuple[Document, Document | None]]]) -> list[Callable[[], list[ChunkExtraction]]]:
    return [lambda part=part: _extract(part) for part in parts]  # type: ignore[misc]


@pytest.fixture(scope="module")
def stores(falkordb_server: tuple[str, int], tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[FalkorDBGraphStore, FalkorDBGraphStore, NetworkXGraphStore, dict[str, object]]:
    host, port = falkordb_server
    docs = _documents()
    source = NetworkXGraphStore(build_graph(_extract(docs)))
    whole = FalkorDBGraphStore.connect(host, port, graph="stream-whole")
    whole.clear()
    whole.push(source)
    streamed = FalkorDBGraphStore.connect(host, port, graph="stream-parts")
    streamed.clear()
    found = stream_graph(_slices([docs[:1], docs[1:3], docs[3:]]), streamed, tmp_path_factory.mktemp("stream"),
                         batch_size=7)
    return streamed, whole, source, found


def test_streamed_graph_holds_the_whole_builds_records(
        stores: tuple[FalkorDBGraphStore, FalkorDBGraphStore, NetworkXGraphStore, dict[str, object]]) -> None:
    streamed, whole, source, found = stores
    graph = source.graph
    assert found["slices"] == 3
    assert (found["entities"], found["relations"]) == (len(graph.entities), len(graph.edges))
    assert found["written"] == {"entities": len(graph.entities), "relations": len(graph.edges),
                                "chunks": len(graph.chunk_documents)}
    records = graph_records(streamed)
    assert records == graph_records(whole)
    assert set(records["nodes"]["Entity"]) == set(graph.entities)
    assert {(a, b) for a, _t, b in records["relations"]} == {(e.source, e.target) for e in graph.edges}
    assert len(graph.history_entities) > 0  # the superseded version's support is history in both


def test_streamed_graph_reads_as_the_in_process_store(
        stores: tuple[FalkorDBGraphStore, FalkorDBGraphStore, NetworkXGraphStore, dict[str, object]]) -> None:
    streamed, _whole, source, _found = stores
    assert streamed.entities() == source.entities()
    for entity in source.entities():
        assert streamed.bfs([entity.id], depth=2, limit=50) == source.bfs([entity.id], depth=2, limit=50)
        assert streamed.neighbours(entity.id) == source.neighbours(entity.id)
    chunk = next(iter(source.graph.chunk_documents))
    assert streamed.mentions(chunk) == source.mentions(chunk)


def test_slices_must_hold_whole_documents_in_order(falkordb_server: tuple[str, int], tmp_path: Path) -> None:
    host, port = falkordb_server
    store = FalkorDBGraphStore.connect(host, port, graph="stream-refused")
    store.clear()
    docs = _documents()
    split = [lambda: extract_documents([docs[0][0]]), lambda: extract_documents([d for d, _ in docs[:2]])]
    with pytest.raises(KnowledgeGraphError, match="documents of an earlier slice"):
        stream_graph(split, store, tmp_path)
    with pytest.raises(KnowledgeGraphError, match="natural order of document id"):
        stream_graph(_slices([docs[2:], docs[:2]]), store, tmp_path)


def test_a_streamed_push_writes_an_empty_graph_only(
        stores: tuple[FalkorDBGraphStore, FalkorDBGraphStore, NetworkXGraphStore, dict[str, object]]) -> None:
    _streamed, whole, _source, _found = stores
    with pytest.raises(GraphServerError, match="writes an empty graph only"):
        whole.streamed_push()
    with pytest.raises(GraphServerError, match="writes an empty graph only"):  # before reading any slice
        stream_graph([_never_read], whole, Path("unused"))


def _never_read() -> list[ChunkExtraction]:
    raise AssertionError("a slice was read before the graph was checked empty")
