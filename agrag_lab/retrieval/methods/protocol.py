"""What a retrieval method is: the request it answers, the result it returns, and the store it reads.

ranx keeps one fusion per module and their shared types apart; so do the methods here.
A method (:class:`RetrievalMethod`) answers a :class:`MethodRequest` (the query, its
vector, the candidate limit, the filters, the stores, RRF's ``k`` and the engine's
embedder) with a :class:`MethodResult` (its hits and each leg's). It reads the store
through :class:`SearchableGraphStore`; a method that needs more declares ``requires``
(:mod:`agrag_lab.retrieval.capabilities`), which the engine checks once per run.

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

from agrag_lab.documents import Chunk
from agrag_lab.embedding import Embedder, embed_query_with
from agrag_lab.errors import EmbedderError
from agrag_lab.index.records import CollectionRecords
from agrag_lab.kg.graph_store import Capability, GraphStore, WholeGraph
from agrag_lab.kg.scope import GraphScope
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.trace import Hit
from agrag_lab.retrieval.tracing import Tracer
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.vectors import VectorStore, Where

__all__ = ["MethodRequest", "MethodResult", "QueryVector", "RetrievalMethod", "SearchableGraphStore", "embed_query"]

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

    def passages(self) -> list[Chunk]:
        """The current passages (chunks) in corpus order."""
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
    #: Makes the vector with other texts' in one model call (:meth:`with_texts`), for ``source``, the embedder.
    batch: Callable[[Sequence[str]], tuple[np.ndarray, np.ndarray]] | None = field(
        default=None, repr=False, compare=False)
    source: object = field(default=None, repr=False, compare=False)
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
    def lazy(
        cls, make: Callable[[], np.ndarray],
        batch: Callable[[Sequence[str]], tuple[np.ndarray, np.ndarray]] | None = None, source: object = None,
    ) -> QueryVector:
        """A vector made by ``make()`` on first use, once (its error kept, as :meth:`failed`'s); or, when
        :meth:`with_texts` asks first with ``source`` (the embedder ``make`` embeds with), by
        ``batch(texts)``, which embeds the query and ``texts`` in one model call.

        Examples
        --------
        >>> calls = []
        >>> v = QueryVector.lazy(lambda: calls.append(1) or np.ones(2))
        >>> len(calls), v.pending
        (0, True)
        >>> v.get().tolist(), v.get().tolist(), len(calls)
        ([1.0, 1.0], [1.0, 1.0], 1)
        """
        return cls(None, None, make, batch, source)

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

    def with_texts(self, texts: Sequence[str], embedder: Embedder) -> tuple[np.ndarray, np.ndarray]:
        """The vector, and ``embedder.embed(texts)``; in one model call when the vector is still to be made by
        ``embedder`` (:meth:`lazy`'s ``batch``), else the vector and a call for ``texts``.

        Raises
        ------
        EmbedderError
            The query could not be embedded (as :meth:`get`).

        Examples
        --------
        >>> calls = []
        >>> def batch(texts):
        ...     calls.append(len(texts))
        ...     return np.ones(2), np.zeros((len(texts), 2))
        >>> model = object()  # the embedder the query is embedded with
        >>> v = QueryVector.lazy(lambda: np.ones(2), batch, source=model)
        >>> q, m = v.with_texts(["a", "b"], model)
        >>> q.tolist(), m.shape, calls, v.pending
        ([1.0, 1.0], (2, 2), [2], False)
        """
        if texts:
            with self._lock:
                batch = self.batch if self.make is not None and self.source is embedder else None
                if batch is not None:
                    try:
                        vector, vectors = batch(texts)
                    except Exception:  # the query alone, below, keeps its own error as get() does
                        pass
                    else:
                        object.__setattr__(self, "vector", vector)
                        object.__setattr__(self, "make", None)
                        return vector, vectors
        vector = self.get()
        return vector, embedder.embed(texts) if texts else np.zeros((0, len(vector)), dtype=np.float32)

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
    could not be made (the legs that need it fail, not the search). A method that embeds other texts with the
    query (:meth:`QueryVector.with_texts`) makes it in the same model call, when it is first to ask.

    The engine and its entity API embed every query here, in a span ``embed`` of ``tracer`` that nests where
    the vector was first asked for, whichever thread makes it.
    """
    opened = contextvars.copy_context()

    def make() -> np.ndarray:
        with tracer.span("embed"):
            vector: np.ndarray = embedder.embed_query(text)
            return vector

    def batch(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        with tracer.span("embed"):
            return embed_query_with(embedder, text, texts)

    return QueryVector.lazy(lambda: opened.run(make), lambda texts: opened.run(batch, texts), embedder)


@dataclass(frozen=True)
class MethodResult:
    """A method's fused hits, the legs that answered, and the legs that failed (leg -> why)."""

    hits: tuple[Hit, ...]
    legs: Mapping[str, tuple[Hit, ...]]
    failed_legs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class MethodRequest:
    """What the engine asks of a method: one query, answered from the stores of one run.

    Attributes
    ----------
    query : str
        The query text.
    vector : QueryVector
        Its embedding, or why it could not be made (only the legs that need it fail).
    limit : int
        Candidates to return, best first.
    filters : SearchFilters
        Applied inside every query of the method.
    graph_store : SearchableGraphStore
        The search store of the run.
    vector_store : VectorStore or None
        Where the dense legs search; None: the graph store's native search.
    k : float
        RRF's ``k`` for a method that fuses legs of its own.
    embedder : Embedder or None
        The engine's embedder, for a method that embeds text of its own (keywords).
    """

    query: str
    vector: QueryVector
    limit: int
    filters: SearchFilters
    graph_store: SearchableGraphStore
    vector_store: VectorStore | None
    k: float
    embedder: Embedder | None = None


class RetrievalMethod(Protocol):
    """What the engine calls: a named search over one collection, returning ranked hits and its legs.

    A method that needs more of the store than :class:`SearchableGraphStore` declares
    ``requires`` (:class:`~agrag_lab.retrieval.capabilities.Requiring`); the engine checks
    it once per run.

    Attributes
    ----------
    name : str
        The registry name.
    collection : str
        The collection its hits belong to (``chunks``, ``entities`` or ``communities``).
    """

    name: str
    collection: str

    def search(self, request: MethodRequest) -> MethodResult:
        """The hits of ``request``, best first, with each leg's (raises ``RetrievalMethodError`` when every leg fails)."""
        ...
