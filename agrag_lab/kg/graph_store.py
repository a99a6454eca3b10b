"""The graph store contract: the :class:`GraphStore` protocol and the values its reads return.

Every backend (the in-process :class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore`,
the FalkorDB server's store) implements :class:`GraphStore`; each read takes a
:class:`~agrag_lab.kg.scope.GraphScope` and returns only what it lets the
caller see. One contract test suite (``tests/stores/``) checks every backend.

The orders every store answers in live here too, so that the stores cannot
drift apart: :func:`lookup_by_name` (which entity a name finds) and
:func:`overlap_order` (which community holds most of a query's entities).

Examples
--------
>>> WalkStep("ent-b", 1, "ent-a", (("ent-a", "KNEW", "ent-b"),)).hop
1
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.scope import GraphScope
from agrag_lab.kg.text import match_key

__all__ = [
    "NAME_PROBES", "WHOLE_GRAPH", "Capability", "CommunityOverlap", "Direction", "GraphStore", "NameProbe",
    "RelationSource", "WalkStep", "WholeGraph", "lookup_by_name", "overlap_order",
]

#: Which way a hop follows a relation, relative to the entity it starts from.
Direction = Literal["out", "in", "both"]
#: What a store may offer beyond :class:`GraphStore`; a retrieval method or a view that needs one says so.
Capability = Literal["whole_graph"]
#: The whole graph held in this process (:class:`WholeGraph`): the in-process store has it, a served one has not.
WHOLE_GRAPH: Capability = "whole_graph"
#: What a name look-up compares a name with: an entity's exact name, one of its aliases, or the
#: normalised form (:func:`~agrag_lab.kg.text.match_key`) of its name or an alias.
NameProbe = Literal["name", "alias", "key"]
#: The order a name look-up tries them in: the first that finds a visible entity answers.
NAME_PROBES: tuple[NameProbe, ...] = ("name", "alias", "key")


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


def lookup_by_name(name: str, find: Callable[[NameProbe, str], Iterable[Entity]]) -> Entity | None:
    """The entity a name look-up answers: every store's :meth:`GraphStore.entity_by_name`.

    ``find(probe, value)`` gives the visible entities whose ``probe`` equals
    ``value`` (the name itself for ``"name"`` and ``"alias"``, its
    :func:`~agrag_lab.kg.text.match_key` for ``"key"``). The probes are tried in
    :data:`NAME_PROBES` order; among the entities the first successful probe
    finds, the one with the most mentioning chunks wins, then the smallest id.

    Examples
    --------
    >>> ents = [Entity("ent-b", "Ada", "Person", chunk_ids=("c1",)), Entity("ent-a", "Ada", "Person", chunk_ids=("c2",))]
    >>> lookup_by_name("Ada", lambda probe, value: [e for e in ents if probe == "name" and e.name == value]).id
    'ent-a'
    >>> lookup_by_name("Babbage", lambda probe, value: []) is None
    True
    """
    for probe in NAME_PROBES:
        found = list(find(probe, match_key(name) if probe == "key" else name))
        if found:
            return min(found, key=lambda e: (-e.mention_count, e.id))
    return None


def overlap_order(overlaps: Iterable[CommunityOverlap]) -> list[CommunityOverlap]:
    """Communities by how many queried entities they hold (most first), then the smaller, then by id.

    Every store's :meth:`GraphStore.communities_of` answers in this order.

    Examples
    --------
    >>> small, large = Community("com-0-1", 0, ("a", "b")), Community("com-0-0", 0, ("a", "b", "c"))
    >>> [o.community.id for o in overlap_order([CommunityOverlap(large, ("a", "b")), CommunityOverlap(small, ("a", "b"))])]
    ['com-0-1', 'com-0-0']
    """
    return sorted(overlaps, key=lambda o: (-o.count, o.community.size, o.community.id))


@runtime_checkable
class RelationSource(Protocol):
    """What relation phrases read (:func:`~agrag_lab.kg.records.relation_phrases`): entities and their relations.

    Every :class:`GraphStore` is one; so is a reader that batches a served
    store's round trips for an entity's display.
    """

    def entity(self, entity_id: str, scope: GraphScope | None = None) -> Entity | None:
        """The visible entity with this id, or ``None``."""
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


@runtime_checkable
class GraphStore(RelationSource, Protocol):
    """Read access to a knowledge graph, always within a :class:`GraphScope`."""

    def entity_by_name(self, name: str, scope: GraphScope | None = None) -> Entity | None:
        """The visible entity with this name, alias or normalised name, or ``None``."""
        ...

    def entities(self, scope: GraphScope | None = None) -> list[Entity]:
        """Every visible entity, by id."""
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
