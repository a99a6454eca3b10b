"""A graph built from extractions a slice of documents at a time and written into an empty FalkorDB graph.

:func:`stream_graph` ends with the server holding what
:meth:`~agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore.push` of
:func:`~agrag_lab.kg.extract.pipeline.build_graph`'s graph of all the slices writes
(entities, relations with their chunks and sentences, chunks and their
``MENTIONS`` edges; no communities or reports, no search vectors), while no
more than one slice's extractions, texts and chunks are held: for graphs
larger than one process holds whole (issue 29's graph-only series).

The build's corpus-wide rules are the builder's own, fed in parts:

1. **Read** each slice (whole documents, slices in the build's document order,
   natural sort of ids, so that every first-wins choice sees chunks in the same
   order), keep the union of the slices' name evidence
   (:func:`~agrag_lab.kg.extract.confirmation.corpus_evidence`, a union by definition)
   and spill the slice to a work folder.
2. **Resolve** in parts: each slice's mention records (confirmed with the
   whole corpus's evidence) are spilled, and
   :func:`~agrag_lab.kg.extract.resolution_parts.resolve_parts` reads them three
   times, holding per key and per group only tallies, and one slice's
   records: its result is :func:`~agrag_lab.kg.extract.resolution.resolve`'s of all
   records at once, the assignment as one small integer per mention.
3. **Build**: per slice, the builder's steps (:func:`~agrag_lab.kg.extract.build.entity_facts`,
   :func:`~agrag_lab.kg.extract.build.chunk_relations`) over the slice with its
   share of the assignment; each entity's part (chunks, forms, per-document
   descriptions) and each relation's (chunks, sentences) is spilled to a
   partition file (:class:`~agrag_lab.storage.spill.Spill`; an entity by its index,
   a relation by its pair of ends, both directions in one). Then, over the
   whole corpus as the builder does: ids assigned (:func:`~agrag_lab.kg.model.assign_entity_ids` needs each
   entity's count of current chunks, counted per slice) and the nested names
   found (from the resolved names alone).
4. **Push**, a partition at a time: the partition's entities, merged from
   their slices' parts in slice order (a document lies in one slice, so each
   merge is a union of disjoint parts, in the whole build's order), made into
   records and written; their nested-name links spilled to the relations'
   partitions; then each relation partition merged, made into edges and
   written; then each slice's chunks with their ``MENTIONS`` edges
   (:class:`~agrag_lab.graph_stores.falkordb.push.StreamedPush`).

What the process holds at its peak: one slice (its extractions, facts and
relations), the resolution's per-key tallies and short-form index, a number
per mention, the resolved entities, and one partition's entities or relations.
tests/stores/test_falkordb_stream.py checks the equality; BENCHMARKS.md ("The
graph in FalkorDB") has the figures.
"""

from __future__ import annotations

import pickle
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agrag_lab.graph_stores.falkordb.cypher import CHUNK, ENTITY, MENTIONS
from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract.build import (
    ChunkExtraction,
    EntityFacts,
    Support,
    chunk_relations,
    edge_records,
    entity_facts,
    entity_records,
    mention_records,
    nested_names,
    ordered_chunks,
    paused_gc,
)
from agrag_lab.kg.extract.confirmation import confirm_names, corpus_evidence
from agrag_lab.kg.extract.resolution_parts import resolve_parts
from agrag_lab.kg.model import assign_entity_ids
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import natural_key
from agrag_lab.storage.spill import Spill

__all__ = ["graph_records", "stream_graph"]

#: Entities or relations handed to the writer per call (its rows are made per call).
PART = 20_000

#: Partitions of the spilled entity and relation parts.
PARTITIONS = 64

#: One slice's part of an entity: index, current and history chunks, forms, descriptions per document,
#: current mentions per document, and its chunks' documents.
_EntityPart = tuple[int, list[str], list[str], set[tuple[str, str]], dict[str, tuple[int, int, int, str, str]],
                    dict[str, int], dict[str, str]]

#: One slice's part of a relation (key, current and history chunks, sentences per chunk, its chunks' documents),
#: or a nested-name link (sentences None).
_RelationPart = tuple[tuple[int, int, str], list[str], list[str], dict[str, str] | None, dict[str, str]]


def _parts(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]


def _check_order(items: Sequence[ChunkExtraction], seen: set[str], last: str | None, k: int) -> str | None:
    """The slice's last document; a document of an earlier slice, or one that sorts before it, is refused."""
    documents = list(dict.fromkeys(x.document_id for x in items))
    again = seen.intersection(documents)
    if again:
        raise KnowledgeGraphError(f"slice {k} holds documents of an earlier slice ({sorted(again)[:3]}): give each "
                                  "document's chunks (all versions) in one slice")
    if documents and last is not None and natural_key(documents[0]) < natural_key(last):
        raise KnowledgeGraphError(f"slice {k} starts with {documents[0]!r}, which sorts before {last!r} of the slice "
                                  "before: give the slices in natural order of document id")
    seen.update(documents)
    return documents[-1] if documents else last


def stream_graph(
    slices: Sequence[Callable[[], Sequence[ChunkExtraction]]],
    store: FalkorDBGraphStore,
    work: Path,
    *,
    schema: GraphSchema = GENERIC,
    batch_size: int = 2000,
    partitions: int = PARTITIONS,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Build the graph of every slice's extractions into the empty FalkorDB graph ``store`` (see the module docstring).

    Parameters
    ----------
    slices : sequence of callables
        Each returns the extractions of whole documents (every chunk and
        version of each), called once; slices in natural order of document id.
    store : FalkorDBGraphStore
        An empty graph.
    work : Path
        A folder for the spilled slices (left there; the caller removes it).
    schema : GraphSchema
        As :func:`~agrag_lab.kg.extract.pipeline.build_graph`'s.
    batch_size : int
        Rows per Cypher call.
    partitions : int
        Partitions the entities' and relations' parts are spilled to (memory
        holds about one partition's share of the graph while writing it).
    log : callable, optional
        Told each stage's seconds as it ends (a long build's progress).

    Returns
    -------
    dict
        ``chunks``, ``entities``, ``relations``, ``slices``, what was written and
        the seconds of each stage (``extract_s``: reading the slices, ``resolve_s``,
        ``build_s``, ``push_s``).

    Raises
    ------
    KnowledgeGraphError
        A document's chunks are in two slices, or the slices are out of order.
    GraphServerError
        ``store`` is not empty.
    """
    times: dict[str, float] = {}

    def done(stage: str, t0: float) -> None:
        times[stage] = time.perf_counter() - t0
        if log is not None:
            log(f"{stage} {times[stage]:.1f}")

    def spill(name: str, k: int, value: Any) -> None:  # streamed to the file: no second copy in memory
        with (work / f"{name}-{k}.pkl").open("wb") as out:
            pickle.dump(value, out, protocol=pickle.HIGHEST_PROTOCOL)

    def load(name: str, k: int) -> Any:
        with (work / f"{name}-{k}.pkl").open("rb") as source:
            return pickle.load(source)

    writer = store.streamed_push(batch_size)  # refuses a graph that is not empty before any work
    # 1. read the slices, with the corpus's name evidence
    t0 = time.perf_counter()
    confirmed: set[str] = set()
    vocabulary: set[str] = set()
    chunks = 0
    seen: set[str] = set()
    last: str | None = None
    for k, read in enumerate(slices):
        items = ordered_chunks(list(read()))
        last = _check_order(items, seen, last, k)
        found, words = corpus_evidence(items)
        confirmed |= found
        vocabulary |= words
        chunks += len(items)
        spill("x", k, items)
        del items  # before the next slice is read: one slice held at a time
    evidence = (frozenset(confirmed), frozenset(vocabulary))
    del confirmed, vocabulary, seen
    done("extract_s", t0)

    def confirmed_slice(k: int) -> list[ChunkExtraction]:
        return confirm_names(load("x", k), evidence)

    # 2. resolve in parts: each slice's mention records, spilled, read three times
    t0 = time.perf_counter()
    with paused_gc():
        for k in range(len(slices)):
            spill("r", k, mention_records(confirmed_slice(k), schema)[0])
        resolution = resolve_parts(len(slices), lambda k: load("r", k), schema)
        for k in range(len(slices)):
            (work / f"r-{k}.pkl").unlink()
    done("resolve_s", t0)

    # 3. the builder's steps per slice, each entity's and relation's part spilled to its partition
    t0 = time.perf_counter()
    size = len(resolution.entities)
    mentioned = [0] * size  # current chunks per entity, for the ids
    entity_parts = Spill(work, "e", partitions)
    relation_parts = Spill(work, "rel", partitions)
    with paused_gc():
        for k in range(len(slices)):
            items = confirmed_slice(k)
            records, origins = mention_records(items, schema)
            local = entity_facts(items, records, origins, resolution.assignments[k], size)
            documents = {x.chunk_id: x.document_id for x in items}
            by_entity: dict[int, list[_EntityPart]] = defaultdict(list)
            for i in sorted({a for a in resolution.assignments[k] if a >= 0}):
                support = local.support[i]
                mentioned[i] += len(support.current)
                by_entity[i % partitions].append((i, support.current, support.history, local.forms[i],
                                                  local.described[i], local.doc_counts[i],
                                                  {c: documents[c] for c in (*support.current, *support.history)}))
            entity_parts.append(by_entity)
            by_pair: dict[int, list[_RelationPart]] = defaultdict(list)
            for key, support in chunk_relations(items, local.chunk_entities, schema).items():
                by_pair[_pair_partition(key, partitions)].append(
                    (key, support.current, support.history, support.sentences,
                     {c: documents[c] for c in (*support.current, *support.history)}))
            relation_parts.append(by_pair)
            spill("m", k, [(x.chunk_id, x.document_id, x.current, sorted(set(local.chunk_entities.get(i, {}).values())))
                           for i, x in enumerate(items)])
            del local, items, records, origins, documents, by_entity, by_pair
        entity_ids = assign_entity_ids([(e.name, e.key, mentioned[i]) for i, e in enumerate(resolution.entities)])
        nested = defaultdict(list)
        for i, j in nested_names(resolution.entities):
            nested[i].append(j)
    done("build_s", t0)

    # 4. push: entities a partition at a time (their nested-name links spilled to the relations' partitions),
    # then relations a partition at a time, then each slice's chunks with their MENTIONS edges
    t0 = time.perf_counter()
    entities = edges = 0
    default_type = schema.default_relation_type
    with paused_gc():
        for p in range(partitions):
            members, facts, chunk_documents = _merged_entities(entity_parts.read(p))
            written = entity_records([resolution.entities[i] for i in members], facts,
                                [entity_ids[i] for i in members], chunk_documents)[0]
            for group in _parts(written, PART):
                writer.entities(group, chunk_documents)
            entities += len(written)
            links: dict[int, list[_RelationPart]] = defaultdict(list)
            for i, support in zip(members, facts.support, strict=True):
                for j in nested.get(i, ()):
                    key = (i, j, default_type)
                    links[_pair_partition(key, partitions)].append(
                        (key, support.current, support.history, None,
                         {c: chunk_documents[c] for c in (*support.current, *support.history)}))
            relation_parts.append(links)
            del members, facts, chunk_documents, written, links
        for p in range(partitions):
            relations, chunk_documents = _merged_relations(relation_parts.read(p))
            current = edge_records(relations, entity_ids, schema)[0]
            for group in _parts(current, PART):
                writer.relations(group, chunk_documents)
            edges += len(current)
            del relations, chunk_documents, current
    for k in range(len(slices)):
        writer.chunks([(c, d, cur, [entity_ids[i] for i in owners]) for c, d, cur, owners in load("m", k)])
    counts = writer.finish(schema.entity_labels)
    done("push_s", t0)
    return {"chunks": chunks, "entities": entities, "relations": edges, "slices": len(slices),
            "partitions": partitions, "written": dict(counts.written), **times}


def _pair_partition(key: tuple[int, int, str], partitions: int) -> int:
    """The partition of a relation key: both directions of a pair in one (a symmetric type merges them)."""
    s, t, _kind = key
    return (min(s, t) * 1_000_003 + max(s, t)) % partitions


def _merged_entities(parts: Iterator[_EntityPart]) -> tuple[list[int], EntityFacts, dict[str, str]]:
    """A partition's entities (by index) with their facts, each merged from its slices' parts in slice order
    (a document lies in one slice: disjoint unions, as the whole build gathers them)."""
    merged: dict[int, EntityFacts] = {}
    chunk_documents: dict[str, str] = {}
    for i, current, history, forms, described, doc_counts, documents in parts:
        into = merged.get(i)
        if into is None:
            into = merged[i] = EntityFacts([Support()], [set()], [{}], {}, [{}])
        into.support[0].current += current
        into.support[0].history += history
        into.forms[0] |= forms
        into.described[0].update(described)
        into.doc_counts[0].update(doc_counts)
        chunk_documents.update(documents)
    members = sorted(merged)
    facts = EntityFacts([merged[i].support[0] for i in members], [merged[i].forms[0] for i in members],
                         [merged[i].described[0] for i in members], {}, [merged[i].doc_counts[0] for i in members])
    return members, facts, chunk_documents


def _merged_relations(parts: Iterator[_RelationPart]) -> tuple[dict[tuple[int, int, str], Support], dict[str, str]]:
    """A partition's relations, each merged from its slices' parts in slice order, then the nested-name links
    (``sentences`` None: chunks added as :func:`~agrag_lab.kg.extract.build.link_nested_entities` adds them)."""
    relations: dict[tuple[int, int, str], Support] = {}
    links: list[_RelationPart] = []
    chunk_documents: dict[str, str] = {}
    for part in parts:
        key, current, history, sentences, documents = part
        chunk_documents.update(documents)
        if sentences is None:
            links.append(part)
            continue
        into = relations.setdefault(key, Support())
        into.current += current
        into.history += history
        into.sentences.update(sentences)
    for key, current, history, _none, _documents in sorted(links, key=lambda part: part[0]):
        bucket = relations.setdefault(key, Support())
        for chunk_id in current:
            bucket.add(chunk_id, True)
        for chunk_id in history:
            bucket.add(chunk_id, False)
    return relations, chunk_documents


def graph_records(store: FalkorDBGraphStore) -> dict[str, Any]:
    """What a FalkorDB graph holds, by record: each node's digest per label, each relation's, the ``MENTIONS``
    edges and the meta (two graphs holding equal records hold the same graph: a digest covers a record's data)."""
    query = store._query
    nodes = {label: dict(query(f"MATCH (n:{label}) RETURN n.id, n.digest")) for label in (ENTITY, CHUNK)}
    relations = {(a, kind, b): d for a, kind, b, d in query(
        f"MATCH (a:{ENTITY})-[r]->(b:{ENTITY}) RETURN a.id, type(r), b.id, r.digest")}
    mentions = sorted(map(tuple, query(f"MATCH (c:{CHUNK})-[:{MENTIONS}]->(e:{ENTITY}) RETURN c.id, e.id")))
    labels = sorted(map(tuple, query(f"MATCH (n:{ENTITY}) RETURN n.id, labels(n)")))
    return {"nodes": nodes, "relations": relations, "mentions": mentions, "labels": labels, "meta": store.meta()}
