"""The graph walk step: its reads from the graph store and its pure part, per strategy.

A strategy is an object with two methods (:class:`WalkStrategy`):

- ``capture`` reads the graph store at query time, from the entity hits of the
  methods, and writes what it read into the run's
  :class:`~agrag_lab.retrieval.steps.capture.Capture`;
- ``propose`` is pure: from the first fusion and the captured
  :class:`~agrag_lab.retrieval.trace.GraphContext` it returns the walk's seeds,
  its ranked additions and its passage prior. ``SearchRun.refuse`` calls it
  again with other fusion settings.

:data:`STRATEGIES` maps a recipe's ``walk.strategy`` to its strategy; a new
walk is one class here (or in a module of its own) and one entry there, plus
its name in :data:`agrag_lab.recipes.STRATEGIES`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Literal, Protocol

from agrag_lab.kg.algorithms.pagerank import PRIOR_PASSAGES, WalkMethod, WalkScores
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.fusion import Fusion, rrf
from agrag_lab.retrieval.methods import REGISTRY, MethodRequest, SearchableGraphStore, dense_search
from agrag_lab.retrieval.steps.capture import Capture, ItemStore
from agrag_lab.retrieval.trace import GraphContext, ItemKind, Reach, WalkAddition, WalkTrace
from agrag_lab.scope_compiler import compile_filters
from agrag_lab.storage.vectors import VectorStore

__all__ = [
    "FALLBACK_SEEDS",
    "STRATEGIES",
    "WALK_SOURCE",
    "BreadthFirstWalk",
    "PassageWalk",
    "WalkStore",
    "WalkStrategy",
    "fuse_in",
    "walk_list",
    "walk_types",
]

log = logging.getLogger(__name__)

#: Source name the walk adds to the fusion.
WALK_SOURCE = "walk"
#: Entity hits a PageRank walk starts from when the query names none of them.
FALLBACK_SEEDS = 3

Direction = Literal["out", "in", "both"]


class WalkStore(ItemStore, SearchableGraphStore, Protocol):
    """What the walks read of a graph store."""

    def reach(
        self, seed: str, *, depth: int, limit: int | None, relation_types: Sequence[str] | None,
        direction: Direction, filters: SearchFilters | None,
    ) -> tuple[Reach, ...]: ...

    def named_entities(
        self, text: str, entity_ids: Sequence[str], filters: SearchFilters | None = None
    ) -> frozenset[str]: ...

    def passage_walk(
        self, seeds: Sequence[str], prior: Sequence[str], *, restart: float, prior_weight: float,
        relation_types: Sequence[str] | None, direction: Direction, filters: SearchFilters | None,
        method: WalkMethod = "push",
    ) -> WalkScores: ...


class WalkStrategy(Protocol):
    """A walk: what it reads at query time, and what it proposes from that (pure)."""

    def capture(
        self, cap: Capture, store: WalkStore, vector_store: VectorStore | None, entities: Sequence[str], rrf_k: float
    ) -> None:
        """Read the store for the walk from the entity hits ``entities``; write into ``cap``."""

    def propose(
        self, first: Fusion, context: GraphContext, kinds: Mapping[str, ItemKind], recipe: Recipe
    ) -> tuple[tuple[str, ...], list[WalkAddition], tuple[str, ...]]:
        """The walk's seeds, its ranked additions (at most ``recipe.walk.limit``), and its passage prior."""


def walk_types(requested: Sequence[str], filters: SearchFilters) -> tuple[str, ...] | None:
    """The relation types a walk follows: those requested that the filters allow (None: all).

    Examples
    --------
    >>> walk_types(["WROTE", "MET"], SearchFilters(relation_types=["MET"]))
    ('MET',)
    >>> walk_types([], SearchFilters()) is None
    True
    """
    allowed = filters.relation_types
    if not requested:
        return tuple(sorted(allowed)) if allowed is not None else None
    if allowed is None:
        return tuple(requested)
    return tuple(t for t in requested if t in allowed)


def walk_list(seeds: Sequence[str], context: GraphContext, limit: int) -> list[WalkAddition]:
    """Neighbours of the seeds, ranked by hop distance, then by their seed's rank.

    A neighbour reached from several seeds keeps its best (hop, seed rank);
    seeds themselves are not proposed again. Ties go to the BFS order.

    Examples
    --------
    >>> from agrag_lab.retrieval.trace import GraphContext, Reach, PathStep
    >>> ctx = GraphContext(reach={"a": (Reach("b", 1, (PathStep("a", "WROTE", "b"),)),),
    ...                           "c": (Reach("b", 1, ()), Reach("d", 1, ()))})
    >>> [(w.entity, w.seed) for w in walk_list(["a", "c"], ctx, 10)]
    [('b', 'a'), ('d', 'c')]
    """
    best: dict[str, tuple[int, int, int, str, Reach]] = {}
    seed_set = set(seeds)
    order = 0
    for seed_rank, seed in enumerate(seeds, 1):
        for reach in context.reach.get(seed, ()):
            order += 1
            if reach.entity in seed_set:
                continue
            key = (reach.hop, seed_rank, order)
            if reach.entity not in best or key < best[reach.entity][:3]:
                best[reach.entity] = (*key, seed, reach)
    ranked = sorted(best.items(), key=lambda kv: kv[1][:3])[:limit]
    return [
        WalkAddition(entity, i, hop, seed, seed_rank, reach.path)
        for i, (entity, (hop, seed_rank, _, seed, reach)) in enumerate(ranked, 1)
    ]


class BreadthFirstWalk:
    """``strategy = "bfs"``: the neighbour entities of the fused entity hits, nearest first.

    Reads what BFS reaches from every entity candidate (any may become a seed
    under other fusion settings); proposes with :func:`walk_list` from the
    entity hits inside the recipe's limit.
    """

    def capture(
        self, cap: Capture, store: WalkStore, vector_store: VectorStore | None, entities: Sequence[str], rrf_k: float
    ) -> None:
        walk = cap.recipe.walk
        relation_types = walk_types(walk.relation_types, cap.filters)
        for seed in entities:
            cap.progress.enter("walk")
            cap.reach[seed] = store.reach(
                seed, depth=walk.depth, limit=walk.limit, relation_types=relation_types,
                direction=walk.direction, filters=cap.filters,
            )
            cap.see(store, [r.entity for r in cap.reach[seed]])

    def propose(
        self, first: Fusion, context: GraphContext, kinds: Mapping[str, ItemKind], recipe: Recipe
    ) -> tuple[tuple[str, ...], list[WalkAddition], tuple[str, ...]]:
        seeds = tuple(key for key in first.keys[: recipe.limit] if kinds.get(key) == "entity")
        return seeds, walk_list(seeds, context, recipe.walk.limit), ()


class PassageWalk:
    """``strategy = "ppr"``: a personalised PageRank over entities and passages (HippoRAG-style).

    Seeds are the entity hits the query names; when it names none,
    ``walk.unnamed`` decides: the top :data:`FALLBACK_SEEDS` entity hits
    (``"fallback"``), no seeds (``"prior"``), or no walk (``"skip"``). The prior is
    the top :data:`~agrag_lab.kg.algorithms.pagerank.PRIOR_PASSAGES` dense passage hits
    (``walk.prior = "dense"``) or chunk-method hits, dense + keyword (``"hybrid"``).
    Neither depends on fusion settings, so the walk is captured whole and
    ``propose`` returns it as it was.
    """

    def capture(
        self, cap: Capture, store: WalkStore, vector_store: VectorStore | None, entities: Sequence[str], rrf_k: float
    ) -> None:
        walk = cap.recipe.walk
        filters = cap.filters
        named = store.named_entities(cap.query, entities, filters)
        seeds = tuple(e for e in entities if e in named)
        if not seeds and walk.unnamed == "skip":
            return
        if not seeds and walk.unnamed == "fallback":
            seeds = tuple(entities[:FALLBACK_SEEDS])
        prior: list[str] = []  # the passages that take part end up in the walk's own prior
        if walk.prior_weight > 0:
            where, _ = compile_filters("chunks", filters, store)
            try:
                if walk.prior == "hybrid":
                    found = REGISTRY["chunk"].search(MethodRequest(
                        cap.query, cap.vector, PRIOR_PASSAGES, filters, store, vector_store, rrf_k))
                    prior = [h.key for h in found.hits]
                else:
                    prior = [k for k, _ in dense_search("chunks", cap.vector, PRIOR_PASSAGES, where, store, vector_store)]
            except Exception as exc:  # the walk goes on from the seeds alone, as a failed method would
                log.warning("the PageRank walk's passage prior failed, walking from the seeds alone: %s", exc)
        scores = store.passage_walk(
            seeds, prior, restart=walk.restart, prior_weight=walk.prior_weight,
            relation_types=walk_types(walk.relation_types, filters),
            direction=walk.direction, filters=filters, method=walk.pagerank,
        )
        additions = []
        longest = 2 * walk.depth + 1  # depth entity hops, plus the steps into and out of passages
        ranked = scores.passages(walk.limit)
        routes = scores.routes([key for key, _ in ranked], longest)  # one search for all of them, no farther
        for rank, (key, score) in enumerate(ranked, 1):
            origin, path = routes[key] or ("", ())
            origins = scores.seeds if origin in scores.seeds else scores.prior
            origin_rank = origins.index(origin) + 1 if origin else 0
            prior_rank = scores.prior.index(key) + 1 if key in scores.prior else 0
            additions.append(WalkAddition(key, rank, len(path), origin, origin_rank, path, score, prior_rank))
        cap.walk_seeds, cap.walk_prior, cap.walk = scores.seeds, scores.prior, tuple(additions)
        cap.see(store, cap.walk_prior)
        for addition in cap.walk:  # the trace shows every node on a path, as the filters let it be seen
            cap.see(store, [addition.entity, *(step.source for step in addition.path)])

    def propose(
        self, first: Fusion, context: GraphContext, kinds: Mapping[str, ItemKind], recipe: Recipe
    ) -> tuple[tuple[str, ...], list[WalkAddition], tuple[str, ...]]:
        return context.walk_seeds, list(context.walk[: recipe.walk.limit]), context.walk_prior


#: ``walk.strategy`` -> its walk.
STRATEGIES: Mapping[str, WalkStrategy] = MappingProxyType({"bfs": BreadthFirstWalk(), "ppr": PassageWalk()})


def capture(
    cap: Capture, store: WalkStore, vector_store: VectorStore | None, entities: Sequence[str], rrf_k: float
) -> None:
    """The recipe's walk reads the store (nothing when the walk is off)."""
    cap.progress.enter("walk" if cap.recipe.walk.enabled else "context")
    if not cap.recipe.walk.enabled:
        return
    strategy = cap.recipe.walk.strategy
    with cap.tracer.span("context.walk", strategy=strategy):
        STRATEGIES[strategy].capture(cap, store, vector_store, entities, rrf_k)


def fuse_in(
    lists: dict[str, list[str]],
    first: Fusion,
    context: GraphContext,
    kinds: Mapping[str, ItemKind],
    recipe: Recipe,
    k: float,
    weights: Mapping[str, float] | None,
    convention: str,
) -> tuple[Fusion, WalkTrace]:
    """The walk's additions fused in a second time (``lists`` gains the ``walk`` source); pure."""
    seeds, additions, prior = STRATEGIES[recipe.walk.strategy].propose(first, context, kinds, recipe)
    walk = WalkTrace(
        seeds, tuple(additions), recipe.walk.depth, recipe.walk.limit,
        tuple(recipe.walk.relation_types), recipe.walk.direction, recipe.walk.strategy, prior,
    )
    lists[WALK_SOURCE] = [a.entity for a in additions]
    return rrf(lists, k=k, weights=weights, convention=convention), walk
