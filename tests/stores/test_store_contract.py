"""The graph store contract: what the engine and the evidence functions rely on, for every store.

Each test runs on every store of ``STORES`` (the in-process networkx store and
the FalkorDB server store). The behaviour tests state the rules; the equality
tests hold every store to the in-process store's answers, method by method,
under several scopes (documents, labels, relation types, and their mix).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.graph_store import GraphStore
from agrag_lab.kg.scope import GraphScope

SCOPES = {
    "all": None,
    "babbage": GraphScope(document_ids={"babbage"}),
    "lovelace+engine": GraphScope(document_ids={"lovelace", "engine"}),
    "nothing": GraphScope(document_ids=frozenset()),
    "people": GraphScope(labels={"Person"}),
    "one-type": GraphScope(relation_types={"WORKED_WITH", "DESIGNED"}),
    "mixed": GraphScope(document_ids={"babbage", "jacquard"}, labels={"Person", "Machine", "Place"},
                        relation_types={"DESIGNED", "WORKED_WITH", "BORN_IN", "INSPIRED_BY"}),
}


def _id(store: GraphStore, name: str) -> str:
    found = store.entity_by_name(name)
    assert found is not None, f"no entity named {name!r}"
    return found.id


# -- behaviour --------------------------------------------------------------------------------


def test_described_relations_is_whether_the_builder_marked_a_relation(
    store: GraphStore, reference: NetworkXGraphStore, request: pytest.FixtureRequest
) -> None:
    # the rule graph's relations are its own sentences; one relation marked by a builder makes them the builder's
    assert store.described_relations() is False
    described: GraphStore = request.getfixturevalue(
        "described_reference" if store is reference else "described_falkordb_store")
    assert described.described_relations() is True


def test_store_is_a_graph_store(store: GraphStore) -> None:
    assert isinstance(store, GraphStore)


def test_entity_lookups_by_id_name_alias_and_normalised_name(store: GraphStore) -> None:
    babbage = _id(store, "Charles Babbage")
    assert store.entity(babbage) is not None and store.entity("ent-nobody") is None
    assert store.entity_by_name("charles babbage's") is not None  # normalised
    assert store.entity_by_name("Nobody At All") is None
    ada = store.entity_by_name("Ada Lovelace")
    assert ada is not None and ada.aliases
    assert store.entity_by_name(ada.aliases[0]) == ada  # an alias finds it
    assert store.supporting_chunks(babbage)[0].startswith("babbage@")


def test_document_scope_hides_and_trims(store: GraphStore) -> None:
    babbage = store.entity_by_name("Charles Babbage")
    assert babbage is not None and len(babbage.document_ids) > 1
    only = GraphScope(document_ids={"babbage"})
    seen = store.entity(babbage.id, only)
    assert seen is not None and seen.document_ids == ("babbage",)
    assert all(c.startswith("babbage@") for c in seen.chunk_ids)
    jacquard_only = {e.id for e in store.entities(GraphScope(document_ids={"jacquard"}))}
    assert jacquard_only and all(
        all(c.startswith("jacquard@") for c in (store.supporting_chunks(e, GraphScope(document_ids={"jacquard"}))))
        for e in jacquard_only)
    assert store.entities(GraphScope(document_ids=frozenset())) == []
    assert store.entity(babbage.id, GraphScope(labels={"Place"})) is None
    assert all(e.label == "Person" for e in store.entities(GraphScope(labels={"Person"})))


def test_superseded_text_is_not_current(store: GraphStore) -> None:
    assert store.entity_by_name("Londinium") is None
    london = store.entity_by_name("London")
    assert london is not None
    assert all(c not in london.chunk_ids for c in london.history_chunk_ids)


def test_neighbours_direction_types_and_scope(store: GraphStore) -> None:
    ada = _id(store, "Ada Lovelace")
    outgoing, incoming = store.neighbours(ada, direction="out"), store.neighbours(ada, direction="in")
    assert all(e.source == ada for e in outgoing) and all(e.target == ada for e in incoming)
    assert {e.key for e in store.neighbours(ada)} == {e.key for e in outgoing + incoming}
    both = store.neighbours(ada)
    assert [e.key for e in both] == sorted(e.key for e in both)
    assert [e.type for e in store.neighbours(ada, relation_types={"TAUGHT"})] == ["TAUGHT"]
    narrow = GraphScope(relation_types={"CHILD_OF"})
    assert store.neighbours(ada, relation_types={"TAUGHT"}, scope=narrow) == []  # an argument cannot widen
    assert store.relationship_types(ada, "in") == ["TAUGHT"]
    with pytest.raises(KnowledgeGraphError, match="direction"):
        store.neighbours(ada, direction="sideways")  # type: ignore[arg-type]


def test_bfs_order_hops_paths_and_limits(store: GraphStore) -> None:
    byron, london, ada = _id(store, "Lord Byron"), _id(store, "London"), _id(store, "Ada Lovelace")
    steps = store.bfs([byron, london], depth=2)
    assert [s.hop for s in steps] == sorted(s.hop for s in steps)
    assert len({s.entity_id for s in steps}) == len(steps)
    for step in steps:
        assert len(step.path) == step.hop == len(step.edges)
        assert step.path[0][0] == step.seed and step.path[-1][2] == step.entity_id
    assert len(store.bfs([ada], depth=3, limit=4)) == 4
    assert store.bfs([ada], depth=0) == []
    assert store.bfs([ada], depth=1, include_seeds=True)[0].entity_id == ada
    assert [s.entity_id for s in store.bfs([ada], depth=3, relation_types={"CHILD_OF"})] == [byron]
    assert store.bfs(["ent-nobody"], depth=2) == []
    with pytest.raises(KnowledgeGraphError, match="depth"):
        store.bfs([ada], depth=-1)


def test_shortest_path_lengths(store: GraphStore) -> None:
    byron = _id(store, "Lord Byron")
    lengths = store.shortest_path_lengths([byron], cutoff=2)
    assert lengths[byron] == 0 and lengths[_id(store, "Ada Lovelace")] == 1
    assert lengths[_id(store, "Charles Babbage")] == 2 and max(lengths.values()) == 2


def test_communities_and_reports_respect_scope(store: GraphStore) -> None:
    communities = store.communities()
    assert communities and store.reports()
    top = [c for c in communities if c.level == 0]
    assert top and store.communities(level=0) == top
    scoped = GraphScope(document_ids={"jacquard"})
    visible = {e.id for e in store.entities(scoped)}
    for community in store.communities(scope=scoped):
        assert set(community.members) <= visible
    for report in store.reports(scoped):
        assert all(c.startswith("jacquard@") for c in report.chunk_ids)
    assert store.reports(GraphScope(document_ids=frozenset())) == []
    babbage = _id(store, "Charles Babbage")
    overlaps = store.communities_of([babbage])
    assert overlaps and all(babbage in o.community.members for o in overlaps)
    keys = [(-o.count, o.community.size, o.community.id) for o in overlaps]
    assert keys == sorted(keys)


def test_relations_are_the_visible_ones_each_once(store: GraphStore) -> None:
    every = store.relations()
    keys = [e.key for e in every]
    assert every and keys == sorted(set(keys))
    # each is a visible relation of both its ends, as neighbours() shows it
    assert all(e in store.neighbours(e.source) and e in store.neighbours(e.target) for e in every)
    babbage_only = GraphScope(document_ids={"babbage"})
    trimmed = store.relations(babbage_only)
    assert trimmed and len(trimmed) < len(every)
    assert all(all(c.startswith("babbage@") for c in e.chunk_ids) for e in trimmed)
    assert store.relations(GraphScope(document_ids=frozenset())) == []
    assert {e.type for e in store.relations(GraphScope(relation_types={"DESIGNED"}))} == {"DESIGNED"}


def test_mentions_of_a_chunk(store: GraphStore) -> None:
    babbage = store.entity_by_name("Charles Babbage")
    assert babbage is not None
    chunk = babbage.chunk_ids[0]
    assert babbage.id in {e.id for e in store.mentions(chunk)}
    assert store.mentions(chunk, GraphScope(document_ids={"jacquard"})) == []
    assert store.mentions("nobody@0#c0") == []


# -- every store answers as the in-process store ------------------------------------------------

Call = Callable[[GraphStore, str, GraphScope | None], Any]
PER_ENTITY: dict[str, Call] = {
    "entity": lambda s, e, sc: s.entity(e, sc),
    "supporting_chunks": lambda s, e, sc: s.supporting_chunks(e, sc),
    "neighbours": lambda s, e, sc: s.neighbours(e, None, "both", sc),
    "neighbours_out": lambda s, e, sc: s.neighbours(e, None, "out", sc),
    "neighbours_in_typed": lambda s, e, sc: s.neighbours(e, {"DESIGNED", "BORN_IN"}, "in", sc),
    "relationship_types": lambda s, e, sc: s.relationship_types(e, "both", sc),
    "bfs": lambda s, e, sc: s.bfs([e], 2, None, None, "both", sc),
    "bfs_out_limited": lambda s, e, sc: s.bfs([e], 3, 5, None, "out", sc, True),
    "shortest_path_lengths": lambda s, e, sc: s.shortest_path_lengths([e], 3, sc),
    "communities_of": lambda s, e, sc: s.communities_of([e], None, sc),
}


@pytest.mark.parametrize("scope_name", list(SCOPES))
def test_every_entity_method_equals_the_reference(
    store: GraphStore, reference: NetworkXGraphStore, scope_name: str
) -> None:
    scope = SCOPES[scope_name]
    ids = [e.id for e in reference.entities()]
    assert store.entities(scope) == reference.entities(scope)
    for name, call in PER_ENTITY.items():
        for entity_id in ids:
            assert call(store, entity_id, scope) == call(reference, entity_id, scope), (name, entity_id)


@pytest.mark.parametrize("scope_name", list(SCOPES))
def test_every_graph_method_equals_the_reference(
    store: GraphStore, reference: NetworkXGraphStore, scope_name: str
) -> None:
    scope = SCOPES[scope_name]
    ids = [e.id for e in reference.entities()]
    assert store.communities(None, scope) == reference.communities(None, scope)
    assert store.communities(1, scope) == reference.communities(1, scope)
    assert store.reports(scope) == reference.reports(scope)
    stored_communities, _ = reference.stored()
    for community in stored_communities:
        assert store.community(community.id, scope) == reference.community(community.id, scope)
        assert store.report(community.id, scope) == reference.report(community.id, scope)
    for chunk in reference.graph.chunk_documents:
        assert store.mentions(chunk, scope) == reference.mentions(chunk, scope), chunk
    names = {n for e in reference.entities() for n in (e.name, *e.aliases, e.name.lower() + "'s")}
    for name in sorted(names):
        assert store.entity_by_name(name, scope) == reference.entity_by_name(name, scope), name
    assert store.bfs(ids[:6], 3, 12, None, "both", scope) == reference.bfs(ids[:6], 3, 12, None, "both", scope)
    assert store.communities_of(ids, 0, scope) == reference.communities_of(ids, 0, scope)
    assert store.relations(scope) == reference.relations(scope)
    assert store.passageless == reference.passageless
