"""The pure steps after the methods ran: fuse, walk, add reports, re-rank, cut.

:func:`assemble` takes the raw material of a search (each method's ranked
list, the captured :class:`~agrag_lab.retrieval.trace.GraphContext`, the kind
of each item) and the recipe, and returns the :class:`Outcome`. It performs no
I/O, so ``SearchRun.refuse`` calls it again with other fusion settings and
gets exactly what a fresh run with those settings would give.

Every step that adds items adds a *source list* to the fusion (``walk``,
``communities``), so the final ledger shows each source's rank and term for
every item, and the terms sum to the fused score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.fusion import Fusion, rrf
from agrag_lab.retrieval.trace import (
    CommunityAddition,
    CutTrace,
    GraphContext,
    ItemKind,
    MethodTrace,
    Outcome,
    Reach,
    RerankMove,
    RerankTrace,
    WalkAddition,
    WalkTrace,
)
from agrag_lab.retrieval.tracing import NullTracer, Tracer

#: Source names the steps add to the fusion.
WALK_SOURCE = "walk"
COMMUNITY_SOURCE = "communities"
#: Distance given to items with no path to a seed in the graph-distance re-rank.
UNREACHABLE = 99


def method_lists(methods: Sequence[MethodTrace]) -> dict[str, list[str]]:
    """The ranked keys of each method that ran (failed methods cast no votes)."""
    return {m.name: [h.key for h in m.hits] for m in methods if m.ok}


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


def community_list(entities: Sequence[str], context: GraphContext, top_k: int) -> list[CommunityAddition]:
    """Reports of communities that overlap ``entities``, ranked by overlap.

    Ties go to the community of the best-ranked overlapping entity, then id.
    """
    overlap: dict[str, list[str]] = {}
    first: dict[str, int] = {}
    for rank, entity in enumerate(entities):
        for community in context.memberships.get(entity, ()):
            overlap.setdefault(community, []).append(entity)
            first.setdefault(community, rank)
    ranked = sorted(overlap, key=lambda c: (-len(overlap[c]), first[c], c))[:top_k]
    return [CommunityAddition(c, i, len(overlap[c]), tuple(overlap[c])) for i, c in enumerate(ranked, 1)]


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
    """Re-order the fused candidates by the recipe's re-ranker.

    ``cross_encoder`` sorts by the captured model scores and then keeps up to
    ``community_slots`` community reports inside the limit (a report that
    fell below the cut replaces the lowest non-report item above it).
    ``graph_distance`` sorts by hop distance to the top entity hits (the
    seeds), nearer first, ties by fused rank; its score is ``1 / (1 + d)``.
    A ``cross_encoder`` re-rank with no cross-encoder configured
    (``context.rerank_fallback``) is a ``graph_distance`` one that keeps the
    community-report slots, and its trace says why.
    """
    kind = "graph_distance" if context.rerank_fallback else recipe.rerank.kind
    if kind == "cross_encoder":
        scores = {k: float(context.rerank_scores.get(k, float("-inf"))) for k in order}
        new = sorted(order, key=lambda k: (-scores[k], order.index(k)))
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
        RerankMove(k, before[k], i, scores[k], k in kept) for i, k in enumerate(new, 1)
    )
    model = None if context.rerank_fallback else recipe.rerank.model
    trace = RerankTrace(kind, model, moves, recipe.rerank.community_slots, context.rerank_fallback)
    return new, scores, trace


def assemble(
    methods: Sequence[MethodTrace],
    context: GraphContext,
    kinds: Mapping[str, ItemKind],
    recipe: Recipe,
    *,
    k: float,
    weights: Mapping[str, float] | None = None,
    convention: str = "paper",
    tracer: Tracer | None = None,
) -> Outcome:
    """Run every step after the methods, as the recipe asks (pure).

    Parameters
    ----------
    methods : sequence of MethodTrace
        The methods' ranked lists (failed ones cast no votes).
    context : GraphContext
        Graph facts captured when the methods ran.
    kinds : mapping
        The kind of every key that can appear.
    recipe : Recipe
        Walk, community, re-rank and limit settings.
    k, weights, convention
        Fusion settings (a recipe's own, or what ``refuse`` asks for).
    tracer : Tracer, optional
        Opens a span per step: ``fuse``, ``walk``, ``communities``, ``rerank``
        (the last three when the recipe asks), ``cut``.
    """
    spans = tracer if tracer is not None else NullTracer()
    lists = method_lists(methods)
    with spans.span("fuse"):
        first = rrf(lists, k=k, weights=weights, convention=convention)
    fusion: Fusion = first
    walk: WalkTrace | None = None
    if recipe.walk.enabled:
        with spans.span("walk"):
            fusion, walk = _walk_step(lists, first, context, kinds, recipe, k, weights, convention)
    communities: tuple[CommunityAddition, ...] | None = None
    if recipe.communities.enabled:
        with spans.span("communities"):
            found = [key for key in fusion.keys[: recipe.limit] if kinds.get(key) == "entity"]
            communities = tuple(community_list(found, context, recipe.communities.top_k))
            lists[COMMUNITY_SOURCE] = [c.community for c in communities]
            fusion = rrf(lists, k=k, weights=weights, convention=convention)
    order = list(fusion.keys)
    scores = dict(fusion.scores)
    rerank_trace: RerankTrace | None = None
    if recipe.rerank.kind != "none":
        with spans.span("rerank"):
            seeds = [key for key in first.keys if kinds.get(key) == "entity"][:3]
            order, scores, rerank_trace = rerank(order, kinds, recipe, context, seeds)
    with spans.span("cut"):
        # a result whose fused score is 0 has no reason to be listed: every vote it had weighs 0
        fused = fusion.scores
        zero = tuple(key for key in order if fused.get(key, 0.0) <= 0.0)
        if zero:
            gone = set(zero)
            order = [key for key in order if key not in gone]
        cut = CutTrace(recipe.limit, len(order) + len(zero), tuple(order[recipe.limit : recipe.limit + 5]), zero)
        kept = tuple(order[: recipe.limit])
    return Outcome(first, fusion, walk, communities, rerank_trace, cut, kept, {key: scores[key] for key in kept})


def _walk_step(
    lists: dict[str, list[str]],
    first: Fusion,
    context: GraphContext,
    kinds: Mapping[str, ItemKind],
    recipe: Recipe,
    k: float,
    weights: Mapping[str, float] | None,
    convention: str,
) -> tuple[Fusion, WalkTrace]:
    """The walk's additions fused in a second time (``lists`` gains the ``walk`` source)."""
    if recipe.walk.strategy == "ppr":
        # the PageRank walk does not depend on fusion settings: it was captured whole
        walk_seeds, additions = context.walk_seeds, list(context.walk[: recipe.walk.limit])
    else:
        walk_seeds = tuple(key for key in first.keys[: recipe.limit] if kinds.get(key) == "entity")
        additions = walk_list(walk_seeds, context, recipe.walk.limit)
    walk = WalkTrace(
        walk_seeds, tuple(additions), recipe.walk.depth, recipe.walk.limit,
        tuple(recipe.walk.relation_types), recipe.walk.direction, recipe.walk.strategy,
        context.walk_prior if recipe.walk.strategy == "ppr" else (),
    )
    lists[WALK_SOURCE] = [a.entity for a in additions]
    return rrf(lists, k=k, weights=weights, convention=convention), walk
