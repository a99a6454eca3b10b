"""Helpers of the evidence tests: the workshop index as data, stand-in vector stores."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from ada_corpus import with_metadata

from agrag_lab import Graph
from agrag_lab.documents import Chunk
from agrag_lab.embedding import Embedder
from agrag_lab.errors import VectorStoreError
from agrag_lab.evidence.access import span_id
from agrag_lab.retrieval.store import IndexSearchStore
from agrag_lab.storage.documents_db import DocumentDB, VersionRecord
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.vectors import VectorStore, Where

AE = "analytical-engine"


@dataclass(frozen=True)
class Universe:
    """Everything stored in the workshop index, read straight from SQLite."""

    docs: tuple[str, ...]
    versions: dict[str, tuple[VersionRecord, ...]]  # document -> versions, oldest first
    chunks: dict[tuple[str, str], tuple[Chunk, ...]]  # (document, version) -> chunks
    section_spans: tuple[str, ...]
    row_spans: tuple[str, ...]
    entity_ids: tuple[str, ...]

    def text(self, document_id: str, version: str) -> str | None:
        for v in self.versions.get(document_id, ()):
            if v.version == version:
                return v.text
        return None

    def current(self, document_id: str) -> VersionRecord:
        return next(v for v in self.versions[document_id] if not v.superseded)

    def old(self, document_id: str) -> VersionRecord:
        return next(v for v in self.versions[document_id] if v.superseded)

    def chunk_ids(self) -> list[str]:
        return [c.id for chunks in self.chunks.values() for c in chunks]

    def scope_text(self, scope: Sequence[str] | frozenset[str]) -> str:
        return "\n".join(v.text for d in scope for v in self.versions.get(d, ()))


def read_universe(graph: Graph) -> Universe:
    """Everything the workshop index stores, read straight from SQLite and the graph."""
    db = graph.db
    docs = tuple(d.id for d in db.documents(include_removed=True))
    versions = {d: tuple(db.versions(d)) for d in docs}
    chunks: dict[tuple[str, str], tuple[Chunk, ...]] = {}
    sections: list[str] = []
    rows: list[str] = []
    for d, vs in versions.items():
        for v in vs:
            cs = tuple(db.chunks_of(d, v.version))
            chunks[(d, v.version)] = cs
            sections += [span_id(d, v.version, s.start, s.end) for s in db.sections_of(d, v.version)]
            for c in cs:
                if c.table is not None:
                    rows += [span_id(d, v.version, a, b) for a, b in c.table.row_offsets]
    entity_ids = tuple(e.id for e in graph.graph_store.entities())
    return Universe(docs, versions, chunks, tuple(sections), tuple(rows), entity_ids)


SMALL_DOCS = with_metadata(
    {"babbage": {"era": "georgian", "famous": True}, "lovelace": {"era": "victorian", "famous": 1}}
)


class DownVectorStore:
    """A vector store whose server is unreachable."""

    def describe(self) -> str:
        return "Chroma server at http://127.0.0.1:9"

    def query(self, collection: str, embedding: np.ndarray, limit: int, where: Where | None = None) -> list[Any]:
        raise VectorStoreError(
            f"Chroma server at http://127.0.0.1:9: could not query {collection!r}: connection refused"
        )

    def vectors(self, collection: str, ids: Any) -> dict[str, np.ndarray]:
        raise VectorStoreError(
            f"Chroma server at http://127.0.0.1:9: could not read vectors of {collection!r}: connection refused"
        )


class RecordingVectorStore:
    """Passes queries through and records each ``where``, and each read of vectors by id."""

    def __init__(self, inner: VectorStore) -> None:
        self.inner = inner
        self.calls: list[tuple[str, int, Where | None]] = []
        self.reads: list[tuple[str, tuple[str, ...]]] = []

    def describe(self) -> str:
        return self.inner.describe()

    def query(self, collection: str, embedding: np.ndarray, limit: int, where: Where | None = None) -> list[Any]:
        self.calls.append((collection, limit, where))
        return self.inner.query(collection, embedding, limit, where)

    def vectors(self, collection: str, ids: Any) -> dict[str, np.ndarray]:
        self.reads.append((collection, tuple(ids)))
        return self.inner.vectors(collection, ids)


class GraphView:
    """The workshop graph with another vector store (an EvidenceSource)."""

    def __init__(self, graph: Graph, vector_store: Any) -> None:
        self._graph = graph
        self.vector_store = vector_store

    @property
    def db(self) -> DocumentDB:
        return self._graph.db

    @property
    def embedder(self) -> Embedder:
        return self._graph.embedder

    @property
    def graph_store(self) -> IndexSearchStore:
        return self._graph.graph_store

    def keyword_index(self, collection: str) -> KeywordIndex:
        return self._graph.keyword_index(collection)
