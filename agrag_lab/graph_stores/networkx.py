"""The in-process graph store: :class:`NetworkXGraphStore`, a knowledge graph held in memory.

Its look-ups (entities by id and name, relations, communities, reports) read
lookup tables over a :class:`~agrag_lab.kg.model.KnowledgeGraph`; what a
:class:`GraphScope` shows is decided by :mod:`agrag_lab.kg.visibility`, the
walks by :class:`~agrag_lab.kg.algorithms.walks.GraphWalks`, and the file it is saved to
by :mod:`agrag_lab.graph_stores.persistence`. A community shows only its visible members.

The contract it implements lives in :mod:`agrag_lab.kg.graph_store` and the
scope in :mod:`agrag_lab.kg.scope`.

:class:`NetworkXGraphStore` implements the :class:`GraphStore` protocol over a
:class:`~agrag_lab.kg.extract.build.KnowledgeGraph`. It keeps no hidden state beyond
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
from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import replace

from agrag_lab.graph_stores import persistence
from agrag_lab.kg.algorithms.walks import GraphWalks, check_direction
from agrag_lab.kg.communities import Community
from agrag_lab.kg.described import has_described_relations
from agrag_lab.kg.graph_store import CommunityOverlap, Direction, NameProbe, lookup_by_name, overlap_order
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.scope import EVERYTHING, GraphScope
from agrag_lab.kg.text import match_key
from agrag_lab.kg.visibility import report_documents, trim_edge, trim_entity

__all__ = ["NetworkXGraphStore"]


class NetworkXGraphStore(GraphWalks):
    """A :class:`GraphStore` over an in-memory :class:`KnowledgeGraph`.

    Parameters
    ----------
    graph : KnowledgeGraph
        The graph (treated as read-only).
    communities : iterable of Community
        From :func:`~agrag_lab.kg.algorithms.communities.detect_communities`.
    reports : iterable of CommunityReport
        From :func:`~agrag_lab.kg.extract.reports.build_reports`.
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
        self._described: bool | None = None  # described_relations(), decided on first use
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

    def described_relations(self) -> bool:
        """Whether a builder described the graph's relations (:func:`~agrag_lab.kg.described.described_relation`).

        Then its relation records are the builder's, and a recipe following the builder's own
        entity search leaves them out. Decided once (the graph is read-only).
        """
        if self._described is None:
            self._described = has_described_relations(self.graph.edges)
        return self._described

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
        """Look an entity up by exact name, then alias, then normalised name or alias (:func:`lookup_by_name`)."""
        tables = {"name": self._by_name, "alias": self._by_alias, "key": self._by_key}

        def find(probe: NameProbe, value: str) -> list[Entity]:
            return [e for e in (self.entity(i, scope) for i in tables[probe].get(value, ())) if e is not None]

        return lookup_by_name(name, find)

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
        check_direction(direction)
        scope = (scope or EVERYTHING).narrowed(relation_types)
        if self.entity(entity_id, scope) is None:
            return []
        out = (self.visible_edge(e, scope) for e in self.graph.edges_of(entity_id, direction))
        return [e for e in out if e is not None]

    def relations(self, scope: GraphScope | None = None) -> list[Edge]:
        """Every visible relation between two visible entities, trimmed to ``scope``, by key."""
        found = (self.visible_edge(e, scope) for e in self.graph.edges)
        return sorted((e for e in found if e is not None), key=lambda e: e.key)

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
        return overlap_order(out)

    def stored(self) -> tuple[tuple[Community, ...], tuple[CommunityReport, ...]]:
        """Every community and report as stored (unscoped, untrimmed: what a copy of the store must hold)."""
        return tuple(self._communities.values()), tuple(self._reports.values())

    # -- persistence -----------------------------------------------------------------

    def dumps(self) -> str:
        """Stable JSON text of the graph, communities and reports."""
        return persistence.dumps(self.graph, self._communities.values(), self._reports.values())

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write everything to ``path`` atomically (temp file, fsync, ``os.replace``), gzip-compressed
        when its name ends in ``.gz`` (:func:`~agrag_lab.graph_stores.persistence.write_file`)."""
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
