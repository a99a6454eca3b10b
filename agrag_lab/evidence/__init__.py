"""Evidence functions: find text, read it exactly, cite it verifiably, within a scope.

``Graph.evidence(scope)`` opens an :class:`EvidenceSession` whose
:class:`Scope` (document ids and/or a metadata predicate) is resolved once and
applied inside every query. Its functions:

- :meth:`~EvidenceSession.discover` searches current passages (keyword,
  vector, or hybrid with RRF k = 60);
- :meth:`~EvidenceSession.fetch` returns the exact text behind ids;
- :meth:`~EvidenceSession.navigate` moves to parent, children, siblings,
  prev, next, or the table around a passage;
- :meth:`~EvidenceSession.find_entities` and :meth:`~EvidenceSession.explore`
  read the knowledge graph;
- :meth:`~EvidenceSession.check_citations` and
  :meth:`~EvidenceSession.render_citations` accept only ids fetched in the
  session.

The functions of this module take a session, or a graph (then a fresh
session over everything is opened for the one call), and run the same code
as the methods. Nothing outside the scope is returned, quoted, counted or
confirmed: an id outside the scope reads exactly like an id that does not
exist.

Examples
--------
>>> from agrag_lab.evidence import Scope
>>> Scope(document_ids={"ada-lovelace"}, where={"era": "victorian"}).unrestricted
False
>>> import agrag_lab.evidence as ev                                   # doctest: +SKIP
>>> session = graph.evidence(Scope(document_ids={"ada-lovelace", "note-g"}))  # doctest: +SKIP
>>> found = ev.discover(session, "Bernoulli numbers", mode="hybrid")  # doctest: +SKIP
>>> ev.fetch(session, found.ids[:2]).texts[0].text                     # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from agrag_lab.evidence.errors import EvidenceArgumentError
from agrag_lab.evidence.results import (
    CitationCheck,
    CitationReport,
    DiscoverResult,
    EntitiesResult,
    EntityHit,
    ExploreEdge,
    ExploreResult,
    FetchedText,
    FetchError,
    FetchResult,
    Hit,
    Mode,
    Navigation,
    NavItem,
    RenderedAnswer,
)
from agrag_lab.evidence.scope import ResolvedScope, Scope
from agrag_lab.evidence.session import EvidenceSession, EvidenceSource
from agrag_lab.kg.store import Direction

__all__ = [
    "CitationCheck",
    "CitationReport",
    "DiscoverResult",
    "EntitiesResult",
    "EntityHit",
    "EvidenceArgumentError",
    "EvidenceSession",
    "EvidenceSource",
    "ExploreEdge",
    "ExploreResult",
    "FetchError",
    "FetchResult",
    "FetchedText",
    "Hit",
    "NavItem",
    "Navigation",
    "RenderedAnswer",
    "ResolvedScope",
    "Scope",
    "check_citations",
    "discover",
    "explore",
    "fetch",
    "find_entities",
    "navigate",
    "open_session",
    "render_citations",
]


def open_session(source: EvidenceSession | EvidenceSource, scope: Scope | None = None) -> EvidenceSession:
    """``source`` itself if it is a session, else a new session over it.

    Raises
    ------
    EvidenceArgumentError
        A scope was given with a session (a session's scope is fixed).
    """
    if isinstance(source, EvidenceSession):
        if scope is not None:
            raise EvidenceArgumentError(
                "a session's scope is fixed when it is opened; pass the graph to use another scope"
            )
        return source
    return EvidenceSession(source, scope)


def discover(
    source: EvidenceSession | EvidenceSource,
    query: str,
    mode: Mode = "hybrid",
    limit: int = 10,
    *,
    scope: Scope | None = None,
) -> DiscoverResult:
    """Search current passages in scope (:meth:`EvidenceSession.discover`)."""
    return open_session(source, scope).discover(query, mode, limit)


def fetch(
    source: EvidenceSession | EvidenceSource, ids: str | Iterable[str], *, scope: Scope | None = None
) -> FetchResult:
    """The exact text behind ids (:meth:`EvidenceSession.fetch`)."""
    return open_session(source, scope).fetch(ids)


def navigate(
    source: EvidenceSession | EvidenceSource,
    id: str,
    to: str,
    *,
    scope: Scope | None = None,
) -> Navigation:
    """Move from a passage (:meth:`EvidenceSession.navigate`)."""
    return open_session(source, scope).navigate(id, to)


def find_entities(
    source: EvidenceSession | EvidenceSource, query: str, limit: int = 10, *, scope: Scope | None = None
) -> EntitiesResult:
    """Entities by name and embedding (:meth:`EvidenceSession.find_entities`)."""
    return open_session(source, scope).find_entities(query, limit)


def explore(
    source: EvidenceSession | EvidenceSource,
    entity: str,
    depth: int = 1,
    relation_types: Collection[str] | None = None,
    limit: int = 20,
    direction: Direction = "both",
    *,
    scope: Scope | None = None,
) -> ExploreResult:
    """Relations outward from an entity (:meth:`EvidenceSession.explore`)."""
    return open_session(source, scope).explore(entity, depth, relation_types, limit, direction)


def check_citations(
    source: EvidenceSession | EvidenceSource, ids_or_answer: str | Iterable[str], *, scope: Scope | None = None
) -> CitationReport:
    """Check citations against the ids fetched (:meth:`EvidenceSession.check_citations`).

    With a graph instead of a session nothing has been fetched, so no
    citation is valid: pass the session that did the fetching.
    """
    return open_session(source, scope).check_citations(ids_or_answer)


def render_citations(
    source: EvidenceSession | EvidenceSource, answer: str, *, scope: Scope | None = None
) -> RenderedAnswer:
    """Numbered references and Sources (:meth:`EvidenceSession.render_citations`)."""
    return open_session(source, scope).render_citations(answer)
