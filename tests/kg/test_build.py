from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from kg_corpus import LOVELACE, extract_documents, make_documents

from agrag_lab.documents import Document
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.algorithms.communities import detect_communities
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract.build import ChunkExtraction, build_knowledge_graph
from agrag_lab.kg.extract.extraction import Extraction
from agrag_lab.kg.text import match_key


def test_entity_ids_are_stable_slugs(store: NetworkXGraphStore) -> None:
    ids = [e.id for e in store.entities()]
    assert "ent-charles-babbage" in ids and "ent-bibliotheque-universelle-de-geneve" in ids
    assert ids == sorted(ids) and all(i.startswith("ent-") for i in ids)


def test_every_relation_is_supported_by_chunks_naming_both_ends(
    store: NetworkXGraphStore, chunk_text: Callable[[str], str]
) -> None:
    """Provenance: each supporting chunk really names both ends (by name or alias)."""
    for edge in store.graph.edges:
        ends = [store.graph.entities[edge.source], store.graph.entities[edge.target]]
        assert edge.chunk_ids, edge
        for chunk_id in edge.chunk_ids:
            text = f" {match_key(chunk_text(chunk_id))} "
            for entity in ends:
                forms = {match_key(n) for n in (entity.name, *entity.aliases)}
                assert any(f" {f} " in text for f in forms), (
                    edge.key,
                    chunk_id,
                    entity.name,
                )
        for chunk_id, sentence in edge.sentences:
            row = "Designer:" in sentence  # a table row, written out with its headers
            assert row or sentence in chunk_text(chunk_id)


def test_relations_keep_their_sentences_and_types(store: NetworkXGraphStore) -> None:
    edges = {(e.source, e.type, e.target): e for e in store.graph.edges}
    worked = edges[("ent-ada-lovelace", "WORKED_WITH", "ent-charles-babbage")]
    assert worked.sentences == (
        (
            worked.chunk_ids[0],
            "Charles Babbage worked with Ada Lovelace on the Analytical Engine.",
        ),
    )
    for key in [
        ("ent-charles-babbage", "BORN_IN", "ent-london"),
        ("ent-charles-babbage", "DESIGNED", "ent-analytical-engine"),
        ("ent-ada-lovelace", "CHILD_OF", "ent-lord-byron"),
        ("ent-ada-lovelace", "TRANSLATED", "ent-luigi-menabrea"),
        ("ent-augustus-de-morgan", "TAUGHT", "ent-ada-lovelace"),
        ("ent-ada-lovelace", "MARRIED", "ent-william-king"),
        ("ent-joseph-marie-jacquard", "BUILT", "ent-jacquard-loom"),
        ("ent-jacquard-loom", "INSPIRED", "ent-analytical-engine"),
        ("ent-charles-babbage", "MEMBER_OF", "ent-royal-astronomical-society"),
    ]:
        assert key in edges, key
    designed = edges[("ent-charles-babbage", "DESIGNED", "ent-analytical-engine")]
    assert [c.split("@")[0] for c in designed.chunk_ids] == [
        "babbage",
        "engine",
        "engine",
    ]


def test_mentions_map_chunks_to_entities(store: NetworkXGraphStore) -> None:
    chunk = next(c for c in store.graph.mentions if c.startswith("jacquard@"))
    assert [e.name for e in store.mentions(chunk)] == [
        "Jacquard loom",
        "Joseph Marie Jacquard",
        "Lyon",
    ]


def _dump(items: list[ChunkExtraction]) -> tuple[str, list[object]]:
    graph = build_knowledge_graph(items)
    node_link = json.dumps(graph.node_link(), sort_keys=True)
    return node_link, [(c.id, c.members, c.parent) for c in detect_communities(graph)]


def test_build_is_deterministic_and_order_independent(
    items: list[ChunkExtraction],
) -> None:
    shuffled = list(items)
    random.Random(7).shuffle(shuffled)
    first, second, third = _dump(items), _dump(items), _dump(shuffled)
    assert first == second == third
    assert build_knowledge_graph(items) == build_knowledge_graph(shuffled)


def test_duplicate_chunk_ids_are_rejected(items: list[ChunkExtraction]) -> None:
    with pytest.raises(KnowledgeGraphError, match="appears twice"):
        build_knowledge_graph([items[0], items[0]])


def test_superseded_support_moves_to_history() -> None:
    documents = make_documents()
    revised = Document(
        "lovelace",
        "Ada Lovelace",
        LOVELACE.replace("\n\nLovelace married William King in 1835.", ""),
        metadata=documents[1].metadata,
    )
    old = [d for d in documents if d.id == "lovelace"]
    others = [d for d in documents if d.id != "lovelace"]
    items = extract_documents(others) + extract_documents([revised]) + extract_documents(old, current=False)
    graph = build_knowledge_graph(items)

    assert "ent-william-king" not in graph.entities
    king = graph.history_entities["ent-william-king"]
    assert king.chunk_ids == () and king.history_chunk_ids and king.history_chunk_ids[0].startswith("lovelace@")
    married = {e.key: e for e in graph.history_edges}[("ent-ada-lovelace", "ent-william-king", "MARRIED")]
    assert married.chunk_ids == () and len(married.history_chunk_ids) == 1
    assert not graph.graph.has_node("ent-william-king")

    # Support from both versions: the new one counts, the old one is history.
    child = {e.key: e for e in graph.edges}[("ent-ada-lovelace", "ent-lord-byron", "CHILD_OF")]
    version_of = {c.split("#")[0] for c in child.chunk_ids}
    history_of = {c.split("#")[0] for c in child.history_chunk_ids}
    assert len(version_of) == 1 and len(history_of) == 1 and version_of != history_of
    ada = graph.entities["ent-ada-lovelace"]
    assert all(c in graph.current_chunks for c in ada.chunk_ids)
    assert ada.history_chunk_ids and not set(ada.history_chunk_ids) & graph.current_chunks


def test_removing_a_document_removes_its_support(items: list[ChunkExtraction]) -> None:
    kept = [i for i in items if i.document_id != "jacquard"]
    graph = build_knowledge_graph(kept)
    assert "ent-lyon" not in graph.entities and "ent-lyon" not in graph.history_entities
    loom = graph.entities["ent-jacquard-loom"]  # still named in the Babbage document
    assert loom.document_ids == ("babbage",)
    for edge in graph.edges:
        assert not any(c.startswith("jacquard@") for c in edge.chunk_ids + edge.history_chunk_ids)
    assert (
        "ent-joseph-marie-jacquard",
        "ent-jacquard-loom",
        "BUILT",
    ) not in graph.edge_index


def test_implicit_relation_ends_become_entities() -> None:
    from agrag_lab.kg.extract.extraction import RelationMention

    extraction = Extraction(
        (),
        (RelationMention("Ada", "Byron", "CHILD_OF", "d#c0", "Ada, daughter of Byron."),),
    )
    graph = build_knowledge_graph([ChunkExtraction("d#c0", "d", True, "Ada, daughter of Byron.", extraction)])
    assert sorted(graph.entities) == ["ent-ada", "ent-byron"]
    assert [e.key for e in graph.edges] == [("ent-ada", "ent-byron", "CHILD_OF")]
