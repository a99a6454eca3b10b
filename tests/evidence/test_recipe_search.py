"""EvidenceSession.search: a recipe run within the scope, explained from what the scope shows."""

from __future__ import annotations

from agrag_lab import Graph, recipes
from agrag_lab.evidence import Scope
from agrag_lab.kg.scope import GraphScope
from agrag_lab.retrieval.filters import SearchFilters


def test_scoped_results_are_described_and_explained_as_the_scope_sees_them(workshop_graph: Graph) -> None:
    scope = Scope(document_ids=frozenset({"ada-lovelace"}))
    found = workshop_graph.evidence(scope).search("Charles Babbage", "ENTITY", limit=10)
    assert found.recipe == "ENTITY" and found.results
    graph_scope = GraphScope(document_ids=frozenset({"ada-lovelace"}))
    for result in found.results:
        entity = workshop_graph.graph_store.entity(result.id, graph_scope)
        assert entity is not None and result.title == entity.name
        assert entity.description in result.text
        assert all(p.startswith("ada-lovelace@") for p in result.passages)
        # the explanation is written from the scoped item, not patched afterwards
        # (ids go in hovers and columns, not in prose: the first line names the entity as the scope sees it)
        assert result.explanation.splitlines()[0] == f"#{result.rank} entity {entity.name!r}"


def test_chunks_outside_the_scope_never_show(workshop_graph: Graph) -> None:
    scope = Scope(document_ids=frozenset({"note-g", "charles-babbage"}))
    found = workshop_graph.evidence(scope).search("Lord Byron poet daughter", "HYBRID", limit=20)
    assert found.results
    for result in found.results:
        assert result.document_id is None or result.document_id in {"note-g", "charles-babbage"}
        assert all(p.split("@")[0] in {"note-g", "charles-babbage"} for p in result.passages)


def test_unrestricted_search_is_the_engine_run(workshop_graph: Graph) -> None:
    found = workshop_graph.evidence().search("Who worked with Babbage?", "HYBRID", limit=5)
    run = workshop_graph.engine().run("Who worked with Babbage?", recipes.get("HYBRID").replace(limit=5))
    assert [r.id for r in found.results] == [r.id for r in run.results]
    assert [r.explanation for r in found.results] == [run.explain(i) for i in range(len(run.results))]


def test_a_scoped_search_fills_its_limit_from_the_scope(workshop_graph: Graph) -> None:
    docs = frozenset({"ada-lovelace", "charles-babbage"})
    found = workshop_graph.evidence(Scope(document_ids=docs)).search("Who worked with Babbage?", "GRAPH_EXPAND", limit=12)
    # the scope holds far more than 12 passages and entities: the limit is filled, nothing cut after the run
    assert len(found.results) == 12
    run = workshop_graph.engine().run(
        "Who worked with Babbage?", recipes.get("GRAPH_EXPAND").replace(limit=12), filters=SearchFilters(document_ids=docs)
    )
    assert [r.id for r in found.results] == [r.id for r in run.results]
    for result in found.results:
        assert result.document_id is None or result.document_id in docs
        assert all(p.split("@")[0] in docs for p in result.passages)
