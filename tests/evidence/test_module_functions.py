"""The functions of agrag_lab.evidence run the session's code; bench() reports its figures."""

from __future__ import annotations

import pytest
from evidence_support import Universe

import agrag_lab.evidence as ev
from agrag_lab import Graph
from agrag_lab.evidence import EvidenceArgumentError, EvidenceSession, Scope
from benchmarks.evidence import bench


def test_module_functions_equal_the_methods(workshop_graph: Graph, universe: Universe) -> None:
    scope = Scope(document_ids=frozenset({"note-g", "timeline", "ada-lovelace"}))
    session = workshop_graph.evidence(scope)
    assert isinstance(session, EvidenceSession) and session.scope == scope
    assert ev.discover(session, "Bernoulli", "keyword", 3) == session.discover("Bernoulli", "keyword", 3)
    assert ev.discover(workshop_graph, "Bernoulli", "keyword", 3, scope=scope) == session.discover(
        "Bernoulli", "keyword", 3
    )
    hit = session.discover("Bernoulli", "keyword", 1).hits[0].id
    assert ev.fetch(session, [hit]) == ev.fetch(workshop_graph, [hit], scope=scope)
    assert session.fetched == (hit,)
    assert ev.navigate(session, hit, "next") == session.navigate(hit, "next")
    assert ev.find_entities(session, "Note G", 3) == session.find_entities("Note G", 3)
    assert ev.explore(session, "Ada Lovelace", 1, None, 5) == session.explore("Ada Lovelace", 1, None, 5)
    assert ev.check_citations(session, [hit]).all_valid
    assert not ev.check_citations(workshop_graph, [hit]).all_valid  # a fresh session fetched nothing
    assert ev.render_citations(session, f"x [{hit}]").body == "x [1]"
    with pytest.raises(EvidenceArgumentError, match="fixed"):
        ev.discover(session, "Bernoulli", scope=scope)


def test_bench_reports_per_mode_percentiles_and_ratios(workshop_graph: Graph) -> None:
    report = bench(workshop_graph, queries=["Bernoulli numbers", "Jacquard loom"], limit=5)
    assert report["queries"] == 2 and report["documents"] == 24
    for mode in ("keyword", "vector", "hybrid", "embed_query", "scoped_keyword"):
        figures = report["discover"][mode]
        assert 0 < figures["p50_ms"] <= figures["p95_ms"]
    assert report["fetch"]["ids"] == 100 and report["fetch"]["batch100"]["p50_ms"] > 0
    assert set(report["ratios"]) == {
        "hybrid_over_keyword",
        "hybrid_over_vector",
        "vector_over_embed",
        "scoped_over_unscoped_keyword",
        "fetch_over_raw",
    }
