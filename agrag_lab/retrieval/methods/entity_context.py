"""Context from the entities nearest a query: their passages and community reports.

This is the selection of Microsoft GraphRAG's local search
(``graphrag/query/structured_search/local_search/mixed_context.py``,
``LocalSearchMixedContext.build_context``; graphrag 3.3.0), as two retrieval
methods of the registry so every step lands in the ledger:

- ``entity_passages``: the entities whose vectors are nearest the query
  (GraphRAG's ``map_query_to_entities``: ``top_k_mapped_entities`` 10 times its
  ``oversample_scaler`` 2, so 20), then the passages that mention them, ranked
  by :func:`rank_passages` (GraphRAG's ``_build_text_unit_context``).
- ``entity_reports``: the community reports of those entities' communities,
  ranked by :func:`rank_reports` (GraphRAG's ``_build_community_context``).

Each method's legs are the mapped entities (``entities``, with their dense
scores) and its ranked output, so the ledger shows which entity brought which
passage. The pure rules are :func:`rank_passages` and :func:`rank_reports`; the
store reads are in the method classes. ``docs/peers/GRAPHRAG_LOCAL.md`` lists
every difference from GraphRAG.

Examples
--------
Passages come in the order of the entity that first brings them, then by how
many of that entity's relations they support:

>>> rank_passages(["e1", "e2"], {"e1": ["c2", "c1"], "e2": ["c1", "c3"]},
...               {"e1": [("c1",), ("c1", "c2")], "e2": [("c3",)]})
[('c1', 0, 2), ('c2', 0, 1), ('c3', 1, 1)]

Reports by how many mapped entities their community holds, then rating:

>>> rank_reports(["e1", "e2"], {"e1": ["k1", "k2"], "e2": ["k2"]}, {"k1": 9.0, "k2": 1.0})
[('k2', 2, 1.0), ('k1', 1, 9.0)]
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from agrag_lab.errors import RetrievalMethodError
from agrag_lab.kg.communities import LISTED_LEVEL
from agrag_lab.kg.facets import FACET_MARK, best_per_owner
from agrag_lab.kg.graph_store import Capability
from agrag_lab.kg.scope import GraphScope
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods.dense import FACETS_PER_ITEM, entity_dense_search
from agrag_lab.retrieval.methods.protocol import MethodRequest, MethodResult, QueryVector, SearchableGraphStore
from agrag_lab.retrieval.trace import Hit
from agrag_lab.scope_compiler import compile_filters
from agrag_lab.storage.vectors import VectorStore

__all__ = [
    "LOCAL_COMMUNITY_LEVEL", "MAPPED_ENTITIES", "EntityPassages", "EntityReports", "in_communities", "rank_passages",
    "rank_reports",
]

#: Entities mapped to a query: GraphRAG's ``top_k_mapped_entities`` (10) times its
#: ``oversample_scaler`` (2) in ``map_query_to_entities``; with no exclusions all are kept.
MAPPED_ENTITIES = 20
#: GraphRAG's ``community_level`` for local search (``graphrag query``'s default, 2).
LOCAL_COMMUNITY_LEVEL = 2


def in_communities(
    entities: Sequence[Hit], communities_of: Mapping[str, Sequence[tuple[str, int]]], max_level: int,
    listed: Mapping[str, int] | None = None,
) -> tuple[Hit, ...]:
    """The mapped entities GraphRAG's local search can use: those in a community at ``level <= max_level``, or
    listed by the builder's node table at such a level (``listed``: entity -> lowest level, 0.x and 1.x outputs).

    GraphRAG's ``read_indexer_entities`` (2.x, 3.x) joins entities to their communities and keeps the
    rows with ``level <= community_level``: an entity in no such community is not in its
    entity table, so ``map_query_to_entities`` finds it in the vector store and drops it. 0.x and 1.x read
    ``create_final_nodes`` instead, which lists every entity at each level (community ``-1`` outside every
    community), and keep the rows at ``level <= community_level``: such an entity stays
    (:data:`~agrag_lab.kg.communities.LISTED_LEVEL`).
    A graph with no communities at all keeps every entity (nothing to join). Ranks restart at 1.

    Examples
    --------
    >>> hits = (Hit("a", 0.9, 1), Hit("b", 0.8, 2), Hit("c", 0.7, 3))
    >>> [h.key for h in in_communities(hits, {"a": [("k", 0)], "c": [("k", 3)]}, 2)]
    ['a']
    >>> [h.key for h in in_communities(hits, {"a": [("k", 0)], "c": [("k", 3)]}, 2, {"b": 0, "c": 0})]
    ['a', 'b', 'c']
    """
    if not any(communities_of.values()):
        return tuple(entities)
    listed = listed or {}
    kept = [h for h in entities if any(level <= max_level for _, level in communities_of.get(h.key, ()))
            or listed.get(h.key, max_level + 1) <= max_level]
    return tuple(Hit(h.key, h.score, rank) for rank, h in enumerate(kept, 1))


def rank_passages(
    entities: Sequence[str],
    passages_of: Mapping[str, Sequence[str]],
    relation_passages_of: Mapping[str, Sequence[Sequence[str]]],
) -> list[tuple[str, int, int]]:
    """Passages of ``entities`` as GraphRAG's local search orders its text units.

    Each passage is taken once, by the first entity (in ``entities`` order)
    that mentions it; it is ranked by that entity's position, then by how many
    of that entity's relations it supports (more first); ties keep the
    entity's own passage order (a stable sort, as GraphRAG's).

    Returns
    -------
    list of (passage, entity position, relation count)
    """
    seen: set[str] = set()
    info: list[tuple[str, int, int]] = []
    for index, entity in enumerate(entities):
        relations = relation_passages_of.get(entity, ())
        for passage in passages_of.get(entity, ()):
            if passage in seen:
                continue
            seen.add(passage)
            info.append((passage, index, sum(1 for chunks in relations if passage in chunks)))
    info.sort(key=lambda x: (x[1], -x[2]))
    return info


def rank_reports(
    entities: Sequence[str],
    communities_of: Mapping[str, Sequence[str]],
    rating: Mapping[str, float | None],
) -> list[tuple[str, int, float]]:
    """Community reports of ``entities`` as GraphRAG's local search orders them.

    A community counts one match per mapped entity it holds; reports are sorted
    by (matches, rating), highest first, ties in first-seen order (a stable
    sort). Communities without a report (``rating`` lacks them) are left out.

    Returns
    -------
    list of (community id, matches, rating)
    """
    matches: dict[str, int] = {}
    for entity in entities:
        for community in communities_of.get(entity, ()):
            matches[community] = matches.get(community, 0) + 1
    found = [(c, n, float(rating[c] or 0.0)) for c, n in matches.items() if c in rating]
    found.sort(key=lambda x: (x[1], x[2]), reverse=True)
    return found


def _nearest_entities(
    vector: np.ndarray | QueryVector, filters: SearchFilters, graph_store: SearchableGraphStore,
    vector_store: VectorStore | None,
) -> tuple[Hit, ...]:
    """The :data:`MAPPED_ENTITIES` entities nearest the query vector (each by its best record).

    On a graph whose relations its builder described (an imported GraphRAG or LightRAG index)
    an entity is mapped by its own record only, as GraphRAG maps entities by their
    ``title:description`` embedding: the relation records are not entity records there.
    """
    where, _ = compile_filters("entities", filters, graph_store)
    own_only = graph_store.described_relations()
    want = MAPPED_ENTITIES * FACETS_PER_ITEM
    while True:
        found = entity_dense_search(vector, want, where, filters, graph_store, vector_store)
        kept = [(k, s) for k, s in found if FACET_MARK not in k] if own_only else found
        if not own_only or len(best_per_owner(kept)) >= MAPPED_ENTITIES or len(found) < want:
            break
        want *= 4
    pairs = best_per_owner(kept)[:MAPPED_ENTITIES]
    return tuple(Hit(key, float(score), rank) for rank, (key, score) in enumerate(pairs, 1))


#: What the query maps to: nearest entities, those in communities, their communities, the scope.
EntityMapping = tuple[tuple[Hit, ...], tuple[Hit, ...], dict[str, list[tuple[str, int]]], GraphScope]


@dataclass
class _SharedMapping:
    """The mapping of one request, made once by whichever of the two methods asks first (the other waits)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    value: EntityMapping | None = None
    error: BaseException | None = None
    entities_failed: bool = False


#: One :class:`_SharedMapping` per live request (by its id; dropped when the request is).
_SHARED: dict[int, _SharedMapping] = {}
_SHARED_LOCK = threading.Lock()


def _shared(request: MethodRequest) -> _SharedMapping:
    with _SHARED_LOCK:
        shared = _SHARED.get(id(request))
        if shared is None:
            shared = _SHARED[id(request)] = _SharedMapping()
            weakref.finalize(request, _SHARED.pop, id(request), None)
    return shared


def _map(request: MethodRequest, shared: _SharedMapping) -> EntityMapping:
    store, filters = request.graph_store, request.filters
    try:
        nearest = _nearest_entities(request.vector, filters, store, request.vector_store)
    except Exception:
        shared.entities_failed = True
        raise
    scope = store.graph_scope(filters)
    communities_of = {
        h.key: [(o.community.id, o.community.level) for o in store.communities_of([h.key], scope=scope)]
        for h in nearest
    }
    listed: dict[str, int] = {}  # those in no community up to the level: does the builder's node table list them?
    for hit in nearest if any(communities_of.values()) else ():
        if any(level <= LOCAL_COMMUNITY_LEVEL for _, level in communities_of[hit.key]):
            continue
        entity = store.entity(hit.key, scope)
        level = dict(entity.attributes).get(LISTED_LEVEL) if entity is not None else None
        if level is not None:
            listed[hit.key] = int(level)
    return nearest, in_communities(nearest, communities_of, LOCAL_COMMUNITY_LEVEL, listed), communities_of, scope


def _mapped_entities(name: str, request: MethodRequest) -> EntityMapping:
    """Nearest entities, those GraphRAG can use (:func:`in_communities`), their communities, the scope.

    Both methods of a run read the same mapping (GraphRAG's local search maps the query once): it is made
    once per request, by the first to ask, and read by the other (its failure too).
    """
    shared = _shared(request)
    with shared.lock:
        if shared.value is None and shared.error is None:
            try:
                shared.value = _map(request, shared)
            except Exception as exc:
                shared.error = exc
    if shared.value is not None:
        return shared.value
    cause = shared.error if shared.error is not None else RuntimeError("the query was not mapped to entities")
    if shared.entities_failed:
        raise RetrievalMethodError(name, {"entities": cause}) from cause
    raise cause


class EntityPassages:
    """Method ``entity_passages``: passages of the entities nearest the query (GraphRAG local's text units)."""

    name = "entity_passages"
    collection = "chunks"
    requires: frozenset[Capability] = frozenset()  # the GraphStore reads of either store

    def search(self, request: MethodRequest) -> MethodResult:
        """Map the query to entities, then rank their passages (see :func:`rank_passages`).

        Raises
        ------
        RetrievalMethodError
            The query has no vector.
        """
        store, limit = request.graph_store, request.limit
        nearest, entities, _, scope = _mapped_entities(self.name, request)
        passages_of: dict[str, tuple[str, ...]] = {}
        relations_of: dict[str, list[tuple[str, ...]]] = {}
        for hit in entities:
            entity = store.entity(hit.key, scope)
            passages_of[hit.key] = tuple(entity.chunk_ids) if entity is not None else ()
            relations_of[hit.key] = [tuple(e.chunk_ids) for e in store.neighbours(hit.key, scope=scope)]
        score = {h.key: h.score for h in entities}
        ranked = rank_passages([h.key for h in entities], passages_of, relations_of)
        order = [h.key for h in entities]
        hits = tuple(Hit(p, score[order[i]], rank) for rank, (p, i, _) in enumerate(ranked[:limit], 1))
        return MethodResult(hits, {"nearest_entities": nearest, "entities": entities, "passages": hits})


class EntityReports:
    """Method ``entity_reports``: reports of the communities of the entities nearest the query."""

    name = "entity_reports"
    collection = "communities"
    requires: frozenset[Capability] = frozenset()  # the GraphStore reads of either store

    def search(self, request: MethodRequest) -> MethodResult:
        """Map the query to entities, then rank their communities' reports (see :func:`rank_reports`).

        Raises
        ------
        RetrievalMethodError
            The query has no vector.
        """
        store, limit = request.graph_store, request.limit
        nearest, entities, communities, scope = _mapped_entities(self.name, request)
        communities_of = {
            key: [c for c, level in found if level <= LOCAL_COMMUNITY_LEVEL] for key, found in communities.items()
        }
        rating = {r.community_id: r.rating for r in store.reports(scope)}
        ranked = rank_reports([h.key for h in entities], communities_of, rating)
        hits = tuple(Hit(c, float(n), rank) for rank, (c, n, _) in enumerate(ranked[:limit], 1))
        return MethodResult(hits, {"nearest_entities": nearest, "entities": entities, "reports": hits})
