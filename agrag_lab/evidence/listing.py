"""list_documents: the documents a session's scope shows, with their current version.

Only searchable documents are listed (readable and not removed): the ones
``discover`` can return. Each comes with its title, its current version (the
version part of its evidence ids) and how many chunks that version has, in
document id order. Nothing outside the scope is listed or counted.

Examples
--------
>>> from agrag_lab import Graph                                       # doctest: +SKIP
>>> listed = Graph.open("index").evidence(Scope(document_ids={"ada-lovelace"})).list_documents()  # doctest: +SKIP
>>> [(d.id, d.chunks) for d in listed.documents]                      # doctest: +SKIP
[('ada-lovelace', 9)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agrag_lab.evidence.limits import MAX_DOCUMENTS  # re-exported: the limits of every tool call
from agrag_lab.evidence.results import DocumentEntry, DocumentList
from agrag_lab.evidence.search import check_limit

if TYPE_CHECKING:
    from agrag_lab.evidence.session_api import Scoped

__all__ = ["MAX_DOCUMENTS", "list_documents"]


def list_documents(session: Scoped, limit: int = 100) -> DocumentList:
    """The searchable documents in scope, by id: title, current version, chunk count.

    Parameters
    ----------
    session : Scoped
        The session whose scope decides what is listed.
    limit : int
        Most documents to list (1-500); ``total`` counts them all.

    Raises
    ------
    EvidenceArgumentError
        ``limit`` is not an integer in 1..500.
    """
    limit = check_limit(limit, maximum=MAX_DOCUMENTS)
    db = session.graph.db
    searchable = session.resolved.searchable
    records = sorted((r for r in db.documents() if r.id in searchable), key=lambda r: r.id)
    counts = db.chunk_counts()
    entries = tuple(
        DocumentEntry(r.id, r.title, r.current_version, counts.get(r.id, 0)) for r in records[:limit]
    )
    return DocumentList(entries, len(records), len(records) > limit)
