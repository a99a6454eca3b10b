from __future__ import annotations

from collections.abc import Callable

import pytest

from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.graph_store import GraphStore
from agrag_lab.kg.scope import GraphScope

Find = Callable[[str], str]


def test_store_implements_the_protocol(store: NetworkXGraphStore) -> None:
    assert isinstance(store, GraphStore)


def test_entity_lookups(store: NetworkXGraphStore, by_name: Find) -> None:
    babbage = by_name("Charles Babbage")
    assert store.entity(babbage) is not None
    assert store.entity("ent-nobody") is None
    assert store.entity_by_name("charles babbage's") is not None  # normalised match
    assert store.entity_by_name("Nobody At All") is None
    assert store.supporting_chunks(babbage)[0].startswith("babbage@")


def test_neighbours_by_direction_and_type(store: NetworkXGraphStore, by_name: Find) -> None:
    ada = by_name("Ada Lovelace")
    outgoing = store.neighbours(ada, direction="out")
    incoming = store.neighbours(ada, direction="in")
    assert all(e.source == ada for e in outgoing) and all(e.target == ada for e in incoming)
    assert {e.key for e in store.neighbours(ada)} == {e.key for e in outgoing + incoming}
    assert [e.type for e in store.neighbours(ada, relation_types={"TAUGHT"})] == ["TAUGHT"]
    assert store.relationship_types(ada, "in") == ["TAUGHT"]
    assert "CHILD_OF" in store.relationship_types(ada, "out")
    with pytest.raises(KnowledgeGraphError, match="direction"):
        store.neighbours(ada, direction="sideways")  # type: ignore[arg-type]


def test_bfs_order_hops_and_paths(store: NetworkXGraphStore, by_name: Find) -> None:
    byron, london = by_name("Lord Byron"), by_name("London")
    steps = store.bfs([byron, london], depth=2)
    hops = [s.hop for s in steps]
    assert hops == sorted(hops) and hops[0] == 1
    assert len({s.entity_id for s in steps}) == len(steps)
    assert byron not in {s.entity_id for s in steps} and london not in {s.entity_id for s in steps}
    for step in steps:
        assert len(step.path) == step.hop == len(step.edges)
        assert step.path[0][0] == step.seed and step.path[-1][2] == step.entity_id
        for (a, kind, b), edge in zip(step.path, step.edges, strict=True):
            assert {a, b} == {edge.source, edge.target} and kind == edge.type
    first_hop = [s for s in steps if s.hop == 1]
    seeds = [s.seed for s in first_hop]
    assert seeds == sorted(seeds, key=[byron, london].index)  # seed order within a hop
    assert first_hop[0].entity_id == by_name("Ada Lovelace")  # Byron's only relation... to Ada first
    assert store.bfs([byron], depth=2) == store.bfs([byron], depth=2)


def test_bfs_limit_depth_direction_and_seeds(store: NetworkXGraphStore, by_name: Find) -> None:
    ada = by_name("Ada Lovelace")
    assert len(store.bfs([ada], depth=3, limit=4)) == 4
    assert store.bfs([ada], depth=0) == []
    assert store.bfs([ada], depth=1, include_seeds=True)[0].entity_id == ada
    out_only = store.bfs([ada], depth=1, direction="out")
    assert all(s.edges[0].source == ada for s in out_only)
    typed = store.bfs([ada], depth=3, relation_types={"CHILD_OF"})
    assert [s.entity_id for s in typed] == [by_name("Lord Byron")]
    assert store.bfs(["ent-nobody"], depth=2) == []
    with pytest.raises(KnowledgeGraphError, match="depth"):
        store.bfs([ada], depth=-1)


def test_shortest_path_lengths(store: NetworkXGraphStore, by_name: Find) -> None:
    byron = by_name("Lord Byron")
    lengths = store.shortest_path_lengths([byron], cutoff=2)
    assert lengths[byron] == 0 and lengths[by_name("Ada Lovelace")] == 1
    assert lengths[by_name("Charles Babbage")] == 2
    assert max(lengths.values()) == 2
    assert by_name("Lyon") not in lengths


def test_scope_by_document_trims_everything(store: NetworkXGraphStore, by_name: Find) -> None:
    scope = GraphScope(document_ids=frozenset({"engine"}))
    babbage = store.entity(by_name("Charles Babbage"), scope)
    assert babbage is not None
    assert babbage.document_ids == ("engine",) and all(c.startswith("engine@") for c in babbage.chunk_ids)
    assert babbage.description.startswith("The Analytical Engine was designed")
    assert store.entity(by_name("Ada Lovelace"), scope) is None  # not mentioned in "engine"
    assert store.entity_by_name("Ada Lovelace", scope) is None
    visible = {e.id for e in store.entities(scope)}
    for edge in store.neighbours(babbage.id, scope=scope):
        assert edge.source in visible and edge.target in visible
        assert all(c.startswith("engine@") for c in edge.chunk_ids)
        assert all(c.startswith("engine@") for c, _ in edge.sentences)
    for step in store.bfs([babbage.id], depth=3, scope=scope):
        assert step.entity_id in visible
    lovelace_chunk = store.supporting_chunks(by_name("Ada Lovelace"))[0]
    assert store.mentions(lovelace_chunk, scope) == []


def test_scope_aliases_come_from_visible_documents_only(store: NetworkXGraphStore, by_name: Find) -> None:
    ada = by_name("Ada Lovelace")
    everywhere = store.entity(ada)
    assert everywhere is not None and "Augusta Ada King" in everywhere.aliases
    from_babbage = store.entity(ada, GraphScope(document_ids=frozenset({"babbage"})))
    assert from_babbage is not None and from_babbage.aliases == ("Lovelace",)
    assert from_babbage.description == "Charles Babbage worked with Ada Lovelace on the Analytical Engine."


def test_scope_by_label_and_relation_type(store: NetworkXGraphStore, by_name: Find) -> None:
    people = GraphScope(labels=frozenset({"Person"}))
    assert {e.label for e in store.entities(people)} == {"Person"}
    assert store.entity(by_name("Analytical Engine"), people) is None
    babbage = by_name("Charles Babbage")
    assert all(store.entity(s.entity_id, people) for s in store.bfs([babbage], depth=3, scope=people))

    designed = GraphScope(relation_types=frozenset({"DESIGNED"}))
    assert {e.type for e in store.neighbours(babbage, scope=designed)} == {"DESIGNED"}
    # An argument narrows the scope, it never widens it.
    assert store.neighbours(babbage, relation_types={"BORN_IN"}, scope=designed) == []
    assert store.relationship_types(babbage, scope=designed) == ["DESIGNED"]


def test_communities_and_reports(store: NetworkXGraphStore, by_name: Find) -> None:
    communities = store.communities()
    assert communities and all(c.id.startswith(f"com-{c.level}-") for c in communities)
    assert store.community(communities[0].id) == communities[0]
    assert store.community("com-9-9") is None
    ada, babbage = by_name("Ada Lovelace"), by_name("Charles Babbage")
    overlaps = store.communities_of([ada, babbage, "ent-nobody"])
    assert overlaps and overlaps[0].count >= overlaps[-1].count
    assert set(overlaps[0].entity_ids) <= {ada, babbage}
    reports = store.reports()
    assert len(reports) == len(communities)
    report = store.report(communities[0].id)
    assert report is not None and report.title and report.summary and report.chunk_ids
    # A report quoting a chunk outside the scope is hidden.
    scope = GraphScope(document_ids=frozenset({"jacquard"}))
    for visible in store.reports(scope):
        assert all(c.startswith("jacquard@") for c in visible.chunk_ids)
    assert len(store.reports(scope)) < len(reports)
