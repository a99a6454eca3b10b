"""find_entities and explore: scoped entities, up to three passages, edges as assertion or path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from evidence_support import Universe

from agrag_lab import Document, Graph
from agrag_lab.embedding import SentenceTransformerEmbedder
from agrag_lab.errors import NotFoundError
from agrag_lab.evidence import EvidenceArgumentError, EvidenceSession, Scope
from agrag_lab.evidence.entities import classify_edge, display_name
from agrag_lab.evidence.snippets import strip_ellipses
from agrag_lab.kg.extract.build import Edge, Entity
from agrag_lab.kg.scope import GraphScope


def test_find_entities_by_name_and_embedding(workshop_graph: Graph, universe: Universe) -> None:
    result = workshop_graph.evidence().find_entities("Ada Lovelace", limit=5)
    assert result.status == "truncated" and len(result.entities) == 5
    assert {leg.name for leg in result.legs} == {"keyword", "vector"}
    top = result.entities[0]
    assert top.name == "Ada Lovelace" and top.keyword_rank is not None and top.vector_rank is not None
    assert any(e.keyword_rank and e.vector_rank for e in result.entities)
    for entity in result.entities:
        assert 1 <= len(entity.passages) <= 3
        for passage in entity.passages:
            doc, version = passage.id.split("@")[0], passage.id.split("@")[1].split("#")[0]
            assert version == universe.current(doc).version
            assert strip_ellipses(passage.snippet) in (universe.text(doc, version) or "")
    json.dumps(result.to_dict())


def test_entities_and_passages_stay_in_scope(workshop_graph: Graph) -> None:
    scope = frozenset({"note-g", "sketch-of-the-analytical-engine"})
    session = workshop_graph.evidence(Scope(document_ids=scope))
    result = session.find_entities("Ada Lovelace", limit=10)
    assert result.entities
    store = workshop_graph.graph_store
    for entity in result.entities:
        assert store.entity(entity.id, GraphScope(document_ids=scope)) is not None
        assert all(p.id.split("@")[0] in scope for p in entity.passages)
    # an entity mentioned only outside the scope is not found, by name or by embedding
    outside = workshop_graph.evidence(Scope(document_ids=frozenset({"lord-byron"})))
    names = {e.name for e in outside.find_entities("Plan 28 Graham-Cumming", limit=20).entities}
    assert "John Graham-Cumming" not in names and "Plan 28" not in names


def test_names_found_only_outside_the_scope_do_not_match(tmp_path: Path, embedder: SentenceTransformerEmbedder) -> None:
    """The shared entity keyword index holds aliases from every document; a scoped session must not match them."""
    with Graph.open(tmp_path / "index", embedder=embedder) as graph:
        graph.ingest(
            [
                Document("dickens-a", "Dickens", "# Dickens\n\nCharles Dickens wrote novels in London.\n"),
                Document(
                    "dickens-b",
                    "Sketches",
                    "# Sketches\n\nBoz wrote sketches of London life.\n",
                    metadata={"entities": [{"name": "Charles Dickens", "label": "Person", "aliases": ["Boz"]}]},
                ),
            ]
        )
        everything = graph.evidence().find_entities("Boz", limit=5).entities
        assert everything[0].name == "Charles Dickens" and everything[0].keyword_rank == 1
        assert "Boz" in everything[0].aliases
        scoped = graph.evidence(Scope(document_ids=frozenset({"dickens-a"})))
        found = scoped.find_entities("Boz", limit=5).entities
        assert all(e.keyword_rank is None for e in found)  # no word of an out-of-scope document matches
        assert all("Boz" not in e.aliases for e in found)
        assert all(p.id.startswith("dickens-a@") for e in found for p in e.passages)
        with pytest.raises(NotFoundError) as by_alias:
            scoped.explore("Boz")
        assert str(by_alias.value) == str(_unknown("Boz", scoped))
        assert scoped.explore("Charles Dickens").entity.id == "ent-charles-dickens"
        assert scoped.find_entities("Dickens novels", limit=1).entities[0].keyword_rank == 1


def _unknown(name: str, session: EvidenceSession) -> NotFoundError:
    try:
        session.explore(name + "-no-such-entity")
    except NotFoundError as exc:
        return NotFoundError(str(exc).replace(name + "-no-such-entity", name))
    raise AssertionError("expected NotFoundError")


def test_explore_marks_supported_edges_as_assertions(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence()
    result = session.explore("Ada Lovelace", depth=2, limit=15)
    assert result.entity.name == "Ada Lovelace" and len(result.reached) == 15 and result.truncated
    assert result.edges and all(e.kind == "assertion" and e.support for e in result.edges)
    assert {r.hop for r in result.reached} <= {1, 2}
    store = workshop_graph.graph_store
    for edge in result.edges:
        assert len(edge.support) <= 3
        stored = next(
            e for e in store.neighbours(edge.source.id) if e.key == (edge.source.id, edge.target.id, edge.type)
        )
        for support in edge.support:
            assert support.id in stored.chunk_ids and support.sentence == dict(stored.sentences).get(support.id, "")
            assert session.fetch(support.id).items[0].ok
    assert all(len(r.path) == r.hop == 1 for r in result.reached)  # 15 neighbours fill the limit at hop 1
    deep = session.explore("Plan 28", depth=2, limit=200)
    two = [r for r in deep.reached if r.hop == 2]
    assert two and all(len(r.path) == 2 and r.path[0].source == deep.entity.id for r in two)
    assert all(r.path[-1].target == r.entity.id or r.path[-1].source == r.entity.id for r in two)
    assert len(deep.edges) == len(deep.reached)
    by_id = session.explore(result.entity.id, depth=1, limit=3)
    assert by_id.entity == result.entity and len(by_id.edges) == 3


def test_explore_in_scope_uses_only_visible_support(workshop_graph: Graph) -> None:
    scope = frozenset({"ada-lovelace", "note-g"})
    session = workshop_graph.evidence(Scope(document_ids=scope))
    result = session.explore("Ada Lovelace", depth=2, limit=50)
    visible = GraphScope(document_ids=scope)
    for reached in result.reached:
        assert workshop_graph.graph_store.entity(reached.entity.id, visible) is not None
    for edge in result.edges:
        assert all(s.id.split("@")[0] in scope for s in edge.support)


def test_relation_types_limit_the_walk(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence()
    types = {e.type for e in session.explore("Charles Babbage", depth=1, limit=200).edges}
    assert len(types) > 1
    chosen = sorted(types)[0]
    only = session.explore("Charles Babbage", depth=1, relation_types=[chosen], limit=200)
    assert only.edges and {e.type for e in only.edges} == {chosen}
    assert session.explore("Charles Babbage", relation_types=chosen, limit=200).edges == only.edges
    assert session.explore("Charles Babbage", relation_types=["NO_SUCH_TYPE"]).edges == ()


def test_edge_without_visible_support_is_a_path() -> None:
    edge = Edge(
        "ent-a",
        "ent-b",
        "WORKED_WITH",
        ("x@0123456789ab#c0", "y@0123456789ab#c3"),
        (),
        (("y@0123456789ab#c3", "A worked with B."),),
    )
    assert classify_edge(edge, frozenset({"y"})) == ("assertion", (("y@0123456789ab#c3", "A worked with B."),))
    assert classify_edge(edge, frozenset({"x"})) == ("assertion", (("x@0123456789ab#c0", ""),))
    assert classify_edge(edge, frozenset({"z"})) == ("path", ())
    history_only = Edge("ent-a", "ent-b", "WORKED_WITH", (), ("y@0123456789ab#c3",))
    assert classify_edge(history_only, frozenset({"y"})) == ("path", ())


def test_shown_names_come_from_the_scope() -> None:
    entity = Entity(
        "ent-cb", "Charles Babbage", "Person", forms=(("a", "Babbage"), ("b", "Babbage"), ("c", "C. Babbage"))
    )
    assert display_name(entity) == "Babbage"


def test_unknown_and_out_of_scope_entities_read_alike(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence(Scope(document_ids=frozenset({"lord-byron"})))
    with pytest.raises(NotFoundError) as hidden:
        session.explore("ent-plan-28")
    with pytest.raises(NotFoundError) as missing:
        session.explore("ent-plan-29")
    assert str(hidden.value).replace("plan-28", "plan-29") == str(missing.value)
    with pytest.raises(NotFoundError):
        session.explore("John Graham-Cumming")
    with pytest.raises(EvidenceArgumentError, match="depth must be"):
        session.explore("Lord Byron", depth=0)
    with pytest.raises(EvidenceArgumentError, match="direction"):
        session.explore("Lord Byron", direction="sideways")  # type: ignore[arg-type]
