"""``EvidenceSession``: the evidence functions over one index, within one fixed scope.

A session fixes its :class:`~agrag_lab.evidence.scope.Scope` (the rule) when
it is created and resolves it into document ids at the index generation it
reads; when the index changes (another process ingests, a document is
removed), the next call resolves the same rule again, so a long-lived reader
(an MCP server, a notebook) sees the documents the rule now names. The
scope is applied *inside* every query:

* chunk search: a Chroma ``where`` on ``document_id`` (``$in`` the searchable
  documents) and a bm25s weight mask over the same documents;
* entity search: a Chroma ``where`` on ``item_id`` (``$in`` the entities the
  graph scope shows) and a keyword index of what the scope shows of them
  (see :mod:`agrag_lab.evidence.entities`);
* the graph: a :class:`~agrag_lab.kg.scope.GraphScope` on the searchable
  documents, so entities, relations, descriptions and supporting passages
  from other documents are never seen;
* ids: every id goes through :meth:`EvidenceSession.readable_version`, which
  looks up the exact version named by the id, and only in readable
  documents. An id outside the scope is indistinguishable from an id that
  does not exist.

When the scope is unrestricted and nothing was ingested since it was
resolved, the filters are left out (the stores hold exactly the searchable
documents then), which is the fast path of a notebook session.

The session remembers the ids it fetched; citations are checked against them.

Examples
--------
>>> from agrag_lab import Graph                                       # doctest: +SKIP
>>> from agrag_lab.evidence import Scope
>>> session = Graph.open("index").evidence(Scope(document_ids={"ada-lovelace"}))  # doctest: +SKIP
>>> hits = session.discover("Note G", mode="keyword")                # doctest: +SKIP
>>> text = session.fetch([hits.hits[0].id])                           # doctest: +SKIP
>>> session.check_citations(f"She wrote it [{hits.hits[0].id}].").all_valid  # doctest: +SKIP
True
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np

from agrag_lab import scope_compiler
from agrag_lab.documents import Chunk
from agrag_lab.evidence import citations, entities, listing, navigation, reading, recipe_search
from agrag_lab.evidence import search as passage_search
from agrag_lab.evidence.entities import EntityView, build_entity_view
from agrag_lab.evidence.errors import EvidenceArgumentError
from agrag_lab.evidence.navigation import VersionLayout
from agrag_lab.evidence.scope import ResolvedScope, Scope, resolve_scope
from agrag_lab.evidence.session_api import EvidenceSource as EvidenceSource
from agrag_lab.ids import EvidenceId
from agrag_lab.kg.scope import GraphScope
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.store import IndexSearchStore
from agrag_lab.storage.documents_db import VersionRecord
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.vectors import Where

if TYPE_CHECKING:
    from agrag_lab.retrieval.engine import SearchEngine

__all__ = ["MAX_IN_FILTER", "EvidenceSession", "EvidenceSource", "Scope"]

#: Above this many values an ``$in`` filter is not sent to Chroma (SQLite
#: caps a statement at 32,766 variables); the graph store's exact in-memory
#: search evaluates the same filter instead.
MAX_IN_FILTER = 20_000


class EvidenceSession:
    """Scoped evidence functions over one index.

    Parameters
    ----------
    graph : Graph
        The index (anything with ``db``, ``embedder``, ``vector_store``,
        ``graph_store`` and ``keyword_index``).
    scope : Scope, optional
        What the session may read; default everything. Resolved now, and again when the index changes.

    Attributes
    ----------
    scope : Scope
        The scope as given.
    resolved : ResolvedScope
        The scope as resolved into document ids at the index's current generation (resolved again when it moves).
    """

    def __init__(self, graph: EvidenceSource, scope: Scope | None = None) -> None:
        if scope is not None and not isinstance(scope, Scope):
            raise EvidenceArgumentError(
                f"scope must be an agrag_lab.evidence.Scope, not {type(scope).__name__}; "
                "write Scope(document_ids={...}) or Scope(where={...})"
            )
        self.graph = graph
        self.scope = scope if scope is not None else Scope()
        db = graph.db
        generation = db.generation()  # read first: a later ingest then disables the fast path
        self._resolved: ResolvedScope = resolve_scope(db.documents(include_removed=True), self.scope, generation)
        self._lock = threading.Lock()
        self._fetched: dict[str, None] = {}
        self._mask: tuple[KeywordIndex, np.ndarray] | None = None
        self._entities: tuple[IndexSearchStore, EntityView] | None = None
        self._layouts: dict[tuple[str, str], VersionLayout] = {}
        self._titles: dict[tuple[str, str], str] = {}
        self._engine: SearchEngine | None = None

    def __repr__(self) -> str:
        r = self.resolved
        return f"EvidenceSession({len(r.readable)} readable documents, {len(self._fetched)} fetched ids)"

    # -- the evidence functions (each written once, in its module) ---------------------
    discover = passage_search.discover
    fetch = reading.fetch
    navigate = navigation.navigate
    find_entities = entities.find_entities
    explore = entities.explore
    check_citations = citations.check_citations
    render_citations = citations.render_citations
    search = recipe_search.search
    list_documents = listing.list_documents

    @property
    def resolved(self) -> ResolvedScope:
        """The scope as resolved at the index's current generation (resolved again after another write).

        An ingest (or removal) by any process bumps the generation of
        ``documents.sqlite``; the same scope rule is then resolved anew, and
        what was derived from the old resolution (keyword mask, entity view)
        is dropped.
        """
        current = self._resolved
        db = self.graph.db
        generation = db.generation()
        if generation == current.generation:
            return current
        fresh = resolve_scope(db.documents(include_removed=True), self.scope, generation)
        with self._lock:
            if self._resolved.generation != generation:
                self._resolved = fresh
                self._mask = None
                self._entities = None
            return self._resolved

    @property
    def fetched(self) -> tuple[str, ...]:
        """The ids fetched so far (canonical form, first fetch order)."""
        with self._lock:
            return tuple(self._fetched)

    # -- building blocks used by the function modules ---------------------------------
    def engine(self) -> SearchEngine:
        """The index's search engine, made on first use and kept (recipe search runs on it)."""
        with self._lock:
            if self._engine is None:
                self._engine = self.graph.engine()
            return self._engine

    def remember(self, ids: Iterable[str]) -> None:
        """Record ids as fetched in this session."""
        with self._lock:
            for i in ids:
                self._fetched[i] = None

    def was_fetched(self, canonical_id: str) -> bool:
        """Whether this (canonical) id was fetched in this session."""
        with self._lock:
            return canonical_id in self._fetched

    def unfiltered(self) -> bool:
        """Whether queries may skip the scope filter (unrestricted, nothing ingested since)."""
        resolved = self.resolved  # resolved at the current generation, or the one before a write that lands now
        return resolved.unrestricted and self.graph.db.generation() == resolved.generation

    def filters(self) -> SearchFilters | None:
        """The scope as search filters: the searchable documents (``None`` on the fast path).

        The scope is resolved at the index's current generation (:attr:`resolved`); every store's filter
        is compiled from these in :mod:`agrag_lab.scope_compiler`.
        """
        if self.unfiltered():
            return None
        return SearchFilters(document_ids=self.resolved.searchable)

    def chunk_where(self) -> Where | None:
        """The Chroma ``where`` of the searchable documents (``None`` on the fast path)."""
        return scope_compiler.chunk_where(self.filters())

    def chunk_allowed(self) -> Callable[[str], bool] | None:
        """Whether a chunk id is searchable (``None`` on the fast path)."""
        return scope_compiler.chunk_predicate(self.filters())

    def chunk_mask(self, index: KeywordIndex) -> np.ndarray | None:
        """The bm25s weight mask of the searchable documents over ``index`` (cached per index)."""
        allowed = self.chunk_allowed()
        if allowed is None:
            return None
        cached = self._mask
        if cached is not None and cached[0] is index:
            return cached[1]
        mask = scope_compiler.keyword_mask(index, allowed)
        self._mask = (index, mask)
        return mask

    def graph_scope(self) -> GraphScope:
        """The graph scope: the searchable documents (everything on the fast path)."""
        return scope_compiler.graph_scope(self.filters(), {})

    def entity_view(self) -> EntityView | None:
        """Visible entities and their scoped keyword index (``None`` on the fast path; built once)."""
        if self.unfiltered():
            return None
        store = self.graph.graph_store
        if self._entities is None or self._entities[0] is not store:
            self._entities = (store, build_entity_view(store, self.graph_scope()))
        return self._entities[1]

    def visible_entity_ids(self) -> frozenset[str] | None:
        """Ids of the entities the graph scope shows (``None`` on the fast path)."""
        view = self.entity_view()
        return None if view is None else view.visible

    def vector_query(
        self, collection: str, vector: np.ndarray, limit: int, key: str, allowed: frozenset[str] | None
    ) -> list[tuple[str, float]]:
        """Nearest records whose ``key`` is in ``allowed`` (``None``: no filter).

        The filter is part of the query: Chroma's ``where``, or for very large
        sets the graph store's exact search with the same ``where``.
        """
        if allowed is not None and not allowed:
            return []
        where = scope_compiler.id_where(key, allowed)
        if allowed is not None and len(allowed) > MAX_IN_FILTER:
            return self.graph.graph_store.similarity_search(collection, vector, limit, where)
        return self.graph.vector_store.query(collection, vector, limit, where)

    def readable_version(self, eid: EvidenceId) -> VersionRecord | None:
        """The exact version an id names, if its document is readable; else ``None``.

        This is the one gate for ids: the version part must equal a stored
        version name exactly (a tampered or shortened hash finds nothing).
        """
        if not self.resolved.can_read(eid.document_id):
            return None
        return self.graph.db.version(eid.document_id, eid.version)

    def readable_chunk(self, eid: EvidenceId) -> Chunk | None:
        """The chunk a chunk id names, through :meth:`readable_version`."""
        if eid.chunk is None or self.readable_version(eid) is None:
            return None
        return self.graph.db.chunk(eid.document_id, eid.version, eid.chunk)

    def layout(self, version: VersionRecord) -> VersionLayout:
        """Sections and chunks of a readable version (cached; versions never change)."""
        key = (version.document_id, version.version)
        found = self._layouts.get(key)
        if found is None:
            db = self.graph.db
            found = VersionLayout(
                version.document_id,
                version.version,
                version.title,
                version.text,
                tuple(db.sections_of(*key)),
                tuple(db.chunks_of(*key)),
            )
            if len(self._layouts) > 64:
                self._layouts.clear()
            self._layouts[key] = found
        return found

    def title(self, document_id: str, version: str) -> str:
        """The title of a version (cached)."""
        key = (document_id, version)
        found = self._titles.get(key)
        if found is None:
            record = self.graph.db.version(document_id, version)
            found = record.title if record is not None else document_id
            self._titles[key] = found
        return found
