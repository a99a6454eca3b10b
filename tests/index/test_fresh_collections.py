"""A new folder's first write sends its records to Chroma without reading back collections it has just emptied;
every later write reads what a collection holds, so that stale records go (``IndexBuild.sync_collection``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from agrag_lab import Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.storage.vectors import COLLECTIONS, ChromaVectorStore

LIGHTRAG = Path(__file__).resolve().parents[1] / "fixtures" / "peers" / "lightrag_vectors"


class ReadCountingStore(ChromaVectorStore):
    """The real local Chroma store, counting the whole-collection reads a sync makes before it writes."""

    reads: Counter[str]

    def fingerprints(self, collection: str) -> dict[str, str]:
        self.reads[collection] += 1
        return super().fingerprints(collection)


def _store(folder: Path) -> ReadCountingStore:
    """A store in its own folder beside the index (as a server's would be), its reads counted from here on."""
    store = ReadCountingStore.local(str(folder.parent / "vectors"))
    assert isinstance(store, ReadCountingStore)
    store.reads = Counter()
    return store


def _import(folder: Path, store: ReadCountingStore, embedder: SentenceTransformerEmbedder) -> dict[str, int]:
    with Graph.open(folder, embedder=embedder, vector_store=store) as graph:
        graph.import_lightrag(LIGHTRAG)
    return {name: len(ChromaVectorStore.local(str(folder.parent / "vectors")).fingerprints(name)) for name in COLLECTIONS}


def test_a_fresh_import_reads_each_collection_once_and_stores_every_record(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    store = _store(tmp_path / "ix")
    held = _import(tmp_path / "ix", store, embedder)
    assert store.reads == Counter(dict.fromkeys(COLLECTIONS, 1))  # the open's first sync only, not the import's
    assert held["chunks"] == 8 and held["entities"] > 0


def test_a_later_write_in_the_same_session_reads_again_and_removes_what_went(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    store = _store(tmp_path / "ix")
    with Graph.open(tmp_path / "ix", embedder=embedder, vector_store=store) as graph:
        graph.import_lightrag(LIGHTRAG)
        before = set(store.fingerprints("chunks"))
        store.reads.clear()
        gone = graph.db.documents()[0].id
        its_chunks = {c.id for c, _ in graph.db.current_chunks() if c.document_id == gone}
        assert graph.remove(gone)
        after = set(store.fingerprints("chunks"))
    assert store.reads["chunks"] >= 2  # the removal's sync read it, then this test
    assert its_chunks and its_chunks <= before and after == before - its_chunks


def test_a_record_left_in_a_new_folders_collection_is_removed_by_the_first_sync(
    tmp_path: Path, embedder: SentenceTransformerEmbedder
) -> None:
    store = _store(tmp_path / "ix")
    store.upsert("chunks", ["left-over"], np.ones((1, embedder.dimension), dtype=np.float32), [""], [{"fp": "x"}])
    _import(tmp_path / "ix", store, embedder)
    assert "left-over" not in ChromaVectorStore.local(str(tmp_path / "vectors")).fingerprints("chunks")
