"""The vector-by-id read of every vector store (``VectorStore.vectors``): what was written comes back.

A scoped entity search ranks entities by the mean of their in-scope passages'
vectors, read by id (issue 31); each store must return the stored vector of
every id it holds and leave out the ids it does not. The Chroma server's case
is in tests/test_chroma_server.py (it reuses that test's server).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import chromadb
import numpy as np
import pytest

from agrag_lab import Graph
from agrag_lab.errors import VectorStoreError
from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.vectors import CachedVectorStore
from agrag_lab.kg.model import Entity, KnowledgeGraph
from agrag_lab.storage.vectors import ChromaVectorStore, ExactVectorStore, Metadata, VectorStore, Where

#: A store holding one collection's records: ``holding(collection, ids, vectors, metadatas)``.
Holding = Callable[[str, Sequence[str], np.ndarray, Sequence[Metadata]], VectorStore]


def _unit(n: int, dim: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


@pytest.fixture(params=["chroma", "exact"])
def holding(request: pytest.FixtureRequest, tmp_path: Path) -> Holding:
    """A local Chroma store written with the records, or the read-only exact store loaded with them
    (what a read-only open of an index searches: :class:`CachedVectorStore`)."""

    def chroma(collection: str, ids: Sequence[str], vectors: np.ndarray, metas: Sequence[Metadata]) -> VectorStore:
        store = ChromaVectorStore.local(str(tmp_path / "chroma"))
        store.upsert(collection, ids, vectors, ids, metas)
        return store

    def exact(collection: str, ids: Sequence[str], vectors: np.ndarray, metas: Sequence[Metadata]) -> VectorStore:
        return ExactVectorStore({collection: (ids, vectors, metas)}.__getitem__, "the records of this test")

    return chroma if request.param == "chroma" else exact


def test_a_store_reads_back_the_vectors_it_holds(holding: Holding) -> None:
    ids = [f"d@0123456789ab#c{i}" for i in range(6)]
    vectors = _unit(6, 8, seed=3)
    store = holding("chunks", ids, vectors, [{"fp": str(i)} for i in range(6)])
    read = store.vectors("chunks", [ids[4], ids[1], "missing", ids[4]])
    assert sorted(read) == sorted([ids[1], ids[4]])
    assert np.allclose(read[ids[1]], vectors[1], atol=1e-6) and np.allclose(read[ids[4]], vectors[4], atol=1e-6)
    assert store.vectors("chunks", []) == {}


def test_a_query_for_the_whole_collection_returns_every_record_in_exact_order(holding: Holding) -> None:
    """HNSW is approximate: asked for as many records as a collection holds, Chroma scans instead, so
    none is left unreached (one community report of 84 was, in CI) and the order is exact cosine."""
    n, dim = 300, 16
    ids = [f"r{i:03d}" for i in range(n)]
    vectors = _unit(n, dim, seed=11)
    store = holding("communities", ids, vectors, [{"fp": str(i), "half": i % 2} for i in range(n)])
    assert store.fingerprints("communities") == {rid: str(i) for i, rid in enumerate(ids)}
    query = _unit(1, dim, seed=12)[0]
    exact = sorted(((rid, round(float(v @ query), 5)) for rid, v in zip(ids, vectors, strict=True)),
                   key=lambda p: (-p[1], p[0]))
    got = store.query("communities", query, limit=n + 50)
    assert [rid for rid, _ in got] == [rid for rid, _ in exact]
    assert np.allclose([s for _, s in got], [s for _, s in exact], atol=1e-5)
    odd = store.query("communities", query, limit=n, where={"half": 1})
    assert [rid for rid, _ in odd] == [rid for rid, _ in exact if int(rid[1:]) % 2 == 1]
    chosen = [ids[7], ids[3], ids[250]]
    assert [rid for rid, _ in store.query("communities", query, limit=3, ids=chosen)] == [
        rid for rid, _ in exact if rid in chosen]
    even = [rid for rid, _ in exact if int(rid[1:]) % 2 == 0]
    assert [rid for rid, _ in store.query("communities", query, limit=5, where={"half": 0})] == even[:5]
    assert [rid for rid, _ in store.query("communities", query, limit=2, where={"half": 0}, ids=chosen)] == [
        rid for rid in even if rid in chosen][:2]
    assert store.query("communities", query, limit=3, ids=[]) == []
    assert store.query("communities", query, limit=0) == []


def test_a_chroma_reader_keeps_its_collection_and_sees_it_made_again(tmp_path: Path) -> None:
    """A reader keeps each collection's handle between reads (a lookup is a round trip to a server); when
    another writer drops the collection and makes it again (a rebuild: a new collection id), the next read
    finds the new one instead of failing, and a collection that is gone is an error, not created."""
    reader = ChromaVectorStore.local(str(tmp_path / "chroma"))
    writer = ChromaVectorStore.local(str(tmp_path / "chroma"))
    first, second = _unit(4, 8, seed=5), _unit(3, 8, seed=6)
    writer.upsert("chunks", ["a", "b", "c", "d"], first, ["a", "b", "c", "d"], [{"fp": "1"}] * 4)
    assert [rid for rid, _ in reader.query("chunks", first[2], 1)] == ["c"]
    assert set(reader.vectors("chunks", ["a", "x"])) == {"a"}
    writer.drop("chunks")
    writer.upsert("chunks", ["x", "y", "z"], second, ["x", "y", "z"], [{"fp": "2"}] * 3)
    assert [rid for rid, _ in reader.query("chunks", second[1], 1)] == ["y"]
    assert set(reader.vectors("chunks", ["a", "x", "z"])) == {"x", "z"}
    writer.drop("chunks")
    with pytest.raises(VectorStoreError, match="could not query 'chunks'"):
        reader.query("chunks", second[1], 1)
    assert writer.count("chunks") is None


def test_a_read_only_open_searches_the_cached_embeddings_as_chroma_holds_them(workshop_graph: Graph) -> None:
    """A read-only open reads no Chroma: its store, made from documents.sqlite's cache and the graph file,
    holds every collection's ids with the fingerprints and vectors Chroma holds, and ranks as Chroma does
    (the workshop's collections are small enough that Chroma's queries scan them exactly)."""
    cached = workshop_graph.vector_store.backend
    assert isinstance(cached, CachedVectorStore)
    chroma = ChromaVectorStore.local(str(workshop_graph.path / "chroma"))
    client = chromadb.PersistentClient(path=str(workshop_graph.path / "chroma"))
    query = workshop_graph.embedder.embed_query("Who built the loom?")
    filters: dict[str, Where] = {"chunks": {"hosts_entities": {"$eq": True}}, "entities": {"label": {"$in": ["Place", "Work"]}},
               "communities": {"level": {"$eq": 0}}}
    for name in ("chunks", "entities", "communities"):
        assert cached.fingerprints(name) == chroma.fingerprints(name), name
        ids = sorted(chroma.fingerprints(name))[:30]
        held, read = chroma.vectors(name, ids), cached.vectors(name, ids)
        assert set(read) == set(held) and all(np.allclose(read[k], held[k], atol=1e-6) for k in ids)
        wheres: list[Where | None] = [None, filters[name]]
        for where in wheres:
            # the reference: every record Chroma holds under ``where``, ranked exactly (Chroma's own query is an
            # approximate HNSW search past its brute-force buffer, and its graph is built by threads: on a
            # loaded machine it may miss a record the exact order has)
            got = client.get_collection(name).get(where=where, include=["embeddings"])
            matrix = np.asarray(got["embeddings"], dtype=np.float64)
            cosines = matrix @ query / (np.linalg.norm(matrix, axis=1) * np.linalg.norm(query))
            theirs = sorted(zip(got["ids"], cosines.tolist(), strict=True), key=lambda p: (-round(p[1], 5), p[0]))[:8]
            ours = cached.query(name, query, 8, where)
            # the same records in the same order; a score may differ in its fifth decimal, where float32 sums
            # taken in another order (numpy's BLAS, float64 here) round to either side of a digit
            assert [rid for rid, _ in ours] == [rid for rid, _ in theirs], (name, where)
            assert all(abs(a - b) <= 1.5e-5 for (_, a), (_, b) in zip(ours, theirs, strict=True)), (name, where)
            top = chroma.query(name, query, 8, where)  # Chroma's own search agrees where it is sure: the best
            assert top[0][0] == ours[0][0] or abs(top[0][1] - ours[0][1]) <= 1.5e-5, (name, where)
    with pytest.raises(VectorStoreError, match="read-only"):
        cached.upsert("chunks", ["x"], np.zeros((1, 384), dtype=np.float32), ["x"], [{}])


def test_the_graph_server_reads_back_entity_facet_and_chunk_vectors(falkordb_server: tuple[str, int]) -> None:
    host, port = falkordb_server
    entities = [Entity(f"ent-{i}", f"Thing {i}", "Thing", chunk_ids=(f"d#c{i}",), document_ids=("d",)) for i in range(4)]
    kg = KnowledgeGraph.create(entities, [], chunk_documents={f"d#c{i}": "d" for i in range(4)},
                               current_chunks=[f"d#c{i}" for i in range(4)])
    ents, chunks = _unit(5, 8, seed=5), _unit(4, 8, seed=6)
    entity_vectors = {f"ent-{i}": ents[i] for i in range(4)} | {"ent-0#r0": ents[4]}
    chunk_vectors = {f"d#c{i}": chunks[i] for i in range(4)}
    server = FalkorDBGraphStore.connect(host, port, graph="vector-reads", vectors=True)
    server.clear()
    server.push(NetworkXGraphStore(kg), {"entities": entity_vectors, "chunks": chunk_vectors})
    read = server.vectors("entities", ["ent-2", "ent-0#r0", "ent-9"])
    assert sorted(read) == ["ent-0#r0", "ent-2"]
    assert np.allclose(read["ent-2"], ents[2], atol=1e-6) and np.allclose(read["ent-0#r0"], ents[4], atol=1e-6)
    read = server.vectors("chunks", ["d#c3", "d#c0"])
    assert sorted(read) == ["d#c0", "d#c3"] and np.allclose(read["d#c3"], chunks[3], atol=1e-6)
    assert server.vectors("chunks", []) == {}


def test_an_index_reads_every_record_as_its_native_search_ranks_it(workshop_graph: Graph) -> None:
    """The index's vector store (Chroma, with hosted records read through their chunk) and the
    graph store's cached embeddings give every entity record the same vector."""
    ids = list(workshop_graph.graph_store.records("entities").ids)
    stored = workshop_graph.vector_store.vectors("entities", [*ids, "ent-no-such"])
    cached = workshop_graph.graph_store.vectors("entities", ids)
    assert set(stored) == set(cached) == set(ids)
    assert all(np.allclose(stored[k], cached[k], atol=1e-5) for k in ids)
    chunks = list(workshop_graph.graph_store.records("chunks").ids)[:20]
    read = workshop_graph.vector_store.vectors("chunks", chunks)
    assert all(np.allclose(read[k], v, atol=1e-5) for k, v in workshop_graph.graph_store.vectors("chunks", chunks).items())
    assert set(read) == set(chunks)
