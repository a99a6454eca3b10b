"""LinearRAG's retrieval over the tri-graph: entity activation through sentences, then a personalised PageRank.

This is ``LinearRAG.retrieve`` (DEEP-PolyU/LinearRAG, ``src/LinearRAG.py``, commit ``4ecfa25``:
``get_seed_entities``, ``calculate_entity_scores`` (the breadth-first version, LinearRAG's default),
``calculate_passage_scores``, ``run_ppr``, ``dense_passage_retrieval``) as the registry method
``linear_ppr``, on a graph built with ``--extractor linear`` (:mod:`agrag_lab.kg.extract.tri_graph`), with
every step in the ledger:

1. ``seed_entities``: the question's entities (spaCy, lower-cased:
   :func:`~agrag_lab.kg.extract.spacy_ner.question_entities`), each embedded and matched to its nearest
   graph entity (an entity record embeds its text alone); the cosine is the seed's score, and
   ``via`` the question's entity it matched. No
   question entity: the dense order (``dense_passage_retrieval``), as LinearRAG.
2. ``sentences_<i>`` / ``activated_<i>`` (iteration ``i`` = 1 ..
   :data:`MAX_ITERATIONS` - 1): each entity activated at the previous iteration whose score is at
   least :data:`ITERATION_THRESHOLD` takes, among its sentences not yet used, the
   :data:`TOP_K_SENTENCE` nearest the question (``sentences_<i>``: the sentence, its cosine, and in
   ``via`` the entity that took it); each entity of such a sentence is activated with score
   ``entity score x sentence cosine`` when that reaches the threshold (``activated_<i>``: the
   entity, its score, and in ``via`` the sentence that activated it). ``entity_weights``: each
   entity's restart weight (seeds: their score; the others: the sum of their activations).
3. ``dense_passages`` / ``passage_weights``: every passage's cosine, min-max normalised, times
   :data:`PASSAGE_RATIO`, plus ``log(1 + bonus)`` where each activated entity found in the passage
   (lower-cased text count ``n``) adds ``score x log(1 + n) / tier``; times
   :data:`PASSAGE_NODE_WEIGHT`.
4. ``passages``: personalised PageRank (damping :data:`DAMPING`) over entities and passages (an
   entity-passage edge weighs the entity's occurrences over all entity occurrences in the passage;
   consecutive passages are linked with weight 1), restarting at the entity and passage weights.

It reads the graph only through the graph store protocol (``entities``, ``neighbours``), the
vector search (``similarity_search`` / the vector store, filtered by ``label`` and ``item_id``) and
the index's passages in corpus order (``passages()``), so it runs on the in-process graph and on FalkorDB
alike. ``docs/peers/LINEARRAG.md`` lists every difference from LinearRAG.

Examples
--------
>>> weights, active, events = activate(
...     {"a": 0.9}, {"a": ["s1", "s2"], "b": ["s1"]}.get, {"s1": ["a", "b"], "s2": ["a"]}.get,
...     lambda ids: {"s1": 0.8, "s2": 0.3}, threshold=0.4, top_k=1, max_iterations=3)
>>> {k: round(v, 2) for k, v in weights.items()}
{'a': 1.62, 'b': 0.72}
>>> [(e.iteration, e.sentence, e.entity, round(e.score, 2)) for e in events]
[(1, 's1', 'a', 0.72), (1, 's1', 'b', 0.72)]
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agrag_lab.embedding import Embedder
from agrag_lab.errors import RetrievalMethodError
from agrag_lab.kg.algorithms.pagerank import personalized_pagerank
from agrag_lab.kg.facets import facet_owner
from agrag_lab.kg.graph_store import Capability
from agrag_lab.kg.tri_vocabulary import IN_SENTENCE, SENTENCE, adjacent_passages
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods.dense import FACETS_PER_ITEM, dense_search
from agrag_lab.retrieval.methods.protocol import MethodRequest, MethodResult, QueryVector, SearchableGraphStore
from agrag_lab.retrieval.trace import Hit
from agrag_lab.scope_compiler import compile_filters
from agrag_lab.storage.vectors import VectorStore
from agrag_lab.storage.where import Where, where_clause

__all__ = [
    "DAMPING", "ITERATION_THRESHOLD", "MAX_ITERATIONS", "PASSAGE_NODE_WEIGHT", "PASSAGE_RATIO", "TOP_K_SENTENCE",
    "WALKS_KEPT", "Activation", "LinearPPR", "activate", "passage_scores", "tri_graph_matrix", "tri_view",
    "walk_matrix",
]

#: ``max_iterations`` (LinearRAG's ``run.py`` default 3): activation runs iterations 1 .. 2.
MAX_ITERATIONS = 3
#: ``iteration_threshold`` (``run.py`` default 0.4): an entity below it neither spreads nor is activated.
ITERATION_THRESHOLD = 0.4
#: ``top_k_sentence`` (``run.py`` default 3): sentences an entity takes per iteration.
TOP_K_SENTENCE = 3
#: ``passage_ratio`` (``run.py`` default 2): weight of the normalised dense score in a passage's score.
PASSAGE_RATIO = 2.0
#: ``passage_node_weight`` (``LinearRAGConfig`` default 0.05): scale of passage restart weights.
PASSAGE_NODE_WEIGHT = 0.05
#: ``damping`` (``LinearRAGConfig`` default 0.5): the walk restarts with probability ``1 - DAMPING``.
DAMPING = 0.5
#: Entries of each ledger list beyond the passages (activations, weights) kept for display.
LEDGER_ROWS = 50


@dataclass(frozen=True)
class Activation:
    """One activation: at ``iteration``, ``sentence`` (cosine ``similarity`` with the question, taken by
    ``by``) activated ``entity`` with ``score`` (``by``'s score x ``similarity``)."""

    iteration: int
    by: str
    sentence: str
    similarity: float
    entity: str
    score: float


def activate(
    seeds: Mapping[str, float],
    sentences_of: Callable[[str], Sequence[str] | None],
    entities_of: Callable[[str], Sequence[str] | None],
    similarity: Callable[[Sequence[str]], Mapping[str, float]],
    *,
    threshold: float = ITERATION_THRESHOLD,
    top_k: int = TOP_K_SENTENCE,
    max_iterations: int = MAX_ITERATIONS,
) -> tuple[dict[str, float], dict[str, tuple[float, int]], list[Activation]]:
    """LinearRAG's ``calculate_entity_scores`` (breadth-first): entity weights, activated entities, the events.

    Parameters
    ----------
    seeds : mapping
        Seed entity -> score, in LinearRAG's order (a later seed for the same entity overwrites it).
    sentences_of, entities_of : callable
        An entity's sentences; a sentence's entities (``None`` or empty: none).
    similarity : callable
        Cosine with the question of each of the given sentences.

    Returns
    -------
    weights : dict
        Entity -> restart weight: a seed's score, plus the score of every activation of it.
    activated : dict
        Entity -> ``(score, tier)`` of its last activation (seeds: tier 1; iteration ``i``: ``i + 1``).
    events : list of Activation
        Every activation, in order.
    """
    weights: dict[str, float] = {}
    activated: dict[str, tuple[float, int]] = {}
    for entity, score in seeds.items():
        activated[entity] = (score, 1)
        weights[entity] = score
    used: set[str] = set()
    events: list[Activation] = []
    current = dict(activated)
    iteration = 1
    while current and iteration < max_iterations:
        new: dict[str, tuple[float, int]] = {}
        for entity, (score, _tier) in current.items():
            if score < threshold:
                continue
            candidates = [s for s in (sentences_of(entity) or ()) if s not in used]
            if not candidates:
                continue
            found = similarity(candidates)
            ranked = sorted(candidates, key=lambda s: -found.get(s, 0.0))[:top_k]
            for sentence in ranked:
                sim = found.get(sentence, 0.0)
                used.add(sentence)
                for other in entities_of(sentence) or ():
                    next_score = score * sim
                    if next_score < threshold:
                        continue
                    weights[other] = weights.get(other, 0.0) + next_score
                    new[other] = (next_score, iteration + 1)
                    events.append(Activation(iteration, entity, sentence, sim, other, next_score))
        activated.update(new)
        current = new
        iteration += 1
    return weights, activated, events


def min_max(scores: Sequence[float]) -> list[float]:
    """LinearRAG's ``min_max_normalize``: to [0, 1]; all ones when every score is the same."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    return [1.0] * len(scores) if high == low else [(s - low) / (high - low) for s in scores]


def passage_scores(
    dense: Sequence[tuple[str, float]], texts: Mapping[str, str], activated: Iterable[tuple[str, float, int]],
    *, ratio: float = PASSAGE_RATIO,
) -> dict[str, float]:
    """LinearRAG's ``calculate_passage_scores`` (before ``passage_node_weight``).

    ``dense``: every passage and its cosine; ``activated``: ``(entity text, score, tier)``. A
    passage scores ``ratio x min-max(cosine) + log(1 + bonus)``, the bonus summing
    ``score x log(1 + occurrences) / tier`` over the activated entities its lower-cased text holds.

    Examples
    --------
    >>> s = passage_scores([("p1", 0.9), ("p2", 0.5)], {"p1": "Ada and ada", "p2": "none"}, [("Ada", 0.8, 1)])
    >>> round(s["p1"], 4), s["p2"]
    (2.6307, 0.0)
    """
    entities = [(name.lower(), score, max(tier, 1)) for name, score, tier in activated]
    out: dict[str, float] = {}
    for (passage, _), norm in zip(dense, min_max([s for _, s in dense]), strict=True):
        text = texts.get(passage, "").lower()
        bonus = 0.0
        for name, score, tier in entities:
            n = text.count(name) if name else 0
            if n:
                bonus += score * math.log(1 + n) / tier
        out[passage] = ratio * norm + math.log(1 + bonus)
    return out


def tri_graph_matrix(
    entities: Sequence[tuple[str, str, Sequence[str]]], passages: Sequence[str], texts: Mapping[str, str],
) -> Any:
    """The PageRank graph of LinearRAG (``add_entity_to_passage_edges``, ``add_adjacent_passage_edges``)
    as a symmetric weight matrix over ``entities + passages``.

    ``entities``: ``(id, text, passages)``. An entity-passage edge weighs the entity's (case-kept)
    occurrences in the passage over the occurrences of all the passage's entities; consecutive
    passages weigh 1. Sentences are not nodes of the walk (LinearRAG's graph has none).
    """
    import scipy.sparse as sp

    index = {p: len(entities) + i for i, p in enumerate(passages)}
    counts: list[tuple[int, int, int]] = []
    totals: dict[int, int] = {}
    for e, (_, name, chunk_ids) in enumerate(entities):
        for chunk in chunk_ids:
            p = index.get(chunk)
            if p is None:
                continue
            n = texts.get(chunk, "").count(name)
            counts.append((e, p, n))
            totals[p] = totals.get(p, 0) + n
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    for e, p, n in counts:
        w = n / totals[p] if totals[p] else 0.0
        if w > 0:
            rows += [e, p]
            cols += [p, e]
            vals += [w, w]
    for a, b in adjacent_passages(passages):
        rows += [index[a], index[b]]
        cols += [index[b], index[a]]
        vals += [1.0, 1.0]
    size = len(entities) + len(passages)
    return sp.coo_array((vals, (rows, cols)), shape=(size, size)).tocsr()


#: Scoped walk matrices kept per tri-graph view (the last ones asked for; unscoped, the view's own).
WALKS_KEPT = 8


@dataclass(frozen=True)
class _TriView:
    """The walk's graph (cached per store): entities ``(id, text, passages)``, passages in corpus order,
    their texts, the matrix, and the entities' labels (every label but :data:`SENTENCE`); ``walks`` keeps the
    matrices of the last scopes (:func:`walk_matrix`)."""

    entities: tuple[tuple[str, str, tuple[str, ...]], ...]
    passages: tuple[str, ...]
    texts: Mapping[str, str]
    matrix: Any
    labels: tuple[str, ...]
    walks: dict[tuple[frozenset[str], frozenset[str]], Any] = field(default_factory=dict, compare=False, repr=False)


_VIEWS: weakref.WeakKeyDictionary[Any, _TriView] = weakref.WeakKeyDictionary()


def tri_view(store: SearchableGraphStore) -> _TriView:
    """The tri-graph's walk graph of ``store``, read through the graph store protocol once per store."""
    view = _VIEWS.get(store)
    if view is None:
        chunks = store.passages()
        texts = {c.id: c.text for c in chunks}
        nodes = [e for e in sorted(store.entities(), key=lambda e: e.id) if e.label != SENTENCE]
        entities = tuple((e.id, e.name, tuple(e.chunk_ids)) for e in nodes)
        passages = tuple(c.id for c in chunks)
        view = _VIEWS[store] = _TriView(entities, passages, texts, tri_graph_matrix(entities, passages, texts),
                                        tuple(sorted({e.label for e in nodes})))
    return view


def walk_matrix(view: _TriView, shown: frozenset[str], walkable: frozenset[str]) -> Any:
    """The walk's matrix over the passages ``shown`` and the entities among ``walkable`` (with their passages
    among ``shown``), rows in the view's order: the view's own matrix when that is all of it (a search
    without a scope builds nothing), else :func:`tri_graph_matrix` of the scope, kept for the next search of
    the same scope (the last :data:`WALKS_KEPT`)."""
    if len(shown) == len(view.passages) and all(e in walkable for e, _, _ in view.entities):
        return view.matrix
    key = (shown, walkable)
    matrix = view.walks.get(key)
    if matrix is None:
        entities = [(e, n, tuple(c for c in chunks if c in shown)) for e, n, chunks in view.entities if e in walkable]
        matrix = tri_graph_matrix(entities, [p for p in view.passages if p in shown], view.texts)
        while len(view.walks) >= WALKS_KEPT:
            view.walks.pop(next(iter(view.walks)))
        view.walks[key] = matrix
    return matrix


def _hits(pairs: Iterable[tuple[str, float, str]], limit: int) -> tuple[Hit, ...]:
    return tuple(Hit(key, float(score), rank, via) for rank, (key, score, via) in enumerate(pairs, 1) if rank <= limit)


class LinearPPR:
    """Method ``linear_ppr`` (see the module docstring)."""

    name = "linear_ppr"
    collection = "chunks"
    #: Capabilities it requires of the store beyond :class:`SearchableGraphStore`: none (it reads the passages,
    #: entities and their sentence edges through the protocol; its walk matrix is built from those reads).
    requires: frozenset[Capability] = frozenset()

    def prepare(self, query: str) -> None:
        """Load spaCy's English pipeline for an English question, once per process, before the search's deadline
        starts (:mod:`agrag_lab.retrieval.preparation`); without the extra, the search reports it."""
        from agrag_lab.kg.extract.spacy_ner import load_for_question

        load_for_question(query)

    def search(self, request: MethodRequest) -> MethodResult:
        """Seeds, activation, passage weights, then the walk (the module docstring's steps).

        Raises
        ------
        RetrievalMethodError
            The query has no vector or no embedder was given (the engine gives its own).
        """
        embedder = request.embedder
        if embedder is None:
            raise RetrievalMethodError(self.name, {"entities": TypeError(
                f"the {self.name} method embeds the question's entities and needs the engine's embedder; "
                "run it through SearchEngine.run")})
        try:
            return self._search(request.query, QueryVector.of(request.vector), request.limit, request.filters,
                                request.graph_store, request.vector_store, embedder)
        except RetrievalMethodError:
            raise
        except Exception as exc:
            raise RetrievalMethodError(self.name, {"graph": exc}) from exc

    def _search(
        self, query: str, query_vector: QueryVector, limit: int, filters: SearchFilters, store: SearchableGraphStore,
        vector_store: VectorStore | None, embedder: Embedder,
    ) -> MethodResult:
        from agrag_lab.kg.extract.spacy_ner import question_entities

        view = tri_view(store)
        chunk_where, chunk_ok = compile_filters("chunks", filters, store)
        allowed_entities = store.visible_items("entities", filters)
        shown = {p for p in view.passages if chunk_ok is None or chunk_ok(p)}

        def search(collection: str, vec: np.ndarray, n: int, where: Where | None) -> list[tuple[str, float]]:
            return dense_search(collection, vec, n, where, store, vector_store) if n > 0 else []

        names = question_entities(query)
        entity_ids = [e for e, _, chunks in view.entities
                      if (allowed_entities is None or e in allowed_entities) and any(c in shown for c in chunks)]
        # the question and its entities, in one model call when the question is still to be embedded
        q, vectors = query_vector.with_texts(names if entity_ids else [], embedder)
        # dense passage scores (every passage in scope)
        dense = [(p, s) for p, s in search("chunks", q, len(view.passages), chunk_where) if p in shown]
        legs: dict[str, tuple[Hit, ...]] = {}
        # 1. seed entities
        seeds: dict[str, float] = {}
        seed_rows: list[tuple[str, float, str]] = []
        if names and entity_ids:
            only = where_clause({"item_id": entity_ids}) if len(entity_ids) < len(view.entities) else \
                where_clause({"label": list(view.labels)})
            known = set(entity_ids)
            for name, vec in zip(names, vectors, strict=True):
                # an entity's nearest record; a rule graph's relation records (facets) stand for their entity
                best = [(facet_owner(r), s) for r, s in search("entities", np.asarray(vec), FACETS_PER_ITEM, only)
                        if facet_owner(r) in known][:1]
                if best:
                    seeds[best[0][0]] = float(best[0][1])
                    seed_rows.append((best[0][0], float(best[0][1]), name))  # via: the question's entity
        legs["seed_entities"] = _hits(seed_rows, LEDGER_ROWS)
        legs["dense_passages"] = _hits(((p, s, "") for p, s in dense), limit)
        if not seeds:  # LinearRAG: dense_passage_retrieval's order
            hits = legs["dense_passages"]
            return MethodResult(hits, {**legs, "passages": hits})
        # 2. activation through the question's nearest sentences
        names_of = {e: name for e, name, _ in view.entities}

        def sentences_of(entity: str) -> list[str]:
            return [edge.target for edge in store.neighbours(entity, [IN_SENTENCE], "out")]

        def entities_of(sentence: str) -> list[str]:
            return [edge.source for edge in store.neighbours(sentence, [IN_SENTENCE], "in")
                    if edge.source in names_of and (allowed_entities is None or edge.source in allowed_entities)]

        def similarity(sentences: Sequence[str]) -> dict[str, float]:
            found = search("entities", q, len(sentences), where_clause({"item_id": list(sentences)}))
            return {r: s for r, s in found if r in sentences}

        weights, activated, events = activate(seeds, sentences_of, entities_of, similarity)
        for i in sorted({e.iteration for e in events}):
            these = [e for e in events if e.iteration == i]
            legs[f"sentences_{i}"] = _hits(dict.fromkeys((e.sentence, e.similarity, e.by) for e in these), LEDGER_ROWS)
            legs[f"activated_{i}"] = _hits(((e.entity, e.score, e.sentence) for e in these), LEDGER_ROWS)
        ranked_weights = sorted(weights.items(), key=lambda x: (-x[1], x[0]))
        legs["entity_weights"] = _hits(((e, w, "") for e, w in ranked_weights), LEDGER_ROWS)
        # 3. passage weights
        scores = passage_scores(dense, view.texts, [(names_of[e], s, t) for e, (s, t) in activated.items()])
        index = {key: i for i, key in enumerate((*(e for e, _, _ in view.entities), *view.passages))}
        restart = np.zeros(len(index))
        for entity, w in weights.items():
            restart[index[entity]] = w
        for passage, s in scores.items():
            restart[index[passage]] = s * PASSAGE_NODE_WEIGHT
        ranked_passages = sorted(scores.items(), key=lambda x: (-x[1], x[0]))
        legs["passage_weights"] = _hits(((p, s * PASSAGE_NODE_WEIGHT, "") for p, s in ranked_passages), limit)
        # 4. the walk: under a scope, over the graph of its passages and entities only
        restart = np.where(np.isnan(restart) | (restart < 0), 0.0, restart)
        walkable = frozenset(entity_ids)  # the scope's entities with a passage in it
        matrix = walk_matrix(view, frozenset(shown), walkable)
        if matrix is not view.matrix:
            keep = [i for i, key in enumerate((*(e for e, _, _ in view.entities), *view.passages))
                    if key in shown or key in walkable]
            restart = restart[keep]
        n_entities = matrix.shape[0] - len(shown)
        passages = [p for p in view.passages if p in shown]
        ranks = personalized_pagerank(matrix, restart, restart=1.0 - DAMPING)[n_entities:]
        order = sorted(range(len(passages)), key=lambda i: (-ranks[i], passages[i]))[:limit]
        hits = tuple(Hit(passages[i], float(ranks[i]), r) for r, i in enumerate(order, 1))
        return MethodResult(hits, {**legs, "passages": hits})

