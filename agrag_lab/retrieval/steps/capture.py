"""What the optional steps read from the stores at query time, gathered in one place.

:class:`Capture` is the mutable notebook of one run's context phase: the steps
(:mod:`~agrag_lab.retrieval.steps.walk`, ``communities``, ``rerank``) each
write their own fields into it while they read the graph store, and
:meth:`Capture.context` freezes it into the
:class:`~agrag_lab.retrieval.trace.GraphContext` that the pure parts of the
steps read (again, with other fusion settings, in ``SearchRun.refuse``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from agrag_lab.errors import SearchTimeoutError
from agrag_lab.recipes import Recipe
from agrag_lab.retrieval.filters import SearchFilters
from agrag_lab.retrieval.methods import QueryVector
from agrag_lab.retrieval.trace import GraphContext, ItemInfo, ItemKind, Reach, WalkAddition
from agrag_lab.retrieval.tracing import NullTracer, Tracer

__all__ = ["Capture", "ItemStore", "Progress"]


class ItemStore(Protocol):
    """What every step reads of a graph store: an item's display info, as the filters show it."""

    def item_info(self, key: str, filters: SearchFilters | None = None) -> ItemInfo | None: ...

    def item_infos(self, keys: Sequence[str], filters: SearchFilters | None = None) -> dict[str, ItemInfo]:
        """:meth:`item_info` of each of ``keys`` that ``filters`` let be seen, in ``keys`` order (one batch)."""


class Progress:
    """Which step of a run is running, and whether its caller stopped waiting (the deadline passed)."""

    def __init__(self, step: str) -> None:
        self.step = step
        self.cancelled = False

    def enter(self, step: str) -> None:
        """Record that ``step`` starts; a run whose caller gave up stops here.

        Examples
        --------
        >>> p = Progress("context")
        >>> p.enter("walk"); p.step
        'walk'
        """
        if self.cancelled:
            raise SearchTimeoutError(self.step, 0.0)
        self.step = step


@dataclass
class Capture:
    """One run's context phase: its inputs, the items seen so far, and the graph facts the steps read.

    Examples
    --------
    >>> from agrag_lab import recipes
    >>> cap = Capture("q", QueryVector(None), recipes.HYBRID, SearchFilters(), Progress("context"))
    >>> cap.context().walk
    ()
    """

    query: str
    vector: QueryVector
    recipe: Recipe
    filters: SearchFilters
    progress: Progress
    tracer: Tracer = field(default_factory=NullTracer)
    items: dict[str, ItemInfo] = field(default_factory=dict)
    reach: dict[str, tuple[Reach, ...]] = field(default_factory=dict)
    distances: dict[str, dict[str, int]] = field(default_factory=dict)
    memberships: dict[str, tuple[str, ...]] = field(default_factory=dict)
    mentions: dict[str, tuple[str, ...]] = field(default_factory=dict)
    community_members: dict[str, tuple[str, ...]] = field(default_factory=dict)
    rerank_scores: dict[str, float] = field(default_factory=dict)
    walk_seeds: tuple[str, ...] = ()
    walk_prior: tuple[str, ...] = ()
    walk: tuple[WalkAddition, ...] = ()
    rerank_fallback: str = ""

    def see(self, store: ItemStore, keys: Sequence[str]) -> None:
        """Record the display info of ``keys`` (those the filters let be seen) once each, read in one batch."""
        self.items.update(store.item_infos([key for key in keys if key not in self.items], self.filters))

    def of_kind(self, kind: ItemKind) -> list[str]:
        """The keys seen so far of ``kind``, in the order they were first seen."""
        return [key for key, item in self.items.items() if item.kind == kind]

    def context(self) -> GraphContext:
        """The frozen graph facts the pure steps read."""
        return GraphContext(
            self.reach, self.distances, self.memberships, self.mentions, self.community_members,
            self.rerank_scores, self.walk_seeds, self.walk_prior, self.walk, self.rerank_fallback,
        )
