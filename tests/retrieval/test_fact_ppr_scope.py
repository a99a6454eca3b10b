"""HIPPORAG2 (method ``fact_ppr``) under a scope: its facts, seeds and passages stay inside, and with
every document in scope it is the unscoped walk."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agrag_lab import Graph, recipes
from agrag_lab.retrieval.filters import SearchFilters

QUERIES = ["Who wrote the first program?", "Babbage's Analytical Engine", "Bernoulli numbers in Note G",
           "Jacquard loom punched cards", "Which museum built the Difference Engine?"]


def _doc(key: str) -> str:
    return key.split("@", 1)[0]


@pytest.fixture(scope="module")
def documents(workshop_graph: Graph) -> list[str]:
    return sorted({_doc(c) for c in workshop_graph.graph_store.records("chunks").ids})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_nothing_outside_the_scope_is_walked_or_returned(
    workshop_graph: Graph, documents: list[str], data: st.DataObject
) -> None:
    scope = data.draw(st.frozensets(st.sampled_from(documents), min_size=1, max_size=6), label="scope")
    query = data.draw(st.sampled_from(QUERIES), label="query")
    store = workshop_graph.graph_store
    run = workshop_graph.engine().run(query, recipes.get("HIPPORAG2"), filters=SearchFilters(document_ids=scope))
    method = run.trace.method("fact_ppr")
    in_scope = [c for c in store.records("chunks").ids if _doc(c) in scope]
    # every passage the walk returns or the dense leg scored is in scope, and the limit is filled from the scope
    assert {_doc(r.id) for r in run.results} <= scope
    assert len(run.results) == min(run.recipe.limit, len(in_scope))
    assert {_doc(h.key) for leg in ("dense_passages", "passages") for h in method.legs[leg]} <= scope
    # facts are relations with support in scope between entities seen in scope; seeds are their ends
    visible = {e.id for e in store.entities(store.graph_scope(SearchFilters(document_ids=scope)))}
    ends: set[str] = set()
    for hit in method.legs["facts"]:
        source, target, kind = hit.key.split("|")
        edge = next(e for e in store.neighbours(source) if e.key == (source, target, kind))
        assert {source, target} <= visible and {_doc(c) for c in edge.chunk_ids} & scope
        ends |= {source, target}
    assert {h.key for h in method.legs.get("seed_entities", ())} <= ends


def test_every_document_in_scope_is_the_unscoped_walk(workshop_graph: Graph, documents: list[str]) -> None:
    engine = workshop_graph.engine()
    hippo = recipes.get("HIPPORAG2")
    for query in QUERIES[:3]:
        whole = engine.run(query, hippo).trace.method("fact_ppr")
        scoped = engine.run(query, hippo, filters=SearchFilters(document_ids=frozenset(documents))).trace.method(
            "fact_ppr")
        for leg in ("facts", "seed_entities", "passages"):
            assert [h.key for h in scoped.legs[leg]] == [h.key for h in whole.legs[leg]], (query, leg)
            assert [h.score for h in scoped.legs[leg]] == pytest.approx([h.score for h in whole.legs[leg]])


def test_a_narrow_scope_changes_the_walk(workshop_graph: Graph) -> None:
    """The walk does not run on the whole graph and filter afterwards: the facts themselves change."""
    engine = workshop_graph.engine()
    hippo = recipes.get("HIPPORAG2")
    whole = engine.run(QUERIES[0], hippo).trace.method("fact_ppr")
    first = {_doc(c) for h in whole.legs["facts"][:1] for c in
             next(e for e in workshop_graph.graph_store.neighbours(h.key.split("|")[0])
                  if "|".join(e.key) == h.key).chunk_ids}
    others = frozenset(_doc(c) for c in workshop_graph.graph_store.records("chunks").ids) - first
    scoped = engine.run(QUERIES[0], hippo, filters=SearchFilters(document_ids=others)).trace.method("fact_ppr")
    assert whole.legs["facts"][0].key not in {h.key for h in scoped.legs["facts"]}
