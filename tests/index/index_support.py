"""Helpers of the index tests: a model that counts its calls, and an index of the previous layout."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.index.build import IndexBuild
from agrag_lab.index.folder import DB_FILE
from agrag_lab.index.records import GRAPH_COLLECTIONS, CollectionRecords, with_hosts
from agrag_lab.storage.documents_db import DocumentDB
from agrag_lab.storage.meta_keys import LAYOUT
from agrag_lab.storage.vectors import VectorStore


class CountingEmbedder:
    """The real model, counting the texts it is asked to embed (a conversion must ask for none)."""

    def __init__(self, model: SentenceTransformerEmbedder) -> None:
        self.model = model
        self.name = model.name
        self.dimension = model.dimension
        self.texts = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.model.embed(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return self.model.embed_query(text)


def as_older_layout(path: Path, embedder: SentenceTransformerEmbedder, store: VectorStore) -> None:
    """What the previous code wrote: every graph record in its collection, no host flags, no layout mark."""
    db = DocumentDB(path / DB_FILE)
    build = IndexBuild(path, db, embedder, store)
    no_hosts = {name: CollectionRecords((), (), (), ()) for name in GRAPH_COLLECTIONS}
    build.sync_collection("chunks", with_hosts(build.chunk_records(), no_hosts))  # flags removed
    graph = build.graph_records(build.load_graph())
    for name, records in graph.items():
        build.sync_collection(name, records)  # all of them, hosted ones too
    with db.transaction() as conn:
        conn.execute("DELETE FROM meta WHERE key=?", (LAYOUT,))
        conn.execute("DROP TABLE hosted")
    db.close()


