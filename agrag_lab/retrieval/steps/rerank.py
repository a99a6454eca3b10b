"""The re-rank step: its reads (graph distances, cross-encoder scores) and its pure part side by side.

:func:`capture_distances` reads the hop distances from the entity candidates
and the entities each passage mentions (for a ``graph_distance`` re-rank, or a
``cross_encoder`` one that falls back to it); :func:`capture_scores` scores
the cut's neighbourhood (:func:`scoring_pool`) with the cross-encoder. :func:`rerank` re-orders the fused
candidates from what was captured, without I/O. The models themselves load in
:mod:`agrag_lab.retrieval.rerank`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.fusion import rrf
from agrag_lab.retrieval.rerank import CrossEncoderReranker, fallback_reason
from agrag_lab.retrieval.steps.capture import Capture, ItemStore
from agrag_lab.retrieval.trace import GraphContext, ItemKind, MethodTrace, RerankMove, RerankTrace

__all__ = [
    "DISTANCE_CUTOFF", "SEEDS", "UNREACHABLE", "RerankStore", "capture_distances", "capture_scores", "rerank",
    "scoring_pool",
]

#: Cutoff of the hop distances the graph-distance re-rank reads.
DISTANCE_CUTOFF = 3
#: Distance given to items with no path to a seed in the graph-distance re-rank.
UNREACHABLE = 99
#: The top entity hits of the first fusion the graph-distance re-rank measures from.
SEEDS = 3


class RerankStore(ItemStore, Protocol):
    """What the re-rank reads of a graph store."""

    def distances(self, seed: str, cutoff: int, filters: SearchFilters | None) -> dict[str, int]: ...

    def mentioned_entities(self, chunk_id: str) -> tuple[str, ...]: ...


def capture_distances(cap: Capture, store: RerankStore, entities: Sequence[str]) -> None:
    """Read the hop distances from the entity candidates, and every passage's entities, when the re-rank needs them.

    Also records why a ``cross_encoder`` re-rank runs by graph distance
    (:func:`~agrag_lab.retrieval.rerank.fallback_reason`), if it does.
    """
    recipe = cap.recipe
    fallback = fallback_reason(recipe.rerank.model) if recipe.rerank.kind == "cross_encoder" else None
    cap.rerank_fallback = fallback or ""
    if recipe.rerank.kind == "graph_distance" or fallback is not None:
        with cap.tracer.span("context.distances"):
            for seed in entities:
                cap.progress.enter("re-rank (graph distances)")
                cap.distances[seed] = store.distances(seed, DISTANCE_CUTOFF, cap.filters)
            # every chunk candidate, the walk's passages included
            cap.mentions = {k: store.mentioned_entities(k) for k in cap.of_kind("chunk")}


def scoring_pool(cap: Capture, methods: Sequence[MethodTrace], k: float = 60.0) -> list[str]:
    """The items the cross-encoder scores: the neighbourhood of the cut, not every candidate.

    ``rerank.pool = "fused"``: the first ``2 * limit`` of the methods' fusion
    (RRF with the recipe's fusion settings, ``k`` unless the recipe sets its
    own); ``"neighbourhood"``: each method's first ``2 * limit`` hits. Then,
    either way, the walk's first ``2 * limit`` additions and the community
    reports, in that order, as far as they were seen. An item outside the pool
    is not scored, and the re-rank keeps it below the scored items in fused order.
    A graph-distance re-rank (or fallback) scores nothing and never reads the pool.

    Examples
    --------
    >>> from agrag_lab import recipes
    >>> from agrag_lab.retrieval.methods import QueryVector
    >>> from agrag_lab.retrieval.steps.capture import Progress
    >>> from agrag_lab.retrieval.trace import Hit, ItemInfo
    >>> cap = Capture("q", QueryVector(None), recipes.HYBRID.replace(limit=1), SearchFilters(), Progress("c"))
    >>> cap.items = {k: ItemInfo(k, "chunk", k, "") for k in "abcd"}
    >>> lists = [MethodTrace("chunk", "ok", 0.0, tuple(Hit(k, 1.0, r) for r, k in enumerate("abc", 1))),
    ...          MethodTrace("entity", "ok", 0.0, tuple(Hit(k, 1.0, r) for r, k in enumerate("dcb", 1)))]
    >>> scoring_pool(cap, lists)  # the default pool, "fused"
    ['b', 'c']
    >>> cap.recipe = cap.recipe.replace(**{"rerank.pool": "neighbourhood"})
    >>> scoring_pool(cap, lists)
    ['a', 'b', 'd', 'c']
    """
    recipe = cap.recipe
    reach = 2 * recipe.limit
    if recipe.rerank.pool == "fused":
        fused = rrf(
            {m.name: [h.key for h in m.hits] for m in methods if m.ok},
            k=recipe.fusion.k if recipe.fusion.k is not None else k,
            weights=recipe.fusion.weights,
            convention=recipe.fusion.convention,
        )
        keys = list(fused.keys[:reach])
    else:
        keys = [h.key for m in methods for h in m.hits[:reach]]
    keys += [a.entity for a in cap.walk[:reach]]
    keys += cap.of_kind("community")
    return [k for k in dict.fromkeys(keys) if k in cap.items]


def capture_scores(
    cap: Capture,
    reranker: Callable[[str | None], CrossEncoderReranker],
    methods: Sequence[MethodTrace],
    k: float = 60.0,
) -> None:
    """Score the cut's neighbourhood (:func:`scoring_pool`) with the recipe's cross-encoder, when it has one.

    ``reranker(model)`` loads the model (the engine loads it before the run's
    deadline starts); it runs in the recipe's ``rerank.precision``. ``k`` is
    the RRF constant when the recipe sets none (a ``"fused"`` pool).
    """
    cap.progress.enter("re-rank")
    setting = cap.recipe.rerank
    if setting.kind == "cross_encoder" and not cap.rerank_fallback:
        with cap.tracer.span("context.rerank", model=setting.model or "", precision=setting.precision):
            model = reranker(setting.model)
            pool = [cap.items[key] for key in scoring_pool(cap, methods, k)]
            scores = model.score(cap.query, [f"{i.title}\n{i.text}" for i in pool], precision=setting.precision)
            cap.rerank_scores = {i.key: float(s) for i, s in zip(pool, scores, strict=True)}


def _distance(key: str, kind: ItemKind, seeds: Sequence[str], context: GraphContext) -> int:
    if kind == "entity":
        anchors: Sequence[str] = (key,)
    elif kind == "chunk":
        anchors = context.mentions.get(key, ())
    else:
        anchors = context.community_members.get(key, ())
    best = UNREACHABLE
    for seed in seeds:
        dist = context.distances.get(seed, {})
        for anchor in anchors:
            best = min(best, dist.get(anchor, UNREACHABLE))
    return best


def rerank(
    order: Sequence[str],
    kinds: Mapping[str, ItemKind],
    recipe: Recipe,
    context: GraphContext,
    seeds: Sequence[str],
) -> tuple[list[str], dict[str, float], RerankTrace]:
    """Re-order the fused candidates by the recipe's re-ranker (pure).

    ``cross_encoder`` sorts by the captured model scores and then keeps up to
    ``community_slots`` community reports inside the limit (a report that
    fell below the cut replaces the lowest non-report item above it).
    ``graph_distance`` sorts by hop distance to the top entity hits (the
    seeds), nearer first, ties by fused rank; its score is ``1 / (1 + d)``.
    A ``cross_encoder`` re-rank with no cross-encoder configured
    (``context.rerank_fallback``) is a ``graph_distance`` one that keeps the
    community-report slots, and its trace says why.

    Examples
    --------
    >>> from agrag_lab import recipes
    >>> recipe = recipes.HYBRID.replace(**{"rerank.kind": "graph_distance"})
    >>> ctx = GraphContext(distances={"a": {"a": 0, "b": 2, "c": 1}})
    >>> rerank(["b", "c", "a"], dict.fromkeys("abc", "entity"), recipe, ctx, ["a"])[0]
    ['a', 'c', 'b']
    """
    kind = "graph_distance" if context.rerank_fallback else recipe.rerank.kind
    unscored: set[str] = set()
    if kind == "cross_encoder":
        # items outside the scored neighbourhood keep their fused order below the scored ones,
        # shown with the lowest score given (a finite number in every ledger and export)
        given = context.rerank_scores
        unscored = {k for k in order if k not in given}
        floor = min((given[k] for k in order if k in given), default=0.0)
        scores = {k: float(given.get(k, floor)) for k in order}
        new = sorted(order, key=lambda k: (k in unscored, -scores[k], order.index(k)))
    else:
        dist = {k: _distance(k, kinds[k], seeds, context) for k in order}
        scores = {k: 1.0 / (1.0 + dist[k]) for k in order}
        new = sorted(order, key=lambda k: (dist[k], order.index(k)))
    kept: set[str] = set()
    if recipe.rerank.kind == "cross_encoder" and recipe.rerank.community_slots > 0:
        reports = [k for k in new if kinds[k] == "community"]
        wanted = min(recipe.rerank.community_slots, len(reports))
        head = new[: recipe.limit]
        inside = sum(1 for k in head if kinds[k] == "community")
        for report in (r for r in reports if r not in head):
            victims = [k for k in reversed(head) if kinds[k] != "community"]
            if inside >= wanted or not victims:
                break
            head.remove(victims[0])
            head.append(report)
            kept.add(report)
            inside += 1
        new = head + [k for k in new if k not in head]
    before = {k: i for i, k in enumerate(order, 1)}
    moves = tuple(
        RerankMove(k, before[k], i, scores[k], k in kept, k not in unscored) for i, k in enumerate(new, 1)
    )
    model = None if context.rerank_fallback else recipe.rerank.model
    ran = kind == "cross_encoder"
    trace = RerankTrace(
        kind, model, moves, recipe.rerank.community_slots, context.rerank_fallback,
        recipe.rerank.pool if ran else "", recipe.rerank.precision if ran else "",
    )
    return new, scores, trace
