"""Build a :class:`KnowledgeGraph` from per-chunk extractions.

:func:`build_knowledge_graph` resolves mentions across the corpus (see
:mod:`agrag_lab.kg.extract.resolution`), gives every entity a stable id
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
>>> from agrag_lab.kg.extract.extraction import EntityMention, Extraction, RelationMention
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
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract import lexicon as lx
from agrag_lab.kg.extract.extraction import Extraction
from agrag_lab.kg.extract.resolution import MentionRecord, ResolvedEntity, Resolver, resolve
from agrag_lab.kg.model import Edge, Entity, KnowledgeGraph, assign_entity_ids
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import (
    match_key,
    natural_key,
    sentence_at,
    split_sentences,
    trim_text,
)

__all__ = [
    "ChunkExtraction",
    "Edge",
    "Entity",
    "EntityFacts",
    "KnowledgeGraph",
    "Support",
    "build_knowledge_graph",
    "chunk_relations",
    "edge_records",
    "entity_facts",
    "entity_records",
    "link_nested_entities",
    "mention_records",
    "ordered_chunks",
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


@runtime_checkable
class GraphAssembler(Protocol):
    """An extractor that assembles its own graph from its extractions (LinearRAG's tri-graph): the index
    build then skips entity resolution and communities and keeps the graph it returns."""

    def builds_graph(self, items: Iterable[ChunkExtraction]) -> KnowledgeGraph:
        """The graph of a corpus's extractions."""
        ...


# --------------------------------------------------------------------------- building


@dataclass
class Support:
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
        Maps mention records to entities; :func:`~agrag_lab.kg.extract.resolution.resolve`
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


def nested_names(entities: Sequence[ResolvedEntity]) -> list[tuple[int, int]]:
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


@dataclass
class EntityFacts:
    """What the mentions say about each resolved entity (indexed like ``resolution.entities``).

    ``described[i][document]`` is ``(given rank, current rank, title rank, chunk id, text)``:
    the lowest rank wins, and a mention from a document's title (start -1) ranks first,
    as the document about an entity describes it best. ``chunk_entities[chunk index]``
    maps the match key of each name mentioned there to its entity.
    """

    support: list[Support]
    forms: list[set[tuple[str, str]]]
    described: list[dict[str, tuple[int, int, int, str, str]]]
    chunk_entities: dict[int, dict[str, int]]
    doc_counts: list[dict[str, int]]


def _build(
    items: list[ChunkExtraction],
    schema: GraphSchema,
    resolver: Resolver,
    link_nested_names: bool,
) -> KnowledgeGraph:
    """The steps of :func:`build_knowledge_graph`, in order."""
    chunks = ordered_chunks(items)
    records, origins = mention_records(chunks, schema)
    resolution = resolver(records, schema)
    facts = entity_facts(chunks, records, origins, resolution.assignment, len(resolution.entities))
    relations = chunk_relations(chunks, facts.chunk_entities, schema)
    if link_nested_names:
        link_nested_entities(relations, resolution.entities, facts.support, schema.default_relation_type)
    chunk_documents = {item.chunk_id: item.document_id for item in chunks}
    ids = assign_entity_ids([(e.name, e.key, len(facts.support[i].current)) for i, e in enumerate(resolution.entities)])
    current_entities, past_entities = entity_records(resolution.entities, facts, ids, chunk_documents)
    current_edges, past_edges = edge_records(relations, ids, schema)
    mentions: dict[str, set[str]] = {item.chunk_id: set() for item in chunks}
    for index, local in facts.chunk_entities.items():
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


def ordered_chunks(items: list[ChunkExtraction]) -> list[ChunkExtraction]:
    """Items in document and chunk order; two with one chunk id are refused."""
    chunks = sorted(items, key=lambda x: (natural_key(x.document_id), natural_key(x.chunk_id)))
    seen: set[str] = set()
    for item in chunks:
        if item.chunk_id in seen:
            raise KnowledgeGraphError(
                f"chunk id {item.chunk_id!r} appears twice: give build_knowledge_graph one ChunkExtraction per chunk"
            )
        seen.add(item.chunk_id)
    return chunks


def mention_records(
    chunks: Sequence[ChunkExtraction], schema: GraphSchema
) -> tuple[list[MentionRecord], list[tuple[int, int, str]]]:
    """Mention records to resolve, with their origins ``(chunk index, start, description)``.

    Relation ends that no mention of their chunk covers become mentions too.
    """
    records: list[MentionRecord] = []
    origins: list[tuple[int, int, str]] = []
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
    return records, origins


def entity_facts(
    chunks: Sequence[ChunkExtraction],
    records: Sequence[MentionRecord],
    origins: Sequence[tuple[int, int, str]],
    assignment: Sequence[int],
    n: int,
) -> EntityFacts:
    """Support, forms, mention counts and the best description per document of each entity."""
    facts = EntityFacts(
        [Support() for _ in range(n)], [set() for _ in range(n)], [{} for _ in range(n)],
        defaultdict(dict), [{} for _ in range(n)],
    )
    sentence_cache: dict[int, list[tuple[int, int]]] = {}
    for record, (index, start, given_description), owner in zip(records, origins, assignment, strict=True):
        if owner < 0:
            continue
        item = chunks[index]
        facts.support[owner].add(item.chunk_id, item.current)
        facts.forms[owner].add((item.document_id, record.name))
        facts.forms[owner].update((item.document_id, alias) for alias in record.aliases)
        facts.chunk_entities[index].setdefault(match_key(record.name), owner)
        if item.current:
            counts = facts.doc_counts[owner]
            counts[item.document_id] = counts.get(item.document_id, 0) + 1
        best = facts.described[owner].get(item.document_id)
        rank = (0 if given_description else 1, 0 if item.current else 1, 0 if start < 0 else 1)
        if best is None or rank < best[:3]:
            if given_description:
                text = given_description
            else:
                spans = sentence_cache.get(index)
                if spans is None:
                    spans = sentence_cache[index] = split_sentences(item.text)
                text = sentence_at(item.text, start, spans)
            if text.strip():
                facts.described[owner][item.document_id] = (*rank, item.chunk_id, trim_text(text, DESCRIPTION_CHARS))
    return facts


def chunk_relations(
    chunks: Sequence[ChunkExtraction], chunk_entities: Mapping[int, Mapping[str, int]], schema: GraphSchema
) -> dict[tuple[int, int, str], Support]:
    """Relations between resolved entities, by ``(source, target, type)``, with support and sentences.

    Within one chunk, a default-type relation between two entities that the
    chunk also relates with a typed relation is dropped.
    """
    relations: dict[tuple[int, int, str], Support] = {}
    default_type = schema.default_relation_type
    for index, item in enumerate(chunks):
        local = chunk_entities.get(index, {})
        found: list[tuple[int, int, str, str]] = []
        for r in item.extraction.relations:
            s, t = local.get(match_key(r.source), -1), local.get(match_key(r.target), -1)
            if s < 0 or t < 0 or s == t:
                continue
            found.append((s, t, schema.normalise_relation_type(r.type), r.sentence or r.description))
        typed_pairs = {frozenset((s, t)) for s, t, kind, _ in found if kind != default_type}
        for s, t, kind, sentence in found:
            if kind == default_type and frozenset((s, t)) in typed_pairs:
                continue
            bucket = relations.setdefault((s, t, kind), Support())
            bucket.add(item.chunk_id, item.current)
            if sentence and item.chunk_id not in bucket.sentences:
                bucket.sentences[item.chunk_id] = sentence
    return relations


def link_nested_entities(
    relations: dict[tuple[int, int, str], Support],
    entities: Sequence[ResolvedEntity],
    support: Sequence[Support],
    default_type: str,
) -> None:
    """Relate each entity to those whose whole name starts or ends its own, supported by its chunks."""
    for i, j in nested_names(entities):
        bucket = relations.setdefault((i, j, default_type), Support())
        for chunk_id in support[i].current:
            bucket.add(chunk_id, True)
        for chunk_id in support[i].history:
            bucket.add(chunk_id, False)


def entity_records(
    resolved: Sequence[ResolvedEntity], facts: EntityFacts, ids: Sequence[str], chunk_documents: Mapping[str, str]
) -> tuple[list[Entity], list[Entity]]:
    """The entities with current support, and those with history only."""
    current: list[Entity] = []
    past: list[Entity] = []
    for i, entity_of in enumerate(resolved):
        sup = facts.support[i]
        counts = facts.doc_counts[i]
        candidates = sorted(
            facts.described[i].items(),
            key=lambda item: (item[1][0], item[1][1], item[1][2], -counts.get(item[0], 0), item[0]),
        )
        descriptions = tuple((c, text) for _doc, (_g, _cur, _title, c, text) in candidates)
        entity = Entity(
            id=ids[i],
            name=entity_of.name,
            label=entity_of.label,
            aliases=entity_of.aliases,
            description=descriptions[0][1] if descriptions else "",
            chunk_ids=_sorted_ids(sup.current),
            history_chunk_ids=_sorted_ids(sup.history),
            document_ids=tuple(sorted({chunk_documents[c] for c in sup.current})),
            descriptions=descriptions,
            forms=tuple(sorted((d, f) for d, f in facts.forms[i] if f)),
        )
        (current if entity.current else past).append(entity)
    return current, past


def edge_records(
    relations: Mapping[tuple[int, int, str], Support], ids: Sequence[str], schema: GraphSchema
) -> tuple[list[Edge], list[Edge]]:
    """Relations merged by entity ids (a symmetric type once, smaller id first): current and history-only edges."""
    merged: dict[tuple[str, str, str], Support] = {}
    for (s, t, kind), sup in relations.items():
        source, target = ids[s], ids[t]
        if schema.is_symmetric(kind) and target < source:
            source, target = target, source
        into = merged.setdefault((source, target, kind), Support())
        for c in sup.current:
            into.add(c, True)
        for c in sup.history:
            into.add(c, False)
        for c, sentence in sup.sentences.items():
            into.sentences.setdefault(c, sentence)
    current: list[Edge] = []
    past: list[Edge] = []
    for (source, target, kind), sup in merged.items():
        edge = Edge(
            source,
            target,
            kind,
            _sorted_ids(sup.current),
            _sorted_ids(sup.history),
            tuple(sorted(sup.sentences.items(), key=lambda item: natural_key(item[0]))),
        )
        (current if edge.chunk_ids else past).append(edge)
    return current, past
