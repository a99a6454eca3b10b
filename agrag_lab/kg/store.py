"""Scoped read access to a knowledge graph: lookups, neighbours, walks, communities.

A :class:`GraphScope` fixes what a caller may see. An entity is visible iff it
has a current supporting chunk in a visible document and its label passes; a
relation iff its type passes, it has current support in a visible document and
both ends are visible. Everything a scoped call returns is trimmed to the
scope: chunk ids, aliases, descriptions and sentences from invisible documents
are dropped. A community shows only its visible members; a report is visible
only to a scope that reads every document it draws on (:func:`report_documents`:
its quoted chunks, and every mention of its members and key entities), since its
title and key entities name them.

:class:`NetworkXGraphStore` implements the :class:`GraphStore` protocol over a
:class:`~agrag_lab.kg.build.KnowledgeGraph`. It keeps no hidden state beyond
lookup tables, so subclasses (or wrappers adding similarity search) can use
:attr:`NetworkXGraphStore.graph` and the ``visible_*`` helpers directly.

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> ents = [
...     Entity("ent-ada", "Ada Lovelace", "Person", ("Ada",), chunk_ids=("a#c0",), document_ids=("a",)),
...     Entity("ent-babbage", "Charles Babbage", "Person", chunk_ids=("a#c0", "b#c0"), document_ids=("a", "b")),
... ]
>>> edges = [Edge("ent-ada", "ent-babbage", "WORKED_WITH", ("a#c0",))]
>>> store = NetworkXGraphStore(KnowledgeGraph.create(ents, edges, chunk_documents={"a#c0": "a", "b#c0": "b"}))
>>> store.entity_by_name("ada").id
'ent-ada'
>>> [(s.entity_id, s.hop, s.path) for s in store.bfs(["ent-babbage"], depth=2)]
[('ent-ada', 1, (('ent-babbage', 'WORKED_WITH', 'ent-ada'),))]
>>> store.entity("ent-ada", GraphScope(document_ids=frozenset({"b"}))) is None
True
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, runtime_checkable

from agrag_lab.kg import persistence
from agrag_lab.kg.communities import Community
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.text import match_key

__all__ = [
    "CommunityOverlap",
    "Direction",
    "GraphScope",
    "GraphStore",
    "GraphWalks",
    "NetworkXGraphStore",
    "WalkStep",
    "report_documents",
    "trim_edge",
    "trim_entity",
]

#: Which way a hop follows a relation, relative to the entity it starts from.
Direction = Literal["out", "in", "both"]


def _frozen(values: Collection[str] | None) -> frozenset[str] | None:
    return None if values is None else frozenset(values)


@dataclass(frozen=True)
class GraphScope:
    """What a caller may see; ``None`` means no restriction on that axis.

    Examples
    --------
    >>> s = GraphScope(document_ids={"doc-1"}, labels={"Person"})
    >>> s.allows_document("doc-1"), s.allows_label("Place"), s.allows_type("WROTE")
    (True, False, True)
    """

    document_ids: frozenset[str] | None = None
    labels: frozenset[str] | None = None
    relation_types: frozenset[str] | None = None

    def __post_init__(self) -> None:
        for name in ("document_ids", "labels", "relation_types"):
            value = getattr(self, name)
            if isinstance(value, str):
                raise KnowledgeGraphError(
                    f"GraphScope.{name} must be a collection of strings, not the string {value!r}; "
                    f"write {name}={{{value!r}}}"
                )
            object.__setattr__(self, name, _frozen(value))

    def allows_document(self, document_id: str) -> bool:
        """Whether ``document_id`` is visible."""
        return self.document_ids is None or document_id in self.document_ids

    def allows_label(self, label: str) -> bool:
        """Whether entities labelled ``label`` are visible."""
        return self.labels is None or label in self.labels

    def allows_type(self, relation_type: str) -> bool:
        """Whether relations of ``relation_type`` are visible."""
        return self.relation_types is None or relation_type in self.relation_types

    def narrowed(self, relation_types: Collection[str] | None) -> GraphScope:
        """This scope with relation types further limited to ``relation_types``.

        An argument can only narrow the scope, never widen it.

        Examples
        --------
        >>> GraphScope(relation_types={"WROTE"}).narrowed({"WROTE", "BUILT"}).relation_types
        frozenset({'WROTE'})
        """
        if relation_types is None:
            return self
        wanted = frozenset(relation_types)
        allowed = wanted if self.relation_types is None else wanted & self.relation_types
        return replace(self, relation_types=allowed)


#: The scope that sees everything current.
EVERYTHING = GraphScope()


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


def report_documents(
    report: CommunityReport, community: Community | None, graph: KnowledgeGraph
) -> frozenset[str]:
    """Every document ``report`` draws on: the one rule of which scopes may see a report, in every store.

    Its quoted chunks' documents, and the documents that mention any member of
    its community or any of its key entities ("" for a chunk of no current
    document, which no scope reads). A report's title and key entities name its
    members, and its summary (an LLM's or GraphRAG's above all) says what they
    do; a scope lacking one of these documents would rank the report on words
    it may not read.

    Examples
    --------
    >>> from agrag_lab.kg.model import Entity, KnowledgeGraph
    >>> from agrag_lab.kg.reports import CommunityReport
    >>> kg = KnowledgeGraph.create([Entity("ent-a", "Ada", "Person", chunk_ids=("a#c0", "b#c0"))], [],
    ...                           chunk_documents={"a#c0": "a", "b#c0": "b"})
    >>> sorted(report_documents(CommunityReport("com-0", 0, "Ada", "", ("ent-a",), (), ("a#c0",)), None, kg))
    ['a', 'b']
    """
    docs = graph.chunk_documents
    chunks = list(report.chunk_ids)
    members = (*(community.members if community is not None else ()), *report.key_entities)
    for member in dict.fromkeys(members):
        entity = graph.entities.get(member)
        if entity is not None:
            chunks.extend(entity.chunk_ids)
    return frozenset(docs.get(c, "") for c in chunks)


def trim_entity(
    entity: Entity, scope: GraphScope | None, chunk_documents: Mapping[str, str], passageless: bool
) -> Entity | None:
    """``entity`` trimmed to ``scope``, or ``None`` if it is not visible: the one visibility rule of every store.

    ``chunk_documents`` maps (at least) the entity's chunk ids to their
    documents; ``passageless`` says the graph has no passages at all (then
    entities without chunks are visible, unscoped).

    Examples
    --------
    >>> e = Entity("ent-a", "Ada", "Person", ("Countess",), chunk_ids=("a#c0", "b#c0"), document_ids=("a", "b"),
    ...            forms=(("a", "Ada"), ("b", "Countess")))
    >>> trim_entity(e, GraphScope(document_ids={"a"}), {"a#c0": "a", "b#c0": "b"}, False).aliases
    ()
    >>> trim_entity(e, GraphScope(labels={"Place"}), {}, False) is None
    True
    """
    scope = scope or EVERYTHING
    if not scope.allows_label(entity.label):
        return None
    if not entity.chunk_ids:  # only a graph without passages (GraphML) shows such entities, unscoped
        return entity if passageless and scope.document_ids is None else None
    if scope.document_ids is None:
        return entity
    docs = chunk_documents
    allowed = scope.document_ids
    chunk_ids = tuple(c for c in entity.chunk_ids if docs.get(c) in allowed)
    if not chunk_ids:
        return None
    descriptions = tuple((c, t) for c, t in entity.descriptions if docs.get(c) in allowed)
    forms = tuple((d, f) for d, f in entity.forms if d in allowed)
    return replace(
        entity,
        aliases=tuple(sorted({f for _, f in forms} - {entity.name})),
        description=descriptions[0][1] if descriptions else "",
        chunk_ids=chunk_ids,
        history_chunk_ids=tuple(c for c in entity.history_chunk_ids if docs.get(c) in allowed),
        document_ids=tuple(d for d in entity.document_ids if d in allowed),
        descriptions=descriptions,
        forms=forms,
        claims=tuple(c for c in entity.claims if docs.get(c.chunk_id) in allowed),
    )


def trim_edge(
    edge: Edge, scope: GraphScope | None, chunk_documents: Mapping[str, str], passageless: bool, *, ends_visible: bool
) -> Edge | None:
    """``edge`` trimmed to ``scope``, or ``None`` if it is not visible (``ends_visible``: both ends are).

    Examples
    --------
    >>> edge = Edge("ent-a", "ent-b", "KNEW", ("a#c0", "b#c0"))
    >>> trim_edge(edge, GraphScope(document_ids={"b"}), {"a#c0": "a", "b#c0": "b"}, False, ends_visible=True).chunk_ids
    ('b#c0',)
    >>> trim_edge(edge, GraphScope(relation_types={"WROTE"}), {}, False, ends_visible=True) is None
    True
    """
    scope = scope or EVERYTHING
    if not scope.allows_type(edge.type) or not (edge.chunk_ids or passageless) or not ends_visible:
        return None
    if scope.document_ids is None:
        return edge
    docs, allowed = chunk_documents, scope.document_ids
    chunk_ids = tuple(c for c in edge.chunk_ids if docs.get(c) in allowed)
    if not chunk_ids:
        return None
    return replace(
        edge,
        chunk_ids=chunk_ids,
        history_chunk_ids=tuple(c for c in edge.history_chunk_ids if docs.get(c) in allowed),
        sentences=tuple((c, s) for c, s in edge.sentences if docs.get(c) in allowed),
    )


def _check_direction(direction: str) -> None:
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
        _check_direction(direction)
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


class NetworkXGraphStore(GraphWalks):
    """A :class:`GraphStore` over an in-memory :class:`KnowledgeGraph`.

    Parameters
    ----------
    graph : KnowledgeGraph
        The graph (treated as read-only).
    communities : iterable of Community
        From :func:`~agrag_lab.kg.communities.detect_communities`.
    reports : iterable of CommunityReport
        From :func:`~agrag_lab.kg.reports.build_reports`.
    """

    def __init__(
        self,
        graph: KnowledgeGraph,
        communities: Iterable[Community] = (),
        reports: Iterable[CommunityReport] = (),
    ) -> None:
        self.graph = graph
        self._communities = {c.id: c for c in communities}
        self._reports = {r.community_id: r for r in reports}
        self._by_name: dict[str, list[str]] = defaultdict(list)
        self._by_alias: dict[str, list[str]] = defaultdict(list)
        self._by_key: dict[str, list[str]] = defaultdict(list)
        self._member_of: dict[str, list[str]] = defaultdict(list)
        #: Communities whose every member is a current entity: unscoped, they are shown whole without
        #: a check of each member per look-up (a top-level community holds thousands as the corpus grows).
        #: Per report, every document it draws on (computed on first scoped look-up).
        self._drawn_on: dict[str, frozenset[str]] = {}
        self._whole_communities = frozenset(
            c.id for c in self._communities.values() if all(m in graph.entities for m in c.members))
        for entity in graph.entities.values():
            self._by_name[entity.name].append(entity.id)
            for alias in entity.aliases:
                self._by_alias[alias].append(entity.id)
            for key in {
                match_key(entity.name),
                *(match_key(a) for a in entity.aliases),
            }:
                self._by_key[key].append(entity.id)
        for community in self._communities.values():
            for member in community.members:
                self._member_of[member].append(community.id)

    @property
    def passageless(self) -> bool:
        """Whether the graph has entities but no passages at all (imported from GraphML)."""
        return not self.graph.current_chunks and not self.graph.chunk_documents and bool(self.graph.entities)

    # -- visibility helpers (public for subclasses) ------------------------------

    def visible_entity(self, entity: Entity, scope: GraphScope | None) -> Entity | None:
        """``entity`` trimmed to ``scope``, or ``None`` if it is not visible."""
        return trim_entity(entity, scope, self.graph.chunk_documents, self.passageless)

    def visible_edge(self, edge: Edge, scope: GraphScope | None) -> Edge | None:
        """``edge`` trimmed to ``scope``, or ``None`` if it (or an end) is not visible."""
        if not (scope or EVERYTHING).allows_type(edge.type) or not (edge.chunk_ids or self.passageless):
            return None  # decided without looking at the ends
        ends = (self.graph.entities.get(edge.source), self.graph.entities.get(edge.target))
        visible = all(e is not None and self.visible_entity(e, scope) is not None for e in ends)
        return trim_edge(edge, scope, self.graph.chunk_documents, self.passageless, ends_visible=visible)

    # -- entities ------------------------------------------------------------------

    def entity(self, entity_id: str, scope: GraphScope | None = None) -> Entity | None:
        """The visible entity with this id, or ``None`` (unknown, historical or out of scope)."""
        found = self.graph.entities.get(entity_id)
        return None if found is None else self.visible_entity(found, scope)

    def entity_by_name(self, name: str, scope: GraphScope | None = None) -> Entity | None:
        """Look an entity up by exact name, then alias, then normalised name or alias.

        Among several matches of one kind, the visible one with the most
        mentioning chunks wins (then the smallest id).
        """
        for table, probe in (
            (self._by_name, name),
            (self._by_alias, name),
            (self._by_key, match_key(name)),
        ):
            found = [e for e in (self.entity(i, scope) for i in table.get(probe, ())) if e is not None]
            if found:
                return min(found, key=lambda e: (-e.mention_count, e.id))
        return None

    def entities(self, scope: GraphScope | None = None) -> list[Entity]:
        """Every visible entity, by id."""
        out = (self.visible_entity(e, scope) for e in self.graph.entities.values())
        return [e for e in out if e is not None]

    def mentions(self, chunk_id: str, scope: GraphScope | None = None) -> list[Entity]:
        """Visible entities that a chunk mentions (by id; empty for a hidden chunk)."""
        document = self.graph.chunk_documents.get(chunk_id)
        if document is None or not (scope or EVERYTHING).allows_document(document):
            return []
        found = (self.entity(i, scope) for i in self.graph.mentions.get(chunk_id, ()))
        return [e for e in found if e is not None and chunk_id in e.chunk_ids]

    # -- relations and walks ---------------------------------------------------------

    def neighbours(
        self,
        entity_id: str,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[Edge]:
        """Visible relations attached to ``entity_id`` in ``direction``.

        ``relation_types`` narrows the scope's types (it cannot widen them).
        Sorted by ``(source, target, type)``; empty if the entity is not visible.
        """
        _check_direction(direction)
        scope = (scope or EVERYTHING).narrowed(relation_types)
        if self.entity(entity_id, scope) is None:
            return []
        out = (self.visible_edge(e, scope) for e in self.graph.edges_of(entity_id, direction))
        return [e for e in out if e is not None]

    def _neighbour_ids(self, entity_id: str, scope: GraphScope) -> list[str]:
        """Ids of visible entities related to ``entity_id`` either way (sorted)."""
        if scope == EVERYTHING:  # fast path: every current node and edge is visible
            return sorted(self.graph.neighbour_ids.get(entity_id, ()))
        return sorted({e.other(entity_id) for e in self.neighbours(entity_id, None, "both", scope)} - {entity_id})

    # -- communities and reports -----------------------------------------------------

    def _visible_community(self, community: Community, scope: GraphScope | None) -> Community | None:
        if scope is None and community.id in self._whole_communities:
            return community  # unscoped: every current member is visible (the common, fast case)
        members = tuple(m for m in community.members if self.entity(m, scope) is not None)
        if not members:
            return None
        return community if len(members) == len(community.members) else replace(community, members=members)

    def communities(self, level: int | None = None, scope: GraphScope | None = None) -> list[Community]:
        """Communities of ``level`` (all levels if ``None``) with visible members, in id order."""
        out = (self._visible_community(c, scope) for c in self._communities.values() if level in (None, c.level))
        return [c for c in out if c is not None]

    def community(self, community_id: str, scope: GraphScope | None = None) -> Community | None:
        """One community with its visible members, or ``None``."""
        found = self._communities.get(community_id)
        return None if found is None else self._visible_community(found, scope)

    def _report_visible(self, report: CommunityReport, scope: GraphScope | None) -> bool:
        """Visible to a scope that reads every document the report draws on (:func:`report_documents`)."""
        scope = scope or EVERYTHING
        if self.community(report.community_id, scope) is None and report.community_id in self._communities:
            return False
        if scope.document_ids is None:
            return all(scope.allows_document(self.graph.chunk_documents.get(c, "")) for c in report.chunk_ids)
        drawn = self._drawn_on.get(report.community_id)
        if drawn is None:
            drawn = report_documents(report, self._communities.get(report.community_id), self.graph)
            self._drawn_on[report.community_id] = drawn
        return drawn <= scope.document_ids

    def reports(self, scope: GraphScope | None = None) -> list[CommunityReport]:
        """Reports visible to ``scope`` (it reads every document they draw on), in community order."""
        return [r for r in self._reports.values() if self._report_visible(r, scope)]

    def report(self, community_id: str, scope: GraphScope | None = None) -> CommunityReport | None:
        """The report of one community if visible, else ``None``."""
        found = self._reports.get(community_id)
        return found if found is not None and self._report_visible(found, scope) else None

    def communities_of(
        self,
        entity_ids: Iterable[str],
        level: int | None = None,
        scope: GraphScope | None = None,
    ) -> list[CommunityOverlap]:
        """Communities holding any of ``entity_ids`` (visible ones only).

        Ranked by overlap count (descending), then size (smaller, more specific
        first), then id.
        """
        hits: dict[str, list[str]] = defaultdict(list)
        for entity_id in dict.fromkeys(entity_ids):
            if self.entity(entity_id, scope) is None:
                continue
            for community_id in self._member_of.get(entity_id, ()):
                hits[community_id].append(entity_id)
        out = []
        for community_id, members in hits.items():
            community = self.community(community_id, scope)
            if community is not None and level in (None, community.level):
                out.append(CommunityOverlap(community, tuple(members)))
        return sorted(out, key=lambda o: (-o.count, o.community.size, o.community.id))

    def stored(self) -> tuple[tuple[Community, ...], tuple[CommunityReport, ...]]:
        """Every community and report as stored (unscoped, untrimmed: what a copy of the store must hold)."""
        return tuple(self._communities.values()), tuple(self._reports.values())

    # -- persistence -----------------------------------------------------------------

    def dumps(self) -> str:
        """Stable JSON text of the graph, communities and reports."""
        return persistence.dumps(self.graph, self._communities.values(), self._reports.values())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write everything to ``path`` atomically (temp file, fsync, ``os.replace``), gzip-compressed
        when its name ends in ``.gz`` (:func:`~agrag_lab.kg.persistence.write_file`)."""
        persistence.write_file(path, self.dumps())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> NetworkXGraphStore:
        """Read a store written by :meth:`save` (compressed or plain JSON).

        Raises
        ------
        IndexFormatError
            The file is missing, unreadable, damaged or of another format version.
        """
        return cls.loads(persistence.read_file(path), os.fspath(path))

    @classmethod
    def loads(cls, text: str, source: str = "<string>") -> NetworkXGraphStore:
        """Read a store from :meth:`dumps` text (``source`` names it in errors).

        Raises
        ------
        IndexFormatError
            The text is damaged or of another format version.
        """
        graph, communities, reports = persistence.loads(text, source)
        return cls(graph, communities, reports)
