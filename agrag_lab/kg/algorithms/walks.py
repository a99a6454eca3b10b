"""The walks every graph store shares: breadth-first walk, hop distances, relation types.

:class:`GraphWalks` is written over a store's two look-ups (:meth:`GraphWalks.entity`
and :meth:`GraphWalks.neighbours`); the order of a walk, its ties and its
limits are decided here once, so every store walks alike.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Iterable, Mapping, Sequence

from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.graph_store import Direction, WalkStep
from agrag_lab.kg.model import Edge, Entity
from agrag_lab.kg.scope import EVERYTHING, GraphScope

__all__ = ["GraphWalks", "check_direction"]


def check_direction(direction: str) -> None:
    """Refuse a ``direction`` other than ``"out"``, ``"in"`` or ``"both"``."""
    if direction not in ("out", "in", "both"):
        raise KnowledgeGraphError(f"direction {direction!r} is not valid: use 'out', 'in' or 'both'")



class GraphWalks(ABC):
    """The walks every store shares, written over its :meth:`entity` and :meth:`neighbours`.

    A store gives the two look-ups (read from wherever its graph lives, trimmed
    by :func:`trim_entity` and :func:`trim_edge`); the order of a walk, its
    ties and its limits are decided here once, so every store walks alike.
    """

    @abstractmethod
    def entity(self, entity_id: str, scope: GraphScope | None = None) -> Entity | None:
        """The visible entity with this id, or ``None``."""

    @abstractmethod
    def neighbours(
        self,
        entity_id: str,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[Edge]:
        """Visible relations attached to an entity."""

    def supporting_chunks(self, entity_id: str, scope: GraphScope | None = None) -> list[str]:
        """Visible current chunks that mention an entity (natural order)."""
        found = self.entity(entity_id, scope)
        return [] if found is None else list(found.chunk_ids)

    def _neighbour_ids(self, entity_id: str, scope: GraphScope) -> list[str]:
        """Ids of visible entities related to ``entity_id`` either way (sorted)."""
        return sorted({e.other(entity_id) for e in self.neighbours(entity_id, None, "both", scope)} - {entity_id})

    def _hop_edges(
        self, entity_ids: Sequence[str], direction: Direction, scope: GraphScope, hops: int = 1
    ) -> Mapping[str, list[Edge]] | None:
        """The visible relations of a whole frontier read at once, or None: each is read when expanded.

        A store whose every read is a round trip (a server) reads a hop in one query; it may read up to
        ``hops`` hops at once, the next frontiers' relations under their own keys (a walk reads again
        only when the map lacks an entity of its frontier).
        """
        return None

    def _steps_from(
        self, entity_id: str, direction: Direction, scope: GraphScope, read: Mapping[str, list[Edge]] | None = None
    ) -> list[tuple[str, Edge]]:
        """(neighbour, best edge) pairs: most support first, then neighbour id (``read``: a hop read at once)."""
        best: dict[str, tuple[tuple[int, int, str, str, str], Edge]] = {}
        edges = self.neighbours(entity_id, None, direction, scope) if read is None else read.get(entity_id, [])
        for edge in edges:
            other = edge.other(entity_id)
            if other == entity_id:
                continue
            rank = (-edge.weight, 0 if edge.source == entity_id else 1, *edge.key)
            if other not in best or rank < best[other][0]:
                best[other] = (rank, edge)
        ordered = sorted(best.items(), key=lambda item: (item[1][0][0], item[0]))
        return [(other, edge) for other, (_rank, edge) in ordered]

    def bfs(
        self,
        seeds: Sequence[str],
        depth: int = 1,
        limit: int | None = None,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
        include_seeds: bool = False,
    ) -> list[WalkStep]:
        """Breadth-first walk from ``seeds`` over visible relations.

        Each entity is reported once, at its smallest hop distance, from the
        first seed (in ``seeds`` order) that reaches it there. Order: hop
        ascending, then seed order, then neighbours by support (descending)
        and id. Seeds that are not visible are skipped. ``limit`` caps the
        steps returned (seeds, when included, do not count).

        Raises
        ------
        KnowledgeGraphError
            ``depth`` or ``limit`` is negative, or ``direction`` is unknown.
        """
        if depth < 0 or (limit is not None and limit < 0):
            raise KnowledgeGraphError(
                f"bfs needs depth >= 0 and limit >= 0 (or None), got depth={depth}, limit={limit}"
            )
        check_direction(direction)
        scope = (scope or EVERYTHING).narrowed(relation_types)
        frontier: list[WalkStep] = []
        seen: set[str] = set()
        for seed in seeds:
            if seed not in seen and self.entity(seed, scope) is not None:
                seen.add(seed)
                frontier.append(WalkStep(seed, 0, seed))
        steps = list(frontier) if include_seeds else []
        cap = None if limit is None else limit + len(steps)
        read: Mapping[str, list[Edge]] | None = None
        for hop in range(1, depth + 1):
            reached: list[WalkStep] = []
            if read is None or any(s.entity_id not in read for s in frontier):
                read = self._hop_edges([s.entity_id for s in frontier], direction, scope, depth - hop + 1)
            for step in frontier:
                for other, edge in self._steps_from(step.entity_id, direction, scope, read):
                    if other in seen:
                        continue
                    if cap is not None and len(steps) >= cap:
                        return steps
                    seen.add(other)
                    walked = WalkStep(
                        other,
                        hop,
                        step.seed,
                        (*step.path, (step.entity_id, edge.type, other)),
                        (*step.edges, edge),
                    )
                    reached.append(walked)
                    steps.append(walked)
            frontier = reached
            if not frontier:
                break
        return steps

    def shortest_path_lengths(
        self,
        sources: Iterable[str],
        cutoff: int | None = None,
        scope: GraphScope | None = None,
        relation_types: Collection[str] | None = None,
    ) -> dict[str, int]:
        """Undirected hop distance from the nearest visible source, up to ``cutoff``.

        Sources map to 0. Keys are in breadth-first order.
        """
        scope = (scope or EVERYTHING).narrowed(relation_types)
        distances: dict[str, int] = {}
        frontier = []
        for source in sources:
            if source not in distances and self.entity(source, scope) is not None:
                distances[source] = 0
                frontier.append(source)
        hop = 0
        while frontier and (cutoff is None or hop < cutoff):
            hop += 1
            reached = []
            for entity_id in frontier:
                for other in self._neighbour_ids(entity_id, scope):
                    if other not in distances:
                        distances[other] = hop
                        reached.append(other)
            frontier = reached
        return distances

    def relationship_types(
        self,
        entity_id: str,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[str]:
        """Distinct visible relation types attached to ``entity_id`` (sorted; depth 1 only)."""
        return sorted({e.type for e in self.neighbours(entity_id, None, direction, scope)})
