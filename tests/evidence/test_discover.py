"""discover: modes, hits (id, snippet, title, location), RRF k=60, status, current versions only."""

from __future__ import annotations

import json

import pytest
from evidence_support import AE, DownVectorStore, GraphView, Universe

from agrag_lab import Graph
from agrag_lab.errors import AllRetrievalMethodsFailedError
from agrag_lab.evidence import EvidenceArgumentError, EvidenceSession, Scope
from agrag_lab.evidence.search import RRF_K
from agrag_lab.evidence.snippets import make_snippet, query_terms, strip_ellipses
from agrag_lab.retrieval.fusion import rrf


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_hits_carry_id_snippet_title_and_location(workshop_graph: Graph, universe: Universe, mode: str) -> None:
    result = workshop_graph.evidence().discover("punched cards of the Jacquard loom", mode, limit=5)  # type: ignore[arg-type]
    assert result.mode == mode and len(result.hits) == 5 and [h.rank for h in result.hits] == [1, 2, 3, 4, 5]
    for hit in result.hits:
        loc = hit.location
        chunk = next(c for c in universe.chunks[(loc.document_id, loc.version)] if c.index == loc.chunk)
        assert hit.id == chunk.id and (loc.start, loc.end, loc.heading_path) == (
            chunk.start,
            chunk.end,
            chunk.heading_path,
        )
        assert universe.text(loc.document_id, loc.version)[loc.start : loc.end] == chunk.text  # type: ignore[index]
        assert hit.title == universe.current(loc.document_id).title
        assert strip_ellipses(hit.snippet) in chunk.text and len(hit.snippet) <= 260
    json.dumps(result.to_dict())  # JSON-safe


def test_snippet_is_centred_on_the_best_matching_term() -> None:
    text = (
        "Lorem ipsum dolor sit amet. " * 20
        + "Babbage built the mill of the Analytical Engine. "
        + "Filler words. " * 20
    )
    snippet = make_snippet(text, "analytical mill")
    assert "Analytical Engine" in snippet and "mill" in snippet
    assert snippet.startswith("…") and snippet.endswith("…") and 180 <= len(snippet) <= 260
    assert strip_ellipses(snippet) in text
    assert make_snippet(text, "zebra").startswith("Lorem ipsum")  # no match: from the top
    assert query_terms("   ") == frozenset()


def test_keyword_snippets_show_a_query_term(workshop_graph: Graph) -> None:
    for hit in workshop_graph.evidence().discover("Bernoulli numbers", "keyword", limit=5).hits:
        assert "bernoulli" in hit.snippet.lower() or "number" in hit.snippet.lower()


def test_hybrid_is_rrf_with_k_60_of_the_two_legs(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence()
    query, limit = "Who translated Menabrea's paper?", 5
    hybrid = session.discover(query, "hybrid", limit)
    kw = session.discover(query, "keyword", 2 * limit)  # each hybrid leg asks for 2 * limit
    vec = session.discover(query, "vector", 2 * limit)
    fused = rrf({"keyword": list(kw.ids), "vector": list(vec.ids)}, k=60)
    assert RRF_K == 60
    assert hybrid.ids == fused.keys[:limit]
    assert [h.score for h in hybrid.hits] == [i.score for i in fused.items[:limit]]
    top = hybrid.hits[0]
    expected = sum(1 / (60 + r) for r in (top.keyword_rank, top.vector_rank) if r is not None)
    assert top.score == pytest.approx(expected)
    assert all(h.score is None for h in kw.hits) and all(h.score is not None for h in vec.hits)


def test_status_ok_and_truncated(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence()
    cut = session.discover("Babbage", "keyword", limit=2)
    assert cut.status == "truncated" and cut.truncated and len(cut.hits) == 2 and "limit of 2" in cut.message
    rare = session.discover("Plan 28 Graham-Cumming", "keyword", limit=50)
    assert rare.status == "ok" and not rare.truncated and rare.hits
    assert all(leg.status == "ok" for leg in rare.legs) and rare.legs[0].candidates == len(rare.hits)
    narrow = workshop_graph.evidence(Scope(document_ids=frozenset({"lord-byron"})))
    few = narrow.discover("Byron", "vector", limit=100)
    assert few.status == "ok" and len(few.hits) == len(set(few.ids)) > 0


def test_partial_when_the_vector_store_is_down(workshop_graph: Graph) -> None:
    session = EvidenceSession(GraphView(workshop_graph, DownVectorStore()))
    result = session.discover("Babbage analytical engine", "hybrid", limit=3)
    assert result.status == "partial" and len(result.hits) == 3
    vector = next(leg for leg in result.legs if leg.name == "vector")
    assert (
        vector.status == "failed"
        and "VectorStoreError" in (vector.error or "")
        and "connection refused" in (vector.error or "")
    )
    assert "vector leg failed" in result.message and "keyword leg only" in result.message
    assert all(h.keyword_rank is not None and h.vector_rank is None for h in result.hits)
    with pytest.raises(AllRetrievalMethodsFailedError, match="vector"):
        session.discover("Babbage", "vector")
    entities = session.find_entities("Ada Lovelace", limit=2)
    assert entities.status == "partial" and entities.entities


def test_only_current_versions_are_found(workshop_graph: Graph, universe: Universe) -> None:
    old, new = universe.old(AE), universe.current(AE)
    phrase = "dispute with his engineer Joseph Clement"  # only in the first version
    assert phrase in old.text and phrase not in new.text
    for mode in ("keyword", "vector", "hybrid"):
        hits = workshop_graph.evidence().discover(phrase, mode, limit=20).hits
        assert all(h.location.version != old.version for h in hits)
        assert all(h.location.version == universe.current(h.location.document_id).version for h in hits)
    revised = workshop_graph.evidence().discover("Plan 28 John Graham-Cumming reconstruction", "keyword", limit=3)
    assert revised.hits[0].location.document_id == AE and revised.hits[0].location.version == new.version


def test_bad_arguments_raise_with_a_fix(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence()
    with pytest.raises(EvidenceArgumentError, match="mode must be one of keyword, vector, hybrid"):
        session.discover("x", "bm25")  # type: ignore[arg-type]
    with pytest.raises(EvidenceArgumentError, match="limit must be an integer from 1"):
        session.discover("x", "keyword", 0)
    with pytest.raises(EvidenceArgumentError, match="non-empty"):
        session.discover("  ", "keyword")


def test_empty_scope_finds_nothing(workshop_graph: Graph) -> None:
    session = workshop_graph.evidence(Scope(document_ids=frozenset()))
    for mode in ("keyword", "vector", "hybrid"):
        result = session.discover("Babbage", mode)
        assert result.hits == () and result.status == "ok" and not result.truncated
    assert session.find_entities("Babbage").entities == ()
