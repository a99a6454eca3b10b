"""Passages through the graph from a query's keywords: entities by low-level, relations by high-level ones.

This is the selection of LightRAG's knowledge-graph query (lightrag-hku 1.5.7,
``lightrag/operate.py``: ``kg_query`` -> ``_build_query_context`` -> ``_perform_kg_search``,
``_get_node_data``, ``_find_most_related_edges_from_entities``, ``_get_edge_data``,
``_find_most_related_entities_from_relationships``, ``_merge_all_chunks``,
``_find_related_text_unit_from_entities``, ``_find_related_text_unit_from_relations``, with
``kg_chunk_pick_method = "VECTOR"``: ``lightrag/utils.py::pick_by_vector_similarity``), as four
registry methods so every step lands in the ledger:

===========================  =====================  ==============================================
method                       LightRAG mode          what it searches
===========================  =====================  ==============================================
``keyword_entities``         ``local``              entities by the low-level keywords
``keyword_relations``        ``global``             relations by the high-level keywords
``keyword_graph``            ``hybrid``             both, interleaved
``keyword_graph_passages``   ``mix``                both, and the passages nearest the query
===========================  =====================  ==============================================

Steps (each a leg of the method's ledger entry):

1. keywords (:mod:`agrag_lab.retrieval.query_keywords`: an LLM when one is configured, else the
   offline rule; legs ``keyword_source``, ``low_keywords``, ``high_keywords``). With neither list,
   a query under 50 characters is its own low-level keyword (LightRAG's rule).
2. ``entities``: the :data:`TOP_K` entity records nearest the low-level keywords joined by ``", "``
   (cosine at least :data:`COSINE_THRESHOLD`), then the relations of those entities, by
   (sum of the two ends' degrees, weight), highest first (:func:`relations_by_degree`).
3. ``relations``: the :data:`TOP_K` relation records nearest the high-level keywords, then their
   ends in order (:func:`ends_of`).
4. hybrid and mix interleave the two entity lists and the two relation lists (:func:`interleave`).
5. ``entity_passages``: the passages of the entities, the ``int(5 * entities / 2)`` nearest the
   query; ``relation_passages``: those of the relations not already taken, likewise
   (:func:`pick_passages`); mix's ``vector_passages``: the :data:`CHUNK_TOP_K` passages nearest the
   query. The result interleaves vector, entity and relation passages, cut at the recipe's limit.

A relation record is a *facet* of the ``entities`` collection (LightRAG's
``keywords<TAB>source<NL>target<NL>description`` on an imported LightRAG index,
``source<NL>target<NL>description`` for a relationship GraphRAG described, a relation
sentence on our rule graph); :func:`~agrag_lab.index.records.relation_facets` reads it back as
its relation. ``docs/peers/LIGHTRAG_*.md`` list every difference from LightRAG.

Examples
--------
LightRAG's round robin keeps each key once, first list first at each position:

>>> interleave(["a", "b"], ["b", "c", "d"])
['a', 'b', 'c', 'd']

Passages of a group are pooled, then the nearest to the query are kept (5 per 2 groups):

>>> pick_passages([["c1", "c2"], ["c2", "c3"]], {"c1": 0.1, "c2": 0.9, "c3": 0.5})
(['c2', 'c3', 'c1'], 2)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import numpy as np

from agrag_lab.errors import RetrievalMethodError
from agrag_lab.index.records import relation_facets
from agrag_lab.kg.described import BUILDER_ORDER
from agrag_lab.kg.facets import FACET_MARK, facet_owner
from agrag_lab.kg.graph_store import WHOLE_GRAPH, Capability
from agrag_lab.kg.model import Edge
from agrag_lab.kg.scoped_entities import VectorReader, nearest, passage_means
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods.dense import dense_search
from agrag_lab.retrieval.methods.protocol import MethodRequest, MethodResult, QueryVector, SearchableGraphStore
from agrag_lab.retrieval.query_keywords import Keywords, query_keywords
from agrag_lab.retrieval.trace import Hit
from agrag_lab.scope_compiler import compile_filters
from agrag_lab.storage.vectors import VectorStore, Where

__all__ = [
    "CHUNK_TOP_K", "COSINE_THRESHOLD", "RELATED_CHUNK_NUMBER", "TOP_K", "KeywordGraph", "ends_of", "interleave",
    "pick_passages", "relation_key", "relations_by_degree",
]

#: Entities and relations each keyword search keeps (LightRAG ``QueryParam.top_k``, ``DEFAULT_TOP_K``).
TOP_K = 40
#: Passages mix's vector search keeps (``chunk_top_k``, ``DEFAULT_CHUNK_TOP_K``); the recipes' limit too.
CHUNK_TOP_K = 20
#: Lowest cosine a vector hit may have (LightRAG's ``cosine_better_than_threshold``, 0.2).
COSINE_THRESHOLD = 0.2
#: Passages per entity or relation the passage pick aims at, halved (``related_chunk_number``, 5).
RELATED_CHUNK_NUMBER = 5
#: A query this short with no keywords is its own low-level keyword (``kg_query``).
SHORT_QUERY_CHARS = 50


def relation_key(edge: Edge) -> str:
    """A relation's ledger key, ``source|target|type`` (as an imported relationship's alias names it)."""
    return "|".join(edge.key)


def interleave(*lists: Sequence[str]) -> list[str]:
    """Round robin over ``lists`` (position by position, in list order), each key once."""
    out: list[str] = []
    seen: set[str] = set()
    for i in range(max((len(x) for x in lists), default=0)):
        for items in lists:
            if i < len(items) and items[i] not in seen:
                seen.add(items[i])
                out.append(items[i])
    return out


def relations_by_degree(
    entities: Sequence[str], edges_of: Mapping[str, Sequence[Edge]], degree: Mapping[str, int],
    weight: Callable[[Edge], float],
) -> list[Edge]:
    """The relations of ``entities`` (each once, first by entity order, an entity's relations in its builder's
    order where the import kept it, :data:`~agrag_lab.kg.described.BUILDER_ORDER`), by (sum of the ends'
    degrees, weight), highest first; a stable sort (LightRAG's ``_find_most_related_edges_from_entities``)."""
    found: list[Edge] = []
    seen: set[tuple[str, ...]] = set()
    for entity in entities:
        for edge in sorted(edges_of.get(entity, ()), key=_builder_order):
            pair = tuple(sorted((edge.source, edge.target)))
            if pair not in seen:
                seen.add(pair)
                found.append(edge)
    return sorted(found, key=lambda e: (degree.get(e.source, 0) + degree.get(e.target, 0), weight(e)), reverse=True)


def _builder_order(edge: Edge) -> float:
    """The relation's place in its builder's graph file (every relation of a graph without one: equal)."""
    value = dict(edge.attributes).get(BUILDER_ORDER)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def ends_of(relations: Sequence[Edge]) -> list[str]:
    """The entities at the ends of ``relations``, source then target, each once
    (LightRAG's ``_find_most_related_entities_from_relationships``)."""
    return interleave([end for edge in relations for end in (edge.source, edge.target)])


def pick_passages(
    groups: Sequence[Sequence[str]], similarity: Mapping[str, float], exclude: Collection[str] = (),
    *, drop_empty: bool = False,
) -> tuple[list[str], int]:
    """Passages of ``groups`` (an entity's or a relation's passages), the nearest to the query first.

    Each passage counts once (the first group that has it), ``exclude`` is left out; the
    pool is sorted by ``similarity`` (highest first, then by key) and cut at
    ``int(RELATED_CHUNK_NUMBER * groups / 2)``, ``groups`` counting the groups with passages
    (``drop_empty``: after the exclusion, as LightRAG counts relations; else before, as it counts
    entities). Returns the passages and that group count (LightRAG's ``pick_by_vector_similarity``).
    """
    seen: set[str] = set()
    counted = 0
    for group in groups:
        own = [p for p in group if p not in exclude and p not in seen]
        seen.update(own)
        if own or (group and not drop_empty):
            counted += 1
    want = int(RELATED_CHUNK_NUMBER * counted / 2)
    pool = sorted(seen, key=lambda p: (-similarity.get(p, -1.0), p))
    return pool[:want], counted


_NAMES: weakref.WeakKeyDictionary[Any, tuple[str, ...]] = weakref.WeakKeyDictionary()
_PASSAGE_COUNT: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def _names(store: SearchableGraphStore) -> tuple[str, ...]:
    if store not in _NAMES:
        _NAMES[store] = tuple(n for e in store.entities() for n in (e.name, *e.aliases))
    return _NAMES[store]


def _weight(edge: Edge) -> float:
    value = dict(edge.attributes).get("weight")
    return float(value) if isinstance(value, int | float) else 1.0


def _ranked(pairs: Sequence[tuple[str, float]]) -> tuple[Hit, ...]:
    return tuple(Hit(k, float(s), r) for r, (k, s) in enumerate(pairs, 1))


def _scoped_records(
    vector: np.ndarray, keep: Callable[[str], bool], store: SearchableGraphStore, vector_store: VectorStore | None,
    filters: SearchFilters,
) -> list[tuple[str, float]]:
    """Under a document scope: entities and relation facets ``keep`` accepts, each ranked by the mean of its
    passages in scope (issue 31: the stored records average every document's passages)."""
    scope = store.graph_scope(filters)
    reader: VectorReader = vector_store if vector_store is not None else store
    whole = store.whole_graph("a keyword-graph method")
    allowed = store.visible_items("entities", filters) if filters.labels is not None else None
    groups: list[tuple[str, Sequence[str]]] = [
        (e.id, e.chunk_ids) for e in store.entities(scope) if keep(e.id) and (allowed is None or e.id in allowed)]
    for record, edge in relation_facets(whole).items():
        if (keep(record) and (allowed is None or facet_owner(record) in allowed)
                and (shown := whole.visible_edge(edge, scope)) is not None):
            groups.append((record, shown.chunk_ids))
    return nearest(passage_means(groups, reader), vector, len(groups))


def _nearest_records(
    vector: np.ndarray, want: int, keep: Callable[[str], bool], where: Where | None, store: SearchableGraphStore,
    vector_store: VectorStore | None, filters: SearchFilters | None = None,
) -> list[tuple[str, float]]:
    """Up to ``want`` records of the entities collection that ``keep`` accepts, cosine >= the threshold.

    Under a document scope they are ranked by their in-scope passages only (:func:`_scoped_records`).
    """
    if filters is not None and filters.restricts_documents:
        return [(k, s) for k, s in _scoped_records(vector, keep, store, vector_store, filters)
                if s >= COSINE_THRESHOLD][:want]
    asked = want * 4
    while True:
        found = dense_search("entities", vector, asked, where, store, vector_store)
        kept = [(k, s) for k, s in found if s >= COSINE_THRESHOLD and keep(k)]
        if len(kept) >= want or len(found) < asked or (found and found[-1][1] < COSINE_THRESHOLD):
            return kept[:want]
        asked *= 4


def _passage_similarity(
    ids: Collection[str], vector: np.ndarray, store: SearchableGraphStore, vector_store: VectorStore | None,
) -> dict[str, float]:
    """Cosine of each passage in ``ids`` with the query (the passages' stored vectors)."""
    if not ids:
        return {}
    if vector_store is not None:
        try:
            return dict(vector_store.query("chunks", vector, len(ids), None, ids=sorted(ids)))
        except TypeError:  # a vector store without an id filter: search it whole below
            pass
    if store not in _PASSAGE_COUNT:  # listing the passages reads the whole index: once per store
        _PASSAGE_COUNT[store] = len(store.records("chunks").ids)
    total = _PASSAGE_COUNT[store]
    return {k: s for k, s in dense_search("chunks", vector, total, None, store, vector_store) if k in ids}


class KeywordGraph:
    """A keyword-graph method (see the module docstring): ``entities`` (low-level keywords),
    ``relations`` (high-level ones), ``passages`` (the query's nearest passages too).

    ``keywords`` makes a query's :class:`Keywords` from the query and the graph's entity names
    (default :func:`~agrag_lab.retrieval.query_keywords.query_keywords`).
    """

    collection = "chunks"
    #: Relation records are read from the graph held in process.
    requires: frozenset[Capability] = frozenset({WHOLE_GRAPH})

    def __init__(
        self, name: str, *, entities: bool, relations: bool, passages: bool = False,
        keywords: Callable[[str, Sequence[str]], Keywords] | None = None,
    ) -> None:
        self.name = name
        self.entities = entities
        self.relations = relations
        self.passages = passages
        self.keywords = keywords or query_keywords

    def search(self, request: MethodRequest) -> MethodResult:
        """Keywords, then entities and relations, then their passages (see the module docstring).

        Raises
        ------
        RetrievalMethodError
            The query has no vector, no embedder was given, or the LLM asked for keywords failed.
        MissingCapabilityError
            The store has not the whole graph (a graph served by FalkorDB; the engine refuses before).
        """
        query, vector, limit = request.query, request.vector, request.limit
        filters, graph_store, vector_store, embedder = request.filters, request.graph_store, request.vector_store, request.embedder
        store = graph_store
        whole = store.whole_graph(f"the {self.name} method")
        if embedder is None:
            raise RetrievalMethodError(self.name, {"keywords": TypeError(
                f"the {self.name} method embeds the query's keywords and needs the engine's embedder; "
                "run it through SearchEngine.run")})
        try:
            query_vector = QueryVector.of(vector).get()
            words = self.keywords(query, _names(store))
        except Exception as exc:
            raise RetrievalMethodError(self.name, {"keywords": exc}) from exc
        low, high = list(words.low), list(words.high)
        if not low and not high and len(query) < SHORT_QUERY_CHARS:
            low = [query]
        scope = store.graph_scope(filters)
        where, _ = compile_filters("entities", filters, store)
        # LightRAG's branches: a mode whose own keywords are missing runs as hybrid (_perform_kg_search)
        local_only = self.entities and not self.relations and bool(low)
        global_only = self.relations and not self.entities and bool(high)
        use_low = bool(low) and (local_only or not global_only)
        use_high = bool(high) and (global_only or not local_only)
        legs: dict[str, tuple[Hit, ...]] = {
            "keyword_source": (Hit(words.source, 1.0, 1),),
            "low_keywords": tuple(Hit(w, 1.0 / r, r) for r, w in enumerate(low, 1)),
            "high_keywords": tuple(Hit(w, 1.0 / r, r) for r, w in enumerate(high, 1)),
        }
        entity_score: dict[str, float] = {}
        local_entities: list[str] = []
        local_relations: list[Edge] = []
        if use_low:
            found = _nearest_records(embedder.embed_query(", ".join(low)), TOP_K, lambda r: FACET_MARK not in r,
                                     where, store, vector_store, filters)
            found = [(key, s) for key, s in found if store.entity(key, scope) is not None]
            entity_score.update(found)
            local_entities = [key for key, _ in found]
            edges_of = {e: store.neighbours(e, scope=scope) for e in local_entities}
            degree = {e: len(store.neighbours(e, scope=scope))
                      for e in {end for edges in edges_of.values() for x in edges for end in (x.source, x.target)}}
            local_relations = relations_by_degree(local_entities, edges_of, degree, _weight)
        global_entities: list[str] = []
        global_relations: list[Edge] = []
        relation_score: dict[str, float] = {}
        if use_high:
            facets = relation_facets(whole)
            found = _nearest_records(embedder.embed_query(", ".join(high)), TOP_K * 2, lambda r: r in facets,
                                     where, store, vector_store, filters)
            for record, s in found:
                edge = whole.visible_edge(facets[record], scope)
                if edge is not None and relation_key(edge) not in relation_score and len(relation_score) < TOP_K:
                    relation_score[relation_key(edge)] = s
                    global_relations.append(edge)
            global_entities = [e for e in ends_of(global_relations) if store.entity(e, scope) is not None]
        entity_order = interleave(local_entities, global_entities)
        by_key = {relation_key(e): e for e in (*local_relations, *global_relations)}
        relation_order = interleave([relation_key(e) for e in local_relations],
                                    [relation_key(e) for e in global_relations])
        legs["entities"] = tuple(Hit(e, entity_score.get(e, 0.0), r) for r, e in enumerate(entity_order, 1))
        legs["relations"] = tuple(Hit(x, relation_score.get(x, float(_weight(by_key[x]))), r)
                                  for r, x in enumerate(relation_order, 1))
        vector_hits: list[tuple[str, float]] = []
        if self.passages:
            chunk_where, _ = compile_filters("chunks", filters, store)
            found = dense_search("chunks", query_vector, CHUNK_TOP_K, chunk_where, store, vector_store)
            vector_hits = [(key, s) for key, s in found if s >= COSINE_THRESHOLD]
            legs["vector_passages"] = _ranked(vector_hits)
        if not entity_order and not relation_order and not vector_hits:
            return MethodResult((), legs)
        # entities and relations read in the scope carry only the passages it lets through
        entity_groups = [list(shown.chunk_ids) if (shown := store.entity(e, scope)) is not None else []
                         for e in entity_order]
        relation_groups = [list(by_key[x].chunk_ids) for x in relation_order]
        pool = {p for g in (*entity_groups, *relation_groups) for p in g}
        similarity = _passage_similarity(pool, query_vector, store, vector_store)
        entity_passages, _ = pick_passages(entity_groups, similarity)
        relation_passages, _ = pick_passages(relation_groups, similarity, set(entity_passages), drop_empty=True)
        legs["entity_passages"] = _ranked([(p, similarity.get(p, 0.0)) for p in entity_passages])
        legs["relation_passages"] = _ranked([(p, similarity.get(p, 0.0)) for p in relation_passages])
        merged = interleave([key for key, _ in vector_hits], entity_passages, relation_passages)
        score = {**similarity, **dict(vector_hits)}
        hits = tuple(Hit(p, score.get(p, 0.0), r) for r, p in enumerate(merged[:limit], 1))
        return MethodResult(hits, legs)
