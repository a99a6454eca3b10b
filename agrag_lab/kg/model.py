"""The graph data model: :class:`Entity`, :class:`Edge` and :class:`KnowledgeGraph`.

Frozen values with a stable JSON form (:meth:`KnowledgeGraph.to_dict` /
:meth:`KnowledgeGraph.from_dict`) and a networkx view
(:attr:`KnowledgeGraph.graph`, a ``MultiDiGraph`` keyed by relation type).
:mod:`agrag_lab.kg.extract.build` makes them from extractions.

Examples
--------
>>> kg = KnowledgeGraph.create(
...     [Entity("ent-a", "Ada", "Person", chunk_ids=("c1",)), Entity("ent-b", "Babbage", "Person", chunk_ids=("c1",))],
...     [Edge("ent-a", "ent-b", "WORKED_WITH", ("c1",))],
... )
>>> list(kg.graph.edges(keys=True))
[('ent-a', 'ent-b', 'WORKED_WITH')]
>>> KnowledgeGraph.from_dict(kg.to_dict()) == kg
True
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from agrag_lab.kg.claims import Claim as Claim  # re-exported (its home: agrag_lab.kg.claims, a leaf)
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import natural_key, slugify

__all__ = [
    "Attributes", "Claim", "Edge", "Entity", "KnowledgeGraph", "assign_entity_ids", "edge_from_dict", "edge_to_dict", "entity_from_dict",
    "entity_to_dict",
]

#: Extra scalar facts an imported record keeps (GraphRAG's frequency, degree,
#: weight; GraphML attributes), as sorted ``(key, value)`` pairs.
Attributes = tuple[tuple[str, str | int | float | bool], ...]


@dataclass(frozen=True)
class Entity:
    """A resolved entity.

    Attributes
    ----------
    id : str
        ``ent-<slug>``, stable for a given canonical name.
    name, label : str
        Canonical name and schema label.
    aliases : tuple of str
        Other names it was found under (sorted).
    description : str
        A short extractive description (given in metadata, or the sentence of
        its first current mention), at most about 300 characters.
    chunk_ids : tuple of str
        Current chunks that mention it (natural order).
    history_chunk_ids : tuple of str
        Superseded chunks that mention it.
    document_ids : tuple of str
        Documents of ``chunk_ids``.
    descriptions : tuple of (str, str)
        ``(chunk_id, text)`` description candidates, best first, at most one per
        document; lets a scoped view pick a description from a visible chunk.
    forms : tuple of (str, str)
        ``(document_id, name)`` for every name it was found under, so a scoped
        view shows only aliases from visible documents.
    """

    id: str
    name: str
    label: str
    aliases: tuple[str, ...] = ()
    description: str = ""
    chunk_ids: tuple[str, ...] = ()
    history_chunk_ids: tuple[str, ...] = ()
    document_ids: tuple[str, ...] = ()
    descriptions: tuple[tuple[str, str], ...] = ()
    forms: tuple[tuple[str, str], ...] = ()
    attributes: Attributes = ()
    claims: tuple[Claim, ...] = ()

    @property
    def mention_count(self) -> int:
        """Number of current chunks that mention the entity."""
        return len(self.chunk_ids)

    @property
    def current(self) -> bool:
        """Whether some current chunk mentions the entity."""
        return bool(self.chunk_ids)


@dataclass(frozen=True)
class Edge:
    """A relation between two entities, merged over every chunk that states it.

    ``chunk_ids`` are the current supporting chunks; ``history_chunk_ids`` the
    superseded ones (support that no longer counts, kept for provenance);
    ``sentences`` holds ``(chunk_id, sentence)`` for each supporting chunk.
    ``description`` is a written description of the relation (an imported
    graph's, e.g. GraphRAG's LLM summary; ``""`` for extracted relations) and
    ``attributes`` extra scalar facts (GraphRAG's ``weight``, GraphML keys).
    """

    source: str
    target: str
    type: str
    chunk_ids: tuple[str, ...] = ()
    history_chunk_ids: tuple[str, ...] = ()
    sentences: tuple[tuple[str, str], ...] = ()
    description: str = ""
    attributes: Attributes = ()

    @property
    def key(self) -> tuple[str, str, str]:
        """``(source, target, type)``, unique within a graph."""
        return (self.source, self.target, self.type)

    @property
    def weight(self) -> int:
        """Number of current supporting chunks."""
        return len(self.chunk_ids)

    def other(self, entity_id: str) -> str:
        """The end of the edge that is not ``entity_id``."""
        return self.target if entity_id == self.source else self.source


def entity_to_dict(entity: Entity) -> dict[str, Any]:
    """The stable JSON form of an entity (:meth:`KnowledgeGraph.to_dict` writes one per entity)."""
    return {
        "id": entity.id,
        "name": entity.name,
        "label": entity.label,
        "aliases": list(entity.aliases),
        "description": entity.description,
        "chunk_ids": list(entity.chunk_ids),
        "history_chunk_ids": list(entity.history_chunk_ids),
        "document_ids": list(entity.document_ids),
        "descriptions": [list(d) for d in entity.descriptions],
        "forms": [list(f) for f in entity.forms],
        **({"attributes": [list(a) for a in entity.attributes]} if entity.attributes else {}),
        **({"claims": [_claim_dict(c) for c in entity.claims]} if entity.claims else {}),
    }


def _claim_dict(claim: Claim) -> dict[str, Any]:
    return {k: getattr(claim, k) for k in Claim.__dataclass_fields__}


def _attributes_from(data: Mapping[str, Any]) -> Attributes:
    return tuple((str(k), v) for k, v in data.get("attributes", ()))


def entity_from_dict(data: Mapping[str, Any]) -> Entity:
    """The entity :func:`entity_to_dict` wrote."""
    return Entity(
        id=data["id"],
        name=data["name"],
        label=data["label"],
        aliases=tuple(data["aliases"]),
        description=data["description"],
        chunk_ids=tuple(data["chunk_ids"]),
        history_chunk_ids=tuple(data["history_chunk_ids"]),
        document_ids=tuple(data["document_ids"]),
        descriptions=tuple((c, t) for c, t in data["descriptions"]),
        forms=tuple((d, n) for d, n in data["forms"]),
        attributes=_attributes_from(data),
        claims=tuple(Claim(**c) for c in data.get("claims", ())),
    )


def edge_to_dict(edge: Edge) -> dict[str, Any]:
    """The stable JSON form of a relation (:meth:`KnowledgeGraph.to_dict` writes one per relation)."""
    return {
        "source": edge.source,
        "target": edge.target,
        "type": edge.type,
        "chunk_ids": list(edge.chunk_ids),
        "history_chunk_ids": list(edge.history_chunk_ids),
        "sentences": [list(s) for s in edge.sentences],
        **({"description": edge.description} if edge.description else {}),
        **({"attributes": [list(a) for a in edge.attributes]} if edge.attributes else {}),
    }


def edge_from_dict(data: Mapping[str, Any]) -> Edge:
    """The relation :func:`edge_to_dict` wrote."""
    return Edge(
        source=data["source"],
        target=data["target"],
        type=data["type"],
        chunk_ids=tuple(data["chunk_ids"]),
        history_chunk_ids=tuple(data["history_chunk_ids"]),
        sentences=tuple((c, s) for c, s in data["sentences"]),
        description=data.get("description", ""),
        attributes=_attributes_from(data),
    )


def _schema_dict(schema: GraphSchema) -> dict[str, Any]:
    return {
        "entity_labels": list(schema.entity_labels),
        "relation_types": list(schema.relation_types),
        "default_label": schema.default_label,
        "default_relation_type": schema.default_relation_type,
        "symmetric_relation_types": list(schema.symmetric_relation_types),
    }


def _networkx_graph(entities: Iterable[Entity], edges: Iterable[Edge]) -> Any:
    import networkx as nx  # type: ignore[import-untyped,unused-ignore]  # here: 0.1 s of a start that builds no graph

    graph = nx.MultiDiGraph()
    for e in entities:
        graph.add_node(
            e.id,
            name=e.name,
            label=e.label,
            aliases=list(e.aliases),
            description=e.description,
            chunk_ids=list(e.chunk_ids),
            document_ids=list(e.document_ids),
            mention_count=e.mention_count,
        )
    for edge in edges:
        graph.add_edge(
            edge.source,
            edge.target,
            key=edge.type,
            type=edge.type,
            chunk_ids=list(edge.chunk_ids),
            weight=edge.weight,
            description=edge.description,
        )
    return graph


@dataclass(frozen=True, eq=False)
class KnowledgeGraph:
    """Entities, relations and chunk→entity mentions, current and historical.

    Attributes
    ----------
    graph : networkx.MultiDiGraph
        Current entities as nodes (attributes: name, label, aliases,
        description, chunk_ids, document_ids, mention_count) and current
        relations as edges keyed by type (attributes: type, chunk_ids, weight).
        Built on first use (searches never need it: they read ``entities``
        and ``edges``). Treat it as read-only.
    entities : mapping of str to Entity
        Current entities by id (sorted).
    edges : tuple of Edge
        Current relations, sorted by ``(source, target, type)``.
    history_entities, history_edges
        Entities and relations supported only by superseded chunks.
    mentions : mapping of str to tuple of str
        Every chunk id (current or superseded) → ids of the entities it mentions.
    chunk_documents : mapping of str to str
        Every chunk id → its document id.
    current_chunks : frozenset of str
        The chunk ids that belong to current versions.
    schema : GraphSchema
        The schema labels and types were normalised with.
    """

    entities: Mapping[str, Entity]
    edges: tuple[Edge, ...]
    history_entities: Mapping[str, Entity] = field(default_factory=dict)
    history_edges: tuple[Edge, ...] = ()
    mentions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    chunk_documents: Mapping[str, str] = field(default_factory=dict)
    current_chunks: frozenset[str] = frozenset()
    schema: GraphSchema = GENERIC

    @classmethod
    def create(
        cls,
        entities: Iterable[Entity],
        edges: Iterable[Edge],
        history_entities: Iterable[Entity] = (),
        history_edges: Iterable[Edge] = (),
        mentions: Mapping[str, Iterable[str]] | None = None,
        chunk_documents: Mapping[str, str] | None = None,
        current_chunks: Iterable[str] = (),
        schema: GraphSchema = GENERIC,
    ) -> KnowledgeGraph:
        """Assemble a graph from its parts, sorting everything canonically."""
        current = sorted(entities, key=lambda e: e.id)
        edge_list = sorted(edges, key=lambda e: e.key)
        chunks = sorted((mentions or {}).items(), key=lambda item: natural_key(item[0]))
        documents = sorted((chunk_documents or {}).items(), key=lambda item: natural_key(item[0]))
        return cls(
            entities=MappingProxyType({e.id: e for e in current}),
            edges=tuple(edge_list),
            history_entities=MappingProxyType({e.id: e for e in sorted(history_entities, key=lambda e: e.id)}),
            history_edges=tuple(sorted(history_edges, key=lambda e: e.key)),
            mentions=MappingProxyType({c: tuple(sorted(ids)) for c, ids in chunks}),
            chunk_documents=MappingProxyType(dict(documents)),
            current_chunks=frozenset(current_chunks),
            schema=schema,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict holding everything (stable order; see :meth:`from_dict`)."""
        return {
            "schema": _schema_dict(self.schema),
            "entities": [entity_to_dict(e) for e in self.entities.values()],
            "edges": [edge_to_dict(e) for e in self.edges],
            "history_entities": [entity_to_dict(e) for e in self.history_entities.values()],
            "history_edges": [edge_to_dict(e) for e in self.history_edges],
            "mentions": {c: list(ids) for c, ids in self.mentions.items()},
            "chunk_documents": dict(self.chunk_documents),
            "current_chunks": sorted(self.current_chunks, key=natural_key),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KnowledgeGraph:
        """Rebuild a graph from :meth:`to_dict` output.

        Raises
        ------
        KeyError, TypeError, ValueError
            ``data`` is not shaped like :meth:`to_dict` output.
        """
        s = data["schema"]
        schema = GraphSchema(
            tuple(s["entity_labels"]),
            tuple(s["relation_types"]),
            s["default_label"],
            s["default_relation_type"],
            tuple(s["symmetric_relation_types"]),
        )
        return cls.create(
            [entity_from_dict(e) for e in data["entities"]],
            [edge_from_dict(e) for e in data["edges"]],
            [entity_from_dict(e) for e in data["history_entities"]],
            [edge_from_dict(e) for e in data["history_edges"]],
            {c: tuple(ids) for c, ids in data["mentions"].items()},
            dict(data["chunk_documents"]),
            data["current_chunks"],
            schema,
        )

    @cached_property
    def graph(self) -> Any:
        """The networkx view (see the class's Attributes), built on first use.

        Not at load: networkx's import (0.1 s) and the build (seconds at 100k
        passages) were paid by every open, and no search reads it (issue 30).
        """
        return _networkx_graph(self.entities.values(), self.edges)

    def node_link(self) -> dict[str, Any]:
        """The current graph in networkx node-link form (``edges="edges"``)."""
        import networkx as nx  # type: ignore[import-untyped,unused-ignore]

        data: dict[str, Any] = nx.node_link_data(self.graph, edges="edges")
        return data

    @cached_property
    def edge_index(self) -> Mapping[tuple[str, str, str], Edge]:
        """Current edges by ``(source, target, type)``."""
        return MappingProxyType({e.key: e for e in self.edges})

    @cached_property
    def _incidence(self) -> tuple[dict[str, list[Edge]], dict[str, list[Edge]]]:
        """Current edges by source and by target (each list in edge order)."""
        out: dict[str, list[Edge]] = defaultdict(list)
        into: dict[str, list[Edge]] = defaultdict(list)
        for edge in self.edges:
            out[edge.source].append(edge)
            into[edge.target].append(edge)
        return dict(out), dict(into)

    @cached_property
    def neighbour_ids(self) -> Mapping[str, frozenset[str]]:
        """Every current entity → the entities related to it either way (no self)."""
        found: dict[str, set[str]] = {e: set() for e in self.entities}
        for edge in self.edges:
            if edge.source != edge.target:
                found[edge.source].add(edge.target)
                found[edge.target].add(edge.source)
        return MappingProxyType({e: frozenset(n) for e, n in found.items()})

    def edges_of(self, entity_id: str, direction: str = "both") -> list[Edge]:
        """Current edges leaving (``"out"``), entering (``"in"``) or touching (``"both"``) an entity.

        Ordered by ``(source, target, type)``; empty for an unknown id.
        """
        out, into = self._incidence
        if direction == "out":
            return list(out.get(entity_id, ()))
        if direction == "in":
            return list(into.get(entity_id, ()))
        both = out.get(entity_id, []) + [e for e in into.get(entity_id, ()) if e.source != entity_id]
        return sorted(both, key=lambda e: e.key)

    def entity(self, entity_id: str) -> Entity | None:
        """The entity with this id, current or historical, or ``None``."""
        return self.entities.get(entity_id) or self.history_entities.get(entity_id)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KnowledgeGraph):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]


def assign_entity_ids(names: list[tuple[str, str, int]]) -> list[str]:
    """Give each ``(name, key, mentions)`` an ``ent-<slug>`` id, unique and stable.

    The most mentioned of the names that share a slug (then the smallest key) takes
    ``ent-<slug>``; each other one ``ent-<slug>-<8 hex digits of its key's sha1>``.
    Every builder of a graph (extraction, every import) names its entities by this rule.

    Examples
    --------
    >>> assign_entity_ids([("Ada", "ada", 1), ("ADA", "ada!", 3)])
    ['ent-ada-e4ea294c', 'ent-ada']
    """
    by_slug: dict[str, list[int]] = defaultdict(list)
    for i, (name, _key, _count) in enumerate(names):
        by_slug[slugify(name)].append(i)
    ids = [""] * len(names)
    for slug, members in by_slug.items():
        ordered = sorted(members, key=lambda i: (-names[i][2], names[i][1]))
        ids[ordered[0]] = f"ent-{slug}"
        for i in ordered[1:]:
            digest = hashlib.sha1(names[i][1].encode("utf-8")).hexdigest()[:8]
            ids[i] = f"ent-{slug}-{digest}"
    return ids
