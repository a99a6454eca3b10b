"""The index build's entry point for ready-made values: ``Graph.write_index``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import IndexFormatError
from agrag_lab.graph_stores.build import build_store
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index import prepare_document, prepare_version
from agrag_lab.index.records import own_chunks
from agrag_lab.kg.extract.extraction import DocumentContext
from agrag_lab.kg.extract.pipeline import extract_chunks
from agrag_lab.kg.model import Entity, KnowledgeGraph


def _given_graph(doc: Document, chunk_size: int) -> NetworkXGraphStore:
    """A finished graph made elsewhere: here, extracted from one document only."""
    version = prepare_document(doc, chunk_size)
    items = extract_chunks([(c, DocumentContext(doc.id, doc.title), True) for c in version.chunks])
    return build_store(items)


def _with_unsupported_entity(store: NetworkXGraphStore) -> NetworkXGraphStore:
    """``store`` plus an entity whose only chunk is not in the index (an imported graph may name a text
    unit it does not ship): no chunk vector to average, so its text is embedded."""
    g = store.graph
    extra = Entity(
        "ent-difference-engine", "Difference Engine", "Machine", description="A mechanical calculator.",
        chunk_ids=("elsewhere@000000000000#c0",), document_ids=("elsewhere",),
    )
    graph = KnowledgeGraph.create(
        [*g.entities.values(), extra], g.edges, g.history_entities.values(), g.history_edges, g.mentions,
        g.chunk_documents, g.current_chunks, g.schema,
    )
    return NetworkXGraphStore(graph, store.communities(), store.reports())


def _names(store: NetworkXGraphStore) -> list[str]:
    return sorted(e.name for e in store.entities())


class FailingEmbedder:
    """The real model, failing on its ``fail_at``-th call (a crash mid-write)."""

    def __init__(self, inner: SentenceTransformerEmbedder, fail_at: int) -> None:
        self.inner, self.calls, self.fail_at = inner, 0, fail_at
        self.name, self.dimension = inner.name, inner.dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        if self.calls == self.fail_at:
            raise RuntimeError("embedder died")
        return self.inner.embed(texts)


def test_a_given_graph_is_kept_as_given_and_searchable(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, small_docs: list[Document]
) -> None:
    given = _with_unsupported_entity(_given_graph(small_docs[1], 800))
    with Graph.open(tmp_path / "i", embedder=embedder) as graph:
        versions = [prepare_document(d, graph.chunk_size) for d in small_docs]
        written = graph.write_index(versions, knowledge_graph=given)
        assert written.embedded == sum(len(v.chunks) for v in versions)
        # only the entity no chunk supports is embedded; the others average their chunks' vectors
        assert written.graph_embedded == 1
        assert 0 < written.embed_seconds < written.seconds
        assert _names(graph.graph_store) == _names(given)
        graph.sync()  # a later sync keeps the given graph, it does not extract all three documents
        assert _names(graph.graph_store) == _names(given)
        assert graph.stats()["chunks"] == sum(len(v.chunks) for v in versions)
        again = graph.write_index([], knowledge_graph=given)
        assert (again.embedded, again.graph_embedded, again.store) == (0, 0, None)
    with Graph.open(tmp_path / "i", embedder=embedder, read_only=True) as graph:
        assert _names(graph.graph_store) == _names(given)
        hit = graph.engine().find_entity("Lord Byron")
        assert hit is not None and hit.title == "Lord Byron"
        assert "Charles Babbage" not in _names(given)  # only the Babbage document names him
        assert "Charles Babbage" not in _names(graph.graph_store)


def test_a_crash_while_embedding_the_graph_leaves_the_folder_as_it_was(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, small_docs: list[Document]
) -> None:
    path = tmp_path / "i"
    with Graph.open(path, embedder=embedder) as graph:
        graph.ingest(small_docs[:1])
        before = (graph.stats(), _names(graph.graph_store))
    failing = FailingEmbedder(embedder, fail_at=2)  # chunks embed in call 1, the graph's records die in call 2
    with Graph.open(path, embedder=failing) as graph:  # type: ignore[arg-type]
        versions = [prepare_document(d, graph.chunk_size) for d in small_docs[1:]]
        with pytest.raises(RuntimeError, match="embedder died"):
            graph.write_index(
                versions, knowledge_graph=_with_unsupported_entity(_given_graph(small_docs[1], graph.chunk_size))
            )
    with Graph.open(path, embedder=embedder) as graph:
        assert (graph.stats(), _names(graph.graph_store)) == before


def test_prepare_version_refuses_chunks_of_another_text(small_docs: list[Document]) -> None:
    version = prepare_document(small_docs[0], 800)
    other = Document(small_docs[0].id, small_docs[0].title, small_docs[0].text + " More.")
    with pytest.raises(IndexFormatError, match="version_hash"):
        prepare_version(other, version.sections, version.chunks)


def test_graph_records_take_the_mean_vector_of_their_chunks(
    tmp_path: Path, embedder: SentenceTransformerEmbedder, small_docs: list[Document]
) -> None:
    with Graph.open(tmp_path / "i", embedder=embedder) as graph:
        graph.write_index(
            [prepare_document(d, graph.chunk_size) for d in small_docs],
            knowledge_graph=_with_unsupported_entity(_given_graph(small_docs[1], 800)),
        )
        hashes = {c.id: h for c, h in graph.db.current_chunks()}
        titles = {d.id: d.title for d in small_docs}
        store = graph.graph_store
        for collection in ("entities", "communities"):
            records = store.records(collection)
            vectors = graph._build.record_vectors(records)
            for row, rid in enumerate(records.ids):
                owner = rid.split("#r", 1)[0]
                if collection == "communities":
                    chunk_ids = next(r.chunk_ids for r in store.reports() if r.community_id == rid)
                elif rid == owner:  # its own document's chunks, when one is titled by its name
                    chunk_ids = own_chunks(store.graph.entities[owner], store.graph.chunk_documents, titles)
                else:
                    continue  # a facet: its relation's chunks (checked through Chroma below)
                chunk_ids = tuple(c for c in chunk_ids if c in hashes)
                if not chunk_ids:
                    # no chunk of the index supports it: its own text is embedded
                    assert np.allclose(vectors[row], embedder.embed([records.texts[row]])[0], atol=1e-5)
                    continue
                mean = graph.embeddings([hashes[c] for c in chunk_ids]).mean(axis=0)
                assert np.allclose(vectors[row], mean / np.linalg.norm(mean), atol=1e-6)
            # Chroma holds exactly these vectors: each record is its own nearest neighbour
            for row, rid in enumerate(records.ids):
                best = graph.vector_store.query(collection, vectors[row], 50)
                assert best[0][1] == pytest.approx(1.0, abs=1e-4)
                assert rid in [i for i, s in best if s >= best[0][1] - 1e-4]
