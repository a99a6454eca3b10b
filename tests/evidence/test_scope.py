"""Scope: resolved once into document ids; predicates; removed documents; applied inside queries."""

from __future__ import annotations

import pytest
from evidence_support import GraphView, RecordingVectorStore

from agrag_lab import Document, Graph
from agrag_lab.evidence import EvidenceArgumentError, EvidenceSession, Scope
from agrag_lab.evidence.scope import matches_where, resolve_scope
from agrag_lab.storage.documents_db import DocumentRecord


def _rec(doc: str, removed: bool = False, **meta: object) -> DocumentRecord:
    return DocumentRecord(doc, doc.title(), "markdown", meta, "0" * 12, removed)


def test_scope_validates_its_arguments() -> None:
    with pytest.raises(EvidenceArgumentError, match="not the string"):
        Scope(document_ids="ada")  # type: ignore[arg-type]
    with pytest.raises(EvidenceArgumentError, match="must map a string key"):
        Scope(where={"era": ["victorian"]})  # type: ignore[dict-item]
    with pytest.raises(EvidenceArgumentError, match="scope must be"):
        EvidenceSession(None, "everything")  # type: ignore[arg-type]
    assert Scope(document_ids=["a", "a"]).document_ids == frozenset({"a"})  # type: ignore[arg-type]
    assert hash(Scope(where={"a": 1})) == hash(Scope(where={"a": 1}))


def test_where_is_exact_and_typed() -> None:
    assert matches_where({"famous": True}, {"famous": True})
    assert not matches_where({"famous": 1}, {"famous": True})
    assert not matches_where({"year": "1843"}, {"year": 1843})
    assert matches_where({"year": 1843}, {"year": 1843.0})
    assert not matches_where({}, {"era": "victorian"})


def test_resolve_keeps_removed_documents_readable_but_not_searchable() -> None:
    records = [_rec("a", era="x"), _rec("b", era="y"), _rec("c", removed=True, era="x")]
    r = resolve_scope(records, Scope(where={"era": "x"}), 7)
    assert r.readable == {"a", "c"} and r.searchable == {"a"} and r.listed is None and r.generation == 7
    r = resolve_scope(records, Scope(document_ids=frozenset({"b", "nope"})), 7)
    assert r.readable == {"b"} and r.listed == frozenset({"b", "nope"}) and not r.unrestricted
    r = resolve_scope(records, Scope(), 7)
    assert r.unrestricted and r.readable == {"a", "b", "c"} and r.searchable == {"a", "b"}


def test_where_predicate_on_the_index(small_graph: Graph) -> None:
    session = small_graph.evidence(Scope(where={"era": "victorian"}))
    assert session.resolved.readable == {"lovelace"}
    hits = session.discover("Babbage Analytical Engine", "keyword").hits
    assert hits and {h.location.document_id for h in hits} == {"lovelace"}
    assert small_graph.evidence(Scope(where={"famous": True})).resolved.readable == {"babbage"}
    both = small_graph.evidence(Scope(document_ids=frozenset({"babbage", "lovelace"}), where={"era": "victorian"}))
    assert both.resolved.readable == {"lovelace"}


def test_removed_document_is_hidden_from_search_but_fetchable_in_scope(small_graph: Graph) -> None:
    session = small_graph.evidence()
    found = session.discover("Jacquard loom Lyon", "hybrid", limit=10)
    assert all(h.location.document_id != "jacquard" for h in found.hits)
    version = small_graph.db.document("jacquard").current_version  # type: ignore[union-attr]
    got = session.fetch([f"jacquard@{version}#c0"]).items[0]
    assert got.ok and got.removed and "Lyon" in got.text  # type: ignore[union-attr]
    # a scope selecting only the removed document reads it but searches nothing
    only = small_graph.evidence(Scope(where={"era": "napoleonic"}))
    assert only.resolved.readable == {"jacquard"} and not only.resolved.searchable
    assert only.discover("loom", "hybrid").hits == ()
    assert only.fetch([f"jacquard@{version}#c0"]).items[0].ok
    # outside the scope it is unknown, like an id that does not exist
    other = small_graph.evidence(Scope(document_ids=frozenset({"babbage"})))
    assert other.fetch([f"jacquard@{version}#c0"]).items[0].reason == "unknown"  # type: ignore[union-attr]


def test_the_scope_rule_is_resolved_again_when_the_index_changes(fresh_graph: Graph) -> None:
    """A session keeps its rule and follows the index: a document the rule names becomes readable (issue 42)."""
    everything = fresh_graph.evidence()
    victorian = fresh_graph.evidence(Scope(where={"era": "victorian"}))
    georgian = fresh_graph.evidence(Scope(where={"era": "georgian"}))
    before = everything.resolved.generation
    fresh_graph.ingest(
        [
            Document(
                "hollerith",
                "Herman Hollerith",
                "# Herman Hollerith\n\nHollerith built a tabulator.\n",
                metadata={"era": "victorian"},
            )
        ]
    )
    for session in (everything, victorian):
        assert [h.location.document_id for h in session.discover("Hollerith tabulator", "keyword").hits] == [
            "hollerith"]
    assert georgian.discover("Hollerith tabulator", "keyword").hits == ()  # the rule does not name it
    assert "hollerith" in everything.resolved.readable and everything.resolved.generation > before
    assert everything.unfiltered()  # resolved at the current generation: the fast path again


def test_scope_goes_into_the_store_queries(workshop_graph: Graph) -> None:
    recorder = RecordingVectorStore(workshop_graph.vector_store)
    view = GraphView(workshop_graph, recorder)
    session = EvidenceSession(view, Scope(document_ids=frozenset({"note-g", "timeline"})))
    session.discover("Bernoulli numbers", "vector", limit=3)
    session.find_entities("Bernoulli numbers", limit=3)
    (chunks_call,) = recorder.calls
    assert chunks_call == ("chunks", 4, {"document_id": {"$in": ["note-g", "timeline"]}})
    # the entities are ranked by vectors of their in-scope passages, read by id (issue 31): no stored
    # entity vector (which averages every document's passages) is read
    ((collection, read),) = recorder.reads
    visible = session.visible_entity_ids()
    assert collection == "chunks" and visible and read
    assert {c.split("@")[0] for c in read} <= {"note-g", "timeline"}
    mask = session.chunk_mask(workshop_graph.keyword_index("chunks"))
    assert mask is not None
    ids = workshop_graph.keyword_index("chunks").ids
    assert {ids[i].split("@")[0] for i in mask.nonzero()[0]} == {"note-g", "timeline"}
    unrestricted = EvidenceSession(view)
    unrestricted.discover("Bernoulli numbers", "vector", limit=3)
    assert recorder.calls[-1][2] is None  # fast path: nothing outside the stores to hide


def test_scope_is_not_applied_after_the_limit(workshop_graph: Graph) -> None:
    query = "Babbage"
    top = workshop_graph.evidence().discover(query, "keyword", limit=1).hits[0].location.document_id
    other = next(d for d in ("note-g", "lord-byron", "timeline") if d != top)
    for mode in ("keyword", "vector", "hybrid"):
        hits = workshop_graph.evidence(Scope(document_ids=frozenset({other}))).discover(query, mode, limit=1).hits
        assert [h.location.document_id for h in hits] == [other], mode
