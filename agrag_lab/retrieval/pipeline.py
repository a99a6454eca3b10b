"""The pure steps after the methods ran, in order: fuse, walk, add reports, re-rank, cut.

:func:`assemble` takes the raw material of a search (each method's ranked
list, the captured :class:`~agrag_lab.retrieval.trace.GraphContext`, the kind
of each item) and the recipe, and returns the :class:`Outcome`. It performs no
I/O, so ``SearchRun.refuse`` calls it again with other fusion settings and
gets exactly what a fresh run with those settings would give. Each optional
step's pure part lives beside its store read in :mod:`agrag_lab.retrieval.steps`.

Every step that adds items adds a *source list* to the fusion (``walk``,
``communities``), so the final ledger shows each source's rank and term for
every item, and the terms sum to the fused score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.fusion import Fusion, rrf
from agrag_lab.retrieval.steps import communities, cut, rerank, walk
from agrag_lab.retrieval.trace import (
    CommunityAddition,
    GraphContext,
    ItemKind,
    MethodTrace,
    Outcome,
    RerankTrace,
    WalkTrace,
)
from agrag_lab.retrieval.tracing import NullTracer, Tracer

__all__ = ["assemble", "method_lists"]


def method_lists(methods: Sequence[MethodTrace]) -> dict[str, list[str]]:
    """The ranked keys of each method that ran (failed methods cast no votes)."""
    return {m.name: [h.key for h in m.hits] for m in methods if m.ok}


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
    walked: WalkTrace | None = None
    if recipe.walk.enabled:
        with spans.span("walk"):
            fusion, walked = walk.fuse_in(lists, first, context, kinds, recipe, k, weights, convention)
    added: tuple[CommunityAddition, ...] | None = None
    if recipe.communities.enabled:
        with spans.span("communities"):
            fusion, added = communities.fuse_in(lists, fusion, context, kinds, recipe, k, weights, convention)
    order = list(fusion.keys)
    scores = dict(fusion.scores)
    rerank_trace: RerankTrace | None = None
    if recipe.rerank.kind != "none":
        with spans.span("rerank"):
            seeds = [key for key in first.keys if kinds.get(key) == "entity"][: rerank.SEEDS]
            order, scores, rerank_trace = rerank.rerank(order, kinds, recipe, context, seeds)
    with spans.span("cut"):
        kept, cut_trace = cut.cut(order, fusion.scores, recipe.limit)
    return Outcome(first, fusion, walked, added, rerank_trace, cut_trace, kept, {key: scores[key] for key in kept})
