"""list_documents: the searchable documents in scope, with current version and chunk count."""

from __future__ import annotations

import pytest

from agrag_lab import Graph
from agrag_lab.evidence import EvidenceArgumentError, Scope
from agrag_lab.evidence.tools import tool


def _expected(graph: Graph, ids: list[str]) -> list[tuple[str, str, str, int]]:
    out = []
    for document_id in sorted(ids):
        record = graph.db.document(document_id)
        assert record is not None
        chunks = len(graph.db.chunks_of(document_id, record.current_version))
        out.append((document_id, record.title, record.current_version, chunks))
    return out


def test_lists_only_searchable_documents(small_graph: Graph) -> None:
    listed = small_graph.evidence().list_documents()
    # jacquard was removed: its ids stay readable, but search cannot return it, so it is not listed
    assert [(d.id, d.title, d.version, d.chunks) for d in listed.documents] == _expected(small_graph, ["babbage", "lovelace"])
    assert listed.total == 2 and not listed.truncated
    assert all(d.chunks > 0 for d in listed.documents)


def test_the_scope_predicate_is_type_strict(small_graph: Graph) -> None:
    """babbage has famous=True, lovelace famous=1: only the boolean matches True."""
    assert [d.id for d in small_graph.evidence(Scope(where={"famous": True})).list_documents().documents] == ["babbage"]
    assert [d.id for d in small_graph.evidence(Scope(where={"famous": 1})).list_documents().documents] == ["lovelace"]


def test_limit_cuts_and_total_counts(workshop_graph: Graph) -> None:
    scope = Scope(document_ids=frozenset({"ada-lovelace", "charles-babbage", "note-g", "no-such-document"}))
    session = workshop_graph.evidence(scope)
    listed = session.list_documents(limit=2)
    assert [d.id for d in listed.documents] == ["ada-lovelace", "charles-babbage"]
    assert listed.total == 3 and listed.truncated
    spec = tool("list_documents")
    assert spec.run(session, spec.arguments()) == session.list_documents().to_dict()
    with pytest.raises(EvidenceArgumentError, match="limit must be an integer from 1 to 500"):
        session.list_documents(limit=501)
