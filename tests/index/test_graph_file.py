"""Issue 20: the compact graph file, and an older index's plain ``graph.json`` read and converted."""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest
from index_support import CountingEmbedder

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import IndexFormatError
from agrag_lab.graph_stores import persistence
from agrag_lab.index.build import GRAPH_FILE, LEGACY_GRAPH_FILE
from agrag_lab.index.doctor import examine
from agrag_lab.storage.vectors import COLLECTIONS, ChromaVectorStore

QUESTION = "Who worked with Babbage?"


def _as_older_index(path: Path) -> str:
    """Turn a fresh index into what the previous code wrote: the same graph as plain ``graph.json``."""
    text = gzip.decompress((path / GRAPH_FILE).read_bytes()).decode("utf-8")
    (path / LEGACY_GRAPH_FILE).write_text(text, encoding="utf-8")
    (path / GRAPH_FILE).unlink()
    return text


def _fingerprints(path: Path) -> dict[str, dict[str, str]]:
    store = ChromaVectorStore.local(str(path / "chroma"))
    return {name: store.fingerprints(name) for name in COLLECTIONS}


def test_the_graph_file_is_compressed_json_that_gzip_reads(tiny_index: Path) -> None:
    path = tiny_index / GRAPH_FILE
    text = gzip.decompress(path.read_bytes()).decode("utf-8")
    assert text.startswith('{"format":"agrag-lab/knowledge-graph"')
    assert path.stat().st_size < len(text.encode("utf-8")) / 2
    assert persistence.is_complete(path) and persistence.stored_size(path) == len(text.encode("utf-8"))
    assert not (tiny_index / LEGACY_GRAPH_FILE).exists()


def test_an_older_index_opens_read_only_as_it_is_and_a_writable_open_converts_it(
    tiny_index: Path, embedder: SentenceTransformerEmbedder
) -> None:
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        before = [r.id for r in g.engine().run(QUESTION, recipes.GRAPH_EXPAND).results]
        entities = sorted(e.id for e in g.graph_store.entities())
    text = _as_older_index(tiny_index)
    vectors = _fingerprints(tiny_index)
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        assert sorted(e.id for e in g.graph_store.entities()) == entities
        assert [r.id for r in g.engine().run(QUESTION, recipes.GRAPH_EXPAND).results] == before
    assert (tiny_index / LEGACY_GRAPH_FILE).read_text(encoding="utf-8") == text  # read-only: untouched
    assert not (tiny_index / GRAPH_FILE).exists()
    counting = CountingEmbedder(embedder)
    with Graph.open(tiny_index, embedder=counting) as g:  # type: ignore[arg-type]
        assert [r.id for r in g.engine().run(QUESTION, recipes.GRAPH_EXPAND).results] == before
    assert counting.texts == 0  # no model time
    assert not (tiny_index / LEGACY_GRAPH_FILE).exists()
    assert gzip.decompress((tiny_index / GRAPH_FILE).read_bytes()).decode("utf-8") == text  # nothing lost
    assert _fingerprints(tiny_index) == vectors  # the vector store was not touched
    assert examine(tiny_index).ok


def test_a_conversion_killed_after_writing_the_new_file_is_finished_by_the_next_open(
    tiny_index: Path, embedder: SentenceTransformerEmbedder
) -> None:
    text = _as_older_index(tiny_index)
    persistence.write_file(tiny_index / GRAPH_FILE, text)  # killed before the old file was removed
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        assert g.graph_store.entities()
    with Graph.open(tiny_index, embedder=embedder):
        pass
    assert sorted(os.listdir(tiny_index)).count(LEGACY_GRAPH_FILE) == 0
    assert gzip.decompress((tiny_index / GRAPH_FILE).read_bytes()).decode("utf-8") == text


def test_repair_converts_an_older_index(tiny_index: Path, embedder: SentenceTransformerEmbedder) -> None:
    text = _as_older_index(tiny_index)
    with Graph.open(tiny_index, embedder=embedder, rebuild=True):
        pass
    assert not (tiny_index / LEGACY_GRAPH_FILE).exists()
    assert gzip.decompress((tiny_index / GRAPH_FILE).read_bytes()).decode("utf-8") == text


def test_a_damaged_older_graph_file_is_rebuilt_by_a_writable_open(
    tiny_index: Path, embedder: SentenceTransformerEmbedder
) -> None:
    text = _as_older_index(tiny_index)
    (tiny_index / LEGACY_GRAPH_FILE).write_text(text[:300], encoding="utf-8")
    with pytest.raises(IndexFormatError, match=r"graph\.json is truncated"):
        Graph.open(tiny_index, embedder=embedder, read_only=True)
    with Graph.open(tiny_index, embedder=embedder):
        pass
    assert not (tiny_index / LEGACY_GRAPH_FILE).exists()
    assert gzip.decompress((tiny_index / GRAPH_FILE).read_bytes()).decode("utf-8") == text
