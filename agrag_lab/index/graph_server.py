"""An index's graph in a FalkorDB server: what the folder records, whether the server holds it, the push.

The folder keeps ``graph_server.json`` (the server's ``HOST:PORT/GRAPH`` and
the digest of the graph file pushed there); the server's graph records the
same digest, so an open tells a server holding this index's current graph
from one holding another graph or an older one.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from agrag_lab.errors import GraphServerError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.build import IndexBuild, graph_file
from agrag_lab.index.records import relation_facets
from agrag_lab.storage.documents_db import DocumentDB
from agrag_lab.storage.meta_keys import GRAPH_PUSHES

if TYPE_CHECKING:
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore, SyncCounts

__all__ = [
    "SERVER_FILE",
    "check_server",
    "graph_digest",
    "graph_pushes",
    "push_index_graph",
    "recorded_server",
    "server_at_open",
]

log = logging.getLogger(__name__)

#: Where a folder records the graph server its graph was pushed to.
SERVER_FILE = "graph_server.json"


def graph_digest(folder: Path) -> str:
    """The sha256 of the folder's graph file ("" when it has none yet)."""
    path = graph_file(folder)
    if not path.exists():
        return ""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def recorded_server(folder: Path) -> str | None:
    """The ``HOST:PORT/GRAPH`` the folder's graph was last pushed to, or None."""
    path = folder / SERVER_FILE
    try:
        address = json.loads(path.read_text(encoding="utf-8")).get("address")
    except (OSError, ValueError, AttributeError):
        return None
    return address if isinstance(address, str) else None


def check_server(folder: Path, server: FalkorDBGraphStore) -> str | None:
    """Why ``server`` does not hold the folder's current graph (None: it does)."""
    from agrag_lab.graph_stores.falkordb.store import FORMAT

    want = graph_digest(folder)
    have = server.meta().get("source_digest")
    if have is None:
        return f"the FalkorDB graph {server.address} holds no graph of an index yet"
    if server.meta().get("format") != FORMAT:
        return f"the FalkorDB graph {server.address} holds this index's graph in an older layout"
    if server.serves_vectors and not server.meta().get("search"):
        return f"the FalkorDB graph {server.address} holds the index's graph without its vectors (asked for)"
    if have != want:
        return f"the FalkorDB graph {server.address} holds another graph than the index {folder} (or an older one)"
    return None


def server_at_open(folder: Path, server: FalkorDBGraphStore | None, *, read_only: bool) -> bool:
    """Whether ``server`` must be pushed the folder's graph before it is read (an open's check).

    Without a server, a folder whose graph also lives in one is only warned
    about (the in-process graph is read).

    Raises
    ------
    GraphServerError
        ``read_only``, and the server does not hold the folder's current graph.
    """
    if server is None:
        recorded = recorded_server(folder)
        if recorded is not None:
            log.warning(
                "index %s: its graph also lives in the FalkorDB server %s; opened without it, the in-process "
                "graph is read (pass graph_store=FalkorDBGraphStore.connect(...), or --falkordb %s)",
                folder, recorded, recorded)
        return False
    problem = check_server(folder, server)
    if problem is not None and read_only:
        raise GraphServerError(
            f"{problem}: push it with `agrag-lab sync --index {folder} --falkordb {server.address}"
            f"{' --falkordb-vectors' if server.serves_vectors else ''}` "
            "(or open the index writable)")
    return problem is not None


def push_index_graph(build: IndexBuild, store: NetworkXGraphStore, server: FalkorDBGraphStore) -> SyncCounts:
    """Push ``store`` (the index's graph); record the server in the folder.

    When the server serves the vectors too (``FalkorDBGraphStore.connect(..., vectors=True)``), the records'
    vectors and texts go with it (its vector and full-text indexes); else the vectors stay in the vector store
    only, and the server holds the graph alone (pushed several times faster: its vector inserts are the slow part).
    """
    vectors: dict[str, dict[str, np.ndarray]] = {}
    texts: dict[str, dict[str, str]] = {}
    collections = {"chunks": build.chunk_records(), **build.graph_records(store)} if server.serves_vectors else {}
    for name, records in collections.items():
        if not records.ids:
            continue
        found = build.record_vectors(records)
        vectors[name] = dict(zip(records.ids, found, strict=True))
        texts[name] = dict(zip(records.ids, records.texts, strict=True))
    digest = graph_digest(build.path)
    facet_chunks = {key: edge.chunk_ids for key, edge in relation_facets(store).items()}
    counts = server.push(store, vectors, texts, source_digest=digest, facet_chunks=facet_chunks)
    (build.path / SERVER_FILE).write_text(
        json.dumps({"address": server.address, "digest": digest}, indent=1) + "\n", encoding="utf-8")
    # readers of this folder read the server's graph anew (Graph.refresh); only the writer pushes
    build.db.set_meta(GRAPH_PUSHES, str(graph_pushes(build.db) + 1))
    return counts


def graph_pushes(db: DocumentDB) -> int:
    """How many pushes of the folder's graph to its graph server have completed (0: none)."""
    return int(db.get_meta(GRAPH_PUSHES) or 0)
