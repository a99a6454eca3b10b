"""An index folder's vector store as its readers see it: hosted graph records found through their chunks.

Most graph records take the mean vector of their supporting chunks
(:func:`~agrag_lab.index.records.graph_records`); when one chunk supports a
record (8 in 10 of MuSiQue's entities), that mean *is* the chunk's vector.
Such a record is *hosted*: its collection keeps no copy, the chunk carries the
flag :func:`~agrag_lab.index.records.host_flag`, and SQLite keeps which
records each chunk hosts, with their filter metadata
(:meth:`~agrag_lab.index.build.IndexBuild.hosted`).

:class:`IndexVectorStore` wraps the real store (Chroma, local or a server):
a query of a graph collection asks the collection for its nearest records and
the flagged chunks for theirs (restricted to the chunks hosting a record the
``where`` admits, so filters, labels and scope apply exactly as before), gives
each hosted record its chunk's similarity, and merges both by similarity, ties
by id: records that share a chunk come in id order, as they did when each had
its own copy of the vector. Every other call goes to the real store.

Examples
--------
>>> import numpy as np
>>> class Exact:  # a two-collection store with exact search, for the example
...     rows = {"chunks": {"c1": ([1.0, 0.0], {"hosts_entities": True}), "c2": ([0.0, 1.0], {})},
...             "entities": {"e-big": ([0.6, 0.8], {"label": "Place"})}}
...     def query(self, collection, embedding, limit, where=None, ids=None):
...         test = compile_where(where)
...         found = [(i, round(float(np.dot(v, embedding)), 5)) for i, (v, m) in self.rows[collection].items()
...                  if test(m) and (ids is None or i in ids)]
...         return sorted(found, key=lambda p: (-p[1], p[0]))[:limit]
>>> hosted = {"entities": [("e-ada", "c1", {"label": "Person"}), ("e-note", "c1", {"label": "Work"})]}
>>> store = IndexVectorStore(Exact(), lambda name: hosted.get(name, []))  # type: ignore[arg-type]
>>> store.query("entities", np.array([1.0, 0.0]), 3)
[('e-ada', 1.0), ('e-note', 1.0), ('e-big', 0.6)]
>>> store.query("entities", np.array([1.0, 0.0]), 3, {"label": {"$in": ["Work", "Place"]}})
[('e-note', 1.0), ('e-big', 0.6)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agrag_lab.errors import IndexFormatError, VectorStoreError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.records import GRAPH_COLLECTIONS, CollectionRecords, host_flag, with_hosts
from agrag_lab.storage.vectors import ExactVectorStore, InMemoryVectorIndex, Loaded, Metadata, VectorStore, Where
from agrag_lab.storage.where import compile_where

if TYPE_CHECKING:
    from agrag_lab.index.reading import IndexReader

__all__ = ["CACHED_SEARCH_LIMIT", "CachedVectorStore", "IndexVectorStore", "merge_hits"]

#: A read-only open of a local index with at most this many current chunks searches the cached embeddings
#: (:class:`CachedVectorStore`); a larger one opens its Chroma folder. The cached store makes every
#: collection at open (the graph's records, their texts hashed to find their vectors): on MuSiQue-100
#: (2,111 chunks) that costs as much as Chroma's import and client, and at 100k chunks 95 s and 515 MB
#: for the chunks alone (BENCHMARKS.md, "CLI start-up and the ONNX embedder", what did not work).
CACHED_SEARCH_LIMIT = 2_000

#: An unscoped query of a graph collection finds its hosting chunks without the host flag's filter: a
#: metadata filter makes an approximate index search walk far past the chunks it rejects. At 100k passages
#: in a Chroma server (12% of the chunks hosting entities, 0.16% communities) a flagged query took 112-127 ms
#: where an unfiltered one took 15 ms at k=50 and 35 ms at k=3,400, and the 160 hosting chunks' vectors
#: were read and ranked in 21 ms (BENCHMARKS.md, "Scale: 2k to 100k passages"). So: at most ``HOSTS_EXACT`` hosting
#: chunks are ranked exactly, by id; more are found by reading the nearest chunks unfiltered, as many as
#: should hold ``WIDEN`` x ``limit`` hosting ones at the index's share (at most ``WIDE_MAX``), keeping the
#: hosting ones; the flagged query is asked only when they are too few. Exact search gives the same chunks
#: every way.
HOSTS_EXACT = 256
WIDEN = 2
WIDE_MAX = 5_000

#: ``(record id, host chunk id, filter metadata)`` of each hosted record of one collection.
Hosted = Sequence[tuple[str, str, Mapping[str, Any]]]


def _item_ids(where: Where | None) -> set[Any] | None:
    """The ``item_id`` values a ``where`` admits at most (its own ``$in``/``$eq``, or one of an ``$and``), or None.

    Examples
    --------
    >>> sorted(_item_ids({"$and": [{"label": {"$in": ["Person"]}}, {"item_id": {"$in": ["a", "b"]}}]}))
    ['a', 'b']
    >>> _item_ids({"label": {"$eq": "Person"}}) is None
    True
    """
    if not where:
        return None
    for part in where.get("$and", [where]):
        cond = part.get("item_id")
        if isinstance(cond, dict):
            if "$in" in cond:
                return set(cond["$in"])
            if "$eq" in cond:
                return {cond["$eq"]}
    return None


def merge_hits(*lists: Sequence[tuple[str, float]], limit: int) -> list[tuple[str, float]]:
    """Merge ranked ``(id, similarity)`` lists: each id at its best similarity, best first, ties by id.

    Examples
    --------
    >>> merge_hits([("b", 0.9), ("a", 0.5)], [("a", 0.9), ("c", 0.1)], limit=3)
    [('a', 0.9), ('b', 0.9), ('c', 0.1)]
    """
    best: dict[str, float] = {}
    for pairs in lists:
        for key, score in pairs:
            if key not in best or score > best[key]:
                best[key] = score
    return sorted(best.items(), key=lambda p: (-p[1], p[0]))[:limit]


class IndexVectorStore:
    """The vector store of an index folder, with hosted graph records found through their chunks.

    Parameters
    ----------
    backend : VectorStore
        Where the vectors are (the index build writes to it directly).
    hosted : callable
        ``hosted(collection)``: the hosted records of a collection,
        ``(record id, chunk id, filter metadata)`` (empty for ``chunks``).
    """

    def __init__(self, backend: VectorStore, hosted: Callable[[str], Hosted]) -> None:
        self.backend = backend
        self._hosted = hosted
        self._groups: dict[str, tuple[Hosted, dict[str, list[tuple[str, Mapping[str, Any]]]]]] = {}
        self._items: dict[str, tuple[Hosted, dict[Any, list[tuple[str, str, Mapping[str, Any]]]]]] = {}
        self._chunk_count: int | None = None

    @property
    def local_path(self) -> str | None:
        """The folder of a local store (None: a server, or the cached embeddings)."""
        return self.backend.local_path

    @property
    def server(self) -> tuple[str, int] | None:
        """``(host, port)`` of a Chroma server store (None: a local folder, or the cached embeddings)."""
        return self.backend.server

    def describe(self) -> str:
        return self.backend.describe()

    def upsert(
        self, collection: str, ids: Sequence[str], embeddings: np.ndarray, documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        self.backend.upsert(collection, ids, embeddings, documents, metadatas)

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        self.backend.delete(collection, ids)

    def fingerprints(self, collection: str) -> dict[str, str]:
        return self.backend.fingerprints(collection)

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """Stored vectors of ``ids``; a hosted record's is its chunk's (ids held nowhere are left out)."""
        found = self.backend.vectors(collection, ids)
        if collection not in GRAPH_COLLECTIONS:
            return found
        missing = set(ids) - set(found)
        hosts = {rid: chunk for rid, chunk, _ in self._hosted(collection) if rid in missing} if missing else {}
        if hosts:
            chunks = self.backend.vectors("chunks", sorted(set(hosts.values())))
            found.update({rid: chunks[c] for rid, c in hosts.items() if c in chunks})
        return found

    def count(self, collection: str) -> int | None:
        """Records the collection holds itself (hosted ones not counted; None: it does not exist)."""
        return self.backend.count(collection)

    def drop(self, collection: str) -> None:
        self.backend.drop(collection)

    def compact(self) -> bool:
        return self.backend.compact()

    def _by_chunk(self, collection: str) -> dict[str, list[tuple[str, Mapping[str, Any]]]]:
        """Hosted records by chunk, each chunk's in id order (rebuilt when the index build's list changes)."""
        records = self._hosted(collection)
        cached = self._groups.get(collection)
        if cached is not None and cached[0] is records:
            return cached[1]
        groups: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
        for rid, chunk, meta in sorted(records, key=lambda r: r[0]):
            groups.setdefault(chunk, []).append((rid, meta))
        self._groups[collection] = (records, groups)
        return groups

    def _by_item(self, collection: str) -> dict[Any, list[tuple[str, str, Mapping[str, Any]]]]:
        """Hosted records by their ``item_id`` (an entity's facets with it), for scoped queries."""
        records = self._hosted(collection)
        cached = self._items.get(collection)
        if cached is not None and cached[0] is records:
            return cached[1]
        items: dict[Any, list[tuple[str, str, Mapping[str, Any]]]] = {}
        for record in records:
            items.setdefault(record[2].get("item_id"), []).append(record)
        self._items[collection] = (records, items)
        return items

    def _admitted(
        self, collection: str, where: Where | None, ids: Sequence[str] | None
    ) -> dict[str, list[tuple[str, Mapping[str, Any]]]]:
        """The hosted records ``where`` and ``ids`` admit, by chunk (each chunk's in id order).

        A scope names its entities (``item_id``): only their records are tested, not every hosted one.
        """
        test, wanted = compile_where(where), None if ids is None else set(ids)
        items = _item_ids(where)
        by_item = self._by_item(collection)
        candidates = self._hosted(collection) if items is None else [r for i in items for r in by_item.get(i, ())]
        groups: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
        for rid, chunk, meta in sorted(candidates, key=lambda r: r[0]):
            if test(meta) and (wanted is None or rid in wanted):
                groups.setdefault(chunk, []).append((rid, meta))
        return groups

    def query(
        self, collection: str, embedding: np.ndarray, limit: int, where: Where | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``limit`` nearest records as ``(id, cosine similarity)``, best first, hosted ones included.

        ``ids`` restricts the search to these records (hosted ones by their own ids).

        Raises
        ------
        VectorStoreError
            The store cannot be queried (the message names it).
        """
        own = self.backend.query(collection, embedding, limit, where, ids)
        if collection not in GRAPH_COLLECTIONS or limit <= 0:
            return own
        groups = self._by_chunk(collection)
        if not groups:
            return own
        if where is not None or ids is not None:
            groups = self._admitted(collection, where, ids)
            if not groups:
                return own
            # the admitted chunks all host a record: the id list is the flag's filter
            found = self.backend.query("chunks", embedding, limit, None, ids=sorted(groups))
        else:
            found = self._nearest_hosts(collection, embedding, limit, groups)
        hosted = [(rid, score) for chunk, score in found for rid, _ in groups.get(chunk, ())]
        return merge_hits(own, hosted, limit=limit)

    def _nearest_hosts(
        self, collection: str, embedding: np.ndarray, limit: int, groups: Mapping[str, object]
    ) -> list[tuple[str, float]]:
        """The ``limit`` nearest chunks hosting records of ``collection`` (see :data:`HOSTS_EXACT`)."""
        if len(groups) <= HOSTS_EXACT:  # asking for every one of them makes the store rank them exactly
            return self.backend.query("chunks", embedding, len(groups), None, ids=sorted(groups))[:limit]
        if self._chunk_count is None:  # an estimate for the read's width: a stale one costs time, not results
            self._chunk_count = self.count("chunks") or 0
        total = max(self._chunk_count, len(groups))
        wide = min(total, -(-limit * WIDEN * total // len(groups)))
        if wide <= WIDE_MAX:
            near = self.backend.query("chunks", embedding, wide)
            hosting = [(chunk, score) for chunk, score in near if chunk in groups]
            if len(hosting) >= limit or len(near) < wide:  # enough, or every chunk read
                return hosting[:limit]
        return self.backend.query("chunks", embedding, limit, {host_flag(collection): {"$eq": True}})


class CachedVectorStore(ExactVectorStore):
    """An index folder's collections, searched exactly with numpy from the embeddings cached in ``documents.sqlite``.

    A read-only open of a local index reads its vectors here instead of its
    Chroma folder, so chromadb (a second of imports, and a client that writes
    to its SQLite file even to read) is imported only to write or to reach a
    Chroma server. It holds what the Chroma collections hold, made the way the
    sync made them: the chunks with their host flags
    (:func:`~agrag_lab.index.records.with_hosts`), and each graph collection's
    records no chunk hosts (:meth:`CollectionRecords.stored`), with the same
    ids, metadata and vectors (cached embeddings, or the means of chunk
    vectors: :meth:`IndexBuild.record_vectors`). :class:`IndexVectorStore`
    wraps it as it wraps Chroma. Its search is exact cosine
    (:class:`~agrag_lab.storage.vectors.ExactVectorStore`), where Chroma's
    HNSW is approximate once a query asks for fewer records than a collection
    holds. Each collection is loaded on first use, and loaded again when the
    reader's graph is (see :meth:`bind`; ``Graph.open`` binds it).
    """

    def __init__(self, folder: Path) -> None:
        super().__init__(self._collection, f"the embeddings cached in {folder / 'documents.sqlite'} (exact search)")
        self.folder = folder
        self._reader: IndexReader | None = None
        self._graph: NetworkXGraphStore | None = None
        self._graph_records: dict[str, CollectionRecords] | None = None

    def bind(self, index: IndexReader) -> None:
        """Read the collections of the opened index ``index``: its cache, SQLite, and its graph.

        The graph is the index's own (:meth:`IndexReader.graph <agrag_lab.index.reading.IndexReader.graph>`),
        the one the search reads, so the records searched here are always that graph's: when the index
        loads its graph anew (``Graph.refresh``, after another process completed an ingest), every
        collection is loaded anew on next use.
        """
        self._reader = index
        self._graph = self._graph_records = None
        self.forget()

    def _bound(self) -> IndexReader:
        if self._reader is None:
            raise VectorStoreError(
                f"the cached vector store of {self.folder} is not bound to its index (a bug: please report it)")
        return self._reader

    def _index(self, collection: str) -> InMemoryVectorIndex:
        self.graph()  # the reader's graph: a new one (a refresh) means every collection is read anew
        return super()._index(collection)

    def graph(self) -> NetworkXGraphStore:
        """The reader's knowledge graph, which the graph collections' records come from."""
        graph = self._bound().graph()
        if graph is not self._graph:
            self._graph, self._graph_records = graph, None
            self.forget()
        return graph

    def _records(self, collection: str) -> CollectionRecords:
        """The records the Chroma collection holds, as the sync wrote them."""
        build = self._bound()
        if collection == "chunks":
            # the host flags come from SQLite's hosted records: no graph needed to search the chunks
            hosted = {name: _hosting(build.hosted(name)) for name in GRAPH_COLLECTIONS}
            return with_hosts(build.chunk_records(), hosted)
        if self._graph_records is None:
            self._graph_records = build.graph_records(self.graph())
        return self._graph_records[collection].stored()

    def _collection(self, collection: str) -> Loaded:
        records = self._records(collection)
        vectors = self._bound().record_vectors(records)  # IndexFormatError: the cache lacks some
        # a None flag is "not set" (a Chroma upsert removes the key)
        return records.ids, vectors, [{k: v for k, v in m.items() if v is not None} for m in records.metadatas]

    def count(self, collection: str) -> int | None:
        """Records in the collection (None: they cannot be made, the graph file is unreadable)."""
        try:
            return len(self._index(collection))
        except IndexFormatError as exc:
            if collection == "chunks" or "embeddings" in str(exc):  # the cache lacks vectors: told as it is
                raise
            return None


def _hosting(hosted: Hosted) -> CollectionRecords:
    """Records carrying only what :func:`~agrag_lab.index.records.with_hosts` reads: ids, metadata, hosts."""
    blank = ("",) * len(hosted)
    return CollectionRecords(
        tuple(r for r, _, _ in hosted), blank, tuple(m for _, _, m in hosted), blank,
        hosts=tuple(c for _, c, _ in hosted))
