"""Issue 20: graph records that are exactly one chunk's vector are stored once, in the chunk collection."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from index_support import CountingEmbedder, as_older_layout

from agrag_lab import Graph, recipes
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.index.build import CURRENT_LAYOUT
from agrag_lab.index.folder import DB_FILE, keyword_counts
from agrag_lab.index.records import host_flag
from agrag_lab.storage.meta_keys import LAYOUT
from agrag_lab.storage.vectors import ChromaVectorStore, where_clause

QUESTIONS = ("Who worked with Babbage?", "the loom in Lyon", "Note G", "Lord Byron's daughter", "Difference Engine")


def _exact(g: Graph, collection: str, vector: np.ndarray, limit: int, where: object = None) -> list[tuple[str, float]]:
    return g.graph_store.similarity_search(collection, vector, limit, where)  # type: ignore[arg-type]


def test_hosted_records_have_no_copy_and_their_chunks_say_so(tiny_index: Path, embedder: SentenceTransformerEmbedder) -> None:
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        counts, keywords = g.collection_counts(), keyword_counts(tiny_index)
        for name in ("entities", "communities"):
            records = g.graph_store.records(name)
            hosted = records.hosted()
            assert hosted, name  # the tiny corpus has records that one chunk supports
            assert counts[name] == keywords[name] - len(hosted) == len(records.stored().ids)
            backend = ChromaVectorStore.local(str(tiny_index / "chroma"))
            assert not {r for r, _, _ in hosted} & set(backend.fingerprints(name))
            flagged = {i for i, _ in backend.query("chunks", np.ones(384, dtype=np.float32), 100,
                                                  {host_flag(name): {"$eq": True}})}
            assert flagged == {c for _, c, _ in hosted}


@pytest.mark.parametrize("collection", ["entities", "communities"])
def test_search_finds_hosted_records_as_exact_search_does(
    tiny_index: Path, embedder: SentenceTransformerEmbedder, collection: str
) -> None:
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        for question in QUESTIONS:
            vector = embedder.embed_query(question)
            assert g.vector_store.query(collection, vector, 8) == _exact(g, collection, vector, 8), question


def test_filters_labels_and_ids_still_apply(tiny_index: Path, embedder: SentenceTransformerEmbedder) -> None:
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        entities = g.graph_store.entities()
        labels = sorted({e.label for e in entities})
        vector = embedder.embed_query("Ada Lovelace and Charles Babbage")
        for label in labels:
            where = where_clause({"label": [label]})
            found = g.vector_store.query("entities", vector, 50, where)
            assert found == _exact(g, "entities", vector, 50, where)
            assert found and {g.graph_store.entity(i.split("#")[0]).label for i, _ in found} == {label}  # type: ignore[union-attr]
        some = sorted(e.id for e in entities)[::2]
        where = where_clause({"item_id": some})
        found = g.vector_store.query("entities", vector, 50, where)
        assert found == _exact(g, "entities", vector, 50, where)
        assert {i.split("#")[0] for i, _ in found} <= set(some)
        assert g.vector_store.query("entities", vector, 50, where_clause({"item_id": ["\x00none"]})) == []
        # the recipes read the same store: the entity method's dense leg equals the native engine's
        for recipe in (recipes.ENTITY, recipes.HYBRID, recipes.GRAPH_EXPAND, recipes.THEMATIC):
            assert g.engine().run("Who worked with Babbage?", recipe).keys == \
                g.engine(native=True).run("Who worked with Babbage?", recipe).keys, recipe.name


def test_records_sharing_a_chunk_come_in_id_order(tiny_index: Path, embedder: SentenceTransformerEmbedder) -> None:
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        by_chunk: dict[str, list[str]] = {}
        for rid, chunk, _ in g.graph_store.records("entities").hosted():
            by_chunk.setdefault(chunk, []).append(rid)
        chunk, shared = max(by_chunk.items(), key=lambda kv: len(kv[1]))
        assert len(shared) > 1
        ids, _, _, hashes = g.chunk_records()
        (vector,) = g.embeddings([hashes[ids.index(chunk)]])
        found = g.vector_store.query("entities", vector, len(shared))
        assert [i for i, _ in found] == sorted(shared)
        assert len({s for _, s in found}) == 1


def _keys(g: Graph) -> dict[str, list[str]]:
    return {r.name: g.engine().run(q, r).keys for q in QUESTIONS[:2] for r in (recipes.ENTITY, recipes.THEMATIC)}


def test_an_older_layout_reads_as_it_is_and_a_writable_open_converts_it_without_the_model(
    tiny_index: Path, embedder: SentenceTransformerEmbedder
) -> None:
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        wanted = _keys(g)
        stored = g.collection_counts()
    as_older_layout(tiny_index, embedder, ChromaVectorStore.local(str(tiny_index / "chroma")))
    with Graph.open(tiny_index, embedder=embedder, read_only=True) as g:
        older = g.collection_counts()
        assert older["entities"] == keyword_counts(tiny_index)["entities"] > stored["entities"]
        assert _keys(g) == wanted  # nothing hosted yet: the collections answer alone
    counting = CountingEmbedder(embedder)
    with Graph.open(tiny_index, embedder=counting) as g:  # type: ignore[arg-type]
        assert g.collection_counts() == stored
        assert _keys(g) == wanted
    assert counting.texts == 0
    with sqlite3.connect(tiny_index / DB_FILE) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key=?", (LAYOUT,)).fetchone() == (CURRENT_LAYOUT,)


class _Exact:
    """An exact two-collection store that records the queries it answers (filtered or not, how many)."""

    def __init__(self, chunks: dict[str, tuple[np.ndarray, dict[str, object]]]) -> None:
        self.rows: dict[str, dict[str, tuple[np.ndarray, dict[str, object]]]] = {"chunks": chunks, "entities": {}}
        self.asked: list[tuple[int, bool]] = []

    def count(self, collection: str) -> int:
        return len(self.rows[collection])

    def query(self, collection: str, embedding: np.ndarray, limit: int, where: object = None,
              ids: object = None) -> list[tuple[str, float]]:
        from agrag_lab.storage.where import compile_where

        if collection == "chunks":
            self.asked.append((limit, where is not None))
        test = compile_where(where)  # type: ignore[arg-type]
        found = [(i, round(float(v @ embedding), 5)) for i, (v, m) in self.rows[collection].items()
                 if test(m) and (ids is None or i in ids)]  # type: ignore[operator]
        return sorted(found, key=lambda p: (-p[1], p[0]))[:limit]


@pytest.mark.parametrize("near_hosts", [True, False])
def test_an_unscoped_query_reads_the_nearest_chunks_unfiltered_and_falls_back_to_the_flag(
    near_hosts: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agrag_lab.index import vectors

    rng = np.random.default_rng(7)
    query = np.eye(8, dtype=np.float32)[0]
    chunks: dict[str, tuple[np.ndarray, dict[str, object]]] = {}
    hosted = []
    for n in range(300):
        v = rng.normal(size=8).astype(np.float32)
        v /= np.linalg.norm(v)
        hosts = n % 10 == 0  # 30 of 300 chunks host an entity
        if hosts and not near_hosts:
            v = -np.abs(v) if v[0] > 0 else v  # every hosting chunk points away from the question
        chunks[f"c{n:03}"] = (v, {host_flag("entities"): True} if hosts else {})
        if hosts:
            hosted.append((f"e{n:03}", f"c{n:03}", {"label": "Thing"}))
    backend = _Exact(chunks)
    monkeypatch.setattr(vectors, "HOSTS_EXACT", 10)
    store = vectors.IndexVectorStore(backend, lambda name: hosted if name == "entities" else [])  # type: ignore[arg-type]
    flagged = backend.query("chunks", query, 5, {host_flag("entities"): {"$eq": True}})
    expected = [(f"e{c[1:]}", s) for c, s in flagged]
    backend.asked.clear()
    assert store.query("entities", query, 5) == expected
    # 5 hosting chunks at a 10% share: 100 chunks read unfiltered; the flag asked only when they hold too few
    assert backend.asked == ([(100, False)] if near_hosts else [(100, False), (5, True)])
    monkeypatch.setattr(vectors, "WIDE_MAX", 50)
    backend.asked.clear()
    assert store.query("entities", query, 5) == expected
    assert backend.asked == [(5, True)]  # too wide a read for the share: the flagged query at once
    monkeypatch.setattr(vectors, "HOSTS_EXACT", 30)
    backend.asked.clear()
    assert store.query("entities", query, 5) == expected
    assert backend.asked == [(30, False)]  # few hosting chunks: every one of them, ranked exactly
