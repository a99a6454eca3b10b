"""Passages by personalised PageRank seeded from the facts nearest the query and the dense passage scores.

This is HippoRAG 2's retrieval (OSU-NLP-Group/HippoRAG, ``src/hipporag/HippoRAG.py``:
``retrieve`` -> ``get_fact_scores``, ``rerank_facts``, ``graph_search_with_fact_entities``,
``dense_passage_retrieval``, ``run_ppr``; defaults of ``utils/config_utils.py::BaseConfig``), as the
registry method ``fact_ppr`` with a ledger:

1. ``facts``: every relation record (a fact) scored by cosine with the query, min-max normalised
   over all facts; the :data:`LINKING_TOP_K` best (HippoRAG's ``linking_top_k`` 5). HippoRAG's
   recognition-memory filter (an LLM keeping the relevant facts) is not applied.
2. ``seed_entities``: each end of those facts weighs its fact's score divided by the number of
   passages that mention it, averaged over the facts it ends; the :data:`LINKING_TOP_K` heaviest
   are kept (``get_top_k_weights``).
3. ``dense_passages``: every passage's cosine with the query, min-max normalised, times
   :data:`PASSAGE_NODE_WEIGHT` (0.05), is its restart weight.
4. ``passages``: personalised PageRank with damping :data:`DAMPING` (0.5) over the graph of
   entities and passages (:func:`fact_graph`), restarting at the entity and passage weights;
   passages by their PageRank score (:func:`ppr_passages`). With no fact, the dense order
   (HippoRAG returns ``dense_passage_retrieval``'s then).

Under search filters (a scope, properties, labels, relation types) the walk runs on the part of the
graph they show (:func:`_scoped_graph`, compiled by :mod:`agrag_lab.scope_compiler` as every
method's filters are): the facts are the relations in scope, the passages those in scope, each
entity with its passages in scope; nothing outside is a node, so no PageRank mass reaches it.

``docs/peers/HIPPORAG2.md`` lists every difference from HippoRAG.

Examples
--------
>>> seed_weights([("a", "b", 1.0), ("b", "c", 0.5)], {"a": 1, "b": 2, "c": 1}, top_k=2)
{'a': 1.0, 'c': 0.5}
>>> min_max([2.0, 4.0, 3.0])
[0.0, 1.0, 0.5]
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from agrag_lab.errors import RetrievalMethodError
from agrag_lab.index.records import relation_facets
from agrag_lab.kg.algorithms.pagerank import personalized_pagerank
from agrag_lab.kg.graph_store import WHOLE_GRAPH, Capability, WholeGraph
from agrag_lab.kg.model import Edge
from agrag_lab.kg.scoped_entities import nearest, passage_means
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods.protocol import MethodRequest, MethodResult, QueryVector, SearchableGraphStore
from agrag_lab.retrieval.trace import Hit
from agrag_lab.scope_compiler import compile_filters
from agrag_lab.storage.vectors import Where

if TYPE_CHECKING:
    import scipy.sparse as sp

__all__ = ["DAMPING", "LINKING_TOP_K", "PASSAGE_NODE_WEIGHT", "FactPPR", "fact_graph", "min_max", "ppr_passages",
           "seed_weights"]

#: Facts and seed entities kept (HippoRAG ``linking_top_k``, default 5).
LINKING_TOP_K = 5
#: Scale of the dense passage scores among the restart weights (``passage_node_weight``, 0.05).
PASSAGE_NODE_WEIGHT = 0.05
#: PageRank damping (``damping``, 0.5): the walk restarts with probability ``1 - DAMPING``.
DAMPING = 0.5


def min_max(scores: Sequence[float]) -> list[float]:
    """HippoRAG's ``min_max_normalize``: to [0, 1]; all ones when every score is the same."""
    x = np.asarray(scores, dtype=float)
    if x.size == 0:
        return []
    span = float(x.max() - x.min())
    out: list[float] = np.ones_like(x).tolist() if span == 0 else ((x - x.min()) / span).tolist()
    return out


def seed_weights(facts: Sequence[tuple[str, str, float]], passages_of: Mapping[str, int], top_k: int) -> dict[str, float]:
    """Entity restart weights from the top facts ``(subject, object, score)`` (``graph_search_with_fact_entities``).

    Each end gets ``score / passages mentioning it`` per fact, averaged over its facts; the
    ``top_k`` heaviest are kept (ties: first reached), heaviest first.
    """
    total: dict[str, float] = {}
    count: dict[str, int] = {}
    for subject, obj, score in facts:
        for end in (subject, obj):
            n = passages_of.get(end, 0)
            total[end] = total.get(end, 0.0) + (score / n if n else score)
            count[end] = count.get(end, 0) + 1
    mean = {e: total[e] / count[e] for e in total}
    return dict(sorted(mean.items(), key=lambda x: x[1], reverse=True)[:top_k])


def fact_graph(
    entities: Sequence[str], passages: Sequence[str], edges: Sequence[Edge],
    mentions: Mapping[str, Sequence[str]],
) -> sp.csr_array:
    """HippoRAG's graph as a symmetric weight matrix over ``entities + passages``.

    Entity-entity: a relation weighs its supporting passages (HippoRAG counts the triples
    naming the pair), twice (HippoRAG adds both directions to its undirected graph);
    entity-passage: 1 per mention (``add_passage_edges``).
    """
    index = {key: i for i, key in enumerate((*entities, *passages))}
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for edge in edges:
        a, b = index.get(edge.source), index.get(edge.target)
        if a is None or b is None or a == b:
            continue
        w = 2.0 * max(1, len(edge.chunk_ids))
        rows += [a, b]
        cols += [b, a]
        vals += [w, w]
    for entity, chunk_ids in mentions.items():
        e = index.get(entity)
        for chunk in chunk_ids:
            p = index.get(chunk)
            if e is not None and p is not None:
                rows += [e, p]
                cols += [p, e]
                vals += [1.0, 1.0]
    n = len(index)
    import scipy.sparse as sp  # here, not at start: scipy is 0.3 s of a search that runs no walk (issue 30)

    return sp.coo_array((vals, (rows, cols)), shape=(n, n)).tocsr()


def ppr_passages(matrix: sp.csr_array, weights: np.ndarray, n_entities: int, damping: float = DAMPING) -> np.ndarray:
    """PageRank score of each passage node (nodes after ``n_entities``), restarting at ``weights``."""
    return personalized_pagerank(matrix, np.clip(np.nan_to_num(weights), 0, None), restart=1.0 - damping)[n_entities:]


_GRAPHS: weakref.WeakKeyDictionary[Any, tuple[tuple[str, ...], tuple[str, ...], sp.csr_array]] = (
    weakref.WeakKeyDictionary())
_RECORDS: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def _record_count(store: SearchableGraphStore) -> int:
    """Records in the entities collection, counted once per store (listing them reads the whole index)."""
    if store not in _RECORDS:
        _RECORDS[store] = len(store.records("entities").ids)
    return _RECORDS[store]


class FactPPR:
    """Method ``fact_ppr`` (see the module docstring)."""

    name = "fact_ppr"
    collection = "chunks"
    #: The PageRank matrix is built from every entity, relation and passage: the graph held in process.
    requires: frozenset[Capability] = frozenset({WHOLE_GRAPH})

    def search(self, request: MethodRequest) -> MethodResult:
        """Facts, seed entities, dense passage weights, then the walk.

        Raises
        ------
        RetrievalMethodError
            The query has no vector.
        MissingCapabilityError
            The store has not the whole graph (a graph served by FalkorDB; the engine refuses before).
        """
        vector, limit, filters, graph_store = request.vector, request.limit, request.filters, request.graph_store
        store = graph_store
        whole = store.whole_graph(f"the {self.name} method")
        try:
            q = QueryVector.of(vector).get()
        except Exception as exc:
            raise RetrievalMethodError(self.name, {"dense": exc}) from exc
        view = self._graph(store, whole) if not _scoped(filters) else _scoped_graph(store, whole, filters)
        entities, passages, matrix = view.entities, view.passages, view.matrix
        facts = relation_facets(whole)
        # 1. facts: every relation record in scope, min-max normalised (one record per relation: its first end's)
        if view.edges is None:
            found = store.similarity_search("entities", q, _record_count(store))
        else:  # a stored fact vector averages the relation's passages in every document: its passages in scope
            groups = [(r, view.edges[e.key].chunk_ids) for r, e in facts.items() if e.key in view.edges]
            found = nearest(passage_means(groups, store), q, len(groups))
        fact_scores: dict[str, tuple[Edge, float]] = {}
        for record, score in found:
            edge = facts.get(record)
            if edge is None or "|".join(edge.key) in fact_scores:
                continue
            if view.edges is not None:
                edge = view.edges.get(edge.key)  # the relation as the scope shows it (its passages in scope)
                if edge is None:
                    continue
            fact_scores["|".join(edge.key)] = (edge, score)
        normalised = dict(zip(fact_scores, min_max([s for _, s in fact_scores.values()]), strict=True))
        top = sorted(normalised.items(), key=lambda x: x[1], reverse=True)[:LINKING_TOP_K]
        legs: dict[str, tuple[Hit, ...]] = {"facts": tuple(Hit(key, s, r) for r, (key, s) in enumerate(top, 1))}
        # 3. dense passage scores (all passages), min-max normalised
        dense = store.similarity_search("chunks", q, len(passages), view.where)
        dense_norm = dict(zip([c for c, _ in dense], min_max([s for _, s in dense]), strict=True))
        legs["dense_passages"] = tuple(Hit(c, dense_norm[c], r) for r, (c, _) in enumerate(dense[:limit], 1))
        if not top:
            hits = tuple(Hit(c, dense_norm[c], r) for r, (c, _) in enumerate(dense[:limit], 1))
            return MethodResult(hits, {**legs, "passages": hits})
        # 2. seed entities
        mentions = view.mentions
        if mentions is None:
            graph_entities = whole.graph.entities
            mentions = {e: graph_entities[e].chunk_ids for key, _ in top for e in fact_scores[key][0].key[:2]}
        seeds = seed_weights(
            [(fact_scores[key][0].source, fact_scores[key][0].target, s) for key, s in top],
            {e: len(mentions[e]) for key, _ in top for e in fact_scores[key][0].key[:2]},
            LINKING_TOP_K,
        )
        legs["seed_entities"] = tuple(Hit(e, w, r) for r, (e, w) in enumerate(seeds.items(), 1))
        # 4. the walk
        index = {key: i for i, key in enumerate((*entities, *passages))}
        weights = np.zeros(len(index))
        for entity, w in seeds.items():
            weights[index[entity]] = w
        for chunk, s in dense_norm.items():
            if chunk in index:
                weights[index[chunk]] = s * PASSAGE_NODE_WEIGHT
        scores = ppr_passages(matrix, weights, len(entities))
        order = sorted(range(len(passages)), key=lambda i: (-scores[i], passages[i]))[:limit]
        hits = tuple(Hit(passages[i], float(scores[i]), r) for r, i in enumerate(order, 1))
        return MethodResult(hits, {**legs, "passages": hits})

    @staticmethod
    def _graph(store: SearchableGraphStore, whole: WholeGraph) -> _View:
        """Entities, passages (the chunks collection's records) and :func:`fact_graph`, once per store."""
        built = _GRAPHS.get(store)
        if built is None:
            graph = whole.graph
            entities = tuple(sorted(graph.entities))
            passages = tuple(store.records("chunks").ids)
            mentions = {e: graph.entities[e].chunk_ids for e in entities}
            built = _GRAPHS[store] = (entities, passages, fact_graph(entities, passages, graph.edges, mentions))
        return _View(*built)


@dataclass(frozen=True)
class _View:
    """The graph one search walks: the whole graph (cached per store), or the part a scope shows.

    ``edges`` (relation key -> the relation trimmed to the scope), ``mentions`` (entity -> its passages
    in scope) and ``where`` (the dense passage search's filter) are None for the whole graph.
    """

    entities: tuple[str, ...]
    passages: tuple[str, ...]
    matrix: sp.csr_array
    edges: Mapping[tuple[str, str, str], Edge] | None = None
    mentions: Mapping[str, Sequence[str]] | None = None
    where: Where | None = None


def _scoped(filters: SearchFilters) -> bool:
    """Whether ``filters`` hide anything the walk could reach (documents, properties, labels, relation types)."""
    return filters.restricts_documents or filters.labels is not None or filters.relation_types is not None


def _scoped_graph(store: SearchableGraphStore, whole: WholeGraph, filters: SearchFilters) -> _View:
    """The walk's graph as ``filters`` show it, compiled by :mod:`agrag_lab.scope_compiler`.

    Passages: those the chunk filter lets through. Entities: those visible in the scope (and of the
    filtered labels), each with its passages in scope; relations: those visible in the scope between
    two such entities, with their passages in scope. Nothing outside the scope is a node or an edge,
    so no PageRank mass reaches it, and the facts are the relations in scope.
    """
    scope = store.graph_scope(filters)
    where, chunk_ok = compile_filters("chunks", filters, store)
    allowed = store.visible_items("entities", filters)
    visible = {}
    for key in sorted(whole.graph.entities):
        entity = store.entity(key, scope) if allowed is None or key in allowed else None
        if entity is not None:
            visible[key] = tuple(entity.chunk_ids)
    passages = tuple(p for p in FactPPR._graph(store, whole).passages if chunk_ok is None or chunk_ok(p))
    edges = {}
    for edge in whole.graph.edges:
        shown = whole.visible_edge(edge, scope) if edge.source in visible and edge.target in visible else None
        if shown is not None:
            edges[shown.key] = shown
    entities = tuple(visible)
    return _View(entities, passages, fact_graph(entities, passages, tuple(edges.values()), visible), edges, visible,
                 where)
