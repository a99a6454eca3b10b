"""The search-store contract: what the engine reads of an index's search store, on every store.

Each test runs on both search stores of the workshop index: the in-process one
(:class:`~agrag_lab.retrieval.store.IndexSearchStore` holding the networkx store) and the
served one (:class:`~agrag_lab.retrieval.served_store.ServedGraphStore` holding the FalkorDB
store, the session's server). The graph reads are the graph-store contract's
(``test_store_contract.py``); here: keywords, item info, index stamps, filters, relations,
the declared capabilities, and the views that read a store.
"""

from __future__ import annotations

import numpy as np
import pytest

from agrag_lab import Graph
from agrag_lab.errors import MissingCapabilityError, StoreError
from agrag_lab.kg.graph_store import WHOLE_GRAPH, GraphStore
from agrag_lab.recipes import CHUNK, peers
from agrag_lab.retrieval.capabilities import IN_PROCESS_FIX
from agrag_lab.retrieval.engine_store import EngineGraphStore
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.store import IndexSearchStore
from agrag_lab.widgets.graph_explorer import entity_table, explorer_view, node_details

SEARCH_STORES = ("in_process", "served")
ADA = SearchFilters(document_ids=frozenset({"ada-lovelace"}))


@pytest.fixture(params=SEARCH_STORES)
def opened(request: pytest.FixtureRequest, workshop_graph: Graph) -> Graph:
    """The workshop index, opened in process or with its graph served by FalkorDB."""
    if request.param == "in_process":
        return workshop_graph
    served: Graph = request.getfixturevalue("served_workshop_graph")
    return served


@pytest.fixture
def search_store(opened: Graph) -> IndexSearchStore:
    return opened.graph_store


@pytest.fixture
def reference(workshop_graph: Graph) -> IndexSearchStore:
    return workshop_graph.graph_store


def test_a_search_store_is_a_graph_store_and_declares_what_else_it_has(search_store: IndexSearchStore) -> None:
    assert isinstance(search_store, GraphStore)
    engine_store: EngineGraphStore = search_store  # what the engine reads of it (checked by mypy)
    assert engine_store.entities() == search_store.backend.entities()
    if WHOLE_GRAPH in search_store.capabilities:
        assert search_store.whole_graph().graph.entities
        return
    assert search_store.capabilities == frozenset()
    with pytest.raises(MissingCapabilityError) as refused:
        search_store.whole_graph("the test")
    assert isinstance(refused.value, StoreError) and isinstance(refused.value, TypeError)
    assert refused.value.capability == WHOLE_GRAPH and IN_PROCESS_FIX in str(refused.value)


def test_the_in_process_store_has_the_whole_graph_and_the_served_one_has_not(
    workshop_graph: Graph, served_workshop_graph: Graph
) -> None:
    assert workshop_graph.graph_store.capabilities == frozenset({WHOLE_GRAPH})
    assert served_workshop_graph.graph_store.capabilities == frozenset()


def test_keyword_search_reads_the_index_folder_alike(
    search_store: IndexSearchStore, reference: IndexSearchStore
) -> None:
    for collection in ("chunks", "entities", "communities"):
        found = search_store.keyword_index(collection).search("Analytical Engine Babbage", 5)
        assert found and found == reference.keyword_index(collection).search("Analytical Engine Babbage", 5)


def test_item_infos_equal_the_in_process_store_unscoped_and_scoped(
    search_store: IndexSearchStore, reference: IndexSearchStore
) -> None:
    entities = [e.id for e in reference.entities()][:12]
    chunks = reference.records("chunks").ids[:3]
    reports = [c.id for c in reference.communities()][:2]
    keys = [*entities, *chunks, *reports, "ent-no-such"]
    shown = search_store.item_infos(keys)
    assert list(shown) == [k for k in keys if k != "ent-no-such"] and shown == reference.item_infos(keys)
    scoped = search_store.item_infos(keys, ADA)
    assert scoped == reference.item_infos(keys, ADA) and set(scoped) < set(shown)
    assert all(search_store.item_info(k) == shown[k] for k in entities[:3])


def test_filters_compile_to_the_same_scope_and_visible_items(
    search_store: IndexSearchStore, reference: IndexSearchStore
) -> None:
    people = SearchFilters(labels=frozenset({"Person"}), document_ids=frozenset({"ada-lovelace"}))
    assert search_store.graph_scope(people) == reference.graph_scope(people)
    visible = search_store.visible_items("entities", people)
    assert visible and visible == reference.visible_items("entities", people)
    assert search_store.visible_items("communities", ADA) == reference.visible_items("communities", ADA)
    assert search_store.visible_items("chunks", ADA) is None  # chunks are filtered inside the queries


def test_relations_are_every_visible_relation_alike(
    search_store: IndexSearchStore, reference: IndexSearchStore
) -> None:
    every = search_store.relations()
    assert every and every == reference.relations() == sorted(every, key=lambda e: e.key)
    scope = search_store.graph_scope(ADA)
    assert search_store.relations(scope) == reference.relations(scope) != every
    assert all(edge in search_store.neighbours(edge.source, scope=scope) for edge in search_store.relations(scope))


def test_index_stamps_tell_when_the_index_moved(search_store: IndexSearchStore) -> None:
    stamp = search_store.index_stamp()
    generation, derived, syncing = stamp
    assert generation == derived and not syncing and search_store.index_warnings() == ()
    assert search_store.index_changes(stamp) == ()
    moved = search_store.index_changes((generation - 1, derived - 1, False))
    assert len(moved) == 1 and "changed while this search ran" in moved[0]


def test_stored_vectors_read_alike(search_store: IndexSearchStore, reference: IndexSearchStore) -> None:
    """A served graph without the server's vectors reads the index's cached ones (the engine searches its vector
    store then); the in-process store reads the same cache."""
    ids = list(reference.records("chunks").ids[:5])
    found, expected = search_store.vectors("chunks", [*ids, "nobody@0#c0"]), reference.vectors("chunks", ids)
    assert list(found) == ids == list(expected)
    assert all(np.allclose(found[k], expected[k], atol=1e-6) for k in ids)


def test_a_whole_graph_method_is_refused_before_any_method_runs(opened: Graph) -> None:
    recipe = peers()["HIPPORAG2"]
    mixed = recipe.replace(methods=("chunk", *recipe.methods))
    engine = opened.engine()
    if WHOLE_GRAPH in opened.graph_store.capabilities:
        assert engine.run("Who wrote the first program?", mixed).results
        return
    with pytest.raises(MissingCapabilityError) as refused:
        engine.run("Who wrote the first program?", mixed)
    assert "the fact_ppr method requires the 'whole_graph' capability" in str(refused.value)
    assert "ServedGraphStore" in str(refused.value)
    assert engine.run("Who wrote the first program?", CHUNK).results  # what needs no capability still runs


def test_the_explorer_shows_either_store_alike(opened: Graph, workshop_graph: Graph) -> None:
    view, expected = explorer_view(opened), explorer_view(workshop_graph)
    assert view.ids and view.edges and view == expected
    ada = workshop_graph.graph_store.entity_by_name("Ada Lovelace")
    assert ada is not None
    around = explorer_view(opened, entity=ada.id, depth=2)
    assert around == explorer_view(workshop_graph, entity=ada.id, depth=2) and ada.id in around.ids
    assert node_details(opened, ada.id) == node_details(workshop_graph, ada.id)
    assert entity_table(view, opened).equals(entity_table(expected, workshop_graph))
