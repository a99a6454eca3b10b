"""SQLite: documents, versions, sections, chunks, and the embedding cache.

SQLite is the source of truth of an index. Chroma, bm25s and the graph file
are derived from it and rebuilt from it when they lag behind (see
``meta.generation`` and ``meta.derived_generation``), which is how an ingest
killed half-way leaves the previous state readable and a re-run completes it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agrag_lab.documents import Chunk, Section, TableInfo
from agrag_lab.errors import IndexFormatError, StoreError
from agrag_lab.storage import meta_keys
from agrag_lab.storage.disk import disk_write_error

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents(
  id TEXT PRIMARY KEY, title TEXT NOT NULL, format TEXT NOT NULL, metadata TEXT NOT NULL,
  current_version TEXT NOT NULL, removed INTEGER NOT NULL DEFAULT 0, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS versions(
  document_id TEXT NOT NULL, version TEXT NOT NULL, text TEXT NOT NULL, title TEXT NOT NULL,
  format TEXT NOT NULL, metadata TEXT NOT NULL, seq INTEGER NOT NULL,
  superseded INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(document_id, version));
CREATE INDEX IF NOT EXISTS versions_by_seq ON versions(seq);
CREATE TABLE IF NOT EXISTS sections(
  document_id TEXT NOT NULL, version TEXT NOT NULL, idx INTEGER NOT NULL, title TEXT NOT NULL,
  level INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, parent INTEGER,
  heading_path TEXT NOT NULL, PRIMARY KEY(document_id, version, idx));
CREATE TABLE IF NOT EXISTS chunks(
  document_id TEXT NOT NULL, version TEXT NOT NULL, idx INTEGER NOT NULL, text TEXT NOT NULL,
  start INTEGER NOT NULL, end INTEGER NOT NULL, kind TEXT NOT NULL, section INTEGER NOT NULL,
  heading_path TEXT NOT NULL, table_info TEXT, content_hash TEXT NOT NULL,
  PRIMARY KEY(document_id, version, idx));
CREATE TABLE IF NOT EXISTS embeddings(
  model TEXT NOT NULL, content_hash TEXT NOT NULL, vector BLOB NOT NULL,
  PRIMARY KEY(model, content_hash));
CREATE TABLE IF NOT EXISTS hosted(collection TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS extractions(
  extractor TEXT NOT NULL, content_hash TEXT NOT NULL, data TEXT NOT NULL,
  PRIMARY KEY(extractor, content_hash));
"""


@dataclass(frozen=True)
class DocumentRecord:
    """A stored document: its current version and whether it was removed."""

    id: str
    title: str
    format: str
    metadata: Mapping[str, Any]
    current_version: str
    removed: bool


@dataclass(frozen=True)
class VersionRecord:
    """One stored version of a document."""

    document_id: str
    version: str
    text: str
    title: str
    format: str
    metadata: Mapping[str, Any]
    superseded: bool
    seq: int


def _table_to_json(info: TableInfo | None) -> str | None:
    if info is None:
        return None
    return json.dumps(
        {
            "table": info.table,
            "header": list(info.header),
            "rows": [list(r) for r in info.rows],
            "first_row": info.first_row,
            "row_offsets": [list(o) for o in info.row_offsets],
        }
    )


def _table_from_json(raw: str | None) -> TableInfo | None:
    if raw is None:
        return None
    d = json.loads(raw)
    return TableInfo(
        d["table"],
        tuple(d["header"]),
        tuple(tuple(r) for r in d["rows"]),
        d["first_row"],
        tuple((a, b) for a, b in d["row_offsets"]),
    )


def _unpacked(data: str | bytes) -> str:
    """A cached extraction as written: zlib-compressed bytes (or plain text, as older indexes hold it).

    Examples
    --------
    >>> _unpacked(zlib.compress(b'{"entities": []}')), _unpacked('{"entities": []}')
    ('{"entities": []}', '{"entities": []}')
    """
    return zlib.decompress(data).decode("utf-8") if isinstance(data, bytes) else data


def _chunk(row: sqlite3.Row) -> Chunk:
    return Chunk(
        document_id=row["document_id"],
        version=row["version"],
        index=row["idx"],
        text=row["text"],
        start=row["start"],
        end=row["end"],
        kind=row["kind"],
        section=row["section"],
        heading_path=tuple(json.loads(row["heading_path"])),
        table=_table_from_json(row["table_info"]),
    )


def _version(row: sqlite3.Row) -> VersionRecord:
    return VersionRecord(
        row["document_id"], row["version"], row["text"], row["title"], row["format"],
        json.loads(row["metadata"]), bool(row["superseded"]), row["seq"],
    )


def vector_problem(blob: bytes, dimension: int | None) -> str:
    """What is wrong with a cached vector's bytes (``""``: sound): its length, or values that are not finite.

    ``dimension`` is the model's (``None``: not known, only the length is checked).

    Examples
    --------
    >>> good = np.ones(4, dtype=np.float32).tobytes()
    >>> vector_problem(good, 4), vector_problem(good[:-1], 4), vector_problem(good, 384)
    ('', '15 bytes, not whole float32 values', '4 values, not 384')
    >>> vector_problem(np.array([1.0, np.nan], dtype=np.float32).tobytes(), 2)
    'values that are not finite (NaN or infinity)'
    """
    if len(blob) % 4:
        return f"{len(blob)} bytes, not whole float32 values"
    if dimension is not None and len(blob) != 4 * dimension:
        return f"{len(blob) // 4} values, not {dimension}"
    if not len(blob) or not np.isfinite(np.frombuffer(blob, dtype=np.float32)).all():
        return "no values" if not len(blob) else "values that are not finite (NaN or infinity)"
    return ""


#: The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def source_state(path: Path) -> str:
    """What ``documents.sqlite`` at ``path`` holds, from its header and tables alone (cheap).

    ``"missing"``, ``"empty"`` (no bytes, or no ``documents`` table: a new
    file), ``"damaged"`` (not a SQLite file), ``"blank"`` (the schema but no
    document and no given graph) or ``"documents"``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "documents.sqlite"
    >>> source_state(p)
    'missing'
    >>> _ = p.write_bytes(b"")
    >>> source_state(p)
    'empty'
    >>> _ = p.write_bytes(b"garbage" * 100)
    >>> source_state(p)
    'damaged'
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "damaged"
    if not head:
        return "empty"
    if head != SQLITE_HEADER:
        return "damaged"
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if "documents" not in tables or "meta" not in tables:
                return "empty"
            has_docs = conn.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is not None
            given = conn.execute("SELECT 1 FROM meta WHERE key=?", (meta_keys.GIVEN_GRAPH,)).fetchone() is not None
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return "damaged"
    return "documents" if has_docs or given else "blank"


class DocumentDB:
    """The SQLite file of an index folder (thread-safe for reads).

    Raises
    ------
    IndexFormatError
        The file is not a readable SQLite database (at open or at any later read or write).
    """

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        self.path = path
        uri = f"file:{path}?mode=ro" if read_only else f"file:{path}"
        self._lock = threading.RLock()
        try:
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
            self._conn.row_factory = sqlite3.Row
            if not read_only:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.executescript(_SCHEMA)
            self.get_meta(meta_keys.SCHEMA_VERSION)
        except sqlite3.DatabaseError as exc:
            raise self.damaged(exc) from exc
        if not read_only and self.get_meta(meta_keys.SCHEMA_VERSION) is None:
            self.set_meta(meta_keys.SCHEMA_VERSION, SCHEMA_VERSION)

    def damaged(self, exc: BaseException) -> StoreError:
        """The error for a SQLite failure: the disk is full, or the source of truth cannot be read."""
        full = disk_write_error(exc, f"{self.path.name} (the documents, their versions and chunks)")
        if full is not None:
            return full
        return IndexFormatError(
            f"{self.path} cannot be read ({type(exc).__name__}: {exc}). It is the index's source of truth "
            "(documents, versions, chunks): restore it from a backup and run `agrag-lab repair --index "
            f"{self.path.parent}`, or ingest the documents again into a new index folder"
        )

    def close(self) -> None:
        self._conn.close()

    # -- transactions and meta --------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: everything inside commits together or not at all."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.DatabaseError as exc:
                raise self.damaged(exc) from exc
            try:
                yield self._conn
            except sqlite3.DatabaseError as exc:
                self._rollback()
                raise self.damaged(exc) from exc
            except BaseException:
                self._rollback()
                raise
            try:
                self._conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self._rollback()
                raise self.damaged(exc) from exc

    def _rollback(self) -> None:
        """Undo the open transaction, if SQLite has not undone it already (it does on a full disk).

        A failed ROLLBACK must not hide the error that caused it (SQLite's
        "cannot rollback - no transaction is active" used to replace "database
        or disk is full"): the transaction is gone either way.
        """
        if self._conn.in_transaction:
            with suppress(sqlite3.Error):
                self._conn.execute("ROLLBACK")

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise self.damaged(exc) from exc

    def get_meta(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key=?", (key,))
        return str(rows[0]["value"]) if rows else None

    def set_meta(self, key: str, value: str, conn: sqlite3.Connection | None = None) -> None:
        target = conn if conn is not None else self._conn
        with self._lock:
            target.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    def generation(self) -> int:
        """Counts committed changes to documents; derived stores record what they saw."""
        return int(self.get_meta(meta_keys.GENERATION) or 0)

    # -- documents and versions ---------------------------------------------------
    def document(self, document_id: str) -> DocumentRecord | None:
        rows = self._rows("SELECT * FROM documents WHERE id=?", (document_id,))
        if not rows:
            return None
        r = rows[0]
        return DocumentRecord(r["id"], r["title"], r["format"], json.loads(r["metadata"]), r["current_version"], bool(r["removed"]))

    def documents(self, *, include_removed: bool = False) -> list[DocumentRecord]:
        sql = "SELECT * FROM documents" + ("" if include_removed else " WHERE removed=0") + " ORDER BY seq, id"
        return [
            DocumentRecord(r["id"], r["title"], r["format"], json.loads(r["metadata"]), r["current_version"], bool(r["removed"]))
            for r in self._rows(sql)
        ]

    def version(self, document_id: str, version: str) -> VersionRecord | None:
        rows = self._rows("SELECT * FROM versions WHERE document_id=? AND version=?", (document_id, version))
        return _version(rows[0]) if rows else None

    def versions(self, document_id: str) -> list[VersionRecord]:
        return [_version(r) for r in self._rows("SELECT * FROM versions WHERE document_id=? ORDER BY seq", (document_id,))]

    def put_version(
        self,
        conn: sqlite3.Connection,
        *,
        document_id: str,
        title: str,
        fmt: str,
        metadata: Mapping[str, Any],
        version: str,
        text: str,
        sections: Sequence[Section],
        chunks: Sequence[Chunk],
        content_hashes: Sequence[str],
    ) -> None:
        """Make ``version`` current for ``document_id`` (inside ``transaction()``)."""
        seq = int(conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM versions").fetchone()[0])
        meta_json = json.dumps(dict(metadata), sort_keys=True, default=list)
        conn.execute("UPDATE versions SET superseded=1 WHERE document_id=?", (document_id,))
        exists = conn.execute(
            "SELECT 1 FROM versions WHERE document_id=? AND version=?", (document_id, version)
        ).fetchone()
        if exists:
            conn.execute(
                "UPDATE versions SET superseded=0, seq=? WHERE document_id=? AND version=?",
                (seq, document_id, version),
            )
        else:
            conn.execute(
                "INSERT INTO versions VALUES(?,?,?,?,?,?,?,0)",
                (document_id, version, text, title, fmt, meta_json, seq),
            )
            conn.executemany(
                "INSERT INTO sections VALUES(?,?,?,?,?,?,?,?,?)",
                [
                    (document_id, version, s.index, s.title, s.level, s.start, s.end, s.parent, json.dumps(list(s.heading_path)))
                    for s in sections
                ],
            )
            conn.executemany(
                "INSERT INTO chunks VALUES(?,?,?,?,?,?,?,?,?,?,?)",
                [
                    (document_id, version, c.index, c.text, c.start, c.end, c.kind, c.section,
                     json.dumps(list(c.heading_path)), _table_to_json(c.table), h)
                    for c, h in zip(chunks, content_hashes, strict=True)
                ],
            )
        conn.execute(
            "INSERT INTO documents(id, title, format, metadata, current_version, removed, seq) "
            "VALUES(?,?,?,?,?,0,?) ON CONFLICT(id) DO UPDATE SET title=excluded.title, "
            "format=excluded.format, metadata=excluded.metadata, "
            "current_version=excluded.current_version, removed=0",
            (document_id, title, fmt, meta_json, version, seq),
        )

    def set_removed(self, conn: sqlite3.Connection, document_id: str, removed: bool = True) -> None:
        """Hide a document from search (``removed=False``: show it again, as the undo of a curation edit does)."""
        conn.execute("UPDATE documents SET removed=? WHERE id=?", (int(removed), document_id))

    def bump_generation(self, conn: sqlite3.Connection) -> int:
        gen = int((conn.execute("SELECT value FROM meta WHERE key=?", (meta_keys.GENERATION,)).fetchone() or [0])[0]) + 1
        self.set_meta(meta_keys.GENERATION, str(gen), conn)
        return gen

    # -- chunks and sections ----------------------------------------------------
    def chunk(self, document_id: str, version: str, index: int) -> Chunk | None:
        rows = self._rows(
            "SELECT * FROM chunks WHERE document_id=? AND version=? AND idx=?", (document_id, version, index)
        )
        return _chunk(rows[0]) if rows else None

    def chunks_of(self, document_id: str, version: str) -> list[Chunk]:
        return [
            _chunk(r)
            for r in self._rows("SELECT * FROM chunks WHERE document_id=? AND version=? ORDER BY idx", (document_id, version))
        ]

    def chunk_counts(self) -> dict[str, int]:
        """How many chunks the current version of each stored document has (removed ones included)."""
        rows = self._rows(
            "SELECT d.id AS id, COUNT(c.idx) AS n FROM documents d LEFT JOIN chunks c "
            "ON c.document_id=d.id AND c.version=d.current_version GROUP BY d.id"
        )
        return {r["id"]: int(r["n"]) for r in rows}

    def current_chunks(self) -> list[tuple[Chunk, str]]:
        """Every chunk of every current, not removed version, with its content hash."""
        rows = self._rows(
            "SELECT c.* FROM chunks c JOIN documents d ON d.id=c.document_id AND d.current_version=c.version "
            "WHERE d.removed=0 ORDER BY d.seq, d.id, c.idx"
        )
        return [(_chunk(r), r["content_hash"]) for r in rows]

    def current_chunk_count(self) -> int:
        """How many chunks :meth:`current_chunks` would return (one COUNT, no text read)."""
        rows = self._rows(
            "SELECT COUNT(*) AS n FROM chunks c JOIN documents d ON d.id=c.document_id "
            "AND d.current_version=c.version WHERE d.removed=0"
        )
        return int(rows[0]["n"])

    def superseded_chunks(self) -> list[tuple[Chunk, str]]:
        """Chunks of superseded versions and removed documents (history)."""
        rows = self._rows(
            "SELECT c.* FROM chunks c JOIN documents d ON d.id=c.document_id "
            "WHERE d.removed=1 OR d.current_version<>c.version ORDER BY d.seq, d.id, c.version, c.idx"
        )
        return [(_chunk(r), r["content_hash"]) for r in rows]

    def sections_of(self, document_id: str, version: str) -> list[Section]:
        return [
            Section(r["idx"], r["title"], r["level"], r["start"], r["end"], r["parent"], tuple(json.loads(r["heading_path"])))
            for r in self._rows("SELECT * FROM sections WHERE document_id=? AND version=? ORDER BY idx", (document_id, version))
        ]

    # -- caches ---------------------------------------------------------------
    def cached_embeddings(
        self, model: str, hashes: Iterable[str], dimension: int | None = None
    ) -> dict[str, np.ndarray]:
        """Cached vectors of ``model`` by content hash; a broken row (see :func:`vector_problem`) is left out,
        as if it were not cached, so that the caller embeds it again."""
        out: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(hashes))
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            marks = ",".join("?" * len(part))
            for r in self._rows(
                f"SELECT content_hash, vector FROM embeddings WHERE model=? AND content_hash IN ({marks})", [model, *part]
            ):
                if not vector_problem(r["vector"], dimension):
                    out[r["content_hash"]] = np.frombuffer(r["vector"], dtype=np.float32)
        return out

    def embedding_models(self) -> dict[str, int]:
        """How many vectors the embedding cache holds for each model."""
        return {r["model"]: int(r["n"]) for r in self._rows("SELECT model, COUNT(*) AS n FROM embeddings GROUP BY model")}

    def embedding_widths(self, model: str) -> dict[int, int]:
        """How many cached vectors of ``model`` have each byte length."""
        rows = self._rows("SELECT length(vector) AS w, COUNT(*) AS n FROM embeddings WHERE model=? GROUP BY w", (model,))
        return {int(r["w"]): int(r["n"]) for r in rows}

    def embedding_rows(self, model: str) -> Iterator[tuple[str, bytes]]:
        """Every cached ``(content hash, vector bytes)`` of ``model``, a page at a time."""
        last = ""
        while True:
            rows = self._rows(
                "SELECT content_hash, vector FROM embeddings WHERE model=? AND content_hash>? "
                "ORDER BY content_hash LIMIT 2000", (model, last),
            )
            if not rows:
                return
            yield from ((r["content_hash"], bytes(r["vector"])) for r in rows)
            last = rows[-1]["content_hash"]

    def delete_embeddings(self, model: str, hashes: Iterable[str]) -> None:
        """Delete cached vectors of ``model`` by content hash."""
        wanted = list(hashes)
        with self.transaction() as conn:
            conn.executemany("DELETE FROM embeddings WHERE model=? AND content_hash=?", [(model, h) for h in wanted])

    def delete_other_models(self, model: str) -> None:
        """Delete every cached vector of a model other than ``model``."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM embeddings WHERE model<>?", (model,))

    def stored_chunk_hashes(self) -> set[str]:
        """The content hash of every stored chunk, of any version (current, superseded, removed)."""
        return {r["content_hash"] for r in self._rows("SELECT DISTINCT content_hash FROM chunks")}

    def put_embeddings(self, model: str, vectors: Mapping[str, np.ndarray]) -> None:
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO embeddings VALUES(?,?,?)",
                [(model, h, np.asarray(v, dtype=np.float32).tobytes()) for h, v in vectors.items()],
            )

    def hosted(self, collection: str) -> list[tuple[str, str, dict[str, Any]]]:
        """``(record id, chunk id, metadata)`` of the records of a collection that chunks host (see :meth:`put_hosted`)."""
        if not self._rows("SELECT name FROM sqlite_master WHERE type='table' AND name='hosted'"):
            return []  # an index written before (opened read-only): nothing is hosted
        rows = self._rows("SELECT data FROM hosted WHERE collection=?", (collection,))
        if not rows:
            return []
        return [(r, c, m) for r, c, m in json.loads(_unpacked(rows[0]["data"]))]

    def put_hosted(self, collection: str, records: Sequence[tuple[str, str, Mapping[str, Any]]]) -> None:
        """Store which records of a graph collection chunks host (derived data, rewritten by each sync)."""
        data = zlib.compress(json.dumps([[r, c, dict(m)] for r, c, m in records]).encode("utf-8"), 6)
        with self.transaction() as conn:
            conn.execute("INSERT OR REPLACE INTO hosted VALUES(?, ?)", (collection, data))

    def cached_extractions(self, extractor: str, hashes: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        wanted = list(dict.fromkeys(hashes))
        for i in range(0, len(wanted), 500):
            part = wanted[i : i + 500]
            marks = ",".join("?" * len(part))
            for r in self._rows(
                f"SELECT content_hash, data FROM extractions WHERE extractor=? AND content_hash IN ({marks})",
                [extractor, *part],
            ):
                out[r["content_hash"]] = _unpacked(r["data"])
        return out

    def put_extractions(self, extractor: str, data: Mapping[str, str]) -> None:
        """Cache extractions (JSON texts) by extractor version and key, zlib-compressed."""
        with self.transaction() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO extractions VALUES(?,?,?)",
                [(extractor, h, zlib.compress(d.encode("utf-8"), 6)) for h, d in data.items()],
            )
