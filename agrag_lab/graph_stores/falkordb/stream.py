"""A graph built from extractions a slice of documents at a time and written into an empty FalkorDB graph.

:func:`stream_graph` ends with the server holding what
:meth:`~agrag_lab.kg.falkordb_store.FalkorDBGraphStore.push` of
:func:`~agrag_lab.kg.pipeline.build_graph`'s graph of all the slices writes
(entities, relations with their chunks and sentences, chunks and their
``MENTIONS`` edges; no communities or reports, no search vectors), while no
more than one slice's extractions, texts and chunks are held: for graphs
larger than one process holds whole (issue 29's graph-only series).

The build's corpus-wide rules are the builder's own, fed in parts:

1. **Read** each slice (whole documents, slices in the build's document order,
   natural sort of ids, so that every first-wins choice sees chunks in the same
   order), keep the union of the slices' name evidence
   (:func:`~agrag_lab.kg.confirmation.corpus_evidence`, a union by definition)
   and spill the slice to a work folder.
2. **Resolve**: the mention records of every slice (confirmed with the whole
   corpus's evidence) go to :func:`~agrag_lab.kg.resolution.resolve` at once,
   the one step that needs them all (only the records are held: name, label,
   document, aliases; not the chunks).
3. **Build**: per slice, the builder's steps (``_entity_facts``,
   ``_chunk_relations`` of :mod:`agrag_lab.kg.build`) over the slice with its
   share of the assignment; their results are merged (an entity's supporting
   chunks, forms and per-document descriptions; a relation's chunks and
   sentences): a document lies in one slice, so each merge is a union of
   disjoint parts, in the whole build's order. Then, as the builder does over
   the whole corpus: nested names linked, ids assigned (``_assign_ids`` needs
   every entity's mention count), entity and relation records made.
4. **Push** entities, then relations (in parts), then each slice's chunks with
   their ``MENTIONS`` edges (:class:`~agrag_lab.kg.falkordb_push.StreamedPush`).

What the process holds at its peak: the mention records during resolution, and
the entity and relation accumulators (their chunk ids and sentences).
tests/stores/test_falkordb_stream.py checks the equality; BENCHMARKS.md ("The
graph in FalkorDB") has the figures.
"""

from __future__ import annotations

import pickle
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from agrag_lab.graph_stores.falkordb.cypher import CHUNK, ENTITY, MENTIONS
from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.extract.build import ChunkExtraction, paused_gc
from agrag_lab.kg.extract.build import EntityFacts as _EntityFacts
from agrag_lab.kg.extract.build import Support as _Support
from agrag_lab.kg.extract.build import chunk_relations as _chunk_relations
from agrag_lab.kg.extract.build import edge_records as _edges
from agrag_lab.kg.extract.build import entity_facts as _entity_facts
from agrag_lab.kg.extract.build import entity_records as _entities
from agrag_lab.kg.extract.build import link_nested_entities as _link_nested_names
from agrag_lab.kg.extract.build import mention_records as _mention_records
from agrag_lab.kg.extract.build import ordered_chunks as _ordered_chunks
from agrag_lab.kg.extract.confirmation import confirm_names, corpus_evidence
from agrag_lab.kg.extract.resolution import MentionRecord, resolve
from agrag_lab.kg.model import assign_entity_ids as _assign_ids
from agrag_lab.kg.schema import GENERIC, GraphSchema
from agrag_lab.kg.text import natural_key

__all__ = ["graph_records", "stream_graph"]

#: Entities or relations handed to the writer per call (its rows are made per call).
PART = 20_000


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
        As :func:`~agrag_lab.kg.pipeline.build_graph`'s.
    batch_size : int
        Rows per Cypher call.
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

    def spill(name: str, k: int, value: Any) -> None:
        (work / f"{name}-{k}.pkl").write_bytes(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def load(name: str, k: int) -> Any:
        return pickle.loads((work / f"{name}-{k}.pkl").read_bytes())

    writer = store.streamed_push(batch_size)  # refuses a graph that is not empty before any work
    # 1. read the slices, with the corpus's name evidence
    t0 = time.perf_counter()
    confirmed: set[str] = set()
    vocabulary: set[str] = set()
    chunks = 0
    seen: set[str] = set()
    last: str | None = None
    for k, read in enumerate(slices):
        items = _ordered_chunks(list(read()))
        last = _check_order(items, seen, last, k)
        found, words = corpus_evidence(items)
        confirmed |= found
        vocabulary |= words
        chunks += len(items)
        spill("x", k, items)
    evidence = (frozenset(confirmed), frozenset(vocabulary))
    del confirmed, vocabulary, seen
    done("extract_s", t0)

    def confirmed_slice(k: int) -> list[ChunkExtraction]:
        return confirm_names(load("x", k), evidence)

    # 2. resolve every mention record at once
    t0 = time.perf_counter()
    with paused_gc():
        records: list[MentionRecord] = []
        for k in range(len(slices)):
            records += _mention_records(confirmed_slice(k), schema)[0]
        resolution = resolve(records, schema)
        del records
    done("resolve_s", t0)

    # 3. the builder's steps per slice, merged in the whole build's order
    t0 = time.perf_counter()
    size = len(resolution.entities)
    facts = _EntityFacts([_Support() for _ in range(size)], [set() for _ in range(size)], [{} for _ in range(size)],
                         {}, [{} for _ in range(size)])
    relations: dict[tuple[int, int, str], _Support] = {}
    chunk_documents: dict[str, str] = {}
    offset = 0
    with paused_gc():
        for k in range(len(slices)):
            items = confirmed_slice(k)
            records, origins = _mention_records(items, schema)
            assignment = resolution.assignment[offset:offset + len(records)]
            offset += len(records)
            local = _entity_facts(items, records, origins, assignment, size)
            for i in {a for a in assignment if a >= 0}:  # a document's chunks are in one slice: disjoint unions
                facts.support[i].current += local.support[i].current
                facts.support[i].history += local.support[i].history
                facts.forms[i] |= local.forms[i]
                facts.described[i].update(local.described[i])
                facts.doc_counts[i].update(local.doc_counts[i])
            for key, support in _chunk_relations(items, local.chunk_entities, schema).items():
                into = relations.setdefault(key, _Support())
                into.current += support.current
                into.history += support.history
                into.sentences.update(support.sentences)
            chunk_documents.update((x.chunk_id, x.document_id) for x in items)
            spill("m", k, [(x.chunk_id, x.document_id, x.current, sorted(set(local.chunk_entities.get(i, {}).values())))
                           for i, x in enumerate(items)])
            del local, items, records, origins
        _link_nested_names(relations, resolution.entities, facts.support, schema.default_relation_type)
        entity_ids = _assign_ids([(e.name, e.key, len(facts.support[i].current))
                                  for i, e in enumerate(resolution.entities)])
        entities, _history = _entities(resolution.entities, facts, entity_ids, chunk_documents)
        del facts, _history
        edges, _history_edges = _edges(relations, entity_ids, schema)
        del relations, _history_edges
    done("build_s", t0)

    # 4. and 5. push
    t0 = time.perf_counter()
    for group in _parts(entities, PART):
        writer.entities(group, chunk_documents)
    for group in _parts(edges, PART):
        writer.relations(group, chunk_documents)
    for k in range(len(slices)):
        writer.chunks([(c, d, cur, [entity_ids[i] for i in owners]) for c, d, cur, owners in load("m", k)])
    counts = writer.finish(schema.entity_labels)
    done("push_s", t0)
    return {"chunks": chunks, "entities": len(entities), "relations": len(edges), "slices": len(slices),
            "written": dict(counts.written), **times}


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
