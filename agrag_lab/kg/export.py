"""What an export holds: :class:`Subgraph`, frozen nodes and edges with scalar properties, and the parts of a graph.

An export is made in two steps: choose the part of the graph (this module:
:func:`whole`, :func:`community`, :func:`neighbourhood`; the subgraph a
search used is chosen from its trace by :mod:`agrag_lab.retrieval.used`),
then write it in a format (:mod:`agrag_lab.kg.export_formats`: GraphML, GEXF,
graphology JSON, a Cypher script, ``neo4j-admin import`` CSVs). Every format
writes the same nodes, edges and properties.

A property value is a ``str``, ``int``, ``float``, ``bool`` or a tuple of
``str`` (a list in Cypher, JSON and the CSVs; JSON text in GraphML and GEXF,
which hold scalars only). Nodes carry ``kind`` (``entity``, ``chunk``,
``community``), edges ``type`` (a relation type, or ``MENTIONS`` /
``IN_COMMUNITY`` for the links the export adds).

Examples
--------
>>> from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
>>> kg = KnowledgeGraph.create(
...     [Entity("ent-a", "Ada", "Person", chunk_ids=("d@1#c0",)), Entity("ent-b", "Babbage", "Person")],
...     [Edge("ent-a", "ent-b", "WORKED_WITH", ("d@1#c0",))],
... )
>>> sub = whole(kg)
>>> [n.id for n in sub.nodes], [(e.source, e.type, e.target) for e in sub.edges]
(['ent-a', 'ent-b'], [('ent-a', 'WORKED_WITH', 'ent-b')])
>>> dict(sub.nodes[0].properties)["name"]
'Ada'
>>> [n.id for n in neighbourhood(kg, "ent-b", depth=1).nodes]
['ent-a', 'ent-b']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from agrag_lab.errors import ArgumentError, NotFoundError
from agrag_lab.kg.communities import Community
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph
from agrag_lab.kg.reports import CommunityReport

__all__ = [
    "IN_COMMUNITY",
    "MENTIONS",
    "ExportEdge",
    "ExportNode",
    "NodeKind",
    "PropertyValue",
    "Subgraph",
    "community",
    "community_node",
    "entity_node",
    "neighbourhood",
    "props_of",
    "relation_edge",
    "whole",
]

NodeKind = Literal["entity", "chunk", "community"]
PropertyValue = str | int | float | bool | tuple[str, ...]
Properties = tuple[tuple[str, PropertyValue], ...]
#: Edge types the export adds beside the graph's own relations.
MENTIONS = "MENTIONS"
IN_COMMUNITY = "IN_COMMUNITY"


@dataclass(frozen=True)
class ExportNode:
    """A node of an export: its id (ours), kind, labels (the entity's label) and properties (sorted by key)."""

    id: str
    kind: NodeKind
    labels: tuple[str, ...] = ()
    properties: Properties = ()

    def get(self, key: str, default: PropertyValue | None = None) -> PropertyValue | None:
        """One property's value (``default`` when absent)."""
        return dict(self.properties).get(key, default)


@dataclass(frozen=True)
class ExportEdge:
    """A directed edge of an export: ``(source, type, target)`` is unique within a :class:`Subgraph`."""

    source: str
    target: str
    type: str
    properties: Properties = ()

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.source, self.target, self.type)

    def get(self, key: str, default: PropertyValue | None = None) -> PropertyValue | None:
        """One property's value (``default`` when absent)."""
        return dict(self.properties).get(key, default)


@dataclass(frozen=True)
class Subgraph:
    """Nodes and edges chosen for an export (both sorted), with what they are (``title``) and graph-wide facts.

    Every edge's ends are nodes of the subgraph (:meth:`create` checks it).
    """

    title: str
    nodes: tuple[ExportNode, ...]
    edges: tuple[ExportEdge, ...]
    attributes: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", MappingProxyType(dict(self.attributes)))

    @classmethod
    def create(
        cls, title: str, nodes: Iterable[ExportNode], edges: Iterable[ExportEdge], attributes: Mapping[str, str] | None = None
    ) -> Subgraph:
        """Sort, de-duplicate (the first node or edge of an id or key wins) and check the ends of every edge.

        Raises
        ------
        ArgumentError
            An edge names a node that is not in ``nodes``.
        """
        by_id: dict[str, ExportNode] = {}
        for node in nodes:
            by_id.setdefault(node.id, node)
        by_key: dict[tuple[str, str, str], ExportEdge] = {}
        for edge in edges:
            by_key.setdefault(edge.key, edge)
        loose = sorted({end for e in by_key.values() for end in (e.source, e.target) if end not in by_id})
        if loose:
            raise ArgumentError(
                f"the export {title!r} has edges to nodes it does not hold ({', '.join(loose[:5])}); "
                "add those nodes, or leave their edges out"
            )
        return cls(title, tuple(by_id[k] for k in sorted(by_id)), tuple(by_key[k] for k in sorted(by_key)),
                   attributes or {})

    def node(self, node_id: str) -> ExportNode:
        """The node with this id.

        Raises
        ------
        NotFoundError
            No node has it.
        """
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise NotFoundError(f"the export {self.title!r} holds no node {node_id!r}")

    def property_keys(self, kind: Literal["node", "edge"]) -> tuple[str, ...]:
        """Every property key of its nodes (or edges), sorted."""
        items: Iterable[ExportNode | ExportEdge] = self.nodes if kind == "node" else self.edges
        return tuple(sorted({k for item in items for k, _ in item.properties}))


def props_of(values: Mapping[str, PropertyValue | None]) -> Properties:
    """Sorted properties, empty values (``""``, ``()``, None) left out."""
    return tuple(sorted((k, v) for k, v in values.items() if v is not None and v != "" and v != ()))


def entity_node(entity: Entity, extra: Mapping[str, PropertyValue | None] | None = None) -> ExportNode:
    """An entity as an export node: name, label, description, aliases, passages, documents, builder attributes."""
    values: dict[str, PropertyValue | None] = {
        "kind": "entity",
        "name": entity.name,
        "label": entity.label,
        "description": entity.description,
        "aliases": entity.aliases,
        "chunk_ids": entity.chunk_ids,
        "document_ids": entity.document_ids,
        "mention_count": entity.mention_count,
        **{f"attr_{k}": v for k, v in entity.attributes},
        **(extra or {}),
    }
    return ExportNode(entity.id, "entity", (entity.label,), props_of(values))


def relation_edge(edge: Edge, extra: Mapping[str, PropertyValue | None] | None = None) -> ExportEdge:
    """A relation as an export edge: type, description, weight (supporting passages) and those passages."""
    values: dict[str, PropertyValue | None] = {
        "type": edge.type,
        "description": edge.description,
        "weight": edge.weight,
        "chunk_ids": edge.chunk_ids,
        **{f"attr_{k}": v for k, v in edge.attributes},
        **(extra or {}),
    }
    return ExportEdge(edge.source, edge.target, edge.type, props_of(values))


def community_node(c: Community, report: CommunityReport | None = None,
                   extra: Mapping[str, PropertyValue | None] | None = None) -> ExportNode:
    """A community as an export node, with its report's title, summary and rating."""
    values: dict[str, PropertyValue | None] = {
        "kind": "community",
        "name": report.title if report is not None and report.title else c.id,
        "level": c.level,
        "size": c.size,
        "parent": c.parent,
        "title": report.title if report is not None else None,
        "summary": report.summary if report is not None else None,
        "rating": report.rating if report is not None else None,
        **(extra or {}),
    }
    return ExportNode(c.id, "community", ("Community",), props_of(values))


def _lowest_communities(communities: Iterable[Community]) -> dict[str, str]:
    """Each entity → the id of its finest community (highest level)."""
    found: dict[str, tuple[int, str]] = {}
    for c in communities:
        for m in c.members:
            if m not in found or (c.level, c.id) > found[m]:
                found[m] = (c.level, c.id)
    return {m: cid for m, (_, cid) in found.items()}


def whole(
    graph: KnowledgeGraph,
    communities: Iterable[Community] = (),
    reports: Iterable[CommunityReport] = (),
    *,
    with_communities: bool = False,
) -> Subgraph:
    """Every current entity and relation; each entity's finest community as its ``community`` property.

    ``with_communities`` also exports the communities as nodes, each member
    linked to it by an ``IN_COMMUNITY`` edge.
    """
    communities = tuple(communities)
    finest = _lowest_communities(communities)
    nodes = [entity_node(e, {"community": finest.get(e.id)}) for e in graph.entities.values()]
    edges = [relation_edge(e) for e in graph.edges]
    if with_communities:
        by_report = {r.community_id: r for r in reports}
        nodes += [community_node(c, by_report.get(c.id)) for c in communities]
        edges += [ExportEdge(m, c.id, IN_COMMUNITY, (("type", IN_COMMUNITY),))
                  for c in communities for m in c.members if m in graph.entities]
    return Subgraph.create("the whole graph", nodes, edges, {"entities": str(len(graph.entities))})


def community(
    graph: KnowledgeGraph,
    communities: Iterable[Community],
    reports: Iterable[CommunityReport],
    community_id: str,
) -> Subgraph:
    """One community: its current members, the relations among them, and the community node with its report.

    Raises
    ------
    NotFoundError
        No community has this id.
    """
    chosen = {c.id: c for c in communities}.get(community_id)
    if chosen is None:
        raise NotFoundError(f"no community {community_id!r} in this graph; list them with Graph.graph_store.communities()")
    report = next((r for r in reports if r.community_id == community_id), None)
    members = [m for m in chosen.members if m in graph.entities]
    inside = set(members)
    nodes = [community_node(chosen, report), *(entity_node(graph.entities[m]) for m in members)]
    edges = [relation_edge(e) for e in graph.edges if e.source in inside and e.target in inside]
    edges += [ExportEdge(m, chosen.id, IN_COMMUNITY, (("type", IN_COMMUNITY),)) for m in members]
    return Subgraph.create(f"community {community_id}", nodes, edges)


def neighbourhood(graph: KnowledgeGraph, entity_id: str, depth: int = 1, *, limit: int = 500) -> Subgraph:
    """An entity and what lies within ``depth`` relations of it (either way), with the relations among them.

    Each node has ``hop`` (0 for the centre). At most ``limit`` nodes, nearest
    first (then by id).

    Raises
    ------
    NotFoundError
        The entity is not a current entity of the graph.
    ArgumentError
        ``depth`` is below 0 or ``limit`` below 1.
    """
    if entity_id not in graph.entities:
        raise NotFoundError(f"no current entity {entity_id!r} in this graph; find its id with find_entities or the explorer")
    if depth < 0 or limit < 1:
        raise ArgumentError(f"a neighbourhood needs depth >= 0 and limit >= 1 (got depth={depth}, limit={limit})")
    hops = {entity_id: 0}
    frontier = [entity_id]
    for hop in range(1, depth + 1):
        nxt = sorted({n for f in frontier for n in graph.neighbour_ids.get(f, ()) if n not in hops})
        for n in nxt:
            if len(hops) >= limit:
                break
            hops[n] = hop
        frontier = [n for n in nxt if n in hops]
    nodes = [entity_node(graph.entities[e], {"hop": h}) for e, h in hops.items()]
    edges = [relation_edge(e) for e in graph.edges if e.source in hops and e.target in hops]
    return Subgraph.create(f"within {depth} of {entity_id}", nodes, edges)
