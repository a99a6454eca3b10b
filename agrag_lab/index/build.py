"""The index build: embedding, collection sync and keyword indexes, in one owner.

:class:`IndexBuild` owns everything an index folder derives from its SQLite
source of truth: the embedding cache (texts embedded once per content hash
and model, committed batch by batch), the three vector collections
(``chunks``, ``entities``, ``communities``, synced by fingerprint) and their
bm25s keyword indexes (``keyword/<name>/``), and the knowledge graph
(``graph.json.gz``). :class:`~agrag_lab.graph.Graph` holds one and delegates
to it; nothing else writes these stores.

Two ways in:

- :meth:`IndexBuild.write` is **the entry point for writing an index from
  ready-made values**: document versions with their sections and chunks
  (:class:`PreparedVersion`), and optionally a finished knowledge graph
  (entities, relations, communities, reports as a
  :class:`~agrag_lab.graph_stores.networkx.NetworkXGraphStore`), e.g. a GraphRAG import.
  Everything is embedded *before* anything is committed, then versions and the
  given graph commit in one SQLite transaction, then the derived stores are
  synced: a crash at any point leaves what was readable before readable, and
  reopening the folder completes the sync. ``Graph.write_index`` calls it.
- :meth:`IndexBuild.sync` brings the derived stores in line with SQLite
  (idempotent). Without a given graph, the knowledge graph is rebuilt from
  the chunks by the extractor (extractions cached in SQLite); with one, that
  graph is kept as given.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from agrag_lab.documents import Document
>>> from agrag_lab.graph import Graph
>>> with Graph.open(tempfile.mkdtemp()) as g:                          # doctest: +SKIP
...     version = prepare_document(Document("ada", "Ada", "Ada Lovelace wrote Note G."), g.chunk_size)
...     g.write_index([version]).embedded
1
"""

from __future__ import annotations

import contextlib
import json
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agrag_lab.documents import Chunk
from agrag_lab.embedding import Embedder, EndpointEmbedder
from agrag_lab.errors import IndexFormatError
from agrag_lab.graph_stores import persistence
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.embedding_cache import (
    EMBEDDING_MODEL,
    CacheModel,
    audit_cache,
    dimension_of,
    model_meta,
    recorded_model,
)
from agrag_lab.index.hints import name_folder, repair_hint
from agrag_lab.index.long_texts import embed_whole
from agrag_lab.index.records import (
    GRAPH_COLLECTIONS,
    CollectionRecords,
    chunk_keyword_texts,
    chunk_records,
    content_hash,
    graph_records,
    keyword_texts,
    with_hosts,
)
from agrag_lab.index.versions import PreparedVersion, prepare_document, prepare_version
from agrag_lab.kg.errors import KnowledgeGraphError
from agrag_lab.progress import Progress, TextCounting
from agrag_lab.serialize import from_data, to_data
from agrag_lab.storage.disk import disk_writes
from agrag_lab.storage.documents_db import DocumentDB
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.meta_keys import DERIVED_GENERATION, GIVEN_GRAPH, LAYOUT, SYNCING, VECTOR_SERVER
from agrag_lab.storage.vectors import COLLECTIONS, VectorStore, collection_counts

if TYPE_CHECKING:  # the extraction and build modules are imported where a build runs: a search never needs them
    from agrag_lab.kg.extract.build import ChunkExtraction
    from agrag_lab.kg.extract.extraction import DocumentContext, Extractor
    from agrag_lab.kg.graph_store import WholeGraph
    from agrag_lab.kg.reports import CommunityReporter

__all__ = ["GIVEN_GRAPH", "GRAPH_FILE", "LEGACY_GRAPH_FILE", "IndexBuild", "PreparedVersion", "WriteResult", "graph_file", "outdated_layout",
           "prepare_document",
           "prepare_version"]

#: The knowledge graph file of an index folder (gzip-compressed JSON, :mod:`agrag_lab.graph_stores.persistence`).
GRAPH_FILE = "graph.json.gz"
#: The plain-JSON graph file of an index written before: read as it is, converted by a writable open.
LEGACY_GRAPH_FILE = "graph.json"
log = logging.getLogger(__name__)
#: 2: graph records that are exactly one chunk's vector are hosted by that chunk (no copy in their collection),
#: fingerprints of 16 hex digits (:func:`~agrag_lab.index.records.fingerprint`).
CURRENT_LAYOUT = "2"
#: Texts per embedding call.
EMBED_BATCH = 128
#: Records per vector-store write (a step of the ``"indexing <collection>"`` progress).
UPSERT_BATCH = 2000


def outdated_layout(db: DocumentDB) -> bool:
    """Whether an index's derived stores were written in an older layout than :data:`CURRENT_LAYOUT`."""
    return derived_generation(db) >= 0 and db.get_meta(LAYOUT) != CURRENT_LAYOUT


def graph_file(folder: Path) -> Path:
    """The knowledge graph file of an index folder: :data:`GRAPH_FILE`, or an older index's
    :data:`LEGACY_GRAPH_FILE` while only that one exists (a writable open converts it).

    Examples
    --------
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> graph_file(folder).name
    'graph.json.gz'
    >>> _ = (folder / "graph.json").write_text("{}")
    >>> graph_file(folder).name
    'graph.json'
    """
    current = folder / GRAPH_FILE
    legacy = folder / LEGACY_GRAPH_FILE
    return legacy if legacy.exists() and not current.exists() else current


def derived_generation(db: DocumentDB) -> int:
    """The generation of ``db`` the derived stores were last completed for (-1: never)."""
    return int(db.get_meta(DERIVED_GENERATION) or -1)


def wrote_derived_stores(db: DocumentDB) -> bool:
    """Whether a sync ever wrote the derived stores' files: one completed after the first commit. A sync of an
    index with nothing committed (generation 0, a new folder) writes none: a missing store reads as empty."""
    return derived_generation(db) > 0


def mid_sync(db: DocumentDB) -> bool:
    """Whether the derived stores lag behind ``db`` (a sync is running, or one was killed): the one rule."""
    return db.get_meta(SYNCING) is not None or derived_generation(db) != db.generation()


def recorded_server(db: DocumentDB) -> tuple[str, int] | None:
    """The Chroma server this index's vectors were last synced to (None: never one, only the folder's own)."""
    raw = db.get_meta(VECTOR_SERVER)
    if raw is None:
        return None
    data = json.loads(raw)
    return str(data["host"]), int(data["port"])


@dataclass(frozen=True)
class WriteResult:
    """What :meth:`IndexBuild.write` did.

    ``embedded`` chunk texts and ``graph_embedded`` graph records were embedded
    (cached ones are not counted) in ``embed_seconds`` of model time, out of
    ``seconds`` in all; ``store`` is the knowledge graph now held (None when
    nothing changed).
    """

    embedded: int
    graph_embedded: int
    store: NetworkXGraphStore | None
    embed_seconds: float = 0.0
    seconds: float = 0.0


def _extraction_key(extractor: Extractor, chunk: Chunk, context: DocumentContext) -> str:
    given = {k: context.metadata.get(k) for k in ("entities", "relations") if k in context.metadata}
    raw = json.dumps([extractor.version, chunk.id, context.title, given, chunk.text], sort_keys=True, default=str)
    return content_hash(raw)


class IndexBuild:
    """The derived stores of one index folder: embeddings, collections, keywords, graph.

    Parameters
    ----------
    path : Path
        The index folder (``keyword/`` and ``graph.json.gz`` are written here).
    db : DocumentDB
        Its SQLite source of truth (and embedding and extraction caches).
    embedder : Embedder
        Embeds every record.
    vector_store : VectorStore
        Holds the three collections.
    extractor : Extractor, optional
        Builds the knowledge graph from chunks. Default: :class:`RuleExtractor`.
    reporter : CommunityReporter, optional
        Writes the community reports. Default: the extractive reporter.
    """

    def __init__(
        self,
        path: Path,
        db: DocumentDB,
        embedder: Embedder,
        vector_store: VectorStore,
        extractor: Extractor | None = None,
        reporter: CommunityReporter | None = None,
    ) -> None:
        self.path = path
        self.db = db
        self.embedder = embedder
        self.vector_store = vector_store
        self.extractor = extractor
        self.reporter = reporter
        self._keyword: dict[str, KeywordIndex] = {}
        #: Stored documents whose given graph facts the last :meth:`extract` could not read, with why
        #: (their text is still indexed; ``agrag-lab doctor`` lists them).
        self.unreadable_facts: dict[str, str] = {}
        #: Derived stores found missing or inconsistent when a read-only open saw the index mid-sync.
        self.open_problems: tuple[str, ...] = ()
        #: Seconds spent in the embedder by :meth:`embed_missing`, and the texts it embedded, all told.
        self.embed_seconds = 0.0
        self.embedded_count = 0
        self._dimension: int | None = None
        self._hosted: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        self._graph: NetworkXGraphStore | None = None
        #: Collections this build emptied (a new folder's first sync) and has written nothing to since, with the
        #: store they are empty in: their next :meth:`sync_collection` has nothing to read back.
        self._emptied: tuple[VectorStore | None, frozenset[str]] = (None, frozenset())

    # -- the entry points ------------------------------------------------------
    def write(
        self,
        versions: Sequence[PreparedVersion],
        *,
        remove: Sequence[str] = (),
        knowledge_graph: NetworkXGraphStore | None = None,
        progress: Progress | None = None,
    ) -> WriteResult:
        """Write document versions (and optionally a finished knowledge graph), then sync.

        Parameters
        ----------
        versions : sequence of PreparedVersion
            Each becomes its document's current version (an older one is
            superseded, still fetchable). Pass only what changed.
        remove : sequence of str
            Document ids to hide from search.
        knowledge_graph : NetworkXGraphStore, optional
            Entities, relations, communities and reports as given (e.g.
            imported): kept as they are instead of being extracted from the
            chunks, now and at every later sync.
        progress : Progress, optional
            Wraps each embedding loop (``"embedding chunks"``, ``"embedding
            entities"``, ``"embedding communities"``).

        Returns
        -------
        WriteResult
            ``store`` is the knowledge graph after the sync (None when nothing changed).
        """
        started, embed_before = time.perf_counter(), self.embed_seconds
        embedded = self.embed_missing(
            [(h, t) for v in versions for h, t in zip(v.hashes, v.texts, strict=True)], progress, "chunks"
        )
        given = graph_embedded = None
        if knowledge_graph is not None:
            given = knowledge_graph.dumps()
            if given == self.db.get_meta(GIVEN_GRAPH):
                given = None  # the same graph again: nothing to write
            else:
                written = {c.id: h for v in versions for c, h in zip(v.chunks, v.hashes, strict=True)}
                titles = {**self.titles(), **{v.document.id: v.document.title for v in versions}}
                graph_embedded = self._embed_graph(
                    graph_records(knowledge_graph, {**self.chunk_hashes(), **written}, titles), progress
                )
        if not versions and not remove and given is None:
            return WriteResult(embedded, 0, None, self.embed_seconds - embed_before, time.perf_counter() - started)
        with self.db.transaction() as conn:
            for v in versions:
                d = v.document
                self.db.put_version(
                    conn, document_id=d.id, title=d.title, fmt=d.format, metadata=d.metadata, version=v.version,
                    text=d.text, sections=v.sections, chunks=v.chunks, content_hashes=v.hashes,
                )
            for document_id in remove:
                self.db.set_removed(conn, document_id)
            if given is not None:
                self.db.set_meta(GIVEN_GRAPH, given, conn)
            self.db.bump_generation(conn)
        store = self.sync(progress)
        return WriteResult(
            embedded, graph_embedded or 0, store, self.embed_seconds - embed_before, time.perf_counter() - started
        )

    def sync(self, progress: Progress | None = None, store: NetworkXGraphStore | None = None) -> NetworkXGraphStore:
        """Bring vectors, keywords and the graph in line with SQLite (idempotent); return the graph.

        ``meta.syncing`` is set while it runs and ``meta.derived_generation``
        when it is done: until then readers are told the index is mid-sync
        (:meth:`consistency_warnings`), and a writable open completes it.
        ``store``: the graph the derived stores already hold (:meth:`convert`),
        kept instead of being built again.
        """
        generation = self.db.generation()
        if generation == 0 and store is None:  # nothing committed (a new folder): empty collections, no file written
            for name in COLLECTIONS:  # searchable at once; a keyword index or graph file not written reads as empty
                self.sync_collection(name, CollectionRecords((), (), (), ()))
            self._emptied = (self.vector_store, frozenset(COLLECTIONS))  # the writer's lock keeps them so
            self._completed(generation)
            self._graph = self.knowledge_graph([], {})
            return self._graph
        with self.db.transaction() as conn:
            self.db.set_meta(SYNCING, str(generation), conn)
        switched = self.model_switch()
        if switched:
            log.warning("%s: %s; re-embedding every record and rewriting the vector collections", self.path, switched)
            for name in COLLECTIONS:
                self.vector_store.delete(name, list(self.vector_store.fingerprints(name)))
        current = self.db.current_chunks()
        records = {r.id: r for r in self.db.documents(include_removed=True)}
        chunks = chunk_records(current, records)
        # normally all cached already (write embeds before it commits); a repair, or another
        # embedder than the one that wrote the index, embeds what is missing here
        self.embed_missing(list(zip(chunks.hashes, chunks.texts, strict=True)), progress, "chunks")
        if store is None:
            store = self.knowledge_graph(current, records)
        graph = self.graph_records(store)
        # the chunks first: a record a chunk now hosts is found through it before its own copy goes
        with self.store_writes("the vectors of the chunks (Chroma)"):
            self.sync_collection("chunks", with_hosts(chunks, graph), progress)
        with self.store_writes("the keyword index of the chunks (bm25s)"):
            self.write_keywords("chunks", chunks.ids, chunk_keyword_texts(current, records))
        self.write_graph(store, progress, graph)
        self._completed(generation)
        self._hosted.clear()
        self._graph = store
        self.vector_store.compact()  # Chroma's free pages (its write-ahead log, deleted records) back to the disk
        return store

    def _completed(self, generation: int) -> None:
        """Record that the derived stores hold ``generation``, in this layout, made by this embedder (and where)."""
        url = self.embedder.url if isinstance(self.embedder, EndpointEmbedder) else ""
        model = CacheModel(self.embedder.name, self.cache_dimension(), url)
        with self.db.transaction() as conn:
            self.db.set_meta(DERIVED_GENERATION, str(generation), conn)
            self.db.set_meta(LAYOUT, CURRENT_LAYOUT, conn)
            self.db.set_meta(EMBEDDING_MODEL, model_meta(model), conn)
            server = self.vector_store.server
            if server is not None:  # kept when a later sync is local: the folder's own copy then serves
                self.db.set_meta(VECTOR_SERVER, json.dumps({"host": server[0], "port": server[1]}), conn)
            conn.execute("DELETE FROM meta WHERE key=?", (SYNCING,))

    def outdated_layout(self) -> bool:
        """Whether the derived stores were written in an older layout (:data:`CURRENT_LAYOUT`)."""
        return outdated_layout(self.db)

    def convert(self, progress: Progress | None = None) -> NetworkXGraphStore:
        """Rewrite derived stores of an older layout in this one, keeping the saved graph as it is.

        No model time (every vector is in the embedding cache) and no graph
        rebuild: the collections are written again from the cache (a store
        does not shrink when records are deleted from it), chunks with their
        host flags, graph collections without the records chunks host. Works
        alike on a local folder and a Chroma server.
        """
        log.info("index %s: converting its derived stores to layout %s", self.path, CURRENT_LAYOUT)
        saved = graph_file(self.path)
        store = None  # a missing or damaged graph file: built again from the cached extractions
        if saved.exists() and persistence.is_complete(saved):
            with contextlib.suppress(IndexFormatError):
                store = self.load_graph()
        # a local folder is written anew by Graph.open (Chroma 1.x leaves a dropped collection's files
        # on disk); a server's collections are dropped here
        for name in COLLECTIONS:
            self.vector_store.drop(name)  # a crash from here on: the open after it finds them missing and rebuilds them
        return self.sync(progress, store)

    def hosted(self, collection: str) -> list[tuple[str, str, dict[str, Any]]]:
        """``(record id, chunk id, filter metadata)`` of the records of ``collection`` that chunks host (cached)."""
        if collection not in self._hosted:
            self._hosted[collection] = self.db.hosted(collection)
        return self._hosted[collection]

    def hosted_counts(self) -> dict[str, int]:
        """How many records of each graph collection chunks host (what their collections do not hold)."""
        return {name: len(self.hosted(name)) for name in GRAPH_COLLECTIONS}

    def model_switch(self) -> str:
        """Why the vectors in the collections are not this embedder's (``""``: they are).

        The model the derived stores were last built with is recorded in
        ``meta.embedding_model``; opening the index with another embedder makes
        the next sync re-embed and rewrite every vector.
        """
        recorded = recorded_model(self.db)
        if recorded is None or recorded.name == self.embedder.name:
            return ""
        return f"its vectors were made by the model {recorded.name!r}, and it is opened with {self.embedder.name!r}"

    def prune_embeddings(self, store: NetworkXGraphStore) -> int:
        """Delete the cached vectors this index never reads; return how many (what ``agrag-lab repair`` does last).

        Vectors of other models, of no stored chunk or graph record of ``store``,
        and broken ones that nothing needs (needed ones were embedded again by
        the sync before). See :func:`~agrag_lab.index.embedding_cache.audit`.
        """
        found = audit_cache(self.db, store, CacheModel(self.embedder.name, self.cache_dimension()))
        if found is None:
            return 0
        unused = [*found.orphans, *(h for h, _ in found.broken)]
        self.db.delete_embeddings(found.model, unused)
        if found.other_models:
            self.db.delete_other_models(found.model)
        return len(unused) + sum(found.other_models.values())

    # -- consistency ---------------------------------------------------------------
    def derived_generation(self) -> int:
        """The generation the derived stores were last completed for (-1: never)."""
        return derived_generation(self.db)

    def mid_sync(self) -> bool:
        """Whether the derived stores lag behind SQLite (a sync is running, or one was killed)."""
        return mid_sync(self.db)

    def consistency_warnings(self) -> tuple[str, ...]:
        """What a reader must be told about this index now (empty when it is one consistent generation)."""
        switched = self.model_switch()
        if switched:
            model = recorded_model(self.db)
            switched = (
                f"the index {self.path} is searched in another vector space than it was built in: {switched}, so "
                f"its dense results mean nothing. Open it with the embedder of {model.name if model else ''!r}, or "
                f"open it writable with this one (every record is embedded again)"
            )
        if not self.mid_sync():
            return (switched,) if switched else ()
        return (
            *((switched,) if switched else ()),
            f"the index {self.path} is mid-sync: its documents are at generation {self.db.generation()}, but its "
            f"vector, keyword and graph stores were last completed for generation {self.derived_generation()}, so "
            "results may mix old and new entities, reports and passages. Search again when the running ingest has "
            f"finished; if none is running (one was killed), open the index writable or run {self.repair_hint()} "
            "to complete it",
            *self.open_problems,
        )

    def stamp(self) -> tuple[int, int, bool]:
        """Where the index stands now: its documents' generation, the derived stores', and whether a sync runs."""
        return self.db.generation(), self.derived_generation(), self.db.get_meta(SYNCING) is not None

    def change_warnings(self, before: tuple[int, int, bool]) -> tuple[str, ...]:
        """The warning for a search that ran while the index changed (``before``: :meth:`stamp` at its start)."""
        after = self.stamp()
        if after == before:  # a sync seen running at both ends: consistency_warnings says it is mid-sync
            return ()
        return (
            f"the index {self.path} changed while this search ran (documents at generation {before[0]} -> "
            f"{after[0]}, its vector, keyword and graph stores at {before[1]} -> {after[1]}{', a sync running' if before[2] or after[2] else ''}), "
            "so results may mix old and new entities, reports and passages, and a leg may have failed because "
            "its store moved: search again",
        )

    def forget_loaded(self) -> None:
        """Drop what was read from the derived stores (keyword indexes, hosted records, the graph): re-read on
        next use."""
        self._graph = None
        self._keyword = {}
        self._hosted = {}
        self._dimension = None
        self.open_problems = ()

    def repair_hint(self) -> str:
        """The ``agrag-lab repair`` command of this index (with ``--chroma`` when its vectors are on a server)."""
        return repair_hint(self.path, self.vector_store.server)

    def counts(self) -> dict[str, int | None]:
        """Records in each vector collection (None: the collection does not exist)."""
        return collection_counts(self.vector_store)

    # -- embedding ---------------------------------------------------------------
    def embed_missing(self, items: Sequence[tuple[str, str]], progress: Progress | None, what: str) -> int:
        """Embed ``(content hash, text)`` pairs not cached yet; return how many (``what`` names them in progress)."""
        model = self.embedder.name
        cached = self.db.cached_embeddings(model, (h for h, _ in items), self.cache_dimension())
        # longest first, so each step's texts have similar lengths and the model pads little
        # (sentence-transformers sorts by length only within one encode call)
        todo = sorted({h: t for h, t in items if h not in cached}.items(), key=lambda ht: -len(ht[1]))
        if not todo:
            return 0
        batches: Iterable[int] = range(0, len(todo), EMBED_BATCH)
        if isinstance(progress, TextCounting):  # told before the stage: the count, then an estimate
            progress.texts(f"embedding {what}", len(todo))
        if progress is not None:
            batches = progress(batches, (len(todo) + EMBED_BATCH - 1) // EMBED_BATCH, f"embedding {what}")
        for i in batches:
            part = todo[i : i + EMBED_BATCH]
            tick = time.perf_counter()
            vectors = embed_whole(self.embedder, [t for _, t in part])  # a long text: mean of its windows
            self.embed_seconds += time.perf_counter() - tick
            self.embedded_count += len(part)
            # committed per batch: a killed ingest keeps what it embedded
            self.db.put_embeddings(model, {h: v for (h, _), v in zip(part, vectors, strict=True)})
        return len(todo)

    def cache_dimension(self) -> int | None:
        """The length of this embedder's vectors in the cache (recorded, else the most common; None: none cached)."""
        if self._dimension is None:
            self._dimension = dimension_of(self.db, self.embedder.name)
        return self._dimension

    def chunk_hashes(self) -> dict[str, str]:
        """Content hash of every current chunk, by chunk id (what derived graph vectors average)."""
        return {c.id: h for c, h in self.db.current_chunks()}

    def titles(self) -> dict[str, str]:
        """Title of every stored document, by id (an entity's own document is titled by its name)."""
        return {r.id: r.title for r in self.db.documents(include_removed=True)}

    def graph_records(self, store: WholeGraph) -> dict[str, CollectionRecords]:
        """The ``entities`` and ``communities`` records of ``store`` in this index (see :func:`graph_records`)."""
        return graph_records(store, self.chunk_hashes(), self.titles())

    def record_vectors(self, records: CollectionRecords, rows: Sequence[int] | None = None) -> np.ndarray:
        """The vectors of records (all, or ``rows``): cached embeddings, or means of chunk vectors.

        A derived record's vector is the normalised mean of its source chunks'
        cached embeddings (:func:`~agrag_lab.index.records.graph_records`).

        Raises
        ------
        IndexFormatError
            Some embeddings are not cached (the index is incomplete).
        """
        picked = range(len(records.ids)) if rows is None else rows
        plain = [records.hashes[k] for k in picked if not records.source_of(k)]
        wanted = plain + [h for k in picked for h in records.source_of(k)]
        found = self.embeddings(list(dict.fromkeys(wanted)))
        cached = dict(zip(dict.fromkeys(wanted), found, strict=True))
        # the width of the cached vectors: no model load where nothing is embedded
        width = found.shape[1] if len(found) else self.embedder.dimension
        out = np.zeros((len(picked), width), dtype=np.float32)
        for n, k in enumerate(picked):
            sources = records.source_of(k)
            if not sources:
                out[n] = cached[records.hashes[k]]
                continue
            mean = np.mean([cached[h] for h in sources], axis=0)
            out[n] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        return out

    def embeddings(self, hashes: Sequence[str]) -> np.ndarray:
        """Cached embeddings of content hashes, in order.

        Raises
        ------
        IndexFormatError
            Some are not cached (the index is incomplete).
        """
        cached = self.db.cached_embeddings(self.embedder.name, hashes, self.cache_dimension())
        missing = [h for h in hashes if h not in cached]
        if missing:
            raise IndexFormatError(
                f"{len(missing)} embeddings of the model {self.embedder.name!r} are missing from the cache of "
                f"{self.path}, or broken; {self.repair_hint()} embeds them again (only those)"
            )
        if not hashes:
            return np.zeros((0, self.embedder.dimension), dtype=np.float32)
        return np.stack([cached[h] for h in hashes])

    # -- collections and keywords ------------------------------------------------
    def chunk_records(self, current: Sequence[tuple[Chunk, str]] | None = None) -> CollectionRecords:
        """Records of the ``chunks`` collection (``current``: ``db.current_chunks()`` already read)."""
        records = {r.id: r for r in self.db.documents()}
        return chunk_records(self.db.current_chunks() if current is None else current, records)

    def sync_collection(self, name: str, records: CollectionRecords, progress: Progress | None = None) -> None:
        """Make a vector collection hold exactly these records (by fingerprint).

        ``progress`` wraps the writes of changed records, :data:`UPSERT_BATCH` at a
        time, as ``"indexing <name>"`` (the graph's records are written, not embedded).
        """
        ids = records.ids
        fps = [str(m["fp"]) for m in records.metadatas]
        store, emptied = self._emptied
        if store is self.vector_store and name in emptied:  # emptied by this build, nothing written since
            existing: dict[str, str] = {}
        else:
            existing = self.vector_store.fingerprints(name)
        self._emptied = (store, emptied - {name})  # from here on it holds what this call writes: read it next time
        wanted = set(ids)
        stale = [i for i in existing if i not in wanted]
        self.vector_store.delete(name, stale)
        rows = [k for k, i in enumerate(ids) if existing.get(i) != fps[k]]
        steps: Iterable[int] = range(0, len(rows), UPSERT_BATCH)
        if progress is not None and rows:
            steps = progress(steps, (len(rows) + UPSERT_BATCH - 1) // UPSERT_BATCH, f"indexing {name}")
        for i in steps:
            part = rows[i : i + UPSERT_BATCH]
            self.vector_store.upsert(
                name, [ids[k] for k in part], self.record_vectors(records, part), [records.texts[k] for k in part],
                [records.metadatas[k] for k in part],
            )

    def write_keywords(self, name: str, ids: Sequence[str], texts: Sequence[str]) -> KeywordIndex:
        """Build and save the bm25s index of a collection (``texts[i]`` read for ``ids[i]``)."""
        keyword = KeywordIndex.build(ids, texts)
        keyword.save(self.path / "keyword" / name)
        self._keyword[name] = keyword
        return keyword

    def keyword_index(self, name: str) -> KeywordIndex:
        """The bm25s index of a collection (chunks, entities or communities)."""
        if name not in self._keyword:
            self._keyword[name] = KeywordIndex.load(self.path / "keyword" / name)
        return self._keyword[name]

    # -- the knowledge graph ------------------------------------------------------
    def knowledge_graph(self, current: Sequence[tuple[Chunk, str]], records: Mapping[str, Any]) -> NetworkXGraphStore:
        """The graph the derived stores hold: the given one, else extracted from every chunk; the folder's edit log
        applied to it (:func:`~agrag_lab.index.edit_log.curated_store`).

        Extraction reads current and superseded chunks (superseded ones feed
        history only); extractions are cached by extractor version and chunk.
        """
        from agrag_lab.index.edit_log import curated_store

        given = self.db.get_meta(GIVEN_GRAPH)
        if given is not None:
            base = NetworkXGraphStore.loads(given, f"{self.path} (the given graph in documents.sqlite)")
            return curated_store(self.path, base)
        from agrag_lab.graph_stores.build import build_store

        chunks = [(c, True) for c, _ in current] + [(c, False) for c, _ in self.db.superseded_chunks()]
        from agrag_lab.kg.extract.build import GraphAssembler

        extracted = self.extract(chunks, records)
        if isinstance(self.extractor, GraphAssembler):  # the tri-graph: no resolution, no communities
            return curated_store(self.path, NetworkXGraphStore(self.extractor.builds_graph(extracted), [], []))
        return curated_store(self.path, build_store(extracted, reporter=self.reporter))

    def extract(self, chunks: Sequence[tuple[Chunk, bool]], records: Mapping[str, Any]) -> list[ChunkExtraction]:
        """Extractions of ``(chunk, current)`` pairs, from the SQLite cache where possible."""
        from agrag_lab.kg.extract.build import ChunkExtraction
        from agrag_lab.kg.extract.extraction import Extraction, RuleExtractor
        from agrag_lab.kg.extract.pipeline import extract_batch

        extractor = self.extractor if self.extractor is not None else RuleExtractor()
        contexts = {}
        self.unreadable_facts = {}
        for chunk, _ in chunks:
            if chunk.document_id not in contexts:
                rec = records.get(chunk.document_id) or self.db.document(chunk.document_id)
                contexts[chunk.document_id] = self._context(
                    chunk.document_id, rec.title if rec else "", dict(rec.metadata) if rec else {},
                    removed=bool(rec and rec.removed),
                )
        keys = [_extraction_key(extractor, c, contexts[c.document_id]) for c, _ in chunks]
        cached = self.db.cached_extractions(extractor.version, keys)
        missing = [(c, contexts[c.document_id]) for (c, _), key in zip(chunks, keys, strict=True) if key not in cached]
        made = iter(extract_batch(extractor, missing))  # all at once: an LLM extractor runs them concurrently
        fresh: dict[str, str] = {}
        items = []
        for (chunk, current), key in zip(chunks, keys, strict=True):
            if key in cached:
                extraction = from_data(Extraction, json.loads(cached[key]))
            else:
                extraction = next(made)
                if not extraction.failure:  # a chunk the extractor could not read is tried again next time
                    fresh[key] = json.dumps(to_data(extraction))
            items.append(ChunkExtraction(chunk.id, chunk.document_id, current, chunk.text, extraction))
        if fresh:
            self.db.put_extractions(extractor.version, fresh)
        return items

    def _context(self, document_id: str, title: str, metadata: dict[str, Any], *, removed: bool) -> DocumentContext:
        """The extraction context of a stored document; given facts it cannot read are left out.

        Documents are checked before they are written (``loaders.check_document``),
        but an index written by an older version may hold malformed facts: one
        such document must not stop every later build, nor its removal.
        """
        from agrag_lab.kg.extract.extraction import DocumentContext, given_facts

        context = DocumentContext(document_id, title, metadata)
        try:
            given_facts(context)
        except KnowledgeGraphError as exc:
            if not removed:  # a removed one feeds history only: nothing left to fix
                log.warning(
                    "%s: leaving out the given graph facts of %r: %s; fix and re-ingest it, or "
                    "`agrag-lab remove %s --index %s`", self.path, document_id, exc, document_id, self.path,
                )
                self.unreadable_facts[document_id] = str(exc)
            kept = {k: v for k, v in metadata.items() if k not in ("entities", "relations")}
            context = DocumentContext(document_id, title, kept)
        return context

    def write_graph(
        self, store: NetworkXGraphStore, progress: Progress | None = None,
        records: Mapping[str, CollectionRecords] | None = None,
    ) -> None:
        """Save the graph file atomically and sync the graph's collections and keyword indexes.

        A collection holds only the records no chunk hosts (``records``: this
        graph's :meth:`graph_records`, when already made); which ones chunks
        host is kept in SQLite for the queries (:mod:`agrag_lab.index.vectors`).
        """
        with self.store_writes(f"the graph file {GRAPH_FILE}"):
            store.save(self.path / GRAPH_FILE)
        (self.path / LEGACY_GRAPH_FILE).unlink(missing_ok=True)
        records = self.graph_records(store) if records is None else records
        self._embed_graph(records, progress)
        for name, recs in records.items():
            self.db.put_hosted(name, [(r, c, {k: v for k, v in m.items() if k != "fp"}) for r, c, m in recs.hosted()])
            with self.store_writes(f"the vectors of the {name} (Chroma)"):
                self.sync_collection(name, recs.stored(), progress)
            with self.store_writes(f"the keyword index of the {name} (bm25s)"):
                self.write_keywords(name, recs.ids, keyword_texts(store, name, recs))

    def store_writes(self, where: str) -> contextlib.AbstractContextManager[None]:
        """A full disk or an I/O error while a sync writes ``where`` (a derived store), as one clear error.

        Each derived store is replaced whole or not at all (Chroma's own
        transaction, bm25s and the graph file by an atomic rename), and the
        documents' generation is ahead of the derived stores' until a sync
        completes: readers keep the previous answers and are told the index is mid-sync.
        """
        return disk_writes(
            where,
            "That store is as it was before (each is replaced whole or not at all), the documents are saved and "
            "nothing stored before is lost; readers are told the index is mid-sync until a writable open completes "
            f"it (running the command again does, as does {self.repair_hint()})",
        )

    def graph(self) -> NetworkXGraphStore:
        """The knowledge graph as the last :meth:`sync` wrote it, else as saved (loaded once, see :meth:`load_graph`).

        A new object after each sync and after :meth:`forget_loaded`: a reader that keeps
        what it derived from the graph compares identities to know when to derive again.
        """
        if self._graph is None:
            self._graph = self.load_graph()
        return self._graph

    def load_graph(self) -> NetworkXGraphStore:
        """The saved knowledge graph (an empty one before the first write)."""
        path = graph_file(self.path)
        if not path.exists():
            from agrag_lab.graph_stores.build import build_store

            return build_store([])
        try:
            return NetworkXGraphStore.load(path)
        except IndexFormatError as exc:
            raise IndexFormatError(name_folder(str(exc), self.path)) from None

    def convert_graph_file(self) -> bool:
        """Rewrite an older index's plain ``graph.json`` as the compressed :data:`GRAPH_FILE`; return whether it did.

        The same text, checked by parsing it first, written atomically before
        the old file is removed: a crash leaves one of the two whole (the new
        one is read first). No model, no vector store: only the file changes.

        Raises
        ------
        IndexFormatError
            The old file is damaged (it is left as it is; a writable open then rebuilds the graph).
        """
        legacy = self.path / LEGACY_GRAPH_FILE
        if not legacy.exists():
            return False
        current = self.path / GRAPH_FILE
        if not current.exists():
            text = persistence.read_file(legacy)
            NetworkXGraphStore.loads(text, str(legacy))  # nothing damaged is carried over
            persistence.write_file(current, text)
        legacy.unlink()
        log.info("index %s: %s converted to %s", self.path, LEGACY_GRAPH_FILE, GRAPH_FILE)
        return True

    def _embed_graph(self, records: Mapping[str, CollectionRecords], progress: Progress | None) -> int:
        return sum(
            self.embed_missing(records[n].embedded(), progress, n)
            for n in GRAPH_COLLECTIONS
        )
