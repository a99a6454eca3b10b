"""Build a :class:`KnowledgeGraph` from per-chunk extractions.

:func:`build_knowledge_graph` resolves mentions across the corpus (see
:mod:`agrag_lab.kg.resolution`), gives every entity a stable id
(``ent-<slug of its canonical name>``), and merges relations by
``(source, target, type)``. Support is tracked per chunk: a *current* chunk
supports an entity or relation now; a *superseded* chunk (an older version of
a document) only adds to its history. An entity or relation without current
support is kept in :attr:`KnowledgeGraph.history_entities` /
:attr:`KnowledgeGraph.history_edges` and is absent from the traversable
:attr:`KnowledgeGraph.graph`.

The result depends only on the set of items, never on their order.

Examples
--------
>>> from agrag_lab.kg.extraction import EntityMention, Extraction, RelationMention
>>> x = Extraction(
...     (EntityMention("Ada Lovelace", "Person", "a#c0", 0, 12),
...      EntityMention("Charles Babbage", "Person", "a#c0", 25, 40)),
...     (RelationMention("Ada Lovelace", "Charles Babbage", "WORKED_WITH", "a#c0", "..."),),
... )
>>> kg = build_knowledge_graph([ChunkExtraction("a#c0", "a", True, "...", x)])
>>> sorted(kg.entities)
['ent-ada-lovelace', 'ent-charles-babbage']
>>> [(e.source, e.type, e.target) for e in kg.edges]
[('ent-ada-lovelace', 'WORKED_WITH', 'ent-charles-babbage')]
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

import networkx as nx  # type: ignore[import-untyped,unused-ignore]

from agrag_lab.kg import lexicon as lx
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extraction import Extraction
from agrag_lab.kg.resolution import MentionRecord, ResolvedEntity, Resolver, resolve
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import (
    match_key,
    natural_key,
    sentence_at,
    slugify,
    split_sentences,
    trim_text,
)

__all__ = [
    "ChunkExtraction",
    "Edge",
    "Entity",
    "KnowledgeGraph",
    "build_knowledge_graph",
    "paused_gc",
]

#: Descriptions are cut to about this many characters.
DESCRIPTION_CHARS = 300


@dataclass(frozen=True)
class ChunkExtraction:
    """The extraction of one chunk, with what the builder must know about the chunk.

    ``current`` is false for chunks of a superseded version: their support goes
    to history only. ``text`` is the chunk text (descriptions are cut from it).
    """

    chunk_id: str
    document_id: str
    current: bool
    text: str
    extraction: Extraction


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
    """

    source: str
    target: str
    type: str
    chunk_ids: tuple[str, ...] = ()
    history_chunk_ids: tuple[str, ...] = ()
    sentences: tuple[tuple[str, str], ...] = ()

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


def _entity_dict(entity: Entity) -> dict[str, Any]:
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
    }


def _entity_from(data: Mapping[str, Any]) -> Entity:
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
    )


def _edge_dict(edge: Edge) -> dict[str, Any]:
    return {
        "source": edge.source,
        "target": edge.target,
        "type": edge.type,
        "chunk_ids": list(edge.chunk_ids),
        "history_chunk_ids": list(edge.history_chunk_ids),
        "sentences": [list(s) for s in edge.sentences],
    }


def _edge_from(data: Mapping[str, Any]) -> Edge:
    return Edge(
        source=data["source"],
        target=data["target"],
        type=data["type"],
        chunk_ids=tuple(data["chunk_ids"]),
        history_chunk_ids=tuple(data["history_chunk_ids"]),
        sentences=tuple((c, s) for c, s in data["sentences"]),
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
        Treat it as read-only.
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

    graph: Any
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
            graph=_networkx_graph(current, edge_list),
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
            "entities": [_entity_dict(e) for e in self.entities.values()],
            "edges": [_edge_dict(e) for e in self.edges],
            "history_entities": [_entity_dict(e) for e in self.history_entities.values()],
            "history_edges": [_edge_dict(e) for e in self.history_edges],
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
            [_entity_from(e) for e in data["entities"]],
            [_edge_from(e) for e in data["edges"]],
            [_entity_from(e) for e in data["history_entities"]],
            [_edge_from(e) for e in data["history_edges"]],
            {c: tuple(ids) for c, ids in data["mentions"].items()},
            dict(data["chunk_documents"]),
            data["current_chunks"],
            schema,
        )

    def node_link(self) -> dict[str, Any]:
        """The current graph in networkx node-link form (``edges="edges"``)."""
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


# --------------------------------------------------------------------------- building


@dataclass
class _Support:
    """Mutable accumulator of one entity's or relation's support during a build."""

    current: list[str] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    sentences: dict[str, str] = field(default_factory=dict)

    def add(self, chunk_id: str, current: bool) -> None:
        bucket = self.current if current else self.history
        if chunk_id not in bucket:
            bucket.append(chunk_id)


def _sorted_ids(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(ids), key=natural_key))


def _assign_ids(names: list[tuple[str, str, int]]) -> list[str]:
    """Give each ``(name, key, mentions)`` an ``ent-<slug>`` id, unique and stable."""
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


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a bulk build (it creates no cycles).

    Building allocates many small containers, which triggers full collections
    that rescan everything built so far; pausing halves build time on large
    corpora. The collector's previous state is restored.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def build_knowledge_graph(
    items: Iterable[ChunkExtraction],
    schema: GraphSchema = GENERIC,
    resolver: Resolver = resolve,
    *,
    link_nested_names: bool = True,
) -> KnowledgeGraph:
    """Resolve, merge and index the extractions of a corpus into a graph.

    Parameters
    ----------
    items : iterable of ChunkExtraction
        One per chunk, current and superseded. Order does not matter.
    schema : GraphSchema
        Labels and relation types are normalised with it.
    resolver : callable
        Maps mention records to entities; :func:`~agrag_lab.kg.resolution.resolve`
        by default.
    link_nested_names : bool
        Relate an entity to every other entity whose name it contains as its
        first or last words ("Philbrook Museum of Tulsa" → "Tulsa", "Boston
        Harbor" → "Boston") with ``RELATED_TO``, supported by the chunks that
        mention the longer name.

    Returns
    -------
    KnowledgeGraph

    Raises
    ------
    KnowledgeGraphError
        Two items share a chunk id.

    Notes
    -----
    A relation whose ends resolve to one entity is dropped. A symmetric type
    (see :attr:`GraphSchema.symmetric_relation_types`) is stored once, from the
    smaller id to the larger. Within one chunk, a ``RELATED_TO`` between two
    entities that the chunk also relates with a typed relation is dropped.
    The cyclic garbage collector is paused while building (see :func:`paused_gc`).
    """
    with paused_gc():
        return _build(list(items), schema, resolver, link_nested_names)


#: Single words that never stand for a nested name ("County" in "Cook County").
_GENERIC_WORDS = (
    lx.STOP_CAPITALISED | lx.DEMONYMS | lx.PERSON_TITLES | frozenset().union(*(w for _, w in lx.HEAD_WORDS))
)


def _nested_names(entities: Sequence[ResolvedEntity]) -> list[tuple[int, int]]:
    """Pairs (i, j): a name of entity i starts or ends with the whole key of entity j."""
    owner: dict[str, int] = {}
    ambiguous: set[str] = set()
    for i, entity in enumerate(entities):
        for key in {match_key(n) for n in (entity.name, *entity.aliases)}:
            if owner.setdefault(key, i) != i:
                ambiguous.add(key)
    pairs: set[tuple[int, int]] = set()
    for i, entity in enumerate(entities):
        for key in {match_key(n) for n in (entity.name, *entity.aliases)}:
            tokens = key.split()
            for k in range(1, len(tokens)):
                for part in (tokens[:k], tokens[k:]):
                    if part[0] in lx.NAME_CONNECTORS or part[-1] in lx.NAME_CONNECTORS:
                        continue
                    if len(part) == 1 and (len(part[0]) < 3 or part[0].isdigit() or part[0] in _GENERIC_WORDS):
                        continue
                    sub = " ".join(part)
                    j = owner.get(sub, -1)
                    if j >= 0 and j != i and sub not in ambiguous:
                        pairs.add((i, j))
    return sorted(pairs)


def _build(
    items: list[ChunkExtraction],
    schema: GraphSchema,
    resolver: Resolver,
    link_nested_names: bool,
) -> KnowledgeGraph:
    chunks = sorted(items, key=lambda x: (natural_key(x.document_id), natural_key(x.chunk_id)))
    seen: set[str] = set()
    for item in chunks:
        if item.chunk_id in seen:
            raise KnowledgeGraphError(
                f"chunk id {item.chunk_id!r} appears twice: give build_knowledge_graph one ChunkExtraction per chunk"
            )
        seen.add(item.chunk_id)

    # 1. Mention records (relation ends that no mention covers become mentions too).
    records: list[MentionRecord] = []
    origins: list[tuple[int, int, str]] = []  # (item index, start offset, description)
    for index, item in enumerate(chunks):
        keys = set()
        for m in item.extraction.entities:
            label = schema.normalise_label(m.label)
            records.append(MentionRecord(m.name, label, item.document_id, m.aliases, m.given))
            origins.append((index, m.start, m.description))
            keys.add(match_key(m.name))
        for r in item.extraction.relations:
            for name in (r.source, r.target):
                if match_key(name) not in keys:
                    keys.add(match_key(name))
                    records.append(MentionRecord(name, schema.default_label, item.document_id))
                    origins.append((index, -1, ""))
    resolution = resolver(records, schema)

    # 2. Entity support, forms and descriptions.
    n = len(resolution.entities)
    support = [_Support() for _ in range(n)]
    forms: list[set[tuple[str, str]]] = [set() for _ in range(n)]
    # per entity and document: (given rank, current rank, chunk id, text); lowest rank wins
    described: list[dict[str, tuple[int, int, str, str]]] = [{} for _ in range(n)]
    chunk_entities: dict[int, dict[str, int]] = defaultdict(dict)
    doc_counts: list[dict[str, int]] = [{} for _ in range(n)]
    sentence_cache: dict[int, list[tuple[int, int]]] = {}
    for record, (index, start, given_description), owner in zip(records, origins, resolution.assignment, strict=True):
        if owner < 0:
            continue
        item = chunks[index]
        support[owner].add(item.chunk_id, item.current)
        forms[owner].add((item.document_id, record.name))
        forms[owner].update((item.document_id, alias) for alias in record.aliases)
        chunk_entities[index].setdefault(match_key(record.name), owner)
        if item.current:
            doc_counts[owner][item.document_id] = doc_counts[owner].get(item.document_id, 0) + 1
        best = described[owner].get(item.document_id)
        rank = (0 if given_description else 1, 0 if item.current else 1)
        if best is None or rank < best[:2]:
            if given_description:
                text = given_description
            else:
                spans = sentence_cache.get(index)
                if spans is None:
                    spans = sentence_cache[index] = split_sentences(item.text)
                text = sentence_at(item.text, start, spans)
            if text.strip():
                described[owner][item.document_id] = (
                    *rank,
                    item.chunk_id,
                    trim_text(text, DESCRIPTION_CHARS),
                )

    # 3. Relations.
    relations: dict[tuple[int, int, str], _Support] = {}
    default_type = schema.default_relation_type
    for index, item in enumerate(chunks):
        local = chunk_entities.get(index, {})
        found: list[tuple[int, int, str, str]] = []
        for r in item.extraction.relations:
            s, t = (
                local.get(match_key(r.source), -1),
                local.get(match_key(r.target), -1),
            )
            if s < 0 or t < 0 or s == t:
                continue
            found.append((s, t, schema.normalise_relation_type(r.type), r.sentence))
        typed_pairs = {frozenset((s, t)) for s, t, kind, _ in found if kind != default_type}
        for s, t, kind, sentence in found:
            if kind == default_type and frozenset((s, t)) in typed_pairs:
                continue
            bucket = relations.setdefault((s, t, kind), _Support())
            bucket.add(item.chunk_id, item.current)
            if sentence and item.chunk_id not in bucket.sentences:
                bucket.sentences[item.chunk_id] = sentence

    if link_nested_names:
        for i, j in _nested_names(resolution.entities):
            bucket = relations.setdefault((i, j, default_type), _Support())
            for chunk_id in support[i].current:
                bucket.add(chunk_id, True)
            for chunk_id in support[i].history:
                bucket.add(chunk_id, False)

    # 4. Ids, entities, edges.
    chunk_documents = {item.chunk_id: item.document_id for item in chunks}
    ids = _assign_ids([(e.name, e.key, len(support[i].current)) for i, e in enumerate(resolution.entities)])
    current_entities: list[Entity] = []
    past_entities: list[Entity] = []
    for i, resolved in enumerate(resolution.entities):
        sup = support[i]
        candidates = sorted(
            described[i].items(),
            key=lambda item: (
                item[1][0],
                item[1][1],
                -doc_counts[i].get(item[0], 0),
                item[0],
            ),
        )
        descriptions = tuple((c, text) for _doc, (_g, _cur, c, text) in candidates)
        entity = Entity(
            id=ids[i],
            name=resolved.name,
            label=resolved.label,
            aliases=resolved.aliases,
            description=descriptions[0][1] if descriptions else "",
            chunk_ids=_sorted_ids(sup.current),
            history_chunk_ids=_sorted_ids(sup.history),
            document_ids=tuple(sorted({chunk_documents[c] for c in sup.current})),
            descriptions=descriptions,
            forms=tuple(sorted((d, f) for d, f in forms[i] if f)),
        )
        (current_entities if entity.current else past_entities).append(entity)
    merged: dict[tuple[str, str, str], _Support] = {}
    for (s, t, kind), sup in relations.items():
        source, target = ids[s], ids[t]
        if schema.is_symmetric(kind) and target < source:
            source, target = target, source
        into = merged.setdefault((source, target, kind), _Support())
        for c in sup.current:
            into.add(c, True)
        for c in sup.history:
            into.add(c, False)
        for c, sentence in sup.sentences.items():
            into.sentences.setdefault(c, sentence)
    current_edges: list[Edge] = []
    past_edges: list[Edge] = []
    for (source, target, kind), sup in merged.items():
        edge = Edge(
            source,
            target,
            kind,
            _sorted_ids(sup.current),
            _sorted_ids(sup.history),
            tuple(sorted(sup.sentences.items(), key=lambda item: natural_key(item[0]))),
        )
        (current_edges if edge.chunk_ids else past_edges).append(edge)

    mentions: dict[str, set[str]] = {item.chunk_id: set() for item in chunks}
    for index, local in chunk_entities.items():
        mentions[chunks[index].chunk_id].update(ids[e] for e in local.values())
    return KnowledgeGraph.create(
        current_entities,
        current_edges,
        past_entities,
        past_edges,
        mentions,
        chunk_documents,
        [item.chunk_id for item in chunks if item.current],
        schema,
    )
