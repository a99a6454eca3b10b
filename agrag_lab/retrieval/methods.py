"""The retrieval methods ``entity``, ``chunk`` and ``community``, from one registry.

Each is a hybrid search over one collection: a dense leg (the vector store's
``query`` when one is configured, otherwise the graph store's native
similarity search) and a keyword leg (bm25s), fused by RRF. Both legs are
kept for the ledger. Filters are compiled into a ``where`` for the dense leg
and a weight mask for the keyword leg, so they restrict inside the queries.

Every method follows the spec's rule: with a positive limit it returns an
empty list only when the search ran and found nothing, and it raises on any
failure it cannot recover from. A hybrid method recovers from one failed leg:
when the query could not be embedded, or the vector store is unreachable, the
dense leg fails and the keyword leg still answers; the result names the failed
leg and why (:attr:`MethodResult.failed_legs`), and the engine marks the run
``partial``. When every leg fails the method raises
:class:`~agrag_lab.errors.RetrievalMethodError`.

Examples
--------
A query vector that could not be made fails only what reads it:

>>> qv = QueryVector.failed(RuntimeError("model crashed"))
>>> qv.get()
Traceback (most recent call last):
...
agrag_lab.errors.EmbedderError: the query could not be embedded (RuntimeError: model crashed); the legs that need a query vector fail, the keyword legs still answer
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from agrag_lab.embedding import Embedder
from agrag_lab.errors import EmbedderError, RetrievalMethodError
from agrag_lab.index.records import CollectionRecords
from agrag_lab.kg.facets import best_per_owner, found_through
from agrag_lab.kg.graph_store import Capability, GraphStore, WholeGraph
from agrag_lab.kg.scope import GraphScope
from agrag_lab.kg.scope_compiler import compile_filters as compile_filters  # its home; kept importable here
from agrag_lab.kg.scope_compiler import graph_scope
from agrag_lab.kg.scoped_entities import VectorReader, scoped_entity_dense, scoped_entity_keyword
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.legs import Leg, run_legs
from agrag_lab.retrieval.trace import Hit
from agrag_lab.retrieval.tracing import Tracer
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.vectors import VectorStore, Where

log = logging.getLogger(__name__)


class SearchableGraphStore(GraphStore, Protocol):
    """What methods read of the search store: the graph reads, native search, visibility, records, capabilities.

    :class:`~agrag_lab.retrieval.store.IndexSearchStore` implements it (and its served kind).
    A method that needs more than this protocol names a capability in its ``requires``
    (:mod:`agrag_lab.retrieval.capabilities`); the engine checks it once, before any method runs.
    """

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What the store offers beyond this protocol."""
        ...

    def whole_graph(self, wanted_by: str = "this read") -> WholeGraph:
        """The graph held in process (raises ``MissingCapabilityError`` when it is served)."""
        ...

    def graph_scope(self, filters: SearchFilters | None) -> GraphScope:
        """The graph scope of search filters (properties resolved to documents)."""
        ...

    def records(self, collection: str) -> CollectionRecords:
        """The records of a collection, as synced to the vector store."""
        ...

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of records (unknown ids left out)."""
        ...

    def keyword_index(self, collection: str) -> KeywordIndex: ...

    def similarity_search(
        self, collection: str, vector: np.ndarray, limit: int, where: Where | None = None
    ) -> list[tuple[str, float]]: ...

    def visible_items(self, collection: str, filters: SearchFilters) -> frozenset[str] | None:
        """Ids in ``collection`` that ``filters`` let through (labels for entities,
        documents and properties through supporting chunks); None = all."""

    def document_properties(self) -> Mapping[str, Mapping[str, Any]]: ...

    def relation_passages(self, record_ids: Collection[str]) -> dict[str, frozenset[str]]:
        """The passages of the relation each facet record of ``record_ids`` states (others left out)."""

    def described_relations(self) -> bool:
        """Whether a builder described the graph's relations (then the facet records are its relation records)."""


@dataclass(frozen=True)
class QueryVector:
    """The query's embedding, or why it could not be made.

    The engine embeds a query once, and only when a step asks for it
    (:meth:`lazy`: a recipe that ranks by something else, GRAPHRAG_GLOBAL's
    report ratings, never runs the model); a failure there must fail only the
    legs that need the vector (:meth:`get` raises there), not the search.
    """

    vector: np.ndarray | None
    error: BaseException | None = None
    make: Callable[[], np.ndarray] | None = field(default=None, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    @classmethod
    def of(cls, vector: np.ndarray | QueryVector) -> QueryVector:
        """``vector`` as a :class:`QueryVector` (an array is a vector that was made)."""
        return vector if isinstance(vector, QueryVector) else cls(vector)

    @classmethod
    def failed(cls, error: BaseException) -> QueryVector:
        """A vector that could not be made, because of ``error``."""
        return cls(None, error)

    @classmethod
    def lazy(cls, make: Callable[[], np.ndarray]) -> QueryVector:
        """A vector made by ``make()`` on first use, once (its error kept, as :meth:`failed`'s).

        Examples
        --------
        >>> calls = []
        >>> v = QueryVector.lazy(lambda: calls.append(1) or np.ones(2))
        >>> len(calls), v.pending
        (0, True)
        >>> v.get().tolist(), v.get().tolist(), len(calls)
        ([1.0, 1.0], [1.0, 1.0], 1)
        """
        return cls(None, None, make)

    def _made(self) -> None:
        with self._lock:
            make = self.make
            if make is None:
                return
            try:
                object.__setattr__(self, "vector", make())
            except Exception as exc:  # a model failure fails the legs that need the vector, not the search
                log.warning("the query could not be embedded, the dense legs will fail: %s", exc)
                object.__setattr__(self, "error", exc)
            object.__setattr__(self, "make", None)

    @property
    def pending(self) -> bool:
        """Whether the vector is still to be made (no step has asked for it yet)."""
        return self.make is not None

    @property
    def ok(self) -> bool:
        """Whether the query was embedded (embedding it now if it is still to be made)."""
        self._made()
        return self.vector is not None

    def get(self) -> np.ndarray:
        """The vector (made now if it is still to be made).

        Raises
        ------
        EmbedderError
            The query could not be embedded; the original error is its cause.
        """
        self._made()
        if self.vector is None:
            cause = self.error
            what = f"{type(cause).__name__}: {cause}" if cause is not None else "no vector was made"
            raise EmbedderError(
                f"the query could not be embedded ({what}); the legs that need a query vector fail, "
                "the keyword legs still answer"
            ) from cause
        return self.vector


def embed_query(embedder: Embedder, text: str, tracer: Tracer) -> QueryVector:
    """The query vector of ``text``, made when a step first asks for it (:meth:`QueryVector.lazy`), or why it
    could not be made (the legs that need it fail, not the search).

    The engine and its entity API embed every query here, in a span ``embed`` of ``tracer`` that nests where
    the vector was first asked for, whichever thread makes it.
    """
    opened = contextvars.copy_context()

    def make() -> np.ndarray:
        with tracer.span("embed"):
            vector: np.ndarray = embedder.embed_query(text)
            return vector

    return QueryVector.lazy(lambda: opened.run(make))


@dataclass(frozen=True)
class MethodResult:
    """A method's fused hits, the legs that answered, and the legs that failed (leg -> why)."""

    hits: tuple[Hit, ...]
    legs: Mapping[str, tuple[Hit, ...]]
    failed_legs: Mapping[str, str] = field(default_factory=dict)


#: Entity records per entity (the entity and its relation facets) a dense query may
#: return before they are collapsed to one hit per entity.
FACETS_PER_ITEM = 4


def _hits(pairs: Sequence[tuple[str, float]], via: Mapping[str, str] | None = None) -> tuple[Hit, ...]:
    through = via or {}
    return tuple(Hit(key, float(score), rank, through.get(key, "")) for rank, (key, score) in enumerate(pairs, 1))


def _via(legs: Mapping[str, Sequence[Hit]]) -> dict[str, str]:
    """The record each fused item was found through: its record in the leg that ranked it best
    (the first leg on a tie); ``""`` (left out) when that leg found it through its own record."""
    best: dict[str, Hit] = {}
    for hits in legs.values():
        for hit in hits:
            if hit.key not in best or hit.rank < best[hit.key].rank:
                best[hit.key] = hit
    return {key: hit.via for key, hit in best.items() if hit.via}


def dense_search(
    collection: str,
    vector: np.ndarray | QueryVector,
    limit: int,
    where: Where | None,
    graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
) -> list[tuple[str, float]]:
    """Nearest records of ``collection``: in the vector store when one is given, else natively.

    Raises
    ------
    EmbedderError
        ``vector`` is a :class:`QueryVector` that could not be made.
    """
    query_vector = QueryVector.of(vector).get()
    if vector_store is not None:
        return vector_store.query(collection, query_vector, limit, where)
    return graph_store.similarity_search(collection, query_vector, limit, where)


def entity_dense_search(
    vector: np.ndarray | QueryVector,
    limit: int,
    where: Where | None,
    filters: SearchFilters,
    graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
) -> list[tuple[str, float]]:
    """The dense leg over entities: the stored records, or under a document scope the scope's own vectors.

    Stored entity vectors average passages of every document, so a search
    restricted to some documents ranks the entities it can see by vectors made
    of their in-scope passages only (:func:`~agrag_lab.kg.scoped_entities.scoped_entity_dense`,
    passages read by id from ``vector_store``, else from the graph store's own vectors):
    no out-of-scope text moves a scoped ranking (issue 31). Unscoped, this is
    :func:`dense_search` of the ``entities`` collection, records and facets.

    Raises
    ------
    EmbedderError
        ``vector`` is a :class:`QueryVector` that could not be made.
    """
    if not filters.restricts_documents:
        return dense_search("entities", vector, limit, where, graph_store, vector_store)
    query_vector = QueryVector.of(vector).get()
    scope = graph_scope(filters, graph_store.document_properties())
    allowed = graph_store.visible_items("entities", filters) if filters.labels is not None else None
    reader: VectorReader = vector_store if vector_store is not None else graph_store
    return scoped_entity_dense(graph_store, scope, reader, query_vector, limit, allowed)


class HybridMethod:
    """A hybrid (dense + bm25s) search over one collection (or one of its two legs alone)."""

    #: Capabilities it requires of the store beyond :class:`SearchableGraphStore`: none.
    requires: frozenset[Capability] = frozenset()

    def __init__(self, name: str, collection: str, *, keyword: bool = True, dense: bool = True) -> None:
        self.name = name
        self.collection = collection
        #: False: the dense leg alone (the nearest records), no keyword leg and no fusion.
        self.keyword = keyword
        #: False: the keyword leg alone (bm25s), no dense leg and no fusion.
        self.dense = dense

    def search(
        self,
        query: str,
        vector: np.ndarray | QueryVector,
        limit: int,
        filters: SearchFilters,
        *,
        graph_store: SearchableGraphStore,
        vector_store: VectorStore | None,
        k: float,
        embedder: Embedder | None = None,
    ) -> MethodResult:
        """Run the legs for up to ``limit`` candidates each and fuse them.

        A leg that fails is left out and named in ``failed_legs``; the other
        leg answers alone.

        Raises
        ------
        RetrievalMethodError
            Every leg failed; ``causes`` holds each leg's exception.
        """
        where, allowed = compile_filters(self.collection, filters, graph_store)
        want = limit * FACETS_PER_ITEM if self.collection == "entities" else limit
        entities = self.collection == "entities"
        through: dict[str, dict[str, str]] = {}  # leg -> entity -> the relation record it was found through

        def collapsed(leg: str, found: list[tuple[str, float]]) -> list[tuple[str, float]]:
            through[leg] = found_through(found)
            return best_per_owner(found)[:limit]

        def dense() -> list[tuple[str, float]]:
            if entities:
                return collapsed("dense", entity_dense_search(vector, want, where, filters, graph_store, vector_store))
            return dense_search(self.collection, vector, want, where, graph_store, vector_store)

        def keyword() -> list[tuple[str, float]]:
            index = graph_store.keyword_index(self.collection)
            if entities and filters.restricts_documents:  # entity records hold text of every document (issue 31)
                index = scoped_entity_keyword(graph_store, graph_scope(filters, graph_store.document_properties()))
            # scoped: BM25's statistics over what the scope shows, so no score counts a document outside it
            found = index.search(query, want, allowed=allowed, scoped=filters.restricts_documents)
            return collapsed("keyword", found) if entities else found

        runs: list[tuple[str, Leg]] = []
        if self.dense:
            runs.append(("dense", dense))
        if self.keyword:
            runs.append(("keyword", keyword))
        outcome = run_legs(runs, owner=f"the {self.name} method")
        if outcome.all_failed:
            raise RetrievalMethodError(self.name, dict(outcome.errors))
        legs = {leg: _hits(found, through.get(leg, {})) for leg, found in outcome.found.items()}
        if len(legs) == 1:
            (only,) = legs.values()
            return MethodResult(only[:limit], legs, outcome.failed)
        fused = outcome.fused(k)
        via = _via(legs)
        # from the fused keys and scores: building the ledger's items (a record per vote) for every candidate
        # only to keep the first ``limit`` grew with the candidates
        best = zip(fused.keys[:limit], fused.fused_scores[:limit], strict=True)
        hits = tuple(Hit(key, score, rank, via.get(key, "")) for rank, (key, score) in enumerate(best, 1))
        return MethodResult(hits, legs, outcome.failed)


class RetrievalMethod(Protocol):
    """What the engine calls: a named search over one collection, returning ranked hits and its legs.

    Attributes
    ----------
    name : str
        The registry name.
    collection : str
        The collection its hits belong to (``chunks``, ``entities`` or ``communities``).

    A method that needs more of the store than :class:`SearchableGraphStore` declares
    ``requires`` (:class:`~agrag_lab.retrieval.capabilities.Requiring`); the engine checks
    it once per run. The engine passes its embedder to every method (a method that embeds
    text of its own, e.g. keywords, reads it).
    """

    name: str
    collection: str

    def search(
        self,
        query: str,
        vector: np.ndarray | QueryVector,
        limit: int,
        filters: SearchFilters,
        *,
        graph_store: SearchableGraphStore,
        vector_store: VectorStore | None,
        k: float,
        embedder: Embedder | None = None,
    ) -> MethodResult: ...


#: The retriever registry: method name -> method. ``passage`` is the dense leg of ``chunk`` alone,
#: ``keyword`` its keyword (bm25s) leg alone, so a recipe can weigh the two legs apart.
#: Methods over the graph (e.g. ``entity_passages``) add themselves from their own modules,
#: which ``agrag_lab.retrieval`` imports (see :mod:`agrag_lab.retrieval.entity_context`).
REGISTRY: dict[str, RetrievalMethod] = {
    "entity": HybridMethod("entity", "entities"),
    "chunk": HybridMethod("chunk", "chunks"),
    "community": HybridMethod("community", "communities"),
    "passage": HybridMethod("passage", "chunks", keyword=False),
    "keyword": HybridMethod("keyword", "chunks", dense=False),
}
