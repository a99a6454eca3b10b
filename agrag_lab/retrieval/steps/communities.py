"""The community step: add the reports of communities that overlap the entities found.

Its read (:func:`capture`: each entity's communities, as far as the filters let
them be seen, and each report's member entities) and its pure part
(:func:`community_list`, :func:`fuse_in`) side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.fusion import Fusion, rrf
from agrag_lab.retrieval.steps.capture import Capture, ItemStore
from agrag_lab.retrieval.trace import CommunityAddition, GraphContext, ItemKind

__all__ = ["COMMUNITY_SOURCE", "CommunityStore", "capture", "community_list", "fuse_in", "visible_memberships"]

#: Source name the community step adds to the fusion.
COMMUNITY_SOURCE = "communities"


class CommunityStore(ItemStore, Protocol):
    """What the community step reads of a graph store."""

    def memberships(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, ...]]: ...

    def members_of(self, community_ids: Sequence[str]) -> dict[str, tuple[str, ...]]: ...

    def visible_items(self, collection: str, filters: SearchFilters) -> frozenset[str] | None: ...


def visible_memberships(
    store: CommunityStore, entities: Sequence[str], filters: SearchFilters
) -> dict[str, tuple[str, ...]]:
    """Each entity's communities, as far as ``filters`` let the communities be seen."""
    memberships = store.memberships(entities)
    if filters.restricts_documents:
        visible = store.visible_items("communities", filters) or frozenset()
        memberships = {e: tuple(c for c in cs if c in visible) for e, cs in memberships.items()}
    return memberships


def capture(cap: Capture, store: CommunityStore) -> None:
    """Read the communities of every entity seen (when the recipe adds reports), and every report's members.

    The members of every report among the items are read whether or not the
    step runs: the graph-distance re-rank measures a report by them.
    """
    cap.progress.enter("communities")
    if cap.recipe.communities.enabled:
        with cap.tracer.span("context.communities"):
            cap.memberships = visible_memberships(store, cap.of_kind("entity"), cap.filters)
            for communities in cap.memberships.values():
                cap.see(store, communities)
    cap.community_members.update(store.members_of(cap.of_kind("community")))


def community_list(entities: Sequence[str], context: GraphContext, top_k: int) -> list[CommunityAddition]:
    """Reports of communities that overlap ``entities``, ranked by overlap.

    Ties go to the community of the best-ranked overlapping entity, then id.

    Examples
    --------
    >>> ctx = GraphContext(memberships={"a": ("c1",), "b": ("c1", "c2")})
    >>> [(c.community, c.overlap) for c in community_list(["a", "b"], ctx, 3)]
    [('c1', 2), ('c2', 1)]
    """
    overlap: dict[str, list[str]] = {}
    first: dict[str, int] = {}
    for rank, entity in enumerate(entities):
        for community in context.memberships.get(entity, ()):
            overlap.setdefault(community, []).append(entity)
            first.setdefault(community, rank)
    ranked = sorted(overlap, key=lambda c: (-len(overlap[c]), first[c], c))[:top_k]
    return [CommunityAddition(c, i, len(overlap[c]), tuple(overlap[c])) for i, c in enumerate(ranked, 1)]


def fuse_in(
    lists: dict[str, list[str]],
    fusion: Fusion,
    context: GraphContext,
    kinds: Mapping[str, ItemKind],
    recipe: Recipe,
    k: float,
    weights: Mapping[str, float] | None,
    convention: str,
) -> tuple[Fusion, tuple[CommunityAddition, ...]]:
    """The reports of the entities inside the limit fused in (``lists`` gains the ``communities`` source); pure."""
    found = [key for key in fusion.keys[: recipe.limit] if kinds.get(key) == "entity"]
    communities = tuple(community_list(found, context, recipe.communities.top_k))
    lists[COMMUNITY_SOURCE] = [c.community for c in communities]
    return rrf(lists, k=k, weights=weights, convention=convention), communities
