"""Vector stores behind one Protocol: Chroma (local or server) and an in-memory index.

Records are named by string ids and carry scalar metadata. Queries take a
Chroma-style ``where`` filter (:mod:`agrag_lab.storage.where`, the one metadata
predicate), built by :func:`where_clause` from the scope
or the search filters, so restriction happens inside the store query.
Scores are cosine similarities (embeddings are normalised).

Chroma never embeds anything itself here: every call passes our own
embeddings, and collections are created with :class:`_RefuseToEmbed` as their
embedding function, so Chroma's default model is never downloaded. Chroma
holds vectors and metadata only: the texts live in SQLite and the graph file
(``documents`` passed to :meth:`VectorStore.upsert` are for stores that keep
them; Chroma's copy and its full-text index would be a third of an index
folder's bytes).
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np

from agrag_lab.errors import VectorStoreError

# re-exported (the one metadata predicate lives in agrag_lab.storage.where)
from agrag_lab.storage.where import Metadata as Metadata
from agrag_lab.storage.where import Where as Where
from agrag_lab.storage.where import compile_where
from agrag_lab.storage.where import matches as matches
from agrag_lab.storage.where import where_clause as where_clause

#: The collections an index provisions.
COLLECTIONS = ("chunks", "entities", "communities")
#: :meth:`ChromaVectorStore.compact` vacuums a local store when more than this share of its SQLite file is free.
COMPACT_SHARE = 0.25
log = logging.getLogger(__name__)
_T = TypeVar("_T")


_import_lock = threading.Lock()
#: jsonschema's optional IRI format checker: building its grammar at import is most of chromadb's import time.
_IRI_CHECKER = "rfc3987_syntax"


def import_chromadb() -> ModuleType:
    """``chromadb``, imported once per process, without jsonschema's IRI format checker.

    chromadb imports jsonschema, which imports ``rfc3987_syntax`` when it is
    installed (JupyterLab's extras bring it) to check the ``iri`` formats: its
    grammar is built at import, 1.6 of chromadb's 2.7 s of CPU on this machine,
    for a format no schema chromadb validates uses. While chromadb imports, that
    module is marked missing (``sys.modules[name] = None``, Python's own way to
    refuse an import), so jsonschema leaves the check out; the mark is removed
    afterwards. A process that imported it before keeps it.
    """
    # no shortcut through sys.modules: it holds chromadb from the moment another thread starts importing it
    with _import_lock:
        blocked = _IRI_CHECKER not in sys.modules
        if blocked:
            sys.modules[_IRI_CHECKER] = None  # type: ignore[assignment]
        try:
            import chromadb
        finally:
            if blocked and sys.modules.get(_IRI_CHECKER, ...) is None:
                del sys.modules[_IRI_CHECKER]
    return chromadb


def prefetch_chromadb() -> threading.Thread:
    """Import chromadb on a thread of its own now (:func:`import_chromadb`), while the caller goes on.

    A command that reads a local index calls this first: the import (seconds on a
    busy machine) overlaps the rest of its start-up (its own imports, the index's
    files, the embedding model); the first use of Chroma waits for it. Not a
    daemon: a command that ends before it used Chroma waits for the import to end
    rather than stop the interpreter mid-import.
    """
    thread = threading.Thread(target=_prefetch, name="import-chromadb")
    thread.start()
    return thread


def _prefetch() -> None:
    """:func:`import_chromadb` on the prefetch thread, its failure left to the first real use.

    A command that fails early (a server that does not answer) ends while this
    thread still imports; the interpreter's shutdown then refuses the thread pools
    chromadb's import sets up ("cannot schedule new futures after interpreter
    shutdown"). That is no error of the user's: the thread stays quiet, and a
    command that does use Chroma imports it again under the lock and meets any
    real import error there, in its own thread.
    """
    try:
        import_chromadb()
    except BaseException as exc:  # re-raised by the first real use, see above
        log.debug("chromadb's prefetch import did not finish: %s", exc)


@runtime_checkable
class VectorStore(Protocol):
    """What the index needs of a vector store."""

    def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        embeddings: np.ndarray,
        documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Insert or replace records."""

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        """Delete records by id (missing ids are ignored)."""

    def fingerprints(self, collection: str) -> dict[str, str]:
        """Every id in the collection with its ``fp`` metadata (content fingerprint)."""

    def query(
        self, collection: str, embedding: np.ndarray, limit: int, where: Where | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """The ``limit`` nearest records as ``(id, cosine similarity)``, best first (``ids``: among these only)."""

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of ``ids`` (float32, as stored); ids the collection does not hold are left out."""

    def describe(self) -> str:
        """Where the vectors live (for messages)."""

    @property
    def local_path(self) -> str | None:
        """The folder of a local Chroma store (None: a server, or vectors held in memory)."""

    @property
    def server(self) -> tuple[str, int] | None:
        """``(host, port)`` of a Chroma server store (None: a local folder, or vectors held in memory)."""

    def count(self, collection: str) -> int | None:
        """Records in a collection, or None when it does not exist (it is not created)."""

    def drop(self, collection: str) -> None:
        """Delete a whole collection (a missing one is ignored); the next write creates it again.

        Raises
        ------
        VectorStoreError
            The store is read-only, or the server failed.
        """

    def compact(self) -> bool:
        """Give the disk back what deleted records held, where the store owns its files; return whether it did."""


class _RefuseToEmbed:
    """A Chroma embedding function that refuses: we always pass embeddings."""

    def __call__(self, input: Sequence[str]) -> list[np.ndarray]:
        raise VectorStoreError(
            "Chroma was asked to embed text itself; agrag_lab always passes its own "
            "embeddings (this is a bug, please report it)"
        )

    @staticmethod
    def name() -> str:
        return "agrag_lab_refuse"

    def is_legacy(self) -> bool:
        return False

    def get_config(self) -> dict[str, Any]:
        return {}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> _RefuseToEmbed:
        return _RefuseToEmbed()

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]

    def embed_query(self, input: Sequence[str]) -> list[np.ndarray]:
        return self(input)


class ChromaVectorStore:
    """Chroma collections, local (``PersistentClient``) or on a server (``HttpClient``).

    Use :meth:`local` or :meth:`http`; ``Graph.open`` provisions the collections.
    """

    def __init__(self, client: Any, address: str, hint: str = "") -> None:
        self._client = client
        self._address = address
        self._hint = hint  # how to fix a failure, added to every error message
        self._collections: dict[str, Any] = {}
        self._readers: dict[str, Any] = {}  # the collections read, kept between reads (see _reading)
        #: The folder of a local store (None: a server).
        self.local_path: str | None = None
        #: ``(host, port)`` of a server store (None: a local folder); the index folder records it.
        self.server: tuple[str, int] | None = None

    @classmethod
    def local(cls, path: str) -> ChromaVectorStore:
        """A store in a local folder (Chroma ``PersistentClient``)."""
        chromadb = import_chromadb()
        from chromadb.config import Settings

        try:
            client = chromadb.PersistentClient(
                path=path, settings=Settings(anonymized_telemetry=False, allow_reset=False)
            )
        except Exception as exc:  # a garbled chroma.sqlite3: chromadb.errors.InternalError, among others
            if "readonly database" in str(exc):
                raise VectorStoreError(
                    f"the Chroma folder {path} cannot be opened: Chroma writes to its own SQLite file even to read "
                    f"(its client commits at start; there is no read-only client, chroma-core/chroma#1438), and this "
                    f"process cannot write there ({type(exc).__name__}: {exc}). Give this user write access to "
                    f"{path} and its files, or copy the index folder somewhere it can write and open the copy"
                ) from exc
            raise VectorStoreError(
                f"the Chroma folder {path} cannot be opened ({type(exc).__name__}: {exc}); its files are "
                "derived from the index's documents.sqlite: rebuild them with `agrag-lab repair --index DIR`"
            ) from exc
        store = cls(client, f"local folder {path}")
        store.local_path = path
        return store

    @classmethod
    def reopen_local(cls, path: str) -> ChromaVectorStore:
        """A new client of a local folder another process has written: this process's old client is stopped.

        Chroma keeps one client per folder and process, and its segment readers
        do not see what another process wrote after they opened ("Error finding
        id"); a long-lived reader reopens after an ingest completed.
        """
        import contextlib

        from chromadb.api.shared_system_client import SharedSystemClient

        system = SharedSystemClient._identifier_to_system.pop(path, None)
        if system is not None:
            with contextlib.suppress(Exception):
                system.stop()
        return cls.local(path)

    @staticmethod
    def discard_local(path: str) -> None:
        """Delete a local Chroma folder (to rebuild it), and forget this process's client of it."""
        import contextlib
        import shutil

        from chromadb.api.shared_system_client import SharedSystemClient

        system = SharedSystemClient._identifier_to_system.pop(path, None)
        if system is not None:
            with contextlib.suppress(Exception):  # a client of damaged files may fail to stop: dropped either way
                system.stop()
        shutil.rmtree(path, ignore_errors=True)

    @classmethod
    def http(cls, host: str = "127.0.0.1", port: int = 8000) -> ChromaVectorStore:
        """A store on a Chroma server (``chroma run --host 127.0.0.1``).

        Raises
        ------
        VectorStoreError
            The server cannot be reached; the message names the address.
        """
        chromadb = import_chromadb()
        from chromadb.config import Settings

        address = f"Chroma server at http://{host}:{port}"
        try:
            client = chromadb.HttpClient(
                host=host, port=port, settings=Settings(anonymized_telemetry=False)
            )
            client.heartbeat()
        except Exception as exc:  # chroma raises several types for a dead server
            raise VectorStoreError(
                f"cannot reach the {address} ({str(exc).rstrip('. ')}). {_start_hint(host, port)}"
            ) from exc
        store = cls(client, address, _start_hint(host, port))
        store.server = (host, port)
        return store

    def describe(self) -> str:
        return self._address

    def _collection(self, name: str) -> Any:
        if name not in self._collections:
            try:
                self._collections[name] = self._client.get_or_create_collection(
                    name=name,
                    embedding_function=_RefuseToEmbed(),
                    configuration={"hnsw": {"space": "cosine"}},
                )
            except Exception as exc:
                raise self._error(f"open collection {name!r}", exc) from exc
        return self._collections[name]

    def _reading(self, collection: str, read: Callable[[Any], _T]) -> _T:
        """``read(handle)`` on the collection named ``collection``, which must exist (a read creates nothing).

        The handle is kept between reads: looking it up is one more round trip to a server per read (about
        3 of an entity search's 45 ms over HTTP at 100k passages). When a read through a kept handle fails,
        the handle is looked up again and the read tried once more: another process may have dropped the
        collection and made it again (a rebuild), which gives it a new id.
        """
        kept = self._readers.get(collection)
        if kept is not None:
            try:
                return read(kept)
            except Exception:  # a stale handle or a real failure: the second try says which
                self._readers.pop(collection, None)
        handle = self._client.get_collection(name=collection, embedding_function=_RefuseToEmbed())
        self._readers[collection] = handle
        return read(handle)

    def _error(self, what: str, exc: Exception) -> VectorStoreError:
        hint = f". {self._hint}" if self._hint else ""
        return VectorStoreError(f"{self._address}: could not {what}: {type(exc).__name__}: {exc}{hint}")

    def upsert(
        self,
        collection: str,
        ids: Sequence[str],
        embeddings: np.ndarray,
        documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        if not ids:
            return
        coll = self._collection(collection)
        step = 2000  # below Chroma's max batch size
        try:
            for i in range(0, len(ids), step):
                # no documents: SQLite and the graph hold every text, and Chroma would keep a
                # second copy plus a full-text index of it (a third of an index folder's bytes)
                coll.upsert(
                    ids=list(ids[i : i + step]),
                    embeddings=np.asarray(embeddings[i : i + step], dtype=np.float32),
                    metadatas=[dict(m) for m in metadatas[i : i + step]],
                )
        except Exception as exc:
            raise self._error(f"write to {collection!r}", exc) from exc

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        if not ids:
            return
        coll = self._collection(collection)
        try:
            for i in range(0, len(ids), 2000):
                coll.delete(ids=list(ids[i : i + 2000]))
        except Exception as exc:
            raise self._error(f"delete from {collection!r}", exc) from exc

    def count(self, collection: str) -> int | None:
        """Records in a collection, or None when it does not exist (it is not created)."""
        try:
            names = {c if isinstance(c, str) else c.name for c in self._client.list_collections()}
            if collection not in names:
                return None
            return int(self._client.get_collection(name=collection, embedding_function=_RefuseToEmbed()).count())
        except Exception as exc:
            raise self._error(f"count {collection!r}", exc) from exc

    def drop(self, collection: str) -> None:
        """Delete a whole collection (a missing one is ignored); the next write creates it again."""
        self._collections.pop(collection, None)
        self._readers.pop(collection, None)
        try:
            if self.count(collection) is not None:
                self._client.delete_collection(name=collection)
        except Exception as exc:
            raise self._error(f"delete the collection {collection!r}", exc) from exc

    def compact(self) -> bool:
        """Give a local store's free SQLite pages back to the disk; return whether it did.

        Chroma's SQLite file keeps the pages its write-ahead log and deleted
        records used (MuSiQue-100's first build: 12.7 MB, four fifths of them
        free). When more than :data:`COMPACT_SHARE` of the file is free, this
        runs Chroma's own ``chroma vacuum --path DIR --force`` in a child
        process (its output kept off this process's stdout). A server's files
        are its operator's: nothing is done there.
        """
        if self.local_path is None:
            return False
        path = Path(self.local_path) / "chroma.sqlite3"
        if _free_share(path) <= COMPACT_SHARE:
            return False
        code = "import sys, chromadb_rust_bindings as r; r.cli(['chroma', 'vacuum', '--path', sys.argv[1], '--force'])"
        try:
            done = subprocess.run(
                [sys.executable, "-c", code, self.local_path], capture_output=True, text=True, timeout=600, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            log.warning("could not compact %s (%s); the index works, it is only larger", path, exc)
            return False
        if done.returncode != 0:
            log.warning("could not compact %s (%s); the index works, it is only larger", path, done.stderr.strip()[-300:])
            return False
        return True

    def fingerprints(self, collection: str) -> dict[str, str]:
        coll = self._collection(collection)
        try:
            got = coll.get(include=["metadatas"])
        except Exception as exc:
            raise self._error(f"list {collection!r}", exc) from exc
        return {i: str((m or {}).get("fp", "")) for i, m in zip(got["ids"], got["metadatas"], strict=True)}

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        out: dict[str, np.ndarray] = {}
        wanted = list(dict.fromkeys(ids))

        def read(coll: Any) -> None:
            for i in range(0, len(wanted), 2000):
                got = coll.get(ids=wanted[i : i + 2000], include=["embeddings"])
                for rid, vector in zip(got["ids"], got["embeddings"], strict=True):
                    out[str(rid)] = np.asarray(vector, dtype=np.float32)

        try:
            self._reading(collection, read)
        except Exception as exc:
            raise self._error(f"read vectors of {collection!r}", exc) from exc
        return out

    def query(
        self, collection: str, embedding: np.ndarray, limit: int, where: Where | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        if limit <= 0 or (ids is not None and not ids):
            return []
        chosen = {"ids": list(ids)} if ids is not None else {}

        def read(coll: Any) -> list[tuple[str, float]]:
            if ids is not None and len(ids) <= limit:
                return _exact(coll.get(where=where, include=["embeddings"], **chosen), embedding)
            result = coll.query(
                query_embeddings=[np.asarray(embedding, dtype=np.float32)],
                n_results=limit,
                where=where,
                **chosen,
                include=["distances"],
            )
            # Fewer than asked: a collection of at most ``limit`` records is scanned whole (see _exact). Counted
            # only then: a count per query cost 22 of a query's 37 ms over HTTP at 100k passages.
            if len(result["ids"][0]) < limit and limit >= coll.count():
                return _exact(coll.get(where=where, include=["embeddings"], **chosen), embedding)
            pairs = [(i, round(1.0 - float(d), 5))
                     for i, d in zip(result["ids"][0], result["distances"][0], strict=True)]
            pairs.sort(key=lambda p: (-p[1], p[0]))
            return pairs

        try:
            return self._reading(collection, read)
        except Exception as exc:
            raise self._error(f"query {collection!r}", exc) from exc


def _exact(got: dict[str, Any], embedding: np.ndarray) -> list[tuple[str, float]]:
    """Every record of a Chroma ``get`` ranked by exact cosine similarity to ``embedding``.

    A query that asks for as many records as the collection (or its id list) holds must return all of
    them: HNSW is approximate and can leave a record unreached (one of 84 community reports was missed
    in CI), so such a query scans instead, which costs no more than the graph walk it replaces.
    """
    rids = [str(r) for r in got["ids"]]
    if not rids:
        return []
    matrix = np.asarray(got["embeddings"], dtype=np.float32)
    query = np.asarray(embedding, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1) * (float(np.linalg.norm(query)) or 1.0)
    sims = (matrix @ query) / np.where(norms == 0, 1.0, norms)
    pairs = [(rid, round(float(s), 5)) for rid, s in zip(rids, sims, strict=True)]
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs


def _free_share(path: Path) -> float:
    """The share of a SQLite file's pages that are free (read-only; 0.0 when it cannot tell)."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            free = int(conn.execute("PRAGMA freelist_count").fetchone()[0])
            pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return 0.0
    return free / pages if pages else 0.0


def collection_counts(store: VectorStore) -> dict[str, int | None]:
    """Records in each of :data:`COLLECTIONS` (None: the collection does not exist)."""
    return {name: store.count(name) for name in COLLECTIONS}


def _start_hint(host: str, port: int) -> str:
    return f"Start the server with `chroma run --host {host} --port {port}`, or check the address."


class InMemoryVectorIndex:
    """Exact cosine search over a matrix: the graph store's native similarity search.

    Examples
    --------
    >>> import numpy as np
    >>> idx = InMemoryVectorIndex()
    >>> idx.upsert(["a", "b"], np.array([[1.0, 0.0], [0.0, 1.0]]), [{"k": 1}, {"k": 2}])
    >>> idx.query(np.array([1.0, 0.1]), 1)
    [('a', 1.0)]
    """

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._meta: list[Metadata] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def __len__(self) -> int:
        return len(self._ids)

    def upsert(self, ids: Sequence[str], embeddings: np.ndarray, metadatas: Sequence[Metadata]) -> None:
        vectors = np.asarray(embeddings, dtype=np.float32)
        rows = []
        for rid, meta in zip(ids, metadatas, strict=True):
            if rid in self._row:
                self._meta[self._row[rid]] = meta
            else:
                self._row[rid] = len(self._ids)
                self._ids.append(rid)
                self._meta.append(meta)
            rows.append(self._row[rid])
        if self._matrix.size == 0:
            self._matrix = np.zeros((0, vectors.shape[1]), dtype=np.float32)
        if len(self._ids) > self._matrix.shape[0]:
            grow = np.zeros((len(self._ids) - self._matrix.shape[0], vectors.shape[1]), dtype=np.float32)
            self._matrix = np.vstack([self._matrix, grow])
        self._matrix[rows] = vectors

    def ids(self) -> list[str]:
        """Every record id, in the order first written."""
        return list(self._ids)

    def metadata(self, rid: str) -> Metadata | None:
        """The metadata of record ``rid`` (None: not held)."""
        row = self._row.get(rid)
        return None if row is None else self._meta[row]

    def vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of ``ids`` (float32); ids not held are left out."""
        return {rid: self._matrix[self._row[rid]].copy() for rid in dict.fromkeys(ids) if rid in self._row}

    def query(
        self, embedding: np.ndarray, limit: int, where: Where | None = None, ids: Sequence[str] | None = None
    ) -> list[tuple[str, float]]:
        """The ``limit`` records most similar to ``embedding`` (dot product: vectors are normalised), best
        first, ties by id; ``where`` filters by metadata, ``ids`` restricts to these records."""
        if limit <= 0 or not self._ids:
            return []
        if ids is None:
            rows = np.arange(len(self._ids))
        else:
            rows = np.fromiter(dict.fromkeys(self._row[i] for i in ids if i in self._row), dtype=np.int64)
            if rows.size == 0:
                return []
        matrix = self._matrix if ids is None else self._matrix[rows]
        scores = matrix @ np.asarray(embedding, dtype=np.float32)
        if where is not None:
            test = compile_where(where)
            mask = np.fromiter((test(self._meta[r]) for r in rows), dtype=bool, count=rows.size)
            scores = np.where(mask, scores, -np.inf)
        rounded = np.round(scores, 5)
        # only the records scoring at least the limit-th best are sorted (ties at it included)
        if rounded.size > limit:
            kth = np.partition(rounded, rounded.size - limit)[rounded.size - limit]
            candidates = np.flatnonzero(rounded >= kth)
        else:
            candidates = np.arange(rounded.size)
        names = [self._ids[rows[i]] for i in candidates]
        # ties broken by id, the same rule ChromaVectorStore.query applies
        order = np.lexsort((np.asarray(names), -rounded[candidates]))
        out = []
        for n in order[:limit]:
            i = candidates[n]
            if not np.isfinite(scores[i]):
                break
            out.append((names[n], round(float(scores[i]), 5)))
        return out


#: What :class:`ExactVectorStore` loads of one collection: ids, their vectors (rows), their metadata.
Loaded = tuple[Sequence[str], np.ndarray, Sequence[Metadata]]


class ExactVectorStore:
    """Read-only collections searched exactly with numpy (an :class:`InMemoryVectorIndex` each).

    ``load(collection)`` gives a collection's records, read on first use and
    kept until :meth:`forget`. Scores and ties are Chroma's (cosine similarity
    rounded to 5 digits, ties by id), and ``where`` is the same predicate
    (:mod:`agrag_lab.storage.where`); a write raises :class:`VectorStoreError`.
    The index's read-only open searches its cached embeddings so
    (:class:`agrag_lab.index.vectors.CachedVectorStore`).

    Examples
    --------
    >>> import numpy as np
    >>> held = {"chunks": (["a", "b"], np.array([[1.0, 0.0], [0.0, 1.0]]), [{"k": 1}, {"k": 2}])}
    >>> store = ExactVectorStore(held.__getitem__, "an example")
    >>> store.query("chunks", np.array([0.6, 0.8]), 2), store.query("chunks", np.array([1.0, 0.0]), 2, {"k": 2})
    ([('b', 0.8), ('a', 0.6)], [('b', 0.0)])
    """

    #: Never a Chroma folder or server.
    local_path: str | None = None
    server: tuple[str, int] | None = None

    def __init__(self, load: Callable[[str], Loaded], address: str) -> None:
        self._load = load
        self._address = address
        self._indexes: dict[str, InMemoryVectorIndex] = {}

    def forget(self) -> None:
        """Drop every loaded collection: each is loaded again on next use."""
        self._indexes = {}

    def _index(self, collection: str) -> InMemoryVectorIndex:
        if collection not in self._indexes:
            ids, vectors, metadatas = self._load(collection)
            index = InMemoryVectorIndex()
            if len(ids):
                index.upsert(ids, vectors, metadatas)
            self._indexes[collection] = index
        return self._indexes[collection]

    def describe(self) -> str:
        return self._address

    def _read_only(self, what: str) -> VectorStoreError:
        return VectorStoreError(
            f"{self._address} cannot {what}: it is read-only (an index opened with read_only=True searches its "
            "cached embeddings); open the index without read_only=True to change it")

    def upsert(
        self, collection: str, ids: Sequence[str], embeddings: np.ndarray, documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        raise self._read_only(f"write to {collection!r}")

    def delete(self, collection: str, ids: Sequence[str]) -> None:
        raise self._read_only(f"delete from {collection!r}")

    def fingerprints(self, collection: str) -> dict[str, str]:
        index = self._index(collection)
        return {rid: str((index.metadata(rid) or {}).get("fp", "")) for rid in index.ids()}

    def count(self, collection: str) -> int | None:
        """Records in the collection."""
        return len(self._index(collection))

    def drop(self, collection: str) -> None:
        raise self._read_only(f"delete the collection {collection!r}")

    def compact(self) -> bool:
        """Nothing to give back: the records are in memory."""
        return False

    def vectors(self, collection: str, ids: Sequence[str]) -> dict[str, np.ndarray]:
        return self._index(collection).vectors(ids) if ids else {}

    def query(
        self, collection: str, embedding: np.ndarray, limit: int, where: Where | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        if limit <= 0 or (ids is not None and not ids):
            return []
        return self._index(collection).query(embedding, limit, where, ids)
