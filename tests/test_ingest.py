"""Ingestion: versions, the embedding cache, removal, bad input that loses nothing."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from agrag_lab import Document, Graph
from agrag_lab.errors import DocumentError, IndexFormatError
from agrag_lab.ids import version_hash
from agrag_lab.loaders import MAX_DOCUMENT_CHARS, load_file, load_paths


def _keyword_docs(graph: Graph, query: str) -> set[str]:
    return {key.split("@")[0] for key, _ in graph.keyword_index("chunks").search(query, 50)}


def test_counts_and_identical_reingest_embeds_nothing(index: Graph, small_docs: list[Document]) -> None:
    first = index.ingest(small_docs)
    assert (first.new, first.changed, first.unchanged, first.removed) == (3, 0, 0, 0)
    assert first.chunks >= 3 and first.embedded == first.chunks
    again = index.ingest(small_docs)
    assert (again.new, again.changed, again.unchanged) == (0, 0, 3)
    assert again.chunks == 0 and again.embedded == 0
    assert index.stats() == {"documents": 3, "removed": 0, "versions": 3, "chunks": first.chunks}


def test_changed_text_makes_a_new_version_and_keeps_the_old(index: Graph, small_docs: list[Document]) -> None:
    index.ingest(small_docs)
    old = small_docs[0]
    new = Document(old.id, old.title, old.text.replace("Difference Engine", "Analytical Engine and a mill"))
    report = index.ingest([new])
    assert (report.new, report.changed, report.unchanged) == (0, 1, 0)
    versions = index.db.versions(old.id)
    assert [v.version for v in versions] == [version_hash(old.text), version_hash(new.text)]
    assert [v.superseded for v in versions] == [True, False]
    old_chunk = index.db.chunk(old.id, version_hash(old.text), 0)
    assert old_chunk is not None and "Difference Engine" in old_chunk.text
    assert index.db.version(old.id, version_hash(old.text)).text == old.text  # type: ignore[union-attr]
    # search sees only the current version
    hits = [k for k, _ in index.keyword_index("chunks").search("mill", 10)]
    assert hits and all(version_hash(new.text) in k for k in hits)
    assert not any(version_hash(old.text) in k for k in index.vector_store.fingerprints("chunks"))


def test_unchanged_chunks_reuse_cached_embeddings(index: Graph, small_docs: list[Document]) -> None:
    index.ingest(small_docs)
    doc = small_docs[1]
    edited = Document(doc.id, doc.title, doc.text + "\nShe died in 1852.\n")
    report = index.ingest([edited])
    assert report.changed == 1
    assert report.embedded < report.chunks or report.chunks == 1


def test_remove_hides_from_search_and_keeps_versions(index: Graph, small_docs: list[Document]) -> None:
    index.ingest(small_docs)
    assert "jacquard" in _keyword_docs(index, "loom Lyon")
    assert index.remove("jacquard") is True
    assert index.remove("jacquard") is False
    assert "jacquard" not in _keyword_docs(index, "loom Lyon")
    assert not any(k.startswith("jacquard@") for k in index.vector_store.fingerprints("chunks"))
    assert index.db.versions("jacquard")
    again = index.ingest(small_docs)
    assert again.new == 1 and again.embedded == 0  # back from the cache


def test_prune_removes_documents_not_in_the_batch(index: Graph, small_docs: list[Document]) -> None:
    index.ingest(small_docs)
    report = index.ingest(small_docs[:2], prune=True)
    assert report.removed == 1 and index.stats()["documents"] == 2


def _state(graph: Graph) -> tuple[dict[str, int], set[str]]:
    return graph.stats(), set(graph.vector_store.fingerprints("chunks"))


def test_duplicate_ids_in_one_batch_write_nothing(index: Graph, small_docs: list[Document]) -> None:
    index.ingest(small_docs[:1])
    before = _state(index)
    twice = [small_docs[1], Document(small_docs[1].id, "again", "other text")]
    with pytest.raises(DocumentError, match="appears twice"):
        index.ingest(twice)
    assert _state(index) == before


def test_empty_document_is_refused() -> None:
    with pytest.raises(DocumentError, match="is empty"):
        Document("x", "X", "   \n ")


def test_bad_document_id_is_refused_with_the_rule() -> None:
    with pytest.raises(DocumentError, match="A-Z a-z 0-9"):
        Document("has space", "X", "text")


def test_oversized_document_is_refused_and_nothing_is_lost(index: Graph, small_docs: list[Document]) -> None:
    index.ingest(small_docs)
    before = _state(index)
    line = ("word " * (MAX_DOCUMENT_CHARS // 5 + 1000)).strip()  # one ~5 MB line
    big = Document("big", "Big", line + " " + line, "text")  # ~10 MB single line
    with pytest.raises(DocumentError, match="split it"):
        index.ingest([big, small_docs[0]])
    assert _state(index) == before


def test_loader_errors_name_the_file_and_the_fix(tmp_path: Path) -> None:
    (tmp_path / "a.pdf").write_bytes(b"%PDF")
    with pytest.raises(DocumentError, match=r"a\.pdf: unsupported file type \.pdf; use"):
        load_file(tmp_path / "a.pdf")
    (tmp_path / "empty.md").write_text("  \n")
    with pytest.raises(DocumentError, match=r"empty\.md: the file is empty"):
        load_file(tmp_path / "empty.md")
    (tmp_path / "latin.txt").write_bytes("Jacquard à Lyon".encode("latin-1"))
    with pytest.raises(DocumentError, match=r"latin\.txt: not valid UTF-8.*iconv"):
        load_file(tmp_path / "latin.txt")
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(DocumentError, match=r"dir\.md: cannot read the file"):
        load_file(tmp_path / "dir.md")
    with pytest.raises(DocumentError, match="no such file or folder"):
        load_paths([tmp_path / "missing.md"])
    (tmp_path / "bad.jsonl").write_text('{"id": "a", "text": "x"}\n{"id": "b"}\n')
    with pytest.raises(DocumentError, match=r"bad\.jsonl:2: each line needs"):
        load_file(tmp_path / "bad.jsonl")
    (tmp_path / "broken.jsonl").write_text("{nope\n")
    with pytest.raises(DocumentError, match=r"broken\.jsonl:1: not valid JSON"):
        load_file(tmp_path / "broken.jsonl")


def test_loader_reads_folders_of_markdown_text_and_jsonl(tmp_path: Path) -> None:
    (tmp_path / "One Doc.md").write_text("# One\n\nBody.")
    (tmp_path / "two.txt").write_text("Plain body.")
    (tmp_path / "many.jsonl").write_text('{"id": "m1", "title": "M1", "text": "x"}\n\n{"id": "m2", "text": "y"}\n')
    (tmp_path / "ignored.pdf").write_bytes(b"%PDF")
    docs = load_paths([tmp_path])
    assert sorted((d.id, d.title, d.format) for d in docs) == [
        ("m1", "M1", "text"), ("m2", "m2", "text"), ("one-doc", "One", "markdown"), ("two", "two", "text"),
    ]


def test_read_only_index_refuses_writes(tmp_path: Path, embedder: object, small_docs: list[Document]) -> None:
    with Graph.open(tmp_path / "ix", embedder=embedder) as g:  # type: ignore[arg-type]
        g.ingest(small_docs)
    with Graph.open(tmp_path / "ix", embedder=embedder, read_only=True) as ro:  # type: ignore[arg-type]
        assert ro.stats()["documents"] == 3
        with pytest.raises(IndexFormatError, match="read-only"):
            ro.ingest(small_docs)


def test_progress_names_what_is_embedded(index: Graph, small_docs: list[Document]) -> None:
    seen: list[tuple[str, int]] = []

    def progress(items: Iterable[Any], total: int, label: str) -> Iterable[Any]:
        seen.append((label, total))
        return items

    index.ingest(small_docs, progress=progress)
    labels = [label for label, _ in seen]
    # only the chunks are embedded: the graph's records take the mean vector of their chunks
    assert labels[0] == "embedding chunks" and not any(label.startswith("embedding") for label in labels[1:])
    assert {"indexing entities", "indexing communities"} <= set(labels)  # the graph's records are written
    assert all(total >= 1 for _, total in seen)
    seen.clear()
    index.ingest(small_docs, progress=progress)
    assert seen == []  # nothing new: nothing embedded, nothing reported
