"""The FalkorDB store's own parts: native vector recall, full-text search, injection, sync of what differs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from agrag_lab.graph_stores.falkordb.store import EF_RUNTIME, FalkorDBGraphStore, cypher_name, label_node
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.scope import GraphScope

EVIL = [
    "x'}) DETACH DELETE (n) //",
    'x"}) MATCH (n) DETACH DELETE n RETURN 1 //',
    "`) DETACH DELETE n //",
    "$docs",
    "x\\' OR 1=1 //",
]


def _store(n: int, dim: int, seed: int = 7) -> tuple[NetworkXGraphStore, dict[str, np.ndarray], dict[str, str]]:
    rng = np.random.default_rng(seed)
    entities = [Entity(f"ent-{i:04d}", f"Thing {i}", "Thing", chunk_ids=(f"d{i % 7}#c{i}",), document_ids=(f"d{i % 7}",))
                for i in range(n)]
    vectors = rng.normal(size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    kg = KnowledgeGraph.create(entities, [], chunk_documents={e.chunk_ids[0]: e.document_ids[0] for e in entities},
                               current_chunks=[e.chunk_ids[0] for e in entities])
    texts = {e.id: f"{e.name} word{int(e.id[-4:]) % 13}" for e in entities}
    return NetworkXGraphStore(kg), {e.id: v for e, v in zip(entities, vectors, strict=True)}, texts


def test_vector_index_recall_against_exact_search(falkordb_server: tuple[str, int]) -> None:
    host, port = falkordb_server
    source, vectors, texts = _store(1000, 64)
    server = FalkorDBGraphStore.connect(host, port, graph="recall")
    server.clear()
    server.push(source, {"entities": vectors}, {"entities": texts})
    ids = list(vectors)
    matrix = np.stack([vectors[i] for i in ids])
    rng = np.random.default_rng(11)
    found = wanted = 0
    for _ in range(50):
        query = rng.normal(size=64).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = {ids[k] for k in np.argsort(-(matrix @ query))[:10]}
        hits = server.vector_search("entities", query, 10)
        found += len(exact & {h for h, _ in hits})
        wanted += 10
        best = max(float(matrix[ids.index(h)] @ query) for h, _ in hits)
        assert hits[0][1] == pytest.approx(best, abs=1e-4)  # the score is a cosine similarity (1 - distance)
    recall = found / wanted
    assert EF_RUNTIME >= 100 and recall >= 0.99, recall


def test_fulltext_search_finds_the_words(falkordb_server: tuple[str, int]) -> None:
    host, port = falkordb_server
    source, vectors, texts = _store(40, 8)
    server = FalkorDBGraphStore.connect(host, port, graph="fulltext")
    server.clear()
    server.push(source, {"entities": vectors}, {"entities": texts})
    hits = server.fulltext_search("entities", "word5", 50)
    assert hits and {h for h, _ in hits} == {i for i, t in texts.items() if t.endswith(" word5")}
    assert server.fulltext_search("entities", "", 5) == []


def test_push_writes_only_what_differs(falkordb_server: tuple[str, int]) -> None:
    host, port = falkordb_server
    source, _vectors, _texts = _store(30, 8)
    server = FalkorDBGraphStore.connect(host, port, graph="sync")
    server.clear()
    first = server.push(source)
    assert first.written["entities"] == 30
    again = server.push(source)
    assert not again.changed and again.unchanged["entities"] == 30
    kg = source.graph
    fewer = NetworkXGraphStore(KnowledgeGraph.create(
        list(kg.entities.values())[:-1], [], chunk_documents=kg.chunk_documents, current_chunks=kg.current_chunks))
    third = server.push(fewer)
    assert third.removed["entities"] == 1 and third.written.get("entities", 0) == 0
    assert len(server.entities()) == 29


def test_no_value_is_spliced_into_a_query(falkordb_server: tuple[str, int]) -> None:
    """Names, aliases, descriptions, ids, document ids, labels, types and metadata full of Cypher stay data."""
    host, port = falkordb_server
    entities = [
        Entity("ent-a", EVIL[0], EVIL[2], tuple(sorted(EVIL[1:3])), EVIL[3], chunk_ids=(f"{EVIL[1]}#c0",),
               document_ids=(EVIL[1],), forms=((EVIL[1], EVIL[0]),), attributes=(("k", EVIL[4]),)),
        Entity("ent-b", "Plain", "Thing", chunk_ids=(f"{EVIL[1]}#c0",), document_ids=(EVIL[1],)),
    ]
    edges = [Edge("ent-a", "ent-b", "KNOWS", (f"{EVIL[1]}#c0",), description=EVIL[4])]
    kg = KnowledgeGraph.create(entities, edges, chunk_documents={f"{EVIL[1]}#c0": EVIL[1]},
                               current_chunks=[f"{EVIL[1]}#c0"])
    source = NetworkXGraphStore(kg)
    server = FalkorDBGraphStore.connect(host, port, graph="injection")
    server.clear()
    server.push(source)
    for evil in EVIL:
        assert server.entity_by_name(evil, GraphScope(document_ids={evil}, labels={evil})) is None
        assert server.entity(evil) is None
        assert server.entities(GraphScope(labels={evil}, document_ids={evil})) == []
        assert server.neighbours("ent-a", relation_types={evil}) == []
        assert server.bfs([evil, "ent-a"], 2, None, {evil}) == []
        assert server.mentions(evil) == []
        assert server.fulltext_search("entities", evil, 5) == []
    assert server.entity_by_name(EVIL[0]) == source.entity_by_name(EVIL[0])
    assert server.entities(GraphScope(document_ids={EVIL[1]})) == source.entities(GraphScope(document_ids={EVIL[1]}))
    assert server.neighbours("ent-a") == source.neighbours("ent-a")
    assert len(server.entities()) == 2  # nothing was deleted
    for evil in EVIL:
        with pytest.raises(KnowledgeGraphError, match="cannot be a FalkorDB"):
            cypher_name(evil)
        bad = KnowledgeGraph.create(entities, [Edge("ent-a", "ent-b", evil, (f"{EVIL[1]}#c0",))],
                                    chunk_documents=kg.chunk_documents, current_chunks=kg.current_chunks)
        with pytest.raises(KnowledgeGraphError, match="cannot be a FalkorDB"):
            server.push(NetworkXGraphStore(bad))
    assert server.neighbours("ent-a") == source.neighbours("ent-a")  # a refused push wrote nothing


def test_one_vector_index_per_entity_label_and_filters_run_in_the_server(falkordb_server: tuple[str, int]) -> None:
    """Entities (and their relation facets) are searched per label; ids, labels and documents filter natively."""
    host, port = falkordb_server
    rng = np.random.default_rng(3)
    labels = ("Person", "Place", "work of art")  # the last one is no Cypher name: it is hashed
    entities = [Entity(f"ent-{i:03d}", f"N{i}", labels[i % 3], chunk_ids=(f"d{i % 4}#c{i}",),
                       document_ids=(f"d{i % 4}",)) for i in range(60)]
    kg = KnowledgeGraph.create(entities, [], chunk_documents={e.chunk_ids[0]: e.document_ids[0] for e in entities},
                               current_chunks=[e.chunk_ids[0] for e in entities])
    keys = [e.id for e in entities] + [f"{e.id}#r1" for e in entities[:30]] + [e.chunk_ids[0] for e in entities]
    matrix = rng.normal(size=(len(keys), 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    found = dict(zip(keys, matrix, strict=True))
    vectors = {"entities": {k: v for k, v in found.items() if k.startswith("ent-")},
               "chunks": {k: v for k, v in found.items() if not k.startswith("ent-")}}
    server = FalkorDBGraphStore.connect(host, port, graph="per-label")
    server.clear()
    server.push(NetworkXGraphStore(kg), vectors)
    indexed = {label for label, prop, kind, _ in server._indexes() if prop == "embedding" and kind == "VECTOR"}
    assert indexed == {"Chunk", *(label_node(lab) for lab in labels)}
    label_of = {e.id: e.label for e in entities}

    def exact(collection: str, keep: Callable[[str], bool], q: np.ndarray, k: int) -> list[str]:
        pool = [key for key in vectors[collection] if keep(key)]
        return sorted(pool, key=lambda key: (-round(float(vectors[collection][key] @ q), 5), key))[:k]

    few = {"ent-007", "ent-011"}
    for _ in range(10):
        q = rng.normal(size=16).astype(np.float32)
        q /= np.linalg.norm(q)
        people = server.vector_search("entities", q, 5, labels={"Person", "work of art"})
        assert [h for h, _ in people] == exact(
            "entities", lambda k: label_of[k.split("#")[0]] in {"Person", "work of art"}, q, 5)
        assert any("#r" in h for h, _ in server.vector_search("entities", q, 40))  # facets are searched too
        assert [h for h, _ in server.vector_search("entities", q, 10, ids=few)] == exact(
            "entities", lambda k: k.split("#")[0] in few, q, 10)
        in_d1 = server.vector_search("chunks", q, 4, documents={"d1"})
        assert [h for h, _ in in_d1] == exact("chunks", lambda k: k.startswith("d1#"), q, 4)
    assert server.vector_search("entities", q, 5, labels={"Nothing"}) == []
