"""Writing a graph into a FalkorDB server: payloads, the push that writes only what differs, schema and indexes.

:func:`push_graph` makes a server's graph equal an in-process
:class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore` (plus search vectors and
texts): each node and relation is sent as a row (:func:`_entity_payload`,
:func:`_edge_payload`) with a digest of what it holds; a row whose digest is
stored already is not written again; new rows are created (``CREATE``, no
look-up), changed ones updated, in batches of :data:`BATCH` rows per Cypher
call (``UNWIND`` over a parameter list); vectors travel as integers
(:data:`VECTOR_SCALE`). :func:`ensure_schema` creates the range, full-text
and vector indexes (``efRuntime`` :data:`EF_RUNTIME`), which build
asynchronously (:func:`wait_for_indexes`). Every function here talks to the
server through one ``query`` callable (:class:`CypherQuery`), the store's.
:meth:`~agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore.push` is the way in.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from agrag_lab.errors import GraphServerError
from agrag_lab.graph_stores.falkordb.cypher import (
    CHUNK,
    COLLECTION_LABELS,
    COMMUNITY,
    ENTITY,
    FACET,
    IN_COMMUNITY,
    MENTIONS,
    META,
    REPORT,
    cypher_name,
    label_node,
)
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.graph_stores.persistence import community_to_dict, report_to_dict
from agrag_lab.kg.described import has_described_relations
from agrag_lab.kg.facets import facet_owner
from agrag_lab.kg.model import Edge, Entity, edge_to_dict, entity_to_dict
from agrag_lab.kg.text import match_key
from agrag_lab.kg.visibility import report_documents

__all__ = [
    "BATCH", "EF_RUNTIME", "FORMAT", "VECTOR_SCALE", "CypherQuery", "StreamedPush", "SyncCounts", "ensure_schema",
    "node_indexes", "push_graph", "wait_for_indexes",
]

#: HNSW search breadth of the vector indexes: FalkorDB's default (10) measured recall@10 0.60 against exact
#: search on 1,000 nodes, 200 gave 1.0 (tests/stores/test_falkordb_native.py measures it again).
EF_RUNTIME = 200
#: A vector travels as integers (its components times this; formatting integers is ~5x cheaper than floats, and
#: the server parses them faster) and is divided back in the server before ``vecf32``.
VECTOR_SCALE = 100_000_000
_SET_EMBEDDING = (" SET n.embedding = CASE WHEN row.vector IS NULL THEN NULL "
                  f"ELSE vecf32([x IN row.vector | x / {VECTOR_SCALE}.0]) END")
#: The layout of a pushed graph (recorded in its meta; a graph of another layout is pushed again whole).
#: 3: the meta says whether the graph's relations were described (``described_relations``).
FORMAT = 3
#: Nodes or edges written per Cypher call when a graph is pushed.
BATCH = 500
_ENTITY_BODY = """
        SET n.name = row.name, n.label = row.label, n.owner = row.id, n.aliases = row.aliases, n.keys = row.keys,
            n.docs = row.docs, n.mentions = row.mentions, n.chunks = row.chunks, n.data = row.data,
            n.cdocs = row.cdocs, n.text = row.text, n.digest = row.digest""" + _SET_EMBEDDING
_CHUNK_BODY = """
        SET n.document = row.document, n.current = row.current, n.mentioned = row.mentioned,
            n.text = row.text, n.digest = row.digest""" + _SET_EMBEDDING
_CHUNK_LINKS = (f"OPTIONAL MATCH (n)-[old:{MENTIONS}]->() DELETE old",
                f"UNWIND row.mentioned AS eid MATCH (e:Entity {{id: eid}}) CREATE (n)-[:{MENTIONS}]->(e)")
_EDGE_BODY = ("SET r.weight = row.weight, r.docs = row.docs, r.chunks = row.chunks, r.cdl = row.cdl, "
              "r.data = row.data, r.cdocs = row.cdocs, r.digest = row.digest")


class CypherQuery(Protocol):
    """Runs one Cypher query with its parameters (read-only unless ``write``); the store's ``_query``."""

    def __call__(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        ...


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join((str(FORMAT), *parts)).encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True)
class SyncCounts:
    """What a push changed in the server, per kind (entities, chunks, relations, communities, reports): nodes or
    edges written, removed and left as they were (kinds with none are left out)."""

    written: Mapping[str, int]
    removed: Mapping[str, int]
    unchanged: Mapping[str, int]

    @property
    def changed(self) -> bool:
        """Whether anything was written or removed."""
        return any(self.written.values()) or any(self.removed.values())


@dataclass
class _Counts:
    """What a push is doing, per kind (see :class:`SyncCounts`)."""

    written: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    removed: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    unchanged: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def result(self) -> SyncCounts:
        return SyncCounts(*({k: v for k, v in c.items() if v} for c in (self.written, self.removed, self.unchanged)))


def _batches(rows: Sequence[dict[str, Any]], key: str | None, size: int = BATCH
             ) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """``rows`` in Cypher calls of at most ``size``, grouped by ``row[key]`` (a node label) when given."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(row.get(key, "")) if key else ""].append(row)
    for group in sorted(groups):
        found = groups[group]
        for start in range(0, len(found), size):
            yield group, found[start:start + size]


def _entity_payload(entity: Entity, chunk_documents: Mapping[str, str]) -> dict[str, Any]:
    chunks = {*entity.chunk_ids, *entity.history_chunk_ids, *(c for c, _ in entity.descriptions),
              *(c.chunk_id for c in entity.claims)}
    cdocs = {c: chunk_documents[c] for c in sorted(chunks) if c in chunk_documents}
    data = _json(entity_to_dict(entity))
    return {
        "id": entity.id, "name": entity.name, "label": entity.label, "aliases": list(entity.aliases),
        "keys": sorted({match_key(entity.name), *(match_key(a) for a in entity.aliases)}),
        "docs": sorted({cdocs[c] for c in entity.chunk_ids if c in cdocs}),
        "mentions": len(entity.chunk_ids), "chunks": list(entity.chunk_ids), "data": data, "cdocs": _json(cdocs), "digest": _digest(data, _json(cdocs)),
    }


def _edge_payload(edge: Edge, chunk_documents: Mapping[str, str]) -> dict[str, Any]:
    chunks = {*edge.chunk_ids, *edge.history_chunk_ids, *(c for c, _ in edge.sentences)}
    cdocs = {c: chunk_documents[c] for c in sorted(chunks) if c in chunk_documents}
    data = _json(edge_to_dict(edge))
    return {
        "source": edge.source, "target": edge.target, "weight": edge.weight, "chunks": list(edge.chunk_ids),
        "cdl": [chunk_documents.get(c, "") for c in edge.chunk_ids],
        "docs": sorted({cdocs[c] for c in edge.chunk_ids if c in cdocs}),
        "data": data, "cdocs": _json(cdocs), "digest": _digest(edge.type, data, _json(cdocs)),
    }


def push_graph(
    query: CypherQuery,
    source: NetworkXGraphStore,
    vectors: Mapping[str, Mapping[str, np.ndarray]] | None = None,
    texts: Mapping[str, Mapping[str, str]] | None = None,
    *,
    source_digest: str = "",
    facet_chunks: Mapping[str, Sequence[str]] | None = None,
) -> tuple[SyncCounts, dict[str, Any]]:
    """Make the server's graph equal ``source`` (plus search vectors and texts), writing only what differs.

    ``vectors[collection][id]`` and ``texts[collection][id]`` (collections
    ``entities``, ``chunks``, ``communities``) feed the native vector and
    full-text indexes. An entity node carries its label as a second node
    label (:func:`label_node`), and each entity label has its own vector
    index over its entities and their relation facets (the ``#r`` records
    of the ``entities`` collection, written as ``Facet`` nodes). A node
    whose record, vector and text are unchanged (by digest) is not written
    again; a new node is created, a changed one updated, in batches of
    :data:`BATCH` rows per Cypher call (``UNWIND`` over a parameter list).
    ``facet_chunks`` maps each relation facet record to the passages of the
    relation it states (an entity found through it stands for those: the
    facet nodes carry them, with or without vectors). ``source_digest``
    names the pushed graph (an index records its graph file's), read back by
    :meth:`~agrag_lab.graph_stores.falkordb.store.FalkorDBGraphStore.meta`. The indexes
    may still be building on return (:func:`wait_for_indexes`).

    Returns
    -------
    tuple of SyncCounts and dict
        What changed, and the graph's meta as written (the store keeps it).

    Raises
    ------
    KnowledgeGraphError
        A relation type cannot be a Cypher name (:func:`cypher_name`);
        nothing is written then.
    """
    graph = source.graph
    types = sorted({e.type for e in graph.edges})
    for name in types:
        cypher_name(name)
    vectors = vectors or {}
    texts = texts or {}
    docs = graph.chunk_documents
    counts = _Counts()
    entity_vectors = vectors.get("entities", {})
    labels = {e.label for e in graph.entities.values()}
    ensure_schema(query, types, vectors, sorted(labels))

    def with_search(collection: str, key: str, payload: dict[str, Any]) -> dict[str, Any]:
        return _with_search(payload, vectors.get(collection, {}).get(key), texts.get(collection, {}).get(key, ""))

    # entities, each under its label's node label too
    entity_rows = [with_search("entities", e.id, _entity_row(e, docs)) for e in graph.entities.values()]
    _sync_nodes(query, ENTITY, entity_rows, counts, "entities", _ENTITY_BODY)
    # the relation facets of entities: searched in their entity's label index
    facet_rows = []
    facet_chunks = facet_chunks or {}
    for key in sorted({k for k in entity_vectors if facet_owner(k) != k} | set(facet_chunks)):
        owner = graph.entities.get(facet_owner(key))
        if owner is None:
            continue
        chunks = sorted(facet_chunks.get(key, ()))
        row: dict[str, Any] = {"id": key, "owner": owner.id, "label": owner.label, "node": label_node(owner.label),
               "chunks": chunks, "digest": _digest(owner.id, owner.label, _json(chunks))}
        facet_rows.append(with_search("entities", key, row))
    _sync_nodes(query, FACET, facet_rows, counts, "facets", """
        SET n.owner = row.owner, n.label = row.label, n.chunks = row.chunks, n.text = row.text,
            n.digest = row.digest""" + _SET_EMBEDDING)
    # chunks (current and superseded: every chunk the graph knows a document of)
    chunk_ids = sorted(set(docs) | set(graph.mentions) | set(vectors.get("chunks", {})))
    chunk_rows = []
    for c in chunk_ids:
        row = _chunk_row(c, docs.get(c, ""), c in graph.current_chunks, graph.mentions.get(c, ()))
        chunk_rows.append(with_search("chunks", c, row))
    _sync_nodes(query, CHUNK, chunk_rows, counts, "chunks", _CHUNK_BODY, links=_CHUNK_LINKS)
    # relations, one relationship type each
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for edge in graph.edges:
        by_type[edge.type].append(_edge_payload(edge, docs))
    for name in types:
        _sync_edges(query, name, by_type[name], counts)
    for name in set(_stored_types(query)) - set(types):
        _sync_edges(query, cypher_name(name), [], counts)
    # communities and reports
    community_rows = []
    stored_communities, stored_reports = source.stored()
    for pos, community in enumerate(stored_communities):
        data = _json(community_to_dict(community))
        whole = all(m in graph.entities for m in community.members)
        community_rows.append({"id": community.id, "level": community.level, "members": list(community.members),
                               "data": data,
                               "whole": whole, "pos": pos, "digest": _digest(data, str(whole), str(pos))})
    _sync_nodes(query, COMMUNITY, community_rows, counts, "communities", """
        SET n.level = row.level, n.members = row.members, n.data = row.data, n.whole = row.whole,
            n.pos = row.pos, n.digest = row.digest""",
        links=(f"OPTIONAL MATCH ()-[old:{IN_COMMUNITY}]->(n) DELETE old",
               f"UNWIND row.members AS eid MATCH (e:Entity {{id: eid}}) CREATE (e)-[:{IN_COMMUNITY}]->(n)"))
    report_rows = []
    by_id = {c.id: c for c in stored_communities}
    for pos, r in enumerate(stored_reports):
        data = _json(report_to_dict(r))
        rdocs = sorted(report_documents(r, by_id.get(r.community_id), graph))  # the one rule of every store
        row = {"id": r.community_id, "docs": rdocs, "data": data, "pos": pos,
               "digest": _digest(data, _json(rdocs), str(pos))}
        report_rows.append(with_search("communities", r.community_id, row))
    _sync_nodes(query, REPORT, report_rows, counts, "reports", """
        SET n.docs = row.docs, n.data = row.data, n.pos = row.pos, n.text = row.text, n.digest = row.digest""" + _SET_EMBEDDING)
    indexed: dict[str, int] = defaultdict(int)  # vectors per entity-label index
    for row in (*entity_rows, *facet_rows):
        if row["vector"] is not None:
            indexed[row["label"]] += 1
    meta = _graph_meta(source.passageless, types, labels, indexed, bool(vectors),
                       {c: sum(1 for r in rows if r["vector"] is not None)
                        for c, rows in (("chunks", chunk_rows), ("communities", report_rows))},
                       graph.schema.entity_labels, source_digest, source.described_relations())
    query(f"MERGE (m:{META} {{key: 'meta'}}) SET m.data = $data", {"data": _json(meta)}, write=True)
    return counts.result(), meta


def _graph_meta(passageless: bool, types: Sequence[str], labels: Iterable[str], label_vectors: Mapping[str, int],
                search: bool, vectors: Mapping[str, int], schema_labels: Sequence[str], source_digest: str,
                described: bool) -> dict[str, Any]:
    """What a pushed graph records about itself (read back by the store's ``meta``)."""
    return {"passageless": passageless, "relation_types": list(types),
            "labels": sorted(labels), "label_nodes": {lab: label_node(lab) for lab in sorted(labels)},
            "label_vectors": dict(sorted(label_vectors.items())),
            "search": search, "vectors": dict(vectors),
            "schema": list(schema_labels), "format": FORMAT, "source_digest": source_digest,
            "described_relations": described}


def _with_search(payload: dict[str, Any], vector: np.ndarray | None, text: str) -> dict[str, Any]:
    """``payload`` with its search vector (as integers, :data:`VECTOR_SCALE`) and text, its digest covering both."""
    v = None if vector is None else np.rint(np.asarray(vector, dtype=np.float64) * VECTOR_SCALE).astype(np.int64)
    payload["vector"], payload["text"] = v, text
    payload["digest"] = _digest(payload["digest"], text, "" if v is None else hashlib.sha256(v.tobytes()).hexdigest())
    return payload


def _entity_row(entity: Entity, chunk_documents: Mapping[str, str]) -> dict[str, Any]:
    """An entity's row, under its label's node label too (:func:`label_node`)."""
    row = _entity_payload(entity, chunk_documents)
    row["node"] = label_node(entity.label)
    return row


def _chunk_row(chunk_id: str, document: str, current: bool, mentioned: Iterable[str]) -> dict[str, Any]:
    """A chunk's row: its document, whether it is current, and the entities it mentions (``MENTIONS`` edges)."""
    names = sorted(mentioned)
    return {"id": chunk_id, "document": document, "current": current, "mentioned": names,
            "digest": _digest(document, str(current), _json(names))}


def _record_name(row: Mapping[str, Any]) -> str:
    """How a row is named in an error: its id, or its relation's ends."""
    if "id" in row:
        return repr(row["id"])
    return f"{row.get('source')!r} -> {row.get('target')!r}"


def write_rows(query: CypherQuery, cypher: str, rows: Sequence[dict[str, Any]], what: str) -> None:
    """Run ``cypher`` over ``rows`` (``UNWIND $rows``); when the server refuses the batch, name the record.

    A refused batch is retried a row at a time (a query that fails writes
    nothing, so no row is written twice) until the row the server refuses is
    found: the error names it (``what`` and its id, or its relation's ends)
    and says what the server said.

    Raises
    ------
    GraphServerError
        The server refused a row (named), or the batch for a reason no single row causes.
    """
    try:
        query(cypher, {"rows": list(rows)}, write=True)
        return
    except GraphServerError as exc:
        if len(rows) <= 1:
            failed, cause = (rows[0] if rows else None), exc
        else:
            failed, cause = None, exc
            for row in rows:
                try:
                    query(cypher, {"rows": [row]}, write=True)
                except GraphServerError as one:
                    failed, cause = row, one
                    break
        if failed is None:
            raise
        raise GraphServerError(
            f"the FalkorDB server refused the {what} record {_record_name(failed)}: {cause}; the records before it "
            "were written, a later `agrag-lab sync` writes only what still differs"
        ) from cause


def _stored(query: CypherQuery, label: str) -> dict[str, tuple[str, str | None]]:
    """``id -> (digest, its label's node label)`` of the stored nodes of ``label``."""
    rows = query(f"MATCH (n:{label}) RETURN n.id, n.digest, n.label")
    return {r[0]: (r[1], None if r[2] is None else label_node(r[2])) for r in rows}


def _create_nodes(query: CypherQuery, label: str, rows: Sequence[dict[str, Any]], body: str,
                  links: tuple[str, str] | None = None, batch_size: int = BATCH) -> None:
    """Create a node of ``label`` per row (no look-up), under the row's ``node`` label too, then its edges."""
    for group, batch in _batches(rows, "node", batch_size):
        extra = f":{group}" if group else ""
        create = f"UNWIND $rows AS row CREATE (n:{label}{extra} {{id: row.id}}) " + body
        if links is not None:
            create += " WITH DISTINCT n, row " + links[1]
        write_rows(query, create, batch, label)


def _create_edges(query: CypherQuery, name: str, rows: Sequence[dict[str, Any]], batch_size: int = BATCH) -> None:
    """Create a relation of type ``name`` per row between its stored ends (no look-up of the relation)."""
    for _group, batch in _batches(rows, None, batch_size):
        write_rows(query, f"UNWIND $rows AS row MATCH (a:Entity {{id: row.source}}), (b:Entity {{id: row.target}}) "
                   f"CREATE (a)-[r:{name}]->(b) " + _EDGE_BODY, batch, f"{name} relation")


def _sync_nodes(
    query: CypherQuery, label: str, rows: list[dict[str, Any]], counts: _Counts, kind: str, body: str,
    links: tuple[str, str] | None = None,
) -> None:
    """Create the new rows' nodes, update the changed ones, delete the nodes no row names.

    ``body`` sets a node ``n`` from its ``row``; ``links`` (delete the old,
    create the new) rewrite the edges a node owns. A row with a ``node``
    key also carries that node label (its entity label's), moved when it changed.
    """
    stored = _stored(query, label)
    wanted = {r["id"] for r in rows}
    fresh = [r for r in rows if r["id"] not in stored]
    changed = [r for r in rows if r["id"] in stored and stored[r["id"]][0] != r["digest"]]
    counts.unchanged[kind] += len(rows) - len(fresh) - len(changed)
    _create_nodes(query, label, fresh, body, links)
    moved: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in changed:
        before = stored[r["id"]][1]
        if "node" in r and before is not None and before != r["node"]:
            moved[(before, r["node"])].append(r["id"])
    for (before, after), ids in sorted(moved.items()):
        query(f"UNWIND $ids AS id MATCH (n:{label} {{id: id}}) REMOVE n:{before} SET n:{after}",
                    {"ids": ids}, write=True)
    for _group, batch in _batches(changed, None):
        update = f"UNWIND $rows AS row MATCH (n:{label} {{id: row.id}}) " + body
        if links is not None:
            update += f" WITH n, row {links[0]} WITH DISTINCT n, row " + links[1]
        write_rows(query, update, batch, label)
    counts.written[kind] += len(fresh) + len(changed)
    gone = sorted(set(stored) - wanted)
    for start in range(0, len(gone), BATCH):
        query(f"UNWIND $ids AS id MATCH (n:{label} {{id: id}}) DETACH DELETE n",
                    {"ids": gone[start:start + BATCH]}, write=True)
    counts.removed[kind] += len(gone)


def _stored_types(query: CypherQuery) -> list[str]:
    rows = query("MATCH ()-[r]->() RETURN DISTINCT type(r)")
    return [r[0] for r in rows if r[0] not in (MENTIONS, IN_COMMUNITY)]


def _sync_edges(query: CypherQuery, name: str, rows: list[dict[str, Any]], counts: _Counts) -> None:
    stored = {(r[0], r[1]): r[2] for r in query(
        f"MATCH (a:Entity)-[r:{name}]->(b:Entity) RETURN a.id, b.id, r.digest")}
    wanted = {(r["source"], r["target"]) for r in rows}
    fresh = [r for r in rows if (r["source"], r["target"]) not in stored]
    changed = [r for r in rows if (r["source"], r["target"]) in stored
               and stored[(r["source"], r["target"])] != r["digest"]]
    counts.unchanged["relations"] += len(rows) - len(fresh) - len(changed)
    _create_edges(query, name, fresh)
    for _group, batch in _batches(changed, None):
        write_rows(query, f"UNWIND $rows AS row MATCH (a:Entity {{id: row.source}})-[r:{name}]->"
                   "(b:Entity {id: row.target}) " + _EDGE_BODY, batch, f"{name} relation")
    counts.written["relations"] += len(fresh) + len(changed)
    gone = sorted(set(stored) - wanted)
    for start in range(0, len(gone), BATCH):
        query(
            f"UNWIND $pairs AS p MATCH (a:Entity {{id: p[0]}})-[r:{name}]->(b:Entity {{id: p[1]}}) DELETE r",
            {"pairs": [list(p) for p in gone[start:start + BATCH]]}, write=True)
    counts.removed["relations"] += len(gone)


def node_indexes(query: CypherQuery) -> list[tuple[str, str, str, str]]:
    """``(label, property, index type, status)`` of every node index."""
    out = []
    for row in query("CALL db.indexes() YIELD label, properties, types, status "
                           "RETURN label, properties, types, status"):
        label, props, types, status = row
        for prop in props:
            for kind in (types.get(prop, []) if isinstance(types, dict) else []):
                out.append((label, prop, str(kind), str(status)))
    return out


def ensure_schema(
    query: CypherQuery, types: Sequence[str], vectors: Mapping[str, Mapping[str, np.ndarray]], labels: Sequence[str]
) -> None:
    have = {(label, prop, kind) for label, prop, kind, _ in node_indexes(query)}
    for label in (ENTITY, FACET, CHUNK, COMMUNITY, REPORT):
        if (label, "id", "RANGE") not in have:
            query(f"CREATE INDEX FOR (n:{label}) ON (n.id)", write=True)
    if (ENTITY, "name", "RANGE") not in have:
        query("CREATE INDEX FOR (n:Entity) ON (n.name)", write=True)
    for label in COLLECTION_LABELS.values():
        if (label, "text", "FULLTEXT") not in have:
            query(f"CALL db.idx.fulltext.createNodeIndex('{label}', 'text')", write=True)
    # one vector index per entity label (as the spec's native entity search), one for chunks and reports
    wanted = [(CHUNK, "chunks"), (REPORT, "communities")] + [(label_node(lab), "entities") for lab in labels]
    for label, collection in wanted:
        found = next(iter(vectors.get(collection, {}).values()), None)
        if found is not None and (label, "embedding", "VECTOR") not in have:
            query(
                f"CREATE VECTOR INDEX FOR (n:{label}) ON (n.embedding) OPTIONS "
                f"{{dimension: {int(np.asarray(found).shape[0])}, similarityFunction: 'cosine', M: 16, "
                f"efConstruction: 200, efRuntime: {EF_RUNTIME}}}", write=True)


def wait_for_indexes(query: CypherQuery, address: str, timeout: float = 120.0) -> None:
    """Return once every index is ``OPERATIONAL`` (they build asynchronously).

    Raises
    ------
    GraphServerError
        Some index is still building after ``timeout`` seconds.
    """
    import time

    deadline = time.monotonic() + timeout
    while True:
        pending = [(label, prop) for label, prop, _kind, status in node_indexes(query) if status != "OPERATIONAL"]
        if not pending:
            return
        if time.monotonic() > deadline:
            raise GraphServerError(f"the indexes {pending} of {address} are still building after {timeout:g} s")
        time.sleep(0.05)


class StreamedPush:
    """Write a graph into an empty server graph a part at a time, as :func:`push_graph` would write it whole.

    For graphs built without embedding that one process should not hold
    whole (the graph-only scale series): entities, then chunks with their
    ``MENTIONS`` edges, then relations, each in any number of calls, and
    :meth:`finish` writes the graph's meta. Rows are the push's own
    (:func:`_entity_payload`, :func:`_chunk_row`, :func:`_edge_payload`,
    no search vectors or texts), created without look-up, so the server ends
    holding what :func:`push_graph` of the whole graph writes. No communities
    or reports.

    Parameters
    ----------
    query : CypherQuery
        The store's query callable.
    address : str
        The graph's address, for messages.
    batch_size : int
        Rows per Cypher call.

    Raises
    ------
    GraphServerError
        The server's graph is not empty (clear it first).
    """

    def __init__(self, query: CypherQuery, address: str, batch_size: int = BATCH) -> None:
        found = query("MATCH (n) RETURN count(n)")
        if found and int(found[0][0]):
            raise GraphServerError(f"the FalkorDB graph {address} holds {int(found[0][0])} nodes: a streamed push "
                                   "writes an empty graph only (clear it first, or push the whole graph)")
        self._query = query
        self._batch = batch_size
        self._counts = _Counts()
        self._labels: set[str] = set()
        self._types: set[str] = set()
        self._described = False
        ensure_schema(query, [], {}, [])

    def entities(self, entities: Iterable[Entity], chunk_documents: Mapping[str, str]) -> None:
        """Create these entities (each once over the whole push); ``chunk_documents`` holds their chunks' documents."""
        rows = [_with_search(_entity_row(e, chunk_documents), None, "") for e in entities]
        self._labels.update(e["label"] for e in rows)
        _create_nodes(self._query, ENTITY, rows, _ENTITY_BODY, None, self._batch)
        self._counts.written["entities"] += len(rows)

    def chunks(self, chunks: Iterable[tuple[str, str, bool, Iterable[str]]]) -> None:
        """Create chunks ``(id, document, current, mentioned entity ids)`` and their ``MENTIONS`` edges
        (the entities pushed already)."""
        rows = [_with_search(_chunk_row(*c), None, "") for c in chunks]
        _create_nodes(self._query, CHUNK, rows, _CHUNK_BODY, _CHUNK_LINKS, self._batch)
        self._counts.written["chunks"] += len(rows)

    def relations(self, edges: Iterable[Edge], chunk_documents: Mapping[str, str]) -> None:
        """Create these relations between pushed entities (each once over the whole push)."""
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for edge in edges:
            by_type[edge.type].append(_edge_payload(edge, chunk_documents))
            self._described = self._described or has_described_relations([edge])
        for name in sorted(by_type):
            _create_edges(self._query, cypher_name(name), by_type[name], self._batch)
            self._counts.written["relations"] += len(by_type[name])
        self._types.update(by_type)

    def finish(self, schema_labels: Sequence[str], source_digest: str = "") -> SyncCounts:
        """Write the graph's meta (as :func:`push_graph` does for the same graph) and return what was written."""
        chunks = self._counts.written.get("chunks", 0)
        passageless = not chunks and bool(self._counts.written.get("entities", 0))
        meta = _graph_meta(passageless, sorted(self._types), self._labels, {}, False,
                           {"chunks": 0, "communities": 0}, schema_labels, source_digest, self._described)
        self._query(f"MERGE (m:{META} {{key: 'meta'}}) SET m.data = $data", {"data": _json(meta)}, write=True)
        return self._counts.result()
