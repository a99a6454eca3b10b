"""The graph store contract: the :class:`GraphStore` protocol and the values its reads return.

Every backend (the in-process :class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore`,
the FalkorDB server's store) implements :class:`GraphStore`; each read takes a
:class:`~agrag_lab.kg.scope.GraphScope` and returns only what it lets the
caller see. One contract test suite (``tests/stores/``) checks every backend.

Examples
--------
>>> WalkStep("ent-b", 1, "ent-a", (("ent-a", "KNEW", "ent-b"),)).hop
1
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.scope import GraphScope

__all__ = ["WHOLE_GRAPH", "Capability", "CommunityOverlap", "Direction", "GraphStore", "WalkStep", "WholeGraph"]

#: Which way a hop follows a relation, relative to the entity it starts from.
Direction = Literal["out", "in", "both"]
#: What a store may offer beyond :class:`GraphStore`; a retrieval method or a view that needs one says so.
Capability = Literal["whole_graph"]
#: The whole graph held in this process (:class:`WholeGraph`): the in-process store has it, a served one has not.
WHOLE_GRAPH: Capability = "whole_graph"


@dataclass(frozen=True)
class WalkStep:
    """One entity reached by a breadth-first walk.

    Attributes
    ----------
    entity_id : str
        The entity reached.
    hop : int
        Its distance from ``seed`` (0 for a seed itself).
    seed : str
        The seed the walk reached it from (the first seed, in seed order, at
        the smallest distance).
    path : tuple of (str, str, str)
        ``(from entity, relation type, to entity)`` per hop, in walk order.
    edges : tuple of Edge
        The stored relations walked, in the same order (with their real
        direction and supporting chunks).
    """

    entity_id: str
    hop: int
    seed: str
    path: tuple[tuple[str, str, str], ...] = ()
    edges: tuple[Edge, ...] = ()


@dataclass(frozen=True)
class CommunityOverlap:
    """A community and the queried entities that belong to it."""

    community: Community
    entity_ids: tuple[str, ...]

    @property
    def count(self) -> int:
        """How many queried entities it holds."""
        return len(self.entity_ids)


@runtime_checkable
class GraphStore(Protocol):
    """Read access to a knowledge graph, always within a :class:`GraphScope`."""

    def entity(self, entity_id: str, scope: GraphScope | None = None) -> Entity | None:
        """The visible entity with this id, or ``None``."""
        ...

    def entity_by_name(self, name: str, scope: GraphScope | None = None) -> Entity | None:
        """The visible entity with this name, alias or normalised name, or ``None``."""
        ...

    def entities(self, scope: GraphScope | None = None) -> list[Entity]:
        """Every visible entity, by id."""
        ...

    def neighbours(
        self,
        entity_id: str,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[Edge]:
        """Visible relations attached to an entity."""
        ...

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
        """Breadth-first walk from ``seeds``."""
        ...

    def shortest_path_lengths(
        self,
        sources: Iterable[str],
        cutoff: int | None = None,
        scope: GraphScope | None = None,
        relation_types: Collection[str] | None = None,
    ) -> dict[str, int]:
        """Hop distance from the nearest source to every reachable visible entity."""
        ...

    def relationship_types(
        self,
        entity_id: str,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[str]:
        """Distinct visible relation types attached to an entity."""
        ...

    def communities(self, level: int | None = None, scope: GraphScope | None = None) -> list[Community]:
        """Communities (of one level, or all), with visible members only."""
        ...

    def community(self, community_id: str, scope: GraphScope | None = None) -> Community | None:
        """One community, or ``None``."""
        ...

    def reports(self, scope: GraphScope | None = None) -> list[CommunityReport]:
        """Visible community reports."""
        ...

    def report(self, community_id: str, scope: GraphScope | None = None) -> CommunityReport | None:
        """The visible report of one community, or ``None``."""
        ...

    def communities_of(
        self,
        entity_ids: Iterable[str],
        level: int | None = None,
        scope: GraphScope | None = None,
    ) -> list[CommunityOverlap]:
        """Communities holding some of ``entity_ids``, most overlap first."""
        ...

    def mentions(self, chunk_id: str, scope: GraphScope | None = None) -> list[Entity]:
        """Visible entities mentioned in a chunk."""
        ...

    def supporting_chunks(self, entity_id: str, scope: GraphScope | None = None) -> list[str]:
        """Visible current chunks that mention an entity."""
        ...

    def described_relations(self) -> bool:
        """Whether a builder described the graph's relations (an imported GraphRAG or LightRAG graph:
        :func:`~agrag_lab.kg.described.described_relation`); then its relation records are the builder's."""
        ...

    @property
    def passageless(self) -> bool:
        """Whether the graph has entities but no passages at all (imported from GraphML)."""
        ...

    def relations(self, scope: GraphScope | None = None) -> list[Edge]:
        """Every visible relation between two visible entities, trimmed to ``scope``, by key."""
        ...


@runtime_checkable
class WholeGraph(GraphStore, Protocol):
    """The :data:`WHOLE_GRAPH` capability: a :class:`GraphStore` whose whole graph is held in this process.

    Methods that build a matrix of every entity, relation and passage (HippoRAG 2's
    PageRank, LightRAG's relation records) read :attr:`graph` directly. The in-process
    :class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore` implements it; the FalkorDB store does
    not (its graph stays in the server). A search store declares whether it holds one
    (:attr:`~agrag_lab.retrieval.store.IndexSearchStore.capabilities`); nothing probes for it.

    Attributes
    ----------
    graph : KnowledgeGraph
        The graph itself (read-only): entities, relations, mentions, history.
    """

    graph: KnowledgeGraph

    def visible_edge(self, edge: Edge, scope: GraphScope | None) -> Edge | None:
        """``edge`` trimmed to ``scope``, or ``None`` if it (or an end) is not visible."""
        ...
