"""find_entities and explore: scoped entities, up to three passages, edges as assertion or path."""

from __future__ import annotations

import json

import pytest
from evidence_support import Universe

from agrag_lab import Graph
from agrag_lab.errors import NotFoundError
from agrag_lab.evidence import EvidenceArgumentError, Scope
from agrag_lab.evidence.entities import classify_edge, display_name
from agrag_lab.evidence.snippets import query_terms, strip_ellipses
from agrag_lab.kg.build import Edge, Entity
from agrag_lab.kg.store import GraphScope


def test_find_entities_by_name_and_embedding(workshop_graph: Graph, universe: Universe) -> None:
    result = workshop_graph.evidence().find_entities("Ada Lovelace", limit=5)
    assert result.status == "truncated" and len(result.entities) == 5
    assert {leg.name for leg in result.legs} == {"keyword", "vector"}
    top = result.entities[0]
    assert top.name == "Ada Lovelace" and top.keyword_rank == 1 and top.vector_rank is not None
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


def test_names_found_only_outside_the_scope_do_not_match(workshop_graph: Graph, universe: Universe) -> None:
    """The shared entity keyword index holds aliases from every document; a scoped session must not match them."""
    store = workshop_graph.graph_store
    cases = []
    for entity in store.entities():
        for doc, form in entity.forms:
            terms = query_terms(form)
            for inside in entity.document_ids:
                if inside == doc or (inside, form) in entity.forms or not terms:
                    continue
                if terms & query_terms(universe.scope_text([inside])):
                    continue
                cases.append((entity.id, form, inside))
    assert cases, "the workshop corpus has aliases found in one document only"
    for entity_id, form, inside in cases[:5]:
        everything = workshop_graph.evidence().find_entities(form, limit=50)
        assert any(e.id == entity_id and e.keyword_rank for e in everything.entities)  # the shared index matches
        scoped = workshop_graph.evidence(Scope(document_ids=frozenset({inside}))).find_entities(form, limit=50)
        assert not any(e.id == entity_id and e.keyword_rank for e in scoped.entities), (entity_id, form, inside)
        assert all(form not in e.aliases for e in scoped.entities)


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
    two = [r for r in result.reached if r.hop == 2]
    assert two and all(len(r.path) == 2 and r.path[0].source == result.entity.id for r in two)
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
